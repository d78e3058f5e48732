"""What each call of VectorLearner.step costs alone on this host, idle.

    python3 bench/vector_calls.py

The step's driver calls (cuLaunchKernel through the vector's wrapper and
raw, cuEventRecord, cuEventQuery, the context push and pop), the gather
list's packing, and the lease word's compare-and-swap (as the step makes it:
libatomic's function given ctypes objects only; and with argtypes
converting, as before), each the best of 5 runs of 3000 calls (CPU time),
printed in us and as a ratio to a bare ctypes call measured in the same run
(libc's abs through ctypes: the floor of any driver call made from
Python). Compare with `bench/e2e/e2e_bench.py --phases`, which splits the
step inside a training loop. Needs a CUDA device (or the stand-in libcuda
named by $CRAFTGROUND_CAPTURE_LIBCUDA, whose launch copies on the CPU);
without one it prints "skipped".
"""
import ctypes
import ctypes.util
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from craftground_capture import _control as C  # noqa: E402
from craftground_capture import _cuda as K  # noqa: E402
from craftground_capture import ring as R  # noqa: E402


def per_call(fn, n=3000):
    fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(n):
            fn()
        best = min(best, (time.process_time() - t0) / n)
    return best


def main():
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    floor = per_call(lambda: libc.abs(1))
    try:
        api = K.BatchApi()
        api.device = 0
        api.ctx_of(0)
    except (OSError, R.RingError, RuntimeError) as e:
        print(f"skipped: no CUDA device: {e}")
        return 0
    figures = []
    api.hold()
    try:
        fn, why = api.load_gather()
        if fn is None:
            print(f"skipped: the gather kernel does not load here: {why}")
            return 0
        h, row = 128, 128 * 3
        batch, src = api.alloc(32 * h * row), api.alloc(h * row)
        args, ev = K.LaunchArgs(), api.event()
        gx = (h * row // 4 + 255) // 256
        for n in (1, 8, 32):
            params = args.set(list(range(n)), [src] * n, batch, h, row, row, 0, 1)
            figures.append((f"launch (api.launch), {n} entries",
                            per_call(lambda: api.launch(fn, (gx, n), params, 0))))
            figures.append((f"the gather list packed (LaunchArgs.set), {n} entries",
                            per_call(lambda: args.set(list(range(n)), [src] * n, batch, h, row,
                                                      row, 0, 1))))
        raw = api.lib._FuncPtr(("cuLaunchKernel", api.lib))
        cargs = ([ctypes.c_void_p(fn.value)] + [ctypes.c_uint(x) for x in (gx, 32, 1, 256, 1, 1, 0)]
                 + [ctypes.c_void_p(0), params, ctypes.c_void_p(0)])
        figures.append(("cuLaunchKernel alone (ctypes objects, no argtypes)",
                        per_call(lambda: raw(*cargs))))
        figures.append(("cuEventRecord (api.record)", per_call(lambda: api.record(ev, 0))))
        figures.append(("cuEventQuery (api.done)", per_call(lambda: api.done(ev))))
        api.record(ev, 0)
        api.event_wait(ev)  # the launches done before their memory goes
        api.event_free(ev)
        api.free_ptr(batch)
        api.free_ptr(src)
    finally:
        api.unhold()
    figures.append(("context push and pop (hold, unhold)",
                    per_call(lambda: (api.hold(), api.unhold()))))
    word = (ctypes.c_uint64 * 1)()
    at = C.Atomics()
    e, d = ctypes.c_uint64(), ctypes.c_uint64()
    ref, va, addr = ctypes.byref(e), ctypes.c_void_p(ctypes.addressof(word)), ctypes.addressof(word)

    def cas_raw():
        e.value = 0
        d.value = 0
        at.cas_raw(va, ref, d, 5, 5)

    def cas_argtypes():
        x = ctypes.c_uint64(0)
        at._cas(addr, ctypes.byref(x), 0, 5, 5)

    figures.append(("lease compare-and-swap, as the step makes it", per_call(cas_raw)))
    figures.append(("the same with argtypes converting (before)", per_call(cas_argtypes)))
    api.free([], None)
    print(f"{'call':56s} {'us':>8s}  x a bare ctypes call ({floor * 1e6:.2f} us)")
    for name, t in figures:
        print(f"{name:56s} {t * 1e6:8.2f}  {t / floor:6.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
