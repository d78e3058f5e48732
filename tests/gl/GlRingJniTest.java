package cgtest;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import com.kyhsgeekcode.minecraftenv.GlZerocopyRing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * GlZerocopyRing through the JNI natives on a real GL context (libgltest's headless EGL:
 * llvmpipe here, the NVIDIA driver on the GPU machine): frames of the zero-copy test pattern
 * uploaded into the game's texture are published, and a second process (the C learner of
 * test_zc_ring) connects to the ring's socket, imports the memory through Vulkan and checks
 * every frame byte for byte. Plus every bad input and state as the exception the architecture
 * names; the compute copy (initCopyImpl told GL_RGBA8, copyPathImpl) and its fallback, read the
 * same way. Usage: GlRingJniTest PATH_OF_test_zc_ring. Exit 77: no EGL context, or a GL without
 * GL_EXT_memory_object_fd (the exception says so). The ring runs in the mode the driver picks:
 * fence mode on llvmpipe (complete on return); in semaphore mode (the GPU machine) this
 * learner does not wait on the timeline, but it starts after the publishes returned and GL
 * flushed them, and a process start plus a Vulkan device outlasts a 40x30 pack by orders of
 * magnitude; gl_ring_semaphore is the check that waits on the timeline.
 */
public final class GlRingJniTest {
    // check / expect / hex / learner and the failure count: RingJniTest's (same package).
    static void check(boolean ok, String what) {
        RingJniTest.check(ok, what);
    }

    static void expect(Class<? extends Throwable> kind, RingJniTest.Call c, String what) {
        RingJniTest.expect(kind, c, what);
    }

    static int le32(ByteString b, int off) {
        int v = 0;
        for (int i = 3; i >= 0; i--) v = (v << 8) | (b.byteAt(off + i) & 0xff);
        return v;
    }

    /**
     * The RGB slot format: the slot, read by the learner process (which dumps it), equals the
     * RAW observation of the same frame (captureFramebufferImpl: GL's readback and the CPU
     * converter, rows bottom-up) with its rows reversed, cursor included.
     */
    static void rgbRound(GlZerocopyRing ring, String learner, int texture, int w, int h)
            throws Exception {
        final int tw = 17, th = 11, cx = 4, cy = 3;
        expect(IllegalArgumentException.class, () -> ring.initRgbImpl(w, h, -1, 5, 2, 2, 0),
                "target -1x5");
        expect(IllegalArgumentException.class, () -> ring.initRgbImpl(w, h, 16385, 5, 2, 2, 0),
                "target 16385x5");
        expect(IllegalArgumentException.class, () -> ring.initRgbImpl(w, h, 0, 5, 2, 2, 0),
                "target 0x5");
        ByteString t = ring.initRgbImpl(w, h, tw, th, 2, GlZerocopyRing.MODE_FENCE, 0);
        check(le32(t, 8) == 23 && le32(t, 12) == tw && le32(t, 16) == th && le32(t, 20) == tw * 3
                && t.byteAt(4) == 2 && le32(t, 68) == 0,
                "RGB template: format 23, version 2, " + tw + "x" + th + ", rows upright");
        check(ring.copyPathImpl() == GlZerocopyRing.COPY_PATH_RGB, "RGB ring: copyPathImpl 2");
        expect(IllegalArgumentException.class, () -> ring.publishCursorImpl(0, true, 1, 1),
                "publishCursorImpl texture 0");
        check(GlHelper.uploadPattern(texture, w, h, 5), "upload");
        ByteString d = ring.publishCursorImpl(texture, true, cx, cy);
        check(d != null && le32(d, 72) == 1, "RGB frame 1");
        byte[] raw = FramebufferCapturer.INSTANCE.captureFramebufferImpl(texture, w, h, tw, th,
                FramebufferCapturer.RAW, false, true, cx, cy).toByteArray();
        Path dir = Files.createTempDirectory("cg-gl-rgb");
        ProcessBuilder pb = new ProcessBuilder(learner, "child-vk-learner",
                d == null ? "" : RingJniTest.hex(d)).inheritIO();
        pb.environment().put("ZC_LEARNER_DUMP", dir.toString());
        check(pb.start().waitFor() == 0, "learner process read the RGB frame");
        Path f = dir.resolve("frame-1.bin");
        byte[] slot = Files.exists(f) ? Files.readAllBytes(f) : new byte[0];
        int row = tw * 3, bad = slot.length == raw.length ? 0 : -1;
        for (int y = 0; bad >= 0 && y < th; y++)
            for (int i = 0; i < row; i++)
                if (slot[y * row + i] != raw[(th - 1 - y) * row + i]) bad++;
        check(bad == 0 && raw.length == row * th, "RGB slot == RAW observation upright ("
                + slot.length + " bytes, " + bad + " differ)");
        Files.deleteIfExists(f);
        Files.deleteIfExists(dir);
        ring.destroyImpl();
        // A copying ring draws no cursor.
        ring.initImpl(w, h, 2, GlZerocopyRing.MODE_FENCE, 0);
        expect(IllegalArgumentException.class, () -> ring.publishCursorImpl(texture, true, 1, 1),
                "cursor on a copying ring");
        ByteString c = ring.publishCursorImpl(texture, false, 1, 1);
        check(c != null && le32(c, 72) == 1 && le32(c, 8) == 37, "no cursor on a copying ring: frame 1");
        long[] n = ring.countersImpl();
        check(n.length == 5 && n[0] == 1 && n[1] == 0 && n[3] == 0,
                "countersImpl: 1 published, 0 skipped, no learner: " + java.util.Arrays.toString(n));
        ring.destroyImpl();
    }

    /**
     * The compute copy from Java (docs/zero-copy-v2/producer.md, "The compute copy"): initCopyImpl told
     * GL_RGBA8 (the scene's texture, as Minecraft's main target) reports copyPathImpl 1 and the
     * learner process reads frames 1..3 byte-exact, in GL's rows as glReadPixels gives them; told
     * 0 (unknown) or GL_SRGB8_ALPHA8 the same texture goes through glReadPixels (0), read the
     * same. A negative textureFormat is refused, named.
     */
    static void copyRound(GlZerocopyRing ring, String learner, int texture, int w, int h)
            throws Exception {
        expect(IllegalStateException.class, ring::copyPathImpl, "copyPathImpl without a ring");
        try {
            ring.initCopyImpl(w, h, -5, 2, GlZerocopyRing.MODE_AUTO, 0);
            check(false, "textureFormat -5: no exception");
            ring.destroyImpl();
        } catch (IllegalArgumentException e) {
            check(e.getMessage().contains("-5"), "textureFormat -5 refused, named: " + e.getMessage());
        }
        int[][] cases = {{GlZerocopyRing.GL_RGBA8, GlZerocopyRing.COPY_PATH_COMPUTE},
                {0, GlZerocopyRing.COPY_PATH_READ_PIXELS},
                {0x8C43 /* GL_SRGB8_ALPHA8 */, GlZerocopyRing.COPY_PATH_READ_PIXELS}};
        for (int[] c : cases) {
            String name = w + "x" + h + " textureFormat 0x" + Integer.toHexString(c[0]);
            ByteString t = ring.initCopyImpl(w, h, c[0], 3, GlZerocopyRing.MODE_AUTO, 0);
            check(le32(t, 8) == 37 && le32(t, 20) == w * 4 && le32(t, 68) == 1,
                    name + ": template format 37, pitch w*4, ROWS_BOTTOM_UP");
            check(ring.copyPathImpl() == c[1],
                    name + ": copyPathImpl " + ring.copyPathImpl() + ", want " + c[1]);
            List<String> descs = new ArrayList<>();
            for (int f = 1; f <= 3; f++) {
                check(GlHelper.uploadPattern(texture, w, h, f), "upload frame " + f);
                ByteString d = ring.publishImpl(texture);
                check(d != null && le32(d, 72) == f, name + ": descriptor of frame " + f);
                if (d != null) descs.add(RingJniTest.hex(d));
            }
            check(RingJniTest.learner(learner, descs) == 0,
                    name + ": learner process read frames 1..3 byte-exact");
            ring.destroyImpl();
        }
    }

    /** Float ulps between a and b (+0 and -0 at one place). */
    static long ulps(float a, float b) {
        long ia = Float.floatToRawIntBits(a), ib = Float.floatToRawIntBits(b);
        if (ia < 0) ia = Integer.MIN_VALUE - ia;
        if (ib < 0) ib = Integer.MIN_VALUE - ib;
        return Math.abs(ia - ib);
    }

    /** The four parts of a stereo RGB-D frame; the last part's result. */
    static ByteString stereoFrame(GlZerocopyRing ring, int[][] eyes, int[][] cursors, float near,
            float far) {
        ByteString last = null;
        for (int e = 0; e < 2; e++) {
            ByteString d = ring.publishDepthImpl(eyes[e][2], e, near, far, false);
            check(d != null && d.size() == 0, "depth(" + e + "): more parts (empty)");
            last = ring.publishEyeImpl(eyes[e][1], e, true, cursors[e][0], cursors[e][1]);
            check(last != null && last.size() == (e == 1 ? 256 : 0),
                    "colour(" + e + "): " + (e == 1 ? "the descriptor" : "more parts (empty)"));
        }
        return last;
    }

    /**
     * Depth and stereo through the natives (docs/zero-copy-v2/producer.md, "Depth and stereo planes"): a
     * ring of initRgbdImpl (2 eyes, linear depth, resized), each eye drawn into its own scene
     * (colour quads, reverse-Z depth quads), its parts published in order; the learner process
     * dumps the slot and each plane, located by the descriptor's fields, equals its oracle: the
     * RGB plane the RAW observation (captureFramebufferImpl) upright, the depth plane
     * captureDepthImpl itself sampled by the spec's mapping, within 2 float ulps. A frame with an
     * eye missing is never published; parts out of order return null; bad arguments throw.
     */
    static void rgbdRound(GlZerocopyRing ring, String learner, int w, int h) throws Exception {
        final int tw = 23, th = 13;
        final float near = 0.1f, far = 100f;
        int[][] eyes = {GlHelper.createScene(w, h), GlHelper.createScene(w, h)};
        int[][] cursors = {{3, 4}, {tw - 2, th - 1}};
        expect(IllegalArgumentException.class, () -> ring.initRgbdImpl(w, h, tw, th, 3,
                GlZerocopyRing.MODE_FENCE, 0, 3, GlZerocopyRing.DEPTH_LINEAR, near, far, false),
                "3 eyes");
        expect(IllegalArgumentException.class, () -> ring.initRgbdImpl(w, h, tw, th, 3,
                GlZerocopyRing.MODE_FENCE, 0, 2, GlZerocopyRing.DEPTH_LINEAR, 0f, far, false),
                "linear depth with near 0");
        expect(IllegalArgumentException.class, () -> ring.initRgbdImpl(w, h, tw, th, 3,
                GlZerocopyRing.MODE_FENCE, 0, -1, 0, near, far, false), "eyes -1");
        // eyes 0 means 1, as slots 0 means the default (docs/zero-copy-v2/producer.md).
        ByteString z = ring.initRgbdImpl(w, h, tw, th, 3, GlZerocopyRing.MODE_FENCE, 0, 0,
                GlZerocopyRing.DEPTH_LINEAR, near, far, false);
        check(z.size() == 256 && z.byteAt(4) == 3 && le32(z, 192) == 1 && le32(z, 228) == 1,
                "eyes 0 with depth: version 3, eyes 1");
        ring.destroyImpl();
        z = ring.initRgbdImpl(w, h, tw, th, 3, GlZerocopyRing.MODE_FENCE, 0, 0,
                GlZerocopyRing.DEPTH_NONE, near, far, false);
        check(z.size() == 192 && z.byteAt(4) == 2, "eyes 0 without depth: initRgbImpl's version 2");
        ring.destroyImpl();
        z = ring.initRgbdImpl(w, h, tw, th, 3, GlZerocopyRing.MODE_FENCE, 0, 1,
                GlZerocopyRing.DEPTH_RAW, Float.NaN, Float.NaN, true);
        check(z.size() == 256 && le32(z, 228) == 2 && le32(z, 232) == 0 && le32(z, 236) == 0
                && le32(z, 240) == 0, "raw depth: near/far ignored (NaN), 0 in the template");
        ring.destroyImpl();
        ByteString t = ring.initRgbdImpl(w, h, tw, th, 3, GlZerocopyRing.MODE_FENCE, 0, 2,
                GlZerocopyRing.DEPTH_LINEAR, near, far, false);
        check(t.size() == 256 && t.byteAt(4) == 3 && le32(t, 8) == 23 && le32(t, 192) == 2
                && le32(t, 196) == 100 && le32(t, 224) == tw * 4 && le32(t, 228) == 1
                && le32(t, 232) == 0 && Float.intBitsToFloat(le32(t, 236)) == near
                && Float.intBitsToFloat(le32(t, 240)) == far,
                "RGB-D stereo template: version 3, 256 bytes, 2 eyes, linear depth, near/far");
        check(ring.copyPathImpl() == GlZerocopyRing.COPY_PATH_RGB, "copyPathImpl 2");
        expect(IllegalArgumentException.class, () -> ring.publishCursorImpl(eyes[0][1], false, 0,
                0), "publishCursorImpl on a ring of parts");
        expect(IllegalArgumentException.class, () -> ring.publishEyeImpl(eyes[0][1], 2, false, 0,
                0), "eye 2");
        expect(IllegalArgumentException.class, () -> ring.publishEyeImpl(eyes[0][1], -1, false,
                0, 0), "eye -1");
        expect(IllegalArgumentException.class, () -> ring.publishDepthImpl(eyes[0][2], 0, 2f, 1f,
                false), "near 2 far 1");
        expect(IllegalArgumentException.class, () -> ring.publishDepthImpl(0, 0, near, far,
                false), "depth texture 0");
        expect(IllegalArgumentException.class, () -> ring.publishDepthImpl(eyes[0][1], 0, near,
                far, false), "a colour texture as the depth texture");
        check(ring.publishEyeImpl(eyes[1][1], 1, false, 0, 0) == null,
                "colour(1) with no frame begun: skipped (null)");
        int[][] clears = {{10, 20, 30}, {200, 100, 50}};
        int[][] quads = {{2, 1, 25, 20, 250, 10, 7, 10, 10, 40, 30, 5, 200, 90},
                {0, 0, 12, 30, 1, 2, 3, 20, 5, 39, 9, 90, 91, 92}};
        double[][] depthQuads = {{2, 2, 20, 15, 5.0, 10, 8, 30, 25, 50.0},
                {0, 0, 40, 10, 1.0, 5, 12, 25, 28, 80.0}};
        for (int e = 0; e < 2; e++) {
            check(GlHelper.drawColor(eyes[e][0], clears[e], quads[e]), "eye " + e + " colour");
            check(GlHelper.drawDepth(eyes[e][0], depthQuads[e], near, far, false) == 0,
                    "eye " + e + " depth");
        }
        ByteString d = stereoFrame(ring, eyes, cursors, near, far);
        check(d != null && le32(d, 72) == 1 && Float.intBitsToFloat(le32(d, 236)) == near,
                "frame 1, its planes in the descriptor");
        Path dir = Files.createTempDirectory("cg-gl-rgbd");
        ProcessBuilder pb = new ProcessBuilder(learner, "child-vk-learner",
                d == null ? "" : RingJniTest.hex(d)).inheritIO();
        pb.environment().put("ZC_LEARNER_DUMP", dir.toString());
        check(pb.start().waitFor() == 0, "learner process read the RGB-D stereo frame");
        Path f = dir.resolve("frame-1.bin");
        byte[] slot = Files.exists(f) ? Files.readAllBytes(f) : new byte[0];
        Files.deleteIfExists(f);
        Files.deleteIfExists(dir);
        if (d != null && slot.length > 0) {
            long ces = RingJniTest.le64(d, 200), doff = RingJniTest.le64(d, 208),
                    des = RingJniTest.le64(d, 216);
            java.nio.ByteBuffer sb = java.nio.ByteBuffer.wrap(slot)
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            long worst = 0;
            for (int e = 0; e < 2; e++) {
                byte[] raw = FramebufferCapturer.INSTANCE.captureFramebufferImpl(eyes[e][1], w, h,
                        tw, th, FramebufferCapturer.RAW, false, true, cursors[e][0],
                        cursors[e][1]).toByteArray();
                float[] depth = FramebufferCapturer.INSTANCE.captureDepthImpl(eyes[e][2], w, h,
                        true, near, far, false);
                int row = tw * 3, bad = 0;
                for (int y = 0; y < th; y++)
                    for (int i = 0; i < row; i++)
                        if (slot[(int) (e * ces) + y * row + i] != raw[(th - 1 - y) * row + i]) bad++;
                check(bad == 0, "eye " + e + ": RGB plane == RAW observation upright (" + bad
                        + " bytes differ)");
                int far2 = 0;
                for (int y = 0; y < th; y++)
                    for (int x = 0; x < tw; x++) {
                        int yb = th - 1 - y;
                        float want = depth[(yb * h / th) * w + x * w / tw];
                        float got = sb.getFloat((int) (doff + e * des) + (y * tw + x) * 4);
                        long u = ulps(got, want);
                        worst = Math.max(worst, u);
                        if (u > 2) far2++;
                    }
                check(far2 == 0, "eye " + e + ": depth plane within 2 ulps of captureDepthImpl ("
                        + far2 + " values past)");
            }
            System.out.println("RGB-D stereo through the natives: depth max " + worst + " ulps");
        }
        // An eye missing: depth(0) begins a new frame, the open one is given up (never published).
        check(ring.publishDepthImpl(eyes[0][2], 0, near, far, false).size() == 0, "depth(0)");
        check(ring.publishEyeImpl(eyes[0][1], 0, false, 0, 0).size() == 0, "colour(0)");
        check(ring.publishEyeImpl(eyes[0][1], 0, false, 0, 0) == null, "colour(0) again: null");
        ByteString d2 = stereoFrame(ring, eyes, cursors, near, far);
        check(d2 != null && le32(d2, 72) == 2, "the next whole frame is frame 2");
        long[] n = ring.countersImpl();
        check(n[0] == 2 && n[1] == 1, "2 published, 1 given up: " + java.util.Arrays.toString(n));
        ring.destroyImpl();
        // Stereo without depth: a depth part is a bad argument.
        ByteString s2 = ring.initRgbdImpl(w, h, 0, 0, 2, GlZerocopyRing.MODE_FENCE, 0, 2,
                GlZerocopyRing.DEPTH_NONE, 0f, 0f, false);
        check(s2.size() == 256 && le32(s2, 196) == 0, "stereo template, no depth plane");
        expect(IllegalArgumentException.class, () -> ring.publishDepthImpl(eyes[0][2], 0, near,
                far, false), "depth on a ring without depth");
        ring.destroyImpl();
        // One eye without depth: initRgbImpl's ring exactly.
        ByteString p = ring.initRgbdImpl(w, h, tw, th, 2, GlZerocopyRing.MODE_FENCE, 0, 1, 0, 0f,
                0f, false);
        check(p.size() == 192 && p.byteAt(4) == 2, "1 eye, no depth: version 2, 192 bytes");
        ByteString c = ring.publishEyeImpl(eyes[0][1], 0, false, 0, 0);
        check(c != null && c.size() == 192 && le32(c, 72) == 1, "its colour(0) publishes frame 1");
        ring.destroyImpl();
    }

    /** The game after a ring went: its context current, and drawing what it draws. */
    static void gameStillDraws(int[] scene, int w, int h, int round) {
        int[] clear = {40 + round, 90, 200};
        int[] quad = {2, 1, 9, 5, 250, 10 * round, 7};
        check(GlHelper.drawColor(scene[0], clear, quad), "round " + round + ": the game draws");
        byte[] raw = FramebufferCapturer.INSTANCE.captureFramebufferImpl(scene[1], w, h, w, h,
                FramebufferCapturer.RAW, false, false, 0, 0).toByteArray();
        int bad = raw.length == w * h * 3 ? 0 : -1;
        for (int y = 0; bad >= 0 && y < h; y++)
            for (int x = 0; x < w; x++) { // RAW rows bottom-up, as GL's
                boolean in = x >= quad[0] && x < quad[2] && y >= quad[1] && y < quad[3];
                for (int c = 0; c < 3; c++)
                    if ((raw[(y * w + x) * 3 + c] & 0xff) != (in ? quad[4 + c] : clear[c])) bad++;
            }
        check(bad == 0, "round " + round + ": the game's drawing reads back as drawn (" + bad
                + " bytes differ)");
    }

    /**
     * A window resize as a GL game does it (no Vulkan instance of the process's own): destroy +
     * init at a new size three times, a frame read by the learner each time, and an init that may
     * fail past the Vulkan device (semaphore mode forced: refused where GL lacks semaphores);
     * after each the game's context must draw. destroyImpl from another thread is refused
     * (IllegalStateException) and keeps the ring.
     */
    static void resizeRounds(GlZerocopyRing ring, String learner, int[] game, int gw, int gh)
            throws Exception {
        int[][] sizes = {{40, 30}, {36, 24}, {40, 17}};
        int[] tex = GlHelper.createScene(40, 30);
        for (int round = 0; round < sizes.length; round++) {
            int w = sizes[round][0], h = sizes[round][1];
            ByteString t = ring.initImpl(w, h, 2, GlZerocopyRing.MODE_AUTO, 0);
            check(le32(t, 12) == w && le32(t, 16) == h, "round " + round + ": ring at " + w + "x" + h);
            check(GlHelper.uploadPattern(tex[1], w, h, 1), "upload");
            ByteString d = ring.publishImpl(tex[1]);
            List<String> one = new ArrayList<>();
            if (d != null) one.add(RingJniTest.hex(d));
            check(RingJniTest.learner(learner, one) == 0, "round " + round + ": the learner reads frame 1");
            if (round == 1) {
                Throwable[] thrown = {null};
                Thread other = new Thread(() -> {
                    try {
                        ring.destroyImpl();
                    } catch (Throwable x) {
                        thrown[0] = x;
                    }
                });
                other.start();
                other.join();
                check(thrown[0] instanceof IllegalStateException
                        && thrown[0].getMessage().contains("render thread"),
                        "destroyImpl from another thread is refused: " + thrown[0]);
                check(GlHelper.uploadPattern(tex[1], w, h, 2), "upload");
                ByteString d2 = ring.publishImpl(tex[1]);
                check(d2 != null && le32(d2, 72) == 2, "the ring kept publishing after the refusal");
            }
            ring.destroyImpl();
            gameStillDraws(game, gw, gh, round);
        }
        try {
            ring.initImpl(24, 24, 2, GlZerocopyRing.MODE_SEMAPHORE, 0);
            ring.destroyImpl(); // GL has semaphores: one more round
        } catch (UnsupportedOperationException e) {
            check(e.getMessage().contains("semaphore"), "forced semaphore mode refused: " + e);
        }
        gameStillDraws(game, gw, gh, 9);
    }

    public static void main(String[] args) throws Exception {
        GlZerocopyRing ring = GlZerocopyRing.INSTANCE;
        expect(IllegalStateException.class, () -> ring.publishImpl(1), "publish before init");
        ring.destroyImpl(); // no ring: no-op
        expect(IllegalArgumentException.class, () -> ring.initImpl(0, 16, 3, 0, 0), "width 0");
        expect(IllegalArgumentException.class, () -> ring.initImpl(16, 16, 17, 0, 0), "17 slots");
        expect(IllegalArgumentException.class, () -> ring.initImpl(16, 16, 3, 5, 0), "mode 5");
        expect(IllegalArgumentException.class, () -> ring.initImpl(16, 16, 3, 0, -1), "waitNanos -1");
        expect(IllegalStateException.class, () -> ring.initImpl(16, 16, 3, 0, 0),
                "init without a current GL context");
        String gl = GlHelper.open();
        if (gl == null) {
            System.out.println("SKIP jvm_gl_ring: no EGL context here");
            System.exit(77);
        }
        System.out.println("GL: " + gl);
        final int w = 40, h = 30;
        int[] scene = GlHelper.createScene(w, h);
        int[] small = GlHelper.createScene(20, 30);
        ByteString t;
        try {
            t = ring.initImpl(w, h, 3, GlZerocopyRing.MODE_AUTO, 0);
        } catch (UnsupportedOperationException e) {
            System.out.println("SKIP jvm_gl_ring: " + e.getMessage());
            System.exit(77);
            return;
        }
        int mode = le32(t, 28);
        check(t.size() == 192 && t.substring(0, 4).toStringUtf8().equals("CGZ2") && le32(t, 12) == w
                && le32(t, 16) == h && le32(t, 20) == w * 4 && (mode == 1 || mode == 2)
                && le32(t, 68) == 1, "template: CGZ2, " + w + "x" + h + ", mode " + mode
                + ", flags ROWS_BOTTOM_UP");
        expect(IllegalStateException.class, () -> ring.initImpl(w, h, 3, 0, 0), "second init");
        check(ring.copyPathImpl() == GlZerocopyRing.COPY_PATH_READ_PIXELS,
                "initImpl (format unknown): glReadPixels");
        expect(IllegalArgumentException.class, () -> ring.publishImpl(0), "texture 0");
        expect(IllegalArgumentException.class, () -> ring.publishImpl(-3), "texture -3");
        expect(IllegalArgumentException.class, () -> ring.publishImpl(small[1]),
                "texture smaller than the ring");
        expect(IllegalArgumentException.class, () -> ring.publishImpl(GlHelper.emptyTexture()),
                "texture without storage");
        GlHelper.makeCurrent(false);
        expect(IllegalStateException.class, () -> ring.publishImpl(scene[1]),
                "publish without a current GL context");
        GlHelper.makeCurrent(true);
        List<String> descs = new ArrayList<>();
        int slotsSeen = 0;
        for (int f = 1; f <= 4; f++) {
            check(GlHelper.uploadPattern(scene[1], w, h, f), "upload frame " + f);
            ByteString d = ring.publishImpl(scene[1]);
            check(d != null && d.size() == 192 && le32(d, 72) == f && le32(d, 64) < 3,
                    "descriptor of frame " + f);
            if (d != null && f > 1) { // frames 2..4: one slot each, one of them reused
                descs.add(RingJniTest.hex(d));
                slotsSeen |= 1 << le32(d, 64);
            }
        }
        check(slotsSeen == 7, "frames 2..4 went to the three slots");
        check(RingJniTest.learner(args[0], descs) == 0, "learner process read frames 2..4 byte-exact");
        ring.destroyImpl();
        expect(IllegalStateException.class, () -> ring.publishImpl(scene[1]), "publish after destroy");
        ring.destroyImpl(); // twice: no-op
        // Re-initialisation at another size after destroy.
        ByteString t2 = ring.initImpl(20, 30, 2, GlZerocopyRing.MODE_FENCE, 0);
        check(le32(t2, 12) == 20 && le32(t2, 28) == 2, "re-init at 20x30, fence mode");
        check(GlHelper.uploadPattern(small[1], 20, 30, 9), "upload");
        ByteString d = ring.publishImpl(small[1]);
        check(d != null && le32(d, 72) == 1, "frame 1 of the new ring");
        List<String> one = new ArrayList<>();
        if (d != null) one.add(RingJniTest.hex(d));
        // frame 1 holds pattern 9: the learner must see the mismatch (the check can fail)
        check(RingJniTest.learner(args[0], one) != 0, "learner refuses a frame that is not pattern(frame)");
        check(GlHelper.uploadPattern(small[1], 20, 30, 2), "upload");
        ByteString d2 = ring.publishImpl(small[1]);
        one.clear();
        if (d2 != null) one.add(RingJniTest.hex(d2));
        check(RingJniTest.learner(args[0], one) == 0, "learner read frame 2 of the new ring byte-exact");
        ring.destroyImpl();
        rgbRound(ring, args[0], scene[1], w, h);
        copyRound(ring, args[0], scene[1], w, h);
        {
            int[] big = GlHelper.createScene(640, 360);
            copyRound(ring, args[0], big[1], 640, 360);
        }
        rgbdRound(ring, args[0], w, h);
        resizeRounds(ring, args[0], scene, w, h);
        System.out.println(RingJniTest.failures == 0 ? "PASS" : RingJniTest.failures + " failures");
        System.exit(RingJniTest.failures == 0 ? 0 : 1);
    }
}
