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
     * The compute copy from Java (docs/zero-copy-v2.md, "The compute copy"): initCopyImpl told
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
        resizeRounds(ring, args[0], scene, w, h);
        System.out.println(RingJniTest.failures == 0 ? "PASS" : RingJniTest.failures + " failures");
        System.exit(RingJniTest.failures == 0 ? 0 : 1);
    }
}
