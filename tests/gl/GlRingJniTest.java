package cgtest;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.GlZerocopyRing;
import java.util.ArrayList;
import java.util.List;

/**
 * GlZerocopyRing through the JNI natives on a real GL context (libgltest's headless EGL:
 * llvmpipe here, the NVIDIA driver on the GPU machine): frames of the zero-copy test pattern
 * uploaded into the game's texture are published, and a second process (the C learner of
 * test_zc_ring) connects to the ring's socket, imports the memory through Vulkan and checks
 * every frame byte for byte. Plus every bad input and state as the exception the architecture
 * names. Usage: GlRingJniTest PATH_OF_test_zc_ring. Exit 77: no EGL context, or a GL without
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
        System.out.println(RingJniTest.failures == 0 ? "PASS" : RingJniTest.failures + " failures");
        System.exit(RingJniTest.failures == 0 ? 0 : 1);
    }
}
