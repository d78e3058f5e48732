package cgbench;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * convertCapturedFrameImpl end to end in the JVM, against a limit measured in
 * the same run: an empty native call with the same arguments, plus
 * new byte[output size] and one copy into it (done natively, from the same
 * direct buffer). The two are measured in alternating blocks so that both
 * see the same JIT, GC and machine state. Prints medians and the ratio.
 * Usage: JvmBench [rounds] [errors]   (default 40 rounds of 50 calls per case; "errors":
 * only the error paths)
 */
public final class JvmBench {
    static long sink;

    interface Call {
        long run();
    }

    static double[] medianUs(Call[] calls, int rounds, int block) {
        long[][] t = new long[calls.length][rounds * block];
        for (int r = -3; r < rounds; r++) { // 3 warm-up rounds, not recorded
            for (int c = 0; c < calls.length; c++) {
                for (int i = 0; i < block; i++) {
                    long t0 = System.nanoTime();
                    sink += calls[c].run();
                    long dt = System.nanoTime() - t0;
                    if (r >= 0) t[c][r * block + i] = dt;
                }
            }
        }
        double[] med = new double[calls.length];
        for (int c = 0; c < calls.length; c++) {
            Arrays.sort(t[c]);
            med[c] = t[c][t[c].length / 2] / 1000.0;
        }
        return med;
    }

    /** target <= 0: print the ratio without a verdict. */
    static void bench(String name, int sw, int sh, int tw, int th, boolean flip, int rounds,
                      double target) {
        ByteBuffer src = ByteBuffer.allocateDirect(sw * sh * 4);
        for (int i = 0; i < src.capacity(); i++) src.put(i, (byte) (i * 31 + (i >> 12)));
        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        Call convert = () -> {
            ByteString bs = fc.convertCapturedFrameImpl(src, sw, sh, tw, th, 0, flip, false, 0, 0);
            return bs.size();
        };
        Call empty = () -> Limit.empty(src, sw, sh, tw, th, 0, flip, false, 0, 0) == null ? 1 : 0;
        Call limit = () -> Limit.allocCopy(src, sw, sh, tw, th, 0, flip, false, 0, 0).length;
        double[] m = medianUs(new Call[] {convert, limit, empty}, rounds, 50);
        double ratio = m[0] / m[1];
        String verdict = target > 0
                ? String.format("(target <= %.1f) %s", target, ratio <= target ? "MET" : "MISSED")
                : "(no target: the limit copies, the call resizes)";
        System.out.printf("%-28s convert %8.1f us | limit %8.1f us (empty native call %.2f us + "
                        + "new byte[%d] + one copy) | ratio %.2f %s%n",
                name, m[0], m[1], m[2], tw * th * 3, ratio, verdict);
    }

    /** The call's time when it throws; the exception is the expected outcome. */
    static Call throwing(Runnable r) {
        return () -> {
            try {
                r.run();
            } catch (RuntimeException e) {
                return e.getMessage() == null ? 0 : 1;
            }
            throw new AssertionError("no exception");
        };
    }

    /**
     * The GL natives with no GL context current (this JVM has none): each is an error the
     * mod may hit every frame before its context exists, so it must cost what the other
     * error paths cost (a bad argument: an exception thrown from the boundary check), not a
     * search for the GL libraries on every call. Ratios to an empty native call and to the
     * bad-argument path.
     */
    static void errorPaths(int rounds) {
        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        ByteBuffer src = ByteBuffer.allocateDirect(16);
        Call empty = () -> Limit.empty(src, 2, 2, 2, 2, 0, false, false, 0, 0) == null ? 1 : 0;
        Call badArg = throwing(() -> fc.convertCapturedFrameImpl(src, -1, 2, 2, 2, 0, false, false, 0, 0));
        Call color = throwing(() -> fc.captureFramebufferImpl(1, 64, 64, 64, 64, 0, false, false, 0, 0));
        Call depth = throwing(() -> fc.captureDepthImpl(1, 64, 64, true, 0.1f, 100f, false));
        Call glew = () -> fc.initializeGLEW() ? 1 : 0;
        double[] m = medianUs(new Call[] {empty, badArg, color, depth, glew}, rounds, 50);
        System.out.printf("error paths, no GL context: empty native call %.2f us, bad argument "
                + "(convertCapturedFrameImpl, throws) %.2f us%n", m[0], m[1]);
        String[] names = {"captureFramebufferImpl (throws)", "captureDepthImpl (throws)",
                          "initializeGLEW (false)"};
        for (int i = 0; i < names.length; i++) {
            System.out.printf("  %-32s %8.2f us | ratio to empty call %7.1f | to bad argument %6.2f%n",
                    names[i], m[i + 2], m[i + 2] / m[0], m[i + 2] / m[1]);
        }
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        System.out.println("JVM end to end, median per call over " + rounds * 50 + " calls each "
                + "(" + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + ")");
        boolean errorsOnly = args.length > 1 && args[1].equals("errors");
        if (!errorsOnly) {
            bench("640x360 -> 640x360 RAW flip", 640, 360, 640, 360, true, rounds, 1.3);
            bench("854x480 -> 128x128 RAW", 854, 480, 128, 128, false, rounds, 0);
        }
        errorPaths(rounds);
        if (sink == 42) System.out.println();
    }
}
