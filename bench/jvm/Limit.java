package cgbench;

import java.nio.ByteBuffer;

/** The same-run limit's natives (libbench_limit.so, bench only). */
final class Limit {
    static {
        System.loadLibrary("bench_limit");
    }

    private Limit() {}

    static native Object empty(ByteBuffer src, int sw, int sh, int tw, int th, int mode,
                               boolean flip, boolean cursor, int x, int y);

    /** new byte[tw*th*3] + one copy of that many bytes from src into it. */
    static native byte[] allocCopy(ByteBuffer src, int sw, int sh, int tw, int th, int mode,
                                   boolean flip, boolean cursor, int x, int y);
}
