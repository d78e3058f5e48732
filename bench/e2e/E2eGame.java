package cgbench;

import cgcapture.wire.ObservationProto.ObservationSpaceMessage;
import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import com.kyhsgeekcode.minecraftenv.VulkanCudaZerocopy;
import com.kyhsgeekcode.minecraftenv.VulkanZerocopyRing;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * One game of the end-to-end benchmark (bench/e2e/e2e_bench.py is the learner that starts N of
 * these; docs/benchmarks.md, "End to end"). It renders a changing scene with Vulkan
 * (libe2e_game: a compute dispatch of configurable GPU cost into a 640x360 RGBA8 image), captures
 * it through the real natives (libnative-lib) in the mode the learner asks for, and sends an
 * ObservationSpaceMessage over a Unix socket per step, in lockstep with the learner's actions.
 *
 * <p>Usage: E2eGame SOCKET_PATH GAME_INDEX. Learner to game: 5 little-endian ints {cmd, a, b, c,
 * d}: cmd 1 CONFIG (a mode, b target width, c target height, d iters | sync << 24), 2 STEP (a
 * action), 3 CALIBRATE (a iters: the render's GPU time), 4 QUIT. Game to learner: a 48-byte
 * header {int payload length, int kind, long step CPU ns, long CPU ns after the render, long
 * frame, long extra, long wall ns after the render} and the payload; kind 0 an observation
 * (payload: the message; the CPU and wall figures: the step before's; extra 1: the ring skipped
 * the frame), 1 ready (payload: the v2
 * template, v1's IPC handle or text; extra: the ring's copy path | 0x100 in semaphore mode), 2
 * error (text), 3 mode unavailable here (text). Step CPU: the thread's CPU time for the whole
 * step, from the action read to the observation sent: the render's recording and submit, every
 * fence wait (the frame's own, or in v2 semaphore mode the frame before the last's), the capture,
 * the message and the send. CPU after the render: the same from the render recorded on (submit,
 * fence wait, capture, message, send). Wall after the render: the time the game's thread spends
 * on that part (System.nanoTime), a fence wait counted whole whether the driver spins or sleeps
 * in it: what the observation holds the game's step up by.
 */
public final class E2eGame {
    static native long[] vkSetup(int w, int h);
    static native double renderGpuMs(int iters, int reps);
    static native long vkRender(int frame, int action, int iters);
    static native void vkRecordReadback();
    static native boolean vkSubmit(boolean waitFence);
    static native ByteBuffer readback();
    static native long threadCpuNanos();
    static native long[] exportImage();
    static native byte[] deviceUuid();
    static native void vkIdle();
    static native void vkTeardown();

    static final int W = 640, H = 360;
    static final int NONE = 0, RAW = 1, PNG = 2, V1 = 3, V2_RGBA = 4, V2_RGB = 5, NOWAIT = 6;
    static final int COLOR_ATTACHMENT_OPTIMAL = 2;
    static final int SYNC_AUTO = 0, SYNC_FENCE = 1, SYNC_SEMAPHORE = 2;

    final SocketChannel ch;
    final ByteBuffer in = ByteBuffer.allocateDirect(20).order(ByteOrder.LITTLE_ENDIAN);
    final ByteBuffer hdr = ByteBuffer.allocateDirect(48).order(ByteOrder.LITTLE_ENDIAN);
    long[] v;
    int mode = NONE, tw = W, th = H, iters, frame;
    boolean semaphore, ring, v1;
    ByteString v1Handle;
    ByteBuffer rb;

    E2eGame(SocketChannel ch) { this.ch = ch; }

    void readCmd() throws IOException {
        in.clear();
        while (in.hasRemaining())
            if (ch.read(in) < 0) throw new IOException("learner closed the socket");
        in.flip();
    }

    void reply(int kind, long cpu, long cpuAfterRender, long extra, byte[] payload)
            throws IOException {
        hdr.clear();
        hdr.putInt(payload.length).putInt(kind).putLong(cpu).putLong(cpuAfterRender);
        hdr.putLong(frame).putLong(extra).putLong(lastWallAfterRender).flip();
        ByteBuffer[] b = {hdr, ByteBuffer.wrap(payload)};
        long want = 48L + payload.length;
        while (want > 0) want -= ch.write(b);
    }

    void text(int kind, String s) throws IOException {
        reply(kind, 0, 0, 0, s.getBytes(StandardCharsets.UTF_8));
    }

    void stopRing() {
        if (v1) {
            VulkanCudaZerocopy.INSTANCE.destroyCudaImportImpl();
            v1 = false;
        }
        if (ring) {
            vkIdle(); // the ring's last copy has run; fence-mode rings keep nothing then
            VulkanZerocopyRing.INSTANCE.destroyImpl();
            VulkanZerocopyRing.INSTANCE.freeDeferredImpl(v[2]);
            ring = false;
        }
    }

    void config(int m, int w, int h, int d) throws IOException {
        stopRing();
        mode = m;
        tw = w;
        th = h;
        iters = d & 0xffffff;
        int sync = d >>> 24;
        semaphore = sync == SYNC_SEMAPHORE || (sync == SYNC_AUTO && v[8] != 0);
        if (semaphore && v[8] == 0 && m >= V2_RGBA) {
            text(3, "no exportable timeline semaphores on this device (semaphore mode)");
            return;
        }
        VulkanZerocopyRing r = VulkanZerocopyRing.INSTANCE;
        int rmode = semaphore ? VulkanZerocopyRing.MODE_SEMAPHORE : VulkanZerocopyRing.MODE_FENCE;
        long waitNanos = 100_000_000L; // a slot still held: wait before skipping the frame
        try {
            ByteString t;
            switch (m) {
                case NONE: case RAW: case PNG: case NOWAIT:
                    text(1, "");
                    return;
                case V1: {
                    long[] e = exportImage();
                    if (e == null) {
                        text(3, "v1: the game image's memory cannot be exported here");
                        return;
                    }
                    // The fd is the natives' from here, whatever the outcome.
                    v1Handle = VulkanCudaZerocopy.INSTANCE.importVulkanMemoryAndInitCudaIpcImpl(
                            e[0], e[1], deviceUuid(), W, H, false);
                    v1 = true;
                    reply(1, 0, 0, 0, v1Handle.toByteArray());
                    return;
                }
                case V2_RGBA:
                    t = r.initCopyImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], W, H, 37,
                            VulkanZerocopyRing.IMAGE_USAGE_SAMPLED
                                    | VulkanZerocopyRing.IMAGE_USAGE_TRANSFER_SRC,
                            3, rmode, waitNanos, v[7] != 0);
                    break;
                case V2_RGB:
                    t = r.initRgbImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], W, H, 0, tw, th,
                            true, 3, rmode, waitNanos, v[7] != 0);
                    break;
                default:
                    text(2, "mode " + m);
                    return;
            }
            ring = true;
            reply(1, 0, 0, r.copyPathImpl() | (semaphore ? 0x100 : 0), t.toByteArray());
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            text(3, (m == V1 ? "v1 (CUDA IPC): " : "") + e);
        }
    }

    void step(int action) throws IOException {
        frame++;
        long c0 = threadCpuNanos();
        long cmd = vkRender(frame, action, iters);
        if (cmd == 0) throw new IOException("vkRender failed");
        long c1 = threadCpuNanos(), w1 = System.nanoTime();
        ObservationSpaceMessage.Builder msg = ObservationSpaceMessage.newBuilder();
        VulkanZerocopyRing r = VulkanZerocopyRing.INSTANCE;
        ByteString d = null;
        switch (mode) {
            case NONE:
                if (!vkSubmit(true)) throw new IOException("submit");
                break;
            case NOWAIT: // no capture and no wait: the frame stays in flight (two at most)
                if (!vkSubmit(false)) throw new IOException("submit");
                break;
            case RAW: case PNG:
                vkRecordReadback();
                if (!vkSubmit(true)) throw new IOException("submit");
                msg.setImage(FramebufferCapturer.INSTANCE.convertCapturedFrameImpl(rb, W, H, tw,
                        th, mode == RAW ? FramebufferCapturer.RAW : FramebufferCapturer.PNG, true,
                        false, 0, 0));
                break;
            case V1: // the predecessor's design: fence wait, then the natives' CUDA copy
                if (!vkSubmit(true)) throw new IOException("submit");
                VulkanCudaZerocopy.INSTANCE.copyImportedArrayToCudaSharedMemoryImpl();
                msg.setIpcHandle(v1Handle);
                break;
            default:
                if (semaphore) {
                    if (!vkSubmit(false)) throw new IOException("submit");
                    d = r.publishImpl(v[6], COLOR_ATTACHMENT_OPTIMAL);
                } else {
                    d = r.recordImpl(cmd, v[6], COLOR_ATTACHMENT_OPTIMAL);
                    if (!vkSubmit(true)) throw new IOException("submit");
                }
                if (d != null) msg.setIpcHandle(d);
        }
        byte[] out = msg.build().toByteArray();
        int skipped = d == null && (mode == V2_RGBA || mode == V2_RGB) ? 1 : 0;
        reply(0, lastCpu, lastCpuAfterRender, skipped, out);
        // This step's CPU and wall time, send included, go in the next step's header.
        long c2 = threadCpuNanos();
        lastWallAfterRender = System.nanoTime() - w1;
        lastCpu = c2 - c0;
        lastCpuAfterRender = c2 - c1;
    }

    long lastCpu, lastCpuAfterRender, lastWallAfterRender;

    void run() throws IOException {
        v = vkSetup(W, H);
        if (v == null) {
            text(3, "no Vulkan device with external memory here");
            return;
        }
        rb = readback();
        text(1, "ready " + (v[8] != 0 ? "timeline" : "fence-only"));
        while (true) {
            readCmd();
            int cmd = in.getInt(), a = in.getInt(), b = in.getInt(), c = in.getInt();
            int d = in.getInt();
            if (cmd == 1) {
                config(a, b, c, d);
            } else if (cmd == 2) {
                step(a);
            } else if (cmd == 3) {
                double ms = renderGpuMs(a, 9);
                text(1, Double.toString(ms));
            } else {
                break;
            }
        }
        stopRing();
        vkTeardown();
    }

    public static void main(String[] args) throws Exception {
        System.loadLibrary("e2e_game");
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(args[0]));
        ByteBuffer hello = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        hello.putInt(Integer.parseInt(args[1])).flip();
        while (hello.hasRemaining()) ch.write(hello);
        new E2eGame(ch).run();
        ch.close();
    }
}
