package cgtest;

import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Allocation failures under the JNI natives, in a real JVM: with libcg_failalloc.so preloaded,
 * the Nth allocation made by libnative-lib.so, libpng or zlib fails (the JVM's own never do),
 * for every N a call reaches. Each failure must be an OutOfMemoryError or, for the PNG
 * encoder's own failures, a RuntimeException (never a crash, a wrong result or another
 * exception); the next call must return the right bytes, and the native side must not keep
 * more blocks than before. RAW/PNG conversion against the Java reference; the GL natives on a
 * headless context against a call made without failures. The GL sweep also runs each
 * iteration on a fresh thread, so the per-thread reader's creation is swept too.
 */
public final class FaultTest {
    static final String SCOPE = "libnative-lib.so,libpng,libz.so";
    static final FramebufferCapturer FC = FramebufferCapturer.INSTANCE;

    interface Call {
        byte[] run();
    }

    interface Runner {
        byte[] run(Call c) throws Exception;
    }

    static byte[] floats(float[] f) {
        ByteBuffer b = ByteBuffer.allocate(f.length * 4);
        for (float v : f) b.putFloat(v);
        return b.array();
    }

    static long settledLive(long base) throws InterruptedException {
        // A finished thread's native state is freed by its TLS destructor, which may run a
        // moment after join() returns.
        long live = FailAlloc.live();
        for (int i = 0; i < 200 && live != base; i++) {
            Thread.sleep(10);
            live = FailAlloc.live();
        }
        return live;
    }

    /**
     * A PNG call's bytes with nothing failing, once decoded (by the JDK: outside the sweep,
     * since its decoder uses zlib too and frees it only when collected) and checked against
     * want: the encoder is deterministic, so later calls must give the same bytes.
     */
    static byte[] checkedPng(Call c, int w, int h, byte[] want, String name) throws Exception {
        byte[] png = c.run();
        Ref.checkBytes(Ref.decodePng(png, w, h), want, name + ": decoded");
        return png;
    }

    static void sweep(String name, Call call, byte[] want, Runner runner) throws Exception {
        Ref.checkBytes(runner.run(call), want, name + ": before the sweep");
        Ref.check(FailAlloc.arm(0, SCOPE), "arm: is libcg_failalloc.so preloaded?");
        // The count once the warm-up call's thread (if it was a fresh one) has freed its state.
        Thread.sleep(200);
        long base = FailAlloc.live();
        int n = 1, oom = 0, rte = 0;
        for (;; n++) {
            final int nth = n;
            AtomicReference<Throwable> err = new AtomicReference<>();
            AtomicReference<Boolean> fired = new AtomicReference<>(false);
            byte[] got = runner.run(() -> {
                FailAlloc.arm(nth, SCOPE);
                try {
                    return call.run();
                } catch (OutOfMemoryError | RuntimeException e) {
                    err.set(e);
                    return null;
                } finally {
                    fired.set(FailAlloc.fired());
                    FailAlloc.disarm();
                }
            });
            Throwable e = err.get();
            if (!fired.get()) {
                Ref.check(e == null, name + ": no allocation failed, yet " + e);
                Ref.checkBytes(got, want, name + ": no allocation failed");
                break;
            }
            if (e == null) {
                Ref.checkBytes(got, want, name + ": allocation " + n + " failed, the call succeeded");
            } else if (e instanceof OutOfMemoryError) {
                oom++;
            } else if (e.getClass() == RuntimeException.class) {
                rte++;
            } else {
                Ref.check(false, name + ": allocation " + n + " failed with " + e);
            }
            Ref.checkBytes(runner.run(call), want, name + ": the call after failing allocation " + n);
            long live = settledLive(base);
            Ref.check(live == base, name + ": failing allocation " + n + " left " + (live - base)
                    + " blocks behind");
        }
        if (n == 1) {
            System.out.printf("%s: makes no native allocation%n", name);
        } else {
            System.out.printf("%s: each of its %d allocations failed in turn: %d OutOfMemoryError, "
                    + "%d RuntimeException; every next call exact, no block left%n", name, n - 1, oom, rte);
        }
    }

    static byte[] onThisThread(Call c) {
        return c.run();
    }

    /** On a new thread with the GL context current there, released before it ends. */
    static byte[] onFreshGlThread(Call c) throws Exception {
        AtomicReference<byte[]> out = new AtomicReference<>();
        AtomicReference<Throwable> err = new AtomicReference<>();
        Ref.check(GlHelper.makeCurrent(false), "release on main");
        Thread t = new Thread(() -> {
            try {
                Ref.check(GlHelper.makeCurrent(true), "current on the fresh thread");
                out.set(c.run());
            } catch (Throwable e) {
                err.set(e);
            } finally {
                GlHelper.makeCurrent(false);
            }
        });
        t.start();
        t.join();
        Ref.check(GlHelper.makeCurrent(true), "current on main again");
        if (err.get() != null) throw new AssertionError(err.get());
        return out.get();
    }

    public static void main(String[] args) throws Exception {
        int w = 61, h = 37;
        byte[] rgba = Ref.pattern(w, h, 5);
        ByteBuffer src = Ref.direct(rgba);
        sweep("convert RAW", () -> FC.convertCapturedFrameImpl(src, w, h, w, h, FramebufferCapturer.RAW,
                true, true, 3, 4).toByteArray(), Ref.convert(rgba, w, h, w, h, true, true, 3, 4),
                FaultTest::onThisThread);
        Call convertPng = () -> FC.convertCapturedFrameImpl(src, w, h, 30, 20, FramebufferCapturer.PNG,
                true, true, 3, 4).toByteArray();
        sweep("convert PNG", convertPng, checkedPng(convertPng, 30, 20,
                Ref.convert(rgba, w, h, 30, 20, true, true, 3, 4), "convert PNG"), FaultTest::onThisThread);

        String ctx = GlHelper.open();
        if (ctx == null) {
            System.out.println("no GL context: GL natives not swept");
            Ref.finish("FaultTest");
            return;
        }
        int[] scene = GlHelper.createScene(w, h);
        Ref.check(scene != null, "scene");
        Ref.check(GlHelper.drawColor(scene[0], new int[] {10, 20, 30},
                new int[] {0, 0, 30, 20, 255, 0, 0, 20, 10, 61, 37, 0, 255, 0}), "draw");
        Ref.check(GlHelper.drawDepth(scene[0], new double[] {0, 0, 30, 37, 2.5, 30, 0, 61, 20, 40.0},
                0.1, 100.0, false) == 0, "depth");
        Call raw = () -> FC.captureFramebufferImpl(scene[1], w, h, w, h, FramebufferCapturer.RAW, false,
                true, 5, 5).toByteArray();
        Call pngCall = () -> FC.captureFramebufferImpl(scene[1], w, h, 40, 30, FramebufferCapturer.PNG,
                false, false, 0, 0).toByteArray();
        Call depth = () -> floats(FC.captureDepthImpl(scene[2], w, h, true, 0.1f, 100f, false));
        // Expected: the same calls with nothing failing (their bytes are checked against the
        // scene by jvm_gl_capture).
        sweep("captureFramebufferImpl RAW", raw, raw.run(), FaultTest::onThisThread);
        sweep("captureFramebufferImpl PNG", pngCall, pngCall.run(), FaultTest::onThisThread);
        sweep("captureDepthImpl", depth, depth.run(), FaultTest::onThisThread);
        sweep("captureFramebufferImpl RAW, fresh thread", raw, raw.run(), FaultTest::onFreshGlThread);
        Ref.finish("FaultTest");
    }
}
