package cgbench;

import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The mod's side of the shared-memory round-trip benchmark: starts the peer
 * (shm_bench_peer, which plays the Python side, times the round trips and the
 * Unix-socket limit, and prints the figures), then serves it as the mod does:
 * readActionImpl, then writeObservationImpl of a RAW 640x360 observation.
 * Usage: ShmBench [rounds]  (default 1000); -Dcg.shm.peer=PATH names the peer.
 */
public final class ShmBench {
    static final int OBS = 640 * 360 * 3, BLOCK = 25, WARM = 2 * BLOCK;

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        rounds -= rounds % BLOCK;
        String peerPath = System.getProperty("cg.shm.peer");
        int port = 400000 + (int) (ProcessHandle.current().pid() % 100000);
        Process peer = new ProcessBuilder(peerPath, Integer.toString(port), Integer.toString(rounds))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(
                new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII));
        String line = out.readLine();
        if (!"ready".equals(line)) throw new IllegalStateException("peer: " + line);

        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        String p2j = "/craftground_" + port + "_p2j", j2p = "/craftground_" + port + "_j2p";
        fc.readInitialEnvironmentImpl(p2j, port);
        fc.writeObservationImpl(p2j, j2p, new byte[] {1, 2, 3});
        byte[] obs = new byte[OBS];
        for (int i = 0; i < OBS; i++) obs[i] = (byte) (i * 31);
        byte[] action = null;
        for (int r = 0; r < WARM + rounds; r++) {
            action = fc.readActionImpl(p2j, action);
            fc.writeObservationImpl(p2j, j2p, obs);
        }
        while ((line = out.readLine()) != null) System.out.println(line);
        int rc = peer.waitFor();
        if (rc != 0) throw new IllegalStateException("peer exited with " + rc);
    }
}
