package cgtest;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import com.kyhsgeekcode.minecraftenv.VulkanZerocopyRing;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * VulkanZerocopyRing through the JNI natives on a real Vulkan device (lavapipe here), fence
 * mode: the game's frames are recorded into its own command buffer, and a second process (the
 * C learner of test_zc_ring) connects to the ring's socket, imports the exported memory through
 * Vulkan and checks every frame byte for byte. Plus every bad input and state as the exception
 * the architecture names. Usage: RingJniTest PATH_OF_test_zc_ring [PYTHON test_ring.py].
 * With the Python arguments, and a device with exportable timeline semaphores (the GPU
 * machine), also semaphore mode: publishImpl after the game's submit, each descriptor read in
 * lockstep by the real CUDA learner (test_ring.py stdin-cuda), byte-exact. And the RGB slot
 * format (initRgbImpl, recordCursorImpl) read by the Python learner (test_ring.py stdin-rgb):
 * every slot equals the RAW bytes convertCapturedFrameImpl gives for the same frame, flip,
 * resize and cursor, rows reversed. The compute copy (initCopyImpl told the image's usage):
 * copyPathImpl, the frames read byte-exact, the fallback (usage without SAMPLED). And an
 * RGB-D stereo ring (initRgbdImpl; recordDepthImpl, recordEyeImpl per eye, one game submit
 * per eye): the learner process dumps every slot, and each eye's RGB plane must equal
 * convertCapturedFrameImpl's RAW (rows reversed), each depth plane the documented formula
 * (docs/wire-format.md "Depth", written here in double) of the depth uploaded, within 2 float
 * ulps (raw: bit for bit). Exit 77: no Vulkan device.
 */
public final class RingJniTest {
    static native long[] vkSetup(int w, int h);
    static native long[] vkSetupFormat(int w, int h, int format);
    static native long vkBegin(int frame);
    static native boolean vkSubmit();
    static native void vkTeardown();
    static native long[] vkSetupRgbd(int w, int h);
    static native long vkBeginEye(int frame, int eye);
    static native float[] depthPattern(int w, int h, int frame, int eye);
    static native void vkWaitIdle();

    static int failures;
    static final int COLOR_ATTACHMENT_OPTIMAL = 2;

    static void check(boolean ok, String what) {
        System.out.println((ok ? "ok   " : "FAIL ") + what);
        if (!ok) failures++;
    }

    interface Call { void run() throws Exception; }

    static void expect(Class<? extends Throwable> kind, Call c, String what) {
        try {
            c.run();
            check(false, what + ": no " + kind.getSimpleName());
        } catch (Throwable t) {
            check(kind.isInstance(t), what + ": " + t);
        }
    }

    static String hex(ByteString b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b.toByteArray()) s.append(String.format("%02x", x & 0xff));
        return s.toString();
    }

    static long le64(ByteString b, int off) {
        long v = 0;
        for (int i = 7; i >= 0; i--) v = (v << 8) | (b.byteAt(off + i) & 0xff);
        return v;
    }

    static int learner(String exe, List<String> descs) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(exe);
        cmd.add("child-vk-learner");
        cmd.addAll(descs);
        return new ProcessBuilder(cmd).inheritIO().start().waitFor();
    }

    /** Frames 1..n into a fresh w x h ring; the learner process must read them all. */
    static void round(String exe, int w, int h, int slots, int n) throws Exception {
        VulkanZerocopyRing ring = VulkanZerocopyRing.INSTANCE;
        long[] v = vkSetup(w, h);
        expect(IllegalStateException.class, ring::countersImpl, "countersImpl without a ring");
        ByteString t = ring.initImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, slots,
                VulkanZerocopyRing.MODE_FENCE, 0, v[7] != 0);
        check(t.size() == 192 && t.substring(0, 4).toStringUtf8().equals("CGZ2")
                && le64(t, 72) == 0, "template: 192 bytes, CGZ2, frame 0");
        expect(IllegalStateException.class, () -> ring.initImpl(v[0], v[1], v[2], (int) v[3],
                v[4], v[5], w, h, slots, 2, 0, false), "second init");
        check(ring.copyPathImpl() == VulkanZerocopyRing.COPY_PATH_TRANSFER,
                "initImpl (usage unknown): the transfer copy");
        expect(IllegalStateException.class, () -> ring.publishImpl(v[6], COLOR_ATTACHMENT_OPTIMAL),
                "publishImpl on a fence-mode ring");
        expect(IllegalArgumentException.class, () -> ring.recordImpl(0, v[6], 2), "recordImpl cmd 0");
        List<String> descs = new ArrayList<>();
        for (int f = 1; f <= n; f++) {
            long cmd = vkBegin(f);
            ByteString d = ring.recordImpl(cmd, v[6], COLOR_ATTACHMENT_OPTIMAL);
            check(vkSubmit(), "game submit " + f);
            check(d != null && d.size() == 192 && le64(d, 72) == f, "descriptor of frame " + f);
            if (d != null) descs.add(hex(d));
        }
        check(learner(exe, descs) == 0, "learner process read " + w + "x" + h + " frames byte-exact");
        long[] c = ring.countersImpl();
        check(c.length == 5 && c[0] == n && c[1] == 0 && c[3] == 1,
                "countersImpl: " + n + " published, 0 skipped, 1 learner: " + Arrays.toString(c));
        ring.destroyImpl();
    }

    /**
     * A game image of VkFormat {@code format} through initCopyImpl: every descriptor names that
     * format, and the learner process reads the image's bytes exactly. B8G8R8A8_UNORM (44, a
     * swapchain's: before, initImpl had no format and every descriptor said 37: a learner
     * swapped red and blue); R8G8B8A8_SRGB (43) and B8G8R8A8_SRGB (50), which the compute copy
     * reads through a view of their own format and encodes back to the stored bytes once its
     * probe at init passed. imageUsage {@code usage} must give copy path {@code path}.
     */
    static void formatRound(String exe, int w, int h, int format, int usage, int path)
            throws Exception {
        VulkanZerocopyRing ring = VulkanZerocopyRing.INSTANCE;
        long[] v = vkSetupFormat(w, h, format);
        expect(IllegalArgumentException.class, () -> ring.initCopyImpl(v[0], v[1], v[2],
                (int) v[3], v[4], v[5], w, h, 64, 0, 2, VulkanZerocopyRing.MODE_FENCE, 0, false),
                "initCopyImpl imageFormat 64 (A2B10G10R10, not copied as stored)");
        try {
            ring.initCopyImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, 97, 0, 2, 2, 0,
                    false);
        } catch (IllegalArgumentException e) {
            check(e.getMessage().contains("97"), "the refusal names the format: " + e.getMessage());
        }
        ByteString t = ring.initCopyImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, format,
                usage, 2, VulkanZerocopyRing.MODE_FENCE, 0, v[7] != 0);
        String name = "format " + format + ", imageUsage 0x" + Integer.toHexString(usage);
        check((t.byteAt(8) & 0xff) == format && t.byteAt(4) == 1,
                name + ": template names the format, version 1");
        check(ring.copyPathImpl() == path, name + ": copyPathImpl " + ring.copyPathImpl()
                + ", want " + path);
        List<String> descs = new ArrayList<>();
        for (int f = 1; f <= 2; f++) {
            long cmd = vkBegin(f);
            ByteString d = ring.recordImpl(cmd, v[6], COLOR_ATTACHMENT_OPTIMAL);
            check(vkSubmit(), "game submit " + f);
            check(d != null && (d.byteAt(8) & 0xff) == format && le64(d, 72) == f,
                    name + ": descriptor of frame " + f + " names the format");
            if (d != null) descs.add(hex(d));
        }
        check(learner(exe, descs) == 0, name + ": learner process read the frames byte-exact (path "
                + path + ")");
        ring.destroyImpl();
        boolean srgb = format == 43 || format == 50;
        if (srgb && (usage & VulkanZerocopyRing.IMAGE_USAGE_SAMPLED) != 0) {
            // The RGB slot format of the same SRGB image: its dispatch reads the image's view (2),
            // the staging copy only where the probe fails (3, the copy ring's 0 above).
            ring.initRgbImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, format, w, h, true, 2,
                    VulkanZerocopyRing.MODE_FENCE, 0, v[7] != 0);
            int want = path == VulkanZerocopyRing.COPY_PATH_COMPUTE
                    ? VulkanZerocopyRing.COPY_PATH_RGB : VulkanZerocopyRing.COPY_PATH_RGB_STAGING;
            check(ring.copyPathImpl() == want, "format " + format + ", initRgbImpl: copyPathImpl "
                    + ring.copyPathImpl() + ", want " + want);
            ring.destroyImpl();
        }
    }

    static final int IMAGE_TRANSFER_SRC = VulkanZerocopyRing.IMAGE_USAGE_TRANSFER_SRC;
    static final int SAMPLED_TRANSFER_SRC =
            VulkanZerocopyRing.IMAGE_USAGE_SAMPLED | VulkanZerocopyRing.IMAGE_USAGE_TRANSFER_SRC;

    /**
     * The compute copy from Java (docs/zero-copy-v2/producer.md, "The compute copy"): an R8G8B8A8_UNORM
     * image created SAMPLED | TRANSFER_SRC (the helper's image has both, as Minecraft's main
     * target does) and initCopyImpl told so: copyPathImpl 1, and the learner process reads every
     * frame byte-exact; told TRANSFER_SRC only, the same image goes the transfer way (0), read
     * the same. Bad usages are refused, named.
     */
    static void computeRound(String exe, int w, int h, int n) throws Exception {
        VulkanZerocopyRing ring = VulkanZerocopyRing.INSTANCE;
        long[] v = vkSetup(w, h);
        expect(IllegalStateException.class, ring::copyPathImpl, "copyPathImpl without a ring");
        expect(IllegalArgumentException.class, () -> ring.initCopyImpl(v[0], v[1], v[2],
                (int) v[3], v[4], v[5], w, h, 37, -4, 2, VulkanZerocopyRing.MODE_FENCE, 0, false),
                "initCopyImpl imageUsage -4");
        try {
            ring.initCopyImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, 37, 0x10, 2,
                    VulkanZerocopyRing.MODE_FENCE, 0, false);
            check(false, "imageUsage 0x10 (COLOR_ATTACHMENT only): no exception");
            ring.destroyImpl();
        } catch (IllegalArgumentException e) {
            check(e.getMessage().contains("0x10"),
                    "imageUsage 0x10 (neither SAMPLED nor TRANSFER_SRC) refused, named: "
                    + e.getMessage());
        }
        int[][] cases = {{SAMPLED_TRANSFER_SRC, VulkanZerocopyRing.COPY_PATH_COMPUTE},
                {VulkanZerocopyRing.IMAGE_USAGE_TRANSFER_SRC, VulkanZerocopyRing.COPY_PATH_TRANSFER},
                {VulkanZerocopyRing.IMAGE_USAGE_SAMPLED, VulkanZerocopyRing.COPY_PATH_COMPUTE}};
        for (int[] c : cases) {
            String name = w + "x" + h + " imageUsage 0x" + Integer.toHexString(c[0]);
            ring.initCopyImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, 37, c[0], n,
                    VulkanZerocopyRing.MODE_FENCE, 0, v[7] != 0); // a slot a frame: all read after
            check(ring.copyPathImpl() == c[1],
                    name + ": copyPathImpl " + ring.copyPathImpl() + ", want " + c[1]);
            List<String> descs = new ArrayList<>();
            for (int f = 1; f <= n; f++) {
                long cmd = vkBegin(f);
                ByteString d = ring.recordImpl(cmd, v[6], COLOR_ATTACHMENT_OPTIMAL);
                check(vkSubmit(), "game submit " + f);
                check(d != null && (d.byteAt(8) & 0xff) == 37 && le64(d, 72) == f,
                        name + ": descriptor of frame " + f);
                if (d != null) descs.add(hex(d));
            }
            check(learner(exe, descs) == 0, name + ": learner process read the frames byte-exact");
            ring.destroyImpl();
        }
    }

    /**
     * destroyImpl between recordImpl and the game's submit (a crash before: the submit wrote
     * the ring's freed slot memory; lavapipe, 3 of 3). Then a new ring on the device frees the
     * kept memory after its frames fenced the queue.
     */
    static void destroyBeforeSubmit(String exe, int w, int h) throws Exception {
        VulkanZerocopyRing ring = VulkanZerocopyRing.INSTANCE;
        long[] v = vkSetup(w, h);
        // The earlier rounds' rings, all destroyed after their submits completed.
        ring.freeDeferredImpl(v[2]);
        check(ring.deferredCountImpl() == 0, "nothing kept after freeDeferredImpl");
        ring.initImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, 3,
                VulkanZerocopyRing.MODE_FENCE, 0, false);
        long cmd = vkBegin(1);
        check(ring.recordImpl(cmd, v[6], COLOR_ATTACHMENT_OPTIMAL) != null, "recorded");
        ring.destroyImpl();
        check(ring.deferredCountImpl() == 1, "destroy kept the recorded copy's memory");
        for (int i = 0; i < 8; i++) { byte[] junk = new byte[w * h * 4]; junk[0] = 1; }
        check(vkSubmit(), "the game's submit after destroyImpl completes (no fault)");
        round(exe, w, h, 3, 3);
        check(ring.deferredCountImpl() == 1, "the later ring freed the kept memory ("
                + ring.deferredCountImpl() + " kept: the later ring's own)");
        check(ring.freeDeferredImpl(v[2]) == 1 && ring.deferredCountImpl() == 0,
                "freeDeferredImpl before the device goes");
        expect(IllegalArgumentException.class, () -> ring.freeDeferredImpl(0), "freeDeferredImpl(0)");
    }

    /** test_ring.py MODE ARGS..., with the repository's python/ package on its path. */
    static Process startLearner(String python, String script, String... modeAndArgs)
            throws Exception {
        java.io.File pkg = new java.io.File(script).getAbsoluteFile().getParentFile()
                .getParentFile().getParentFile();
        List<String> cmd = new ArrayList<>();
        cmd.add(python);
        cmd.add(script);
        for (String a : modeAndArgs) cmd.add(a);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("PYTHONPATH", new java.io.File(pkg, "python").getPath());
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start();
    }

    /** Semaphore mode through publishImpl, read by the Python CUDA learner. */
    static void semaphoreRound(String python, String script, int w, int h, int n, int usage)
            throws Exception {
        VulkanZerocopyRing ring = VulkanZerocopyRing.INSTANCE;
        long[] v = vkSetup(w, h);
        if (v[8] == 0) {
            System.out.println("SKIP semaphore round: no exportable timeline semaphores here");
            return;
        }
        ring.initCopyImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, 37, usage, 3,
                VulkanZerocopyRing.MODE_SEMAPHORE, 1_000_000_000L, v[7] != 0);
        int path = ring.copyPathImpl();
        check(path == (usage == 0 ? 0 : 1), "semaphore mode, imageUsage 0x"
                + Integer.toHexString(usage) + ": copy path " + path);
        expect(IllegalStateException.class, () -> ring.recordImpl(1, v[6], 2),
                "recordImpl on a semaphore-mode ring");
        Process p = startLearner(python, script, "stdin-cuda", "" + w, "" + h, "" + n);
        java.io.BufferedReader in = new java.io.BufferedReader(
                new java.io.InputStreamReader(p.getInputStream()));
        java.io.Writer out = new java.io.OutputStreamWriter(p.getOutputStream());
        String ready = in.readLine();
        if (ready == null || !ready.equals("ready")) {
            int rc = p.waitFor();
            if (rc == 77) System.out.println("SKIP semaphore round: the learner has no CUDA here");
            else check(false, "CUDA learner did not start (exit " + rc + ")");
            ring.destroyImpl();
            return;
        }
        int good = 0;
        for (int f = 1; f <= n; f++) {
            vkBegin(f);
            vkSubmit(); // the game's frame: submitted before publishImpl, on the same queue
            ByteString d = ring.publishImpl(v[6], COLOR_ATTACHMENT_OPTIMAL);
            if (d == null) break;
            out.write(hex(d) + "\n");
            out.flush();
            String r = in.readLine();
            if ("ok".equals(r)) good++;
        }
        out.close();
        int rc = p.waitFor();
        check(good == n && rc == 0, "semaphore mode, copy path " + path + ": " + good + "/" + n
                + " frames " + w + "x" + h + " byte-exact in the CUDA learner (exit " + rc + ")");
        ring.destroyImpl();
    }

    /** The frame-f pattern ring_jni_helper uploads (zc_test.h), as a direct buffer. */
    static ByteBuffer pattern(int w, int h, int f) {
        ByteBuffer b = ByteBuffer.allocateDirect(w * h * 4);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                b.put((byte) (x * 7 + f * 13)).put((byte) (y * 5 + f * 29));
                b.put((byte) ((x ^ y) + f * 3)).put((byte) (255 - f));
            }
        b.flip();
        return b;
    }

    /**
     * The RGB slot format, the cursor moving, w x h -> tw x th. Fence mode (recordCursorImpl,
     * read through llvmpipe's memfd) or semaphore mode (publishCursorImpl after the game's submit,
     * read by the real CUDA learner: the GPU machine). Every frame must equal the RAW bytes
     * convertCapturedFrameImpl gives for it, rows reversed.
     */
    static void rgbRound(String python, String script, boolean semaphore, int w, int h, int tw,
            int th) throws Exception {
        VulkanZerocopyRing ring = VulkanZerocopyRing.INSTANCE;
        String name = "RGB " + (semaphore ? "semaphore" : "fence") + " " + w + "x" + h + " -> "
                + tw + "x" + th;
        long[] v = vkSetup(w, h);
        if (semaphore && v[8] == 0) {
            System.out.println("SKIP " + name + ": no exportable timeline semaphores here");
            return;
        }
        int mode = semaphore ? VulkanZerocopyRing.MODE_SEMAPHORE : VulkanZerocopyRing.MODE_FENCE;
        expect(IllegalArgumentException.class, () -> ring.initRgbImpl(v[0], v[1], v[2], (int) v[3],
                v[4], v[5], w, h, 99, tw, th, true, 2, mode, 0, false), "initRgbImpl imageFormat 99");
        expect(IllegalArgumentException.class, () -> ring.initRgbImpl(v[0], v[1], v[2], (int) v[3],
                v[4], v[5], w, h, 0, -1, th, true, 2, mode, 0, false), "initRgbImpl target -1 x th");
        ByteString t = ring.initRgbImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, 0, tw, th,
                true, 2, mode, semaphore ? 1_000_000_000L : 0, v[7] != 0);
        check(t.byteAt(4) == 2 && t.byteAt(8) == 23 && (int) (le64(t, 12) & 0xffffffffL) == tw
                && (int) (le64(t, 16) & 0xffffffffL) == th
                && (int) (le64(t, 20) & 0xffffffffL) == tw * 3,
                name + ": template version 2, format 23, target size, pitch");
        check(ring.copyPathImpl() == VulkanZerocopyRing.COPY_PATH_RGB, name + ": copyPathImpl 2");
        Process p = semaphore ? startLearner(python, script, "stdin-rgb", "cuda")
                              : startLearner(python, script, "stdin-rgb");
        java.io.BufferedReader in = new java.io.BufferedReader(
                new java.io.InputStreamReader(p.getInputStream()));
        java.io.Writer out = new java.io.OutputStreamWriter(p.getOutputStream());
        if (!"ready".equals(in.readLine())) {
            int rc = p.waitFor();
            if (rc == 77) System.out.println("SKIP " + name + ": the learner has no CUDA here");
            else check(false, name + ": learner did not start (exit " + rc + ")");
            ring.destroyImpl();
            return;
        }
        // {draw, x, y}: inside, the corner, partly outside, off, hot spot outside, the last pixel.
        int[][] cursors = {{1, 3, 2}, {1, 0, 0}, {1, tw - 2, th - 1}, {0, 5, 5}, {1, -1, 4},
                {1, tw - 1, th - 1}};
        int good = 0, skipped = 0;
        for (int f = 1; f <= cursors.length; f++) {
            int[] c = cursors[f - 1];
            long cmd = vkBegin(f);
            ByteString d;
            if (semaphore) {
                check(vkSubmit(), "game submit " + f); // the frame, then publish on the same queue
                d = ring.publishCursorImpl(v[6], COLOR_ATTACHMENT_OPTIMAL, c[0] == 1, c[1], c[2]);
            } else {
                d = ring.recordCursorImpl(cmd, v[6], COLOR_ATTACHMENT_OPTIMAL, c[0] == 1, c[1],
                        c[2]);
                check(vkSubmit(), "game submit " + f);
            }
            check(d != null && le64(d, 72) == f, name + ": frame " + f + " published");
            if (d == null) break;
            ByteString raw = FramebufferCapturer.INSTANCE.convertCapturedFrameImpl(pattern(w, h, f),
                    w, h, tw, th, 0, true, c[0] == 1, c[1], c[2]);
            byte[] r = raw.toByteArray(), up = new byte[r.length];
            for (int y = 0; y < th; y++)
                System.arraycopy(r, (th - 1 - y) * tw * 3, up, y * tw * 3, tw * 3);
            out.write(hex(d) + " " + hex(ByteString.copyFrom(up)) + "\n");
            out.flush();
            String a = in.readLine();
            if ("ok".equals(a)) good++;
            if ("skip".equals(a)) skipped++;
        }
        out.close();
        int rc = p.waitFor();
        if (skipped > 0)
            System.out.println("note: the slot fds are not llvmpipe memfds: " + name
                    + " bytes unchecked here");
        else
            check(good == cursors.length && rc == 0, name + ": " + good + "/" + cursors.length
                    + " frames equal convertCapturedFrameImpl's RAW, upright");
        ring.destroyImpl();
        if (semaphore) return;
        // A cursor to draw on a copy ring is refused.
        ring.initImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, 2,
                VulkanZerocopyRing.MODE_FENCE, 0, false);
        long cmd = vkBegin(1);
        expect(IllegalArgumentException.class, () -> ring.recordCursorImpl(cmd, v[6],
                COLOR_ATTACHMENT_OPTIMAL, true, 1, 1), "a cursor on a copy ring");
        check(ring.recordCursorImpl(cmd, v[6], COLOR_ATTACHMENT_OPTIMAL, false, 1, 1) != null,
                "recordCursorImpl without a cursor on a copy ring");
        vkSubmit();
        ring.destroyImpl();
    }

    static final int GENERAL = 1;

    static int le32(ByteString b, int off) {
        return (int) (le64(b, off) & 0xffffffffL);
    }

    /** docs/wire-format.md, "Depth": the formula of zZeroToOne in double, then float. */
    static float depthFormula(float d, float n, float f, boolean z01) {
        double nn = n, ff = f, z = z01 ? nn * ff / (nn + d * (ff - nn))
                : 2.0 * nn * ff / (nn + ff + (2.0 * d - 1.0) * (ff - nn));
        return (float) (z / ff);
    }

    static int maxUlp;

    /**
     * An RGB-D ring of {@code eyes} eyes, w x h -> tw x th, frames 1..3 part by part (fence
     * mode: recordEyeImpl into the game's command buffer; semaphore mode: publishEyeImpl after
     * the game's submit of each eye, the GPU machine); the learner process dumps every slot,
     * checked here plane by plane.
     */
    static void rgbdRound(String exe, boolean semaphore, int w, int h, int tw, int th, int eyes,
            int enc, float n, float f, boolean z01) throws Exception {
        VulkanZerocopyRing ring = VulkanZerocopyRing.INSTANCE;
        String name = "RGB-D " + (semaphore ? "semaphore" : "fence") + " " + eyes
                + " eye(s), encoding " + enc + ", " + w + "x" + h + " -> " + tw + "x" + th;
        long[] v = vkSetupRgbd(w, h);
        if (semaphore && v[8] == 0) {
            System.out.println("SKIP " + name + ": no exportable timeline semaphores here");
            return;
        }
        int mode = semaphore ? VulkanZerocopyRing.MODE_SEMAPHORE : VulkanZerocopyRing.MODE_FENCE;
        expect(IllegalArgumentException.class, () -> ring.initRgbdImpl(v[0], v[1], v[2],
                (int) v[3], v[4], v[5], w, h, 0, tw, th, true, 3, mode, 0, false, 3, enc, n, f,
                z01), name + ": 3 eyes");
        expect(IllegalArgumentException.class, () -> ring.initRgbdImpl(v[0], v[1], v[2],
                (int) v[3], v[4], v[5], w, h, 0, tw, th, true, 3, mode, 0, false, eyes,
                VulkanZerocopyRing.DEPTH_LINEAR, 0f, f, z01), name + ": linear with near 0");
        expect(IllegalArgumentException.class, () -> ring.initRgbdImpl(v[0], v[1], v[2],
                (int) v[3], v[4], v[5], w, h, 0, tw, th, true, 3, mode, 0, false, eyes, 7, n, f,
                z01), name + ": depth encoding 7");
        ByteString t = ring.initRgbdImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, 0, tw,
                th, true, 3, mode, 0, v[7] != 0, eyes, enc, n, f, z01);
        check(t.size() == 256 && t.byteAt(4) == 3 && le32(t, 192) == eyes
                && le32(t, 196) == (enc == 0 ? 0 : 100) && le32(t, 228) == enc,
                name + ": template of 256 bytes, version 3, eyes, depth format and encoding");
        long[] img = {v[6], v[9]}, dep = {v[10], v[11]};
        expect(IllegalStateException.class, () -> ring.recordCursorImpl(1, img[0],
                COLOR_ATTACHMENT_OPTIMAL, false, 0, 0), name + ": recordCursorImpl on it");
        /* The frame call of the ring's mode: the other one's refusal (mode)
         * would come first. */
        expect(IllegalArgumentException.class, () -> {
            if (semaphore)
                ring.publishEyeImpl(img[0], COLOR_ATTACHMENT_OPTIMAL, eyes, false, 0, 0);
            else
                ring.recordEyeImpl(1, img[0], COLOR_ATTACHMENT_OPTIMAL, eyes, false, 0, 0);
        }, name + ": eye " + eyes);
        expect(IllegalArgumentException.class, () -> ring.recordEyeImpl(1, img[0],
                COLOR_ATTACHMENT_OPTIMAL, -1, false, 0, 0), name + ": eye -1");
        if (enc == 0)
            expect(IllegalArgumentException.class, () -> ring.recordDepthImpl(1, dep[0], GENERAL,
                    0, n, f, z01), name + ": depth on a ring without depth");
        List<String> descs = new ArrayList<>();
        List<ByteString> ds = new ArrayList<>();
        for (int fr = 1; fr <= 3; fr++) {
            for (int e = 0; e < eyes; e++) {
                long cmd = vkBeginEye(fr, e);
                if (enc != 0) {
                    ByteString p = ring.recordDepthImpl(cmd, dep[e], GENERAL, e, n, f, z01);
                    check(p != null && p.size() == 0, name + ": frame " + fr + " eye " + e
                            + " depth part: more parts needed (empty)");
                }
                ByteString d;
                if (semaphore) {
                    check(vkSubmit(), "game submit"); // the eye's frame, then its colour part
                    d = ring.publishEyeImpl(img[e], COLOR_ATTACHMENT_OPTIMAL, e, false, 0, 0);
                } else {
                    d = ring.recordEyeImpl(cmd, img[e], COLOR_ATTACHMENT_OPTIMAL, e, false, 0, 0);
                    check(vkSubmit(), "game submit");
                }
                boolean last = e == eyes - 1;
                check(d != null && d.size() == (last ? 256 : 0), name + ": frame " + fr + " eye "
                        + e + ": " + (last ? "the descriptor" : "empty"));
                if (last && d != null && d.size() == 256) {
                    check(le64(d, 72) == fr, name + ": descriptor of frame " + fr);
                    descs.add(hex(d));
                    ds.add(d);
                }
            }
        }
        vkWaitIdle(); // semaphore mode: the ring's own submits (the learner reads without waiting)
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("cg-rgbd-jni");
        List<String> cmd = new ArrayList<>();
        cmd.add(exe);
        cmd.add("child-vk-learner");
        cmd.addAll(descs);
        ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
        pb.environment().put("ZC_LEARNER_DUMP", dir.toString());
        check(pb.start().waitFor() == 0, name + ": the learner process read " + ds.size()
                + " frames");
        int good = 0;
        for (ByteString d : ds) {
            long fr = le64(d, 72);
            java.io.File dumpFile = new java.io.File(dir.toFile(), "frame-" + fr + ".bin");
            byte[] slot = java.nio.file.Files.readAllBytes(dumpFile.toPath());
            dumpFile.delete();
            long colorStride = le64(d, 200), depthOff = le64(d, 208), depthStride = le64(d, 216);
            boolean ok = true;
            for (int e = 0; e < eyes; e++) {
                ByteString raw = FramebufferCapturer.INSTANCE.convertCapturedFrameImpl(
                        pattern(w, h, 2 * (int) fr + e), w, h, tw, th, 0, true, false, 0, 0);
                byte[] r = raw.toByteArray();
                for (int y = 0; y < th && ok; y++)
                    for (int i = 0; i < tw * 3; i++)
                        if (slot[(int) (e * colorStride) + y * tw * 3 + i]
                                != r[(th - 1 - y) * tw * 3 + i]) {
                            check(false, name + ": frame " + fr + " eye " + e + " RGB byte " + i
                                    + " of row " + y + " differs from convertCapturedFrameImpl");
                            ok = false;
                            break;
                        }
                if (enc == 0) continue;
                float[] src = depthPattern(w, h, (int) fr, e);
                ByteBuffer pl = ByteBuffer.wrap(slot, (int) (depthOff + e * depthStride),
                        tw * th * 4).slice().order(java.nio.ByteOrder.LITTLE_ENDIAN);
                for (int y = 0; y < th && ok; y++)
                    for (int x = 0; x < tw; x++) {
                        int yb = th - 1 - y, sy = (int) ((long) yb * h / th),
                                sx = (int) ((long) x * w / tw), row = h - 1 - sy; // flip
                        float s = src[row * w + sx], got = pl.getFloat((y * tw + x) * 4);
                        if (enc == VulkanZerocopyRing.DEPTH_RAW) {
                            if (Float.floatToRawIntBits(got) != Float.floatToRawIntBits(s)) {
                                check(false, name + ": frame " + fr + " eye " + e + " raw ("
                                        + x + ", " + y + ") is not the stored float");
                                ok = false;
                                break;
                            }
                            continue;
                        }
                        float want = depthFormula(s, n, f, z01);
                        long u = Math.abs((long) Float.floatToRawIntBits(got)
                                - Float.floatToRawIntBits(want));
                        if (got < 0 || Float.isNaN(got)) u = Long.MAX_VALUE;
                        maxUlp = (int) Math.max(maxUlp, Math.min(u, Integer.MAX_VALUE));
                        if (u > 2) {
                            check(false, name + ": frame " + fr + " eye " + e + " (" + x + ", "
                                    + y + ") of d " + s + " is " + got + ", the formula says "
                                    + want + " (" + u + " ulps)");
                            ok = false;
                            break;
                        }
                    }
            }
            if (ok) good++;
        }
        dir.toFile().delete();
        check(good == 3, name + ": " + good + "/3 frames: RGB planes equal convertCapturedFrameImpl,"
                + " depth planes the formula (max " + maxUlp + " ulp so far)");
        long[] c = ring.countersImpl();
        check(c[0] == 3 && c[1] == 0, name + ": 3 published, 0 skipped: " + Arrays.toString(c));
        ring.destroyImpl();
    }

    public static void main(String[] args) throws Exception {
        System.loadLibrary("ring_helper");
        VulkanZerocopyRing ring = VulkanZerocopyRing.INSTANCE;
        expect(IllegalStateException.class, () -> ring.publishImpl(1, 2), "publish before init");
        expect(IllegalStateException.class, () -> ring.recordImpl(1, 1, 2), "record before init");
        ring.destroyImpl(); // no ring: no-op
        expect(IllegalArgumentException.class,
                () -> ring.initImpl(0, 1, 1, 0, 1, 1, 64, 64, 3, 2, 0, false), "instance 0");
        expect(IllegalArgumentException.class,
                () -> ring.initImpl(1, 1, 1, 0, 1, 1, 64, 64, 3, 3, 0, false), "mode 3");
        expect(IllegalArgumentException.class,
                () -> ring.initImpl(1, 1, 1, 0, 1, 1, 0, 64, 3, 2, 0, false), "width 0");
        expect(IllegalArgumentException.class,
                () -> ring.initImpl(1, 1, 1, 0, 1, 1, 64, 64, 17, 2, 0, false), "17 slots");
        expect(IllegalArgumentException.class,
                () -> ring.initImpl(1, 1, 1, 0, 1, 1, 64, 64, 3, 2, -1, false), "waitNanos -1");
        long[] dev = vkSetup(8, 8);
        if (dev == null) {
            System.out.println("SKIP jvm_vk_ring: no Vulkan device with external memory here");
            System.exit(77);
        }
        round(args[0], 37, 23, 3, 3);
        // Re-initialisation at another size, after destroy.
        round(args[0], 64, 5, 2, 2);
        {
            long[] v = vkSetup(8, 8);
            try {
                ring.initImpl(v[0], v[1], v[2], 99, v[4], v[5], 8, 8, 2, 2, 0, false);
                check(false, "queue family 99: no exception");
                ring.destroyImpl();
            } catch (IllegalArgumentException e) {
                check(e.getMessage().contains("99") && e.getMessage().contains("queue famil"),
                        "queue family 99 refused, named: " + e.getMessage());
            }
        }
        formatRound(args[0], 29, 7, 44, 0, VulkanZerocopyRing.COPY_PATH_TRANSFER);
        formatRound(args[0], 29, 7, 44, SAMPLED_TRANSFER_SRC, VulkanZerocopyRing.COPY_PATH_COMPUTE);
        formatRound(args[0], 29, 7, 43, SAMPLED_TRANSFER_SRC, VulkanZerocopyRing.COPY_PATH_COMPUTE);
        formatRound(args[0], 29, 7, 50, SAMPLED_TRANSFER_SRC, VulkanZerocopyRing.COPY_PATH_COMPUTE);
        formatRound(args[0], 29, 7, 50, IMAGE_TRANSFER_SRC, VulkanZerocopyRing.COPY_PATH_TRANSFER);
        computeRound(args[0], 37, 23, 3);
        computeRound(args[0], 640, 360, 2);
        destroyBeforeSubmit(args[0], 512, 512);
        for (boolean sem : new boolean[] {false, true}) {
            rgbdRound(args[0], sem, 37, 23, 16, 11, 2, VulkanZerocopyRing.DEPTH_LINEAR, 0.05f,
                    1000f, true);
            rgbdRound(args[0], sem, 33, 20, 47, 29, 2, VulkanZerocopyRing.DEPTH_LINEAR, 0.1f, 100f,
                    false);
            rgbdRound(args[0], sem, 64, 48, 64, 48, 1, VulkanZerocopyRing.DEPTH_RAW, 0f, 0f, false);
            rgbdRound(args[0], sem, 41, 23, 19, 29, 2, VulkanZerocopyRing.DEPTH_NONE, 0f, 0f,
                    false);
            rgbdRound(args[0], sem, 1920, 1080, 640, 360, 2, VulkanZerocopyRing.DEPTH_LINEAR, 0.05f,
                    1000f, false);
        }
        System.out.println("RGB-D through the natives: max " + maxUlp + " ulp from the formula");
        expect(IllegalStateException.class, () -> ring.publishImpl(1, 2), "publish after destroy");
        if (args.length >= 3) {
            rgbRound(args[1], args[2], false, 37, 23, 16, 11);
            rgbRound(args[1], args[2], true, 640, 360, 640, 360);
            rgbRound(args[1], args[2], true, 1920, 1080, 640, 360);
            semaphoreRound(args[1], args[2], 640, 360, 200, 0);
            semaphoreRound(args[1], args[2], 1920, 1080, 60, 0);
            semaphoreRound(args[1], args[2], 640, 360, 200, SAMPLED_TRANSFER_SRC);
            semaphoreRound(args[1], args[2], 1920, 1080, 60, SAMPLED_TRANSFER_SRC);
        }
        ring.freeDeferredImpl(dev[2]); // the game's device teardown, as the javadoc asks
        vkTeardown();
        System.out.println(failures == 0 ? "PASS" : failures + " failures");
        System.exit(failures == 0 ? 0 : 1);
    }
}
