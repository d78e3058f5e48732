package cgtest;

/** The preloaded allocation-failure shim (tests/fault/cg_failalloc.h), from Java. */
final class FailAlloc {
    static {
        System.loadLibrary("cg_failalloc_jni");
    }

    private FailAlloc() {}

    /** Fail the nth allocation from now made in the scope's modules; 0: only count. */
    static native boolean arm(long nth, String scope);

    static native long disarm();

    static native boolean fired();

    /** In-scope allocations minus frees since the first arm. */
    static native long live();
}
