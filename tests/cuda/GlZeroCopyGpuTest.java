package cgtest;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;

/**
 * The GL zero-copy path through the JNI natives on a real GPU, as the mod
 * drives it on its render thread: a test-only helper makes a headless EGL
 * context current on this thread and fills a texture each frame;
 * initializeZerocopyImpl returns the handle, captureFramebufferZerocopyImpl
 * returns null per frame, and a second process (consumer.py --flip) checks
 * every frame as RGBA HxWx4 after flipping GL's bottom-up rows. Then the
 * refusals: double init, another size, a non-texture. Exits 77 without EGL
 * or a CUDA device. Usage: GlZeroCopyGpuTest <consumer.py>
 */
public final class GlZeroCopyGpuTest {
    static native int glSetup(int w, int h);
    static native boolean glFrame(int tex, int w, int h, int f);
    static native void glTeardown();

    private static int failures;

    private static void check(boolean ok, String what) {
        System.out.println((ok ? "ok   " : "FAIL ") + what);
        if (!ok) failures++;
    }

    private static void skip(String why) {
        System.out.println("SKIP: " + why);
        System.exit(77);
    }

    public static void main(String[] args) throws Exception {
        System.loadLibrary("zc_helper");
        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        final int w = 640, h = 360, frames = 40;
        int tex = glSetup(w, h);
        if (tex < 0) skip("no EGL context");
        ByteString handle = null;
        try {
            handle = fc.initializeZerocopyImpl(w, h, 4242);
        } catch (UnsupportedOperationException e) {
            skip("built without CUDA: " + e.getMessage());
        } catch (IllegalStateException e) {
            if (e.getMessage() != null && e.getMessage().contains("not rendered by a CUDA"))
                skip("GL context not on a CUDA GPU: " + e.getMessage());
            throw e;
        } catch (RuntimeException e) {
            String m = e.getMessage() == null ? "" : e.getMessage();
            if (m.contains("cudaErrorNoDevice") || m.contains("cudaErrorInsufficientDriver"))
                skip("no CUDA device: " + m);
            throw e;
        }
        check(handle.size() == 68, "handle has 68 bytes (" + handle.size() + ")");
        try {
            fc.initializeZerocopyImpl(w, h, 4242);
            check(false, "second initializeZerocopyImpl refused");
        } catch (IllegalStateException e) {
            check(true, "second init: " + e.getMessage());
        }

        Consumer c = new Consumer(args[0], handle, w, h, true);
        if (c.greeting != null && c.greeting.startsWith("SKIP")) skip("consumer: " + c.greeting);
        check("READY".equals(c.greeting), "consumer opened the handle (" + c.greeting + ")");
        int ok = 0;
        for (int f = 0; f < frames; f++) {
            if (!glFrame(tex, w, h, f)) {
                check(false, "helper frame " + f);
                break;
            }
            ByteString r = fc.captureFramebufferZerocopyImpl(tex, w, h, false, 0, 0);
            if (r != null) {
                check(false, "capture returned non-null " + r);
                break;
            }
            String line = c.frame(f);
            if (line == null || !line.startsWith("OK")) {
                check(false, "frame " + f + ": consumer said " + line);
                break;
            }
            ok++;
        }
        int rc = c.finish();
        check(ok == frames && rc == 0, "consumer process checked " + ok + "/" + frames
                + " flipped frames byte-exact (exit " + rc + ")");
        try {
            fc.captureFramebufferZerocopyImpl(tex, w / 2, h, false, 0, 0);
            check(false, "another target size refused");
        } catch (IllegalArgumentException e) {
            check(true, "another size: " + e.getMessage());
        }
        try {
            fc.captureFramebufferZerocopyImpl(987654, w, h, false, 0, 0);
            check(false, "non-texture refused");
        } catch (IllegalArgumentException e) {
            check(true, "non-texture: " + e.getMessage());
        }
        check(fc.captureFramebufferZerocopyImpl(tex, w, h, true, 5, 5) == null,
              "capture with the cursor still works afterwards");
        glTeardown();
        if (failures != 0) {
            System.out.println(failures + " failure(s)");
            System.exit(1);
        }
        System.out.println("all JVM GL zero-copy GPU checks passed");
    }
}
