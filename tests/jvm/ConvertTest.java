package cgtest;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.nio.ByteBuffer;

/**
 * convertCapturedFrameImpl on the real JVM: RAW bytes and decoded PNG pixels
 * equal the independent Java reference (Ref.convert) over sizes, flips,
 * resize directions and cursor positions; the source buffer's position and
 * limit are unchanged; two threads converting at once get their own results.
 */
public final class ConvertTest {
    static final FramebufferCapturer FC = FramebufferCapturer.INSTANCE;

    static void one(int sw, int sh, int tw, int th, boolean flip, boolean cursor, int cx, int cy,
                    boolean png, int seed) throws Exception {
        byte[] rgba = Ref.pattern(sw, sh, seed);
        ByteBuffer buf = Ref.direct(rgba);
        // A position and limit that the library must neither use nor change.
        buf.position(Math.min(3, buf.capacity()));
        buf.limit(Math.max(buf.position(), buf.capacity() - 1));
        int pos = buf.position(), lim = buf.limit();
        String what = String.format("%dx%d->%dx%d flip=%b cursor=%b(%d,%d) %s", sw, sh, tw, th,
                flip, cursor, cx, cy, png ? "PNG" : "RAW");
        ByteString bs = FC.convertCapturedFrameImpl(buf, sw, sh, tw, th,
                png ? FramebufferCapturer.PNG : FramebufferCapturer.RAW, flip, cursor, cx, cy);
        Ref.check(buf.position() == pos && buf.limit() == lim, what + ": position/limit changed");
        byte[] want = Ref.convert(rgba, sw, sh, tw, th, flip, cursor, cx, cy);
        byte[] got = bs.toByteArray();
        if (png) got = Ref.decodePng(got, tw, th);
        Ref.checkBytes(got, want, what);
    }

    public static void main(String[] args) throws Exception {
        int[][] sizes = {
            {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 1, 3, 1}, {1, 3, 1, 3}, {5, 3, 5, 3},
            {7, 5, 3, 2},     // downscale, odd
            {3, 2, 7, 5},     // upscale
            {5, 7, 9, 3},     // up in x, down in y
            {30, 30, 16, 16}, {33, 17, 33, 17}, {64, 48, 640, 1},
            {640, 360, 640, 360}, {854, 480, 128, 128}, {1920, 1080, 640, 360},
        };
        int seed = 1;
        for (int[] s : sizes) {
            for (int f = 0; f < 2; f++) {
                for (int p = 0; p < 2; p++) {
                    one(s[0], s[1], s[2], s[3], f == 1, false, 0, 0, p == 1, seed++);
                }
            }
        }
        // The cursor at every edge, off-screen and at extreme ints (clipped).
        int[][] cursors = {
            {0, 0}, {5, 3}, {-8, -8}, {-15, 2}, {2, -15}, {-16, 0}, {0, -16},
            {27, 19}, {31, 21}, {32, 22}, {100, 100}, {-100, 5},
            {Integer.MIN_VALUE, Integer.MIN_VALUE}, {Integer.MAX_VALUE, Integer.MAX_VALUE},
            {Integer.MAX_VALUE - 3, 4}, {4, Integer.MIN_VALUE + 2},
        };
        for (int[] c : cursors) {
            for (int f = 0; f < 2; f++) {
                one(32, 22, 32, 22, f == 1, true, c[0], c[1], false, seed++);
                one(40, 30, 13, 9, f == 1, true, c[0] / 2, c[1] / 2, false, seed++);
            }
            one(32, 22, 32, 22, true, true, c[0], c[1], true, seed++);
        }
        // A 1x1 target with the cursor's hot spot on it: the black tip.
        one(4, 4, 1, 1, true, true, 0, 0, false, seed++);

        // A read-only view of a direct buffer is still direct: accepted.
        byte[] rgba = Ref.pattern(6, 4, 99);
        ByteBuffer ro = Ref.direct(rgba).asReadOnlyBuffer();
        Ref.checkBytes(FC.convertCapturedFrameImpl(ro, 6, 4, 6, 4, 0, true, false, 0, 0).toByteArray(),
                Ref.convert(rgba, 6, 4, 6, 4, true, false, 0, 0), "read-only direct buffer");

        // A slice of a larger direct buffer is read from the slice's own start address; its
        // capacity bounds it. Neither its position and limit nor the parent's are used.
        byte[] frame = Ref.pattern(9, 5, 123);
        ByteBuffer whole = ByteBuffer.allocateDirect(frame.length + 64);
        for (int i = 0; i < whole.capacity(); i++) whole.put(i, (byte) 0x5A);
        whole.position(37);
        whole.put(frame);
        whole.position(37).limit(37 + frame.length);
        ByteBuffer slice = whole.slice();
        whole.position(5).limit(20);
        slice.position(2).limit(slice.capacity() - 1);
        for (int png = 0; png < 2; png++) {
            byte[] got = FC.convertCapturedFrameImpl(slice, 9, 5, 9, 5,
                    png == 1 ? FramebufferCapturer.PNG : FramebufferCapturer.RAW, true, true, 2, 1)
                    .toByteArray();
            if (png == 1) got = Ref.decodePng(got, 9, 5);
            Ref.checkBytes(got, Ref.convert(frame, 9, 5, 9, 5, true, true, 2, 1),
                    "slice at offset 37" + (png == 1 ? " (PNG)" : ""));
        }
        Ref.check(slice.position() == 2 && slice.limit() == slice.capacity() - 1
                && whole.position() == 5 && whole.limit() == 20, "slice: position/limit changed");
        // One byte short of the frame: the slice's capacity, not the parent's, is the bound.
        ByteBuffer shortSlice = whole.duplicate().clear().position(37).limit(36 + frame.length).slice();
        try {
            FC.convertCapturedFrameImpl(shortSlice, 9, 5, 9, 5, 0, true, false, 0, 0);
            Ref.check(false, "slice one byte short of the frame: no exception");
        } catch (IllegalArgumentException e) {
            Ref.check(true, "slice one byte short");
        }

        // Two threads at once (PNG uses per-thread scratch): each gets its own image.
        Thread[] ts = new Thread[2];
        boolean[] ok = new boolean[2];
        for (int t = 0; t < 2; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                byte[] px = Ref.pattern(50 + id, 40, 1000 + id);
                ByteBuffer b = Ref.direct(px);
                byte[] want = Ref.convert(px, 50 + id, 40, 25, 20, true, true, 3, 4);
                boolean good = true;
                try {
                    for (int i = 0; i < 300 && good; i++) {
                        byte[] raw = FC.convertCapturedFrameImpl(b, 50 + id, 40, 25, 20, 0, true, true, 3, 4).toByteArray();
                        byte[] png = Ref.decodePng(FC.convertCapturedFrameImpl(b, 50 + id, 40, 25, 20, 1, true, true, 3, 4).toByteArray(), 25, 20);
                        good = Ref.firstDiff(raw, want) < 0 && Ref.firstDiff(png, want) < 0;
                    }
                } catch (Exception e) {
                    good = false;
                    e.printStackTrace(System.out);
                }
                ok[id] = good;
            });
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        Ref.check(ok[0] && ok[1], "two threads converting at once");
        Ref.finish("ConvertTest");
    }
}
