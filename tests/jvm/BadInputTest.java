package cgtest;

import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.nio.ByteBuffer;

/**
 * Every bad input of docs/architecture.md's table for convertCapturedFrameImpl
 * throws the listed exception, the JVM keeps running, and a good call right
 * after each bad one still returns the right bytes.
 */
public final class BadInputTest {
    static final FramebufferCapturer FC = FramebufferCapturer.INSTANCE;

    interface Call {
        void run() throws Exception;
    }

    static final byte[] GOOD_PX = Ref.pattern(30, 30, 7);
    static final ByteBuffer GOOD = Ref.direct(GOOD_PX);
    static final byte[] GOOD_WANT = Ref.convert(GOOD_PX, 30, 30, 12, 10, true, true, 2, 3);

    static void goodCallWorks(String after) {
        try {
            byte[] got = FC.convertCapturedFrameImpl(GOOD, 30, 30, 12, 10, 0, true, true, 2, 3).toByteArray();
            Ref.checkBytes(got, GOOD_WANT, "good call after " + after);
        } catch (Throwable t) {
            Ref.check(false, "good call after " + after + " threw " + t);
        }
    }

    /** expect: the exception class; mustContain: substrings of the message. */
    static void expect(String what, Class<? extends Throwable> expect, Call c, String... mustContain) {
        try {
            c.run();
            Ref.check(false, what + ": no exception (expected " + expect.getSimpleName() + ")");
        } catch (Throwable t) {
            boolean ok = expect.isInstance(t);
            Ref.check(ok, what + ": threw " + t + ", expected " + expect.getSimpleName());
            String msg = String.valueOf(t.getMessage());
            for (String s : mustContain)
                Ref.check(msg.contains(s), what + ": message \"" + msg + "\" lacks \"" + s + "\"");
            if (ok) System.out.println("ok   " + what + " -> " + t.getClass().getSimpleName() + ": " + msg);
        }
        goodCallWorks(what);
    }

    static ByteBuffer buf(int n) {
        return ByteBuffer.allocateDirect(n);
    }

    public static void main(String[] args) {
        goodCallWorks("nothing");
        Class<IllegalArgumentException> iae = IllegalArgumentException.class;

        // null buffer -> NullPointerException (the table allows IAE too; we chose NPE)
        expect("null buffer", NullPointerException.class,
                () -> FC.convertCapturedFrameImpl(null, 4, 4, 4, 4, 0, false, false, 0, 0));
        // heap ByteBuffer
        expect("heap buffer", iae,
                () -> FC.convertCapturedFrameImpl(ByteBuffer.allocate(64), 4, 4, 4, 4, 0, false, false, 0, 0),
                "direct");
        expect("wrapped byte[] buffer", iae,
                () -> FC.convertCapturedFrameImpl(ByteBuffer.wrap(new byte[64]), 4, 4, 4, 4, 1, false, false, 0, 0));
        // capacity below srcW*srcH*4, message names both numbers
        expect("short buffer 100 < 3600", iae,
                () -> FC.convertCapturedFrameImpl(buf(100), 30, 30, 30, 30, 0, false, false, 0, 0), "100", "3600");
        expect("short by one byte", iae,
                () -> FC.convertCapturedFrameImpl(buf(3599), 30, 30, 30, 30, 1, false, false, 0, 0), "3599", "3600");
        expect("zero-capacity buffer", iae,
                () -> FC.convertCapturedFrameImpl(buf(0), 1, 1, 1, 1, 0, false, false, 0, 0), "0", "4");
        // bad sizes
        int[][] dims = {
            {0, 4, 4, 4}, {4, 0, 4, 4}, {4, 4, 0, 4}, {4, 4, 4, 0},
            {-1, 4, 4, 4}, {4, -7, 4, 4}, {4, 4, -1, 4}, {4, 4, 4, -3},
            {16385, 1, 4, 4}, {1, 16385, 4, 4}, {4, 4, 16385, 1}, {4, 4, 1, 16385},
            {Integer.MAX_VALUE, Integer.MAX_VALUE, 4, 4}, {Integer.MIN_VALUE, 4, 4, 4},
            {4, 4, Integer.MAX_VALUE, 2}, {4, 4, 2, Integer.MIN_VALUE},
        };
        ByteBuffer big = buf(64 * 1024);
        for (int[] d : dims) {
            String v = String.valueOf(d[0] <= 0 || d[0] > 16384 ? d[0] : d[1] <= 0 || d[1] > 16384 ? d[1]
                    : d[2] <= 0 || d[2] > 16384 ? d[2] : d[3]);
            expect("size " + d[0] + "x" + d[1] + "->" + d[2] + "x" + d[3], iae,
                    () -> FC.convertCapturedFrameImpl(big, d[0], d[1], d[2], d[3], 0, true, false, 0, 0), v);
        }
        // the largest sane size with a buffer far too small: a clean IAE, nothing read
        expect("16384x16384 source, 64 KiB buffer", iae,
                () -> FC.convertCapturedFrameImpl(big, 16384, 16384, 4, 4, 0, false, false, 0, 0),
                "65536", "1073741824");
        // encoding modes
        for (int mode : new int[] {2, 3, -1, 4, 99, Integer.MIN_VALUE}) {
            expect("encoding mode " + mode, iae,
                    () -> FC.convertCapturedFrameImpl(GOOD, 30, 30, 4, 4, mode, false, false, 0, 0),
                    String.valueOf(mode));
        }
        // arguments are checked before the buffer: with a null buffer (which alone would be an
        // NPE) the bad mode or size is what gets reported
        expect("bad mode with null buffer", iae,
                () -> FC.convertCapturedFrameImpl(null, 1, 1, 1, 1, 2, false, false, 0, 0), "encoding mode 2");
        expect("bad size with null buffer", iae,
                () -> FC.convertCapturedFrameImpl(null, 0, 1, 1, 1, 0, false, false, 0, 0), "0x1");
        // out of memory: a 16384x16384 RAW output (768 MiB) cannot fit the test's 64 MiB heap
        expect("RAW output larger than the heap", OutOfMemoryError.class,
                () -> FC.convertCapturedFrameImpl(GOOD, 30, 30, 16384, 16384, 0, false, false, 0, 0));
        Ref.check(GOOD.position() == 0 && GOOD.limit() == GOOD.capacity(), "good buffer position/limit unchanged");
        Ref.finish("BadInputTest");
    }
}
