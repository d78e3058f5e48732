package cgbench;

import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The mod's side of the shared-memory round-trip benchmark. Starts the peer
 * (the Python side: shm_bench_peer.c or shm_bench_peer.py, which times every
 * step and prints the figures) and serves it in alternating blocks of rounds:
 * over the channel as the mod does (readActionImpl, then writeObservationImpl
 * of a RAW 640x360 observation), then over a Unix SocketChannel between the
 * same two processes (read the 24-byte action, write the same observation
 * bytes from the same byte[]): the limit, measured in the same run.
 * Usage: ShmBench [rounds [peer command...]]  (default 1000 rounds and
 * -Dcg.shm.peer); the peer gets PORT ROUNDS SOCKET_PATH appended.
 */
public final class ShmBench {
    static final int OBS = 640 * 360 * 3, ACTION = 24, BLOCK = 25, WARM_BLOCKS = 2;

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        rounds -= rounds % BLOCK;
        List<String> cmd = new ArrayList<>();
        if (args.length > 1)
            cmd.addAll(Arrays.asList(args).subList(1, args.length));
        else
            cmd.add(System.getProperty("cg.shm.peer"));
        long pid = ProcessHandle.current().pid();
        int port = 400000 + (int) (pid % 100000);
        Path sockPath = Path.of(System.getProperty("java.io.tmpdir"), "cg_shm_bench_" + pid + ".sock");
        Files.deleteIfExists(sockPath);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(sockPath));
        cmd.addAll(List.of(Integer.toString(port), Integer.toString(rounds), sockPath.toString()));
        Process peer = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(
                new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII));
        String line = out.readLine();
        if (!"ready".equals(line)) throw new IllegalStateException("peer: " + line);
        SocketChannel sock = server.accept();
        Files.deleteIfExists(sockPath);

        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        String p2j = "/craftground_" + port + "_p2j", j2p = "/craftground_" + port + "_j2p";
        fc.readInitialEnvironmentImpl(p2j, port);
        fc.writeObservationImpl(p2j, j2p, new byte[] {1, 2, 3});
        byte[] obs = new byte[OBS];
        for (int i = 0; i < OBS; i++) obs[i] = (byte) (i * 31);
        byte[] action = null;
        ByteBuffer act = ByteBuffer.allocate(ACTION), obsBuf = ByteBuffer.wrap(obs);
        for (int b = -WARM_BLOCKS; b < rounds / BLOCK; b++) {
            for (int i = 0; i < BLOCK; i++) {
                action = fc.readActionImpl(p2j, action);
                fc.writeObservationImpl(p2j, j2p, obs);
            }
            for (int i = 0; i < BLOCK; i++) {
                act.clear();
                while (act.hasRemaining())
                    if (sock.read(act) < 0) throw new IllegalStateException("peer closed the socket");
                obsBuf.clear();
                while (obsBuf.hasRemaining()) sock.write(obsBuf);
            }
        }
        while ((line = out.readLine()) != null) System.out.println(line);
        int rc = peer.waitFor();
        sock.close();
        server.close();
        if (rc != 0) throw new IllegalStateException("peer exited with " + rc);
    }
}
