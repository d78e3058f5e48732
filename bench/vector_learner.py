"""The vector learner's step against today's per-ring reading, same run.

    python3 bench/vector_learner.py PRODUCER [--envs 1,8,32] [--steps 300] [--size 128x128]
                                    [--sync semaphore|fence] [--modes per-ring,vector,memcpy]

N producers (test_zc_ring serve: a ring of 3 slots, the test pattern, one
frame per line on stdin) step in lockstep with one learner (this process).
Per step the learner tells all N to go, reads their descriptors and makes
the batch, by each mode in turn (modes alternate every 20 steps so drift
hits all alike):

  per-ring   RingLearner.acquire per game (one semaphore wait each), one
             cuMemcpy2DAsync per frame into the batch, cuStreamSynchronize,
             release: what a user writes today (the baseline)
  vector     VectorLearner.step: one wait, one gather launch, release on an
             event polled at the next step (no host sync)
  memcpy     VectorLearner.step with gather="memcpy"
  idle       (--modes idle) the games step, the learner reads nothing

Printed per N and mode: the learner's median time per step from the
descriptors in hand to the batch queued (per-ring: to the batch complete, its
host sync; vector: the GPU work is waited for only by the next step's poll),
its median CPU per step (time.process_time; and its own thread's,
time.thread_time), each as a ratio to per-ring (else the first mode) in the same
run; and the CPU time of the process's other threads (the CUDA driver's) over
the whole loop.
Targets (issue 27): learner CPU per step <= 100 us + 5 us per game. Without a
CUDA device (and no stand-in libcuda) it prints "skipped". The producer's own
upload dominates the step time here; the learner CPU column is the figure this
measures.
"""
import argparse
import cProfile
import os
import pstats
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from craftground_capture import _cuda as K  # noqa: E402
from craftground_capture import ring as R  # noqa: E402
from craftground_capture import vector as V  # noqa: E402


class Games:
    def __init__(self, producer, n, w, h, sync, env=None):
        cmd = list(producer) if isinstance(producer, (list, tuple)) else [producer]
        self.p = [subprocess.Popen(cmd + ["serve", sync, str(w), str(h), "100000000", "1"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                   env=env)
                  for _ in range(n)]

    def step(self):
        for p in self.p:
            p.stdin.write("go\n")
            p.stdin.flush()
        out = []
        for p in self.p:
            line = p.stdout.readline().strip()
            if not line:
                sys.exit(f"skipped: a producer stopped (exit {p.wait()})")
            out.append(bytes.fromhex(line))
        return out

    def close(self):
        for p in self.p:
            p.stdin.close()
        for p in self.p:
            p.stdout.read()
            p.wait()


def per_ring_step(vec, descs):
    """The baseline on the vector learner's own connections and batch: one
    acquire (one wait) per game, one copy per frame, a host sync, release."""
    frames = [vec.ring(i).acquire(d) for i, d in enumerate(descs)]
    for i, f in enumerate(frames):
        vec._api.copy_2d(f.ptr, f.row_pitch, vec._batch + i * vec.height * vec.row_bytes,
                         vec.row_bytes, vec.row_bytes, vec.height, K.CU_STREAM_LEGACY)
    vec._api.synchronize(K.CU_STREAM_LEGACY)
    for f in frames:
        f.release(synchronize=False)


def profile(vec, games, steps):
    """Where the vector step's CPU goes: cProfile over `steps` more steps
    (the driver calls are counted in the lambda or method that makes them)."""
    prof = cProfile.Profile()
    for _ in range(steps):
        descs = games.step()
        prof.enable()
        vec.step(descs)
        prof.disable()
    st = pstats.Stats(prof).stats  # (file, line, name) -> (cc, nc, tottime, cumtime, callers)
    top = sorted(st.items(), key=lambda kv: -kv[1][2])[:18]
    print(f"  {'calls/step':>10} {'own us/step':>11} {'with callees':>12}  function")
    for (f, line, name), (_, nc, tt, ct, _) in top:
        print(f"  {nc / steps:10.1f} {tt / steps * 1e6:11.1f} {ct / steps * 1e6:12.1f}  "
              f"{os.path.basename(f)}:{line}({name})")


MODES = ("per-ring", "vector", "memcpy", "idle")


def thread_ns():
    """Each thread of this process: {(tid, name): ns on CPU} (schedstat)."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                out[(int(tid), name)] = int(f.read().split()[0])
        except OSError:
            pass
    return out


def run(producer, n, w, h, sync, steps, prof=0, order=("per-ring", "vector", "memcpy")):
    games = Games(producer, n, w, h, sync)
    figures = {m: ([], [], []) for m in order}
    try:
        vec = V.VectorLearner(games.step(), gather="kernel")
        print(f"N={n:3d} leases in " + ("C" if vec.native else f"Python ({vec.native_why})")
              + ", driver calls in " + ("C" if getattr(vec, "native_calls", False) else "Python"))
        kernel = vec._fn
        before, w0 = thread_ns(), time.perf_counter()
        for k in range(steps * len(order)):
            mode = order[(k // 20) % len(order)]
            descs = games.step()
            t0, c0, h0 = time.perf_counter(), time.process_time(), time.thread_time()
            if mode == "idle":
                pass  # the games step, the learner reads nothing: what its process costs idle
            elif mode == "per-ring":
                per_ring_step(vec, descs)
            else:
                vec._fn = kernel if mode == "vector" else None  # None: the cuMemcpy2DAsync path
                vec.step(descs)
            figures[mode][0].append(time.perf_counter() - t0)
            figures[mode][1].append(time.process_time() - c0)
            figures[mode][2].append(time.thread_time() - h0)
        after, loop_s, timed = thread_ns(), time.perf_counter() - w0, steps * len(order)
        me = threading.get_native_id()
        others = {k: after[k] - before.get(k, 0) for k in after if k[0] != me}
        vec._fn = kernel
        if prof:
            print(f"N={n:3d} profile of {prof} vector steps (cProfile: its own overhead inflates the figures):")
            profile(vec, games, prof)
        counters = dict(vec.counters)
        vec.close()
    finally:
        games.close()
    base = order[0] if "per-ring" not in order else "per-ring"
    base_t = statistics.median(figures[base][0]) or 1e-9
    base_c = statistics.median(figures[base][1]) or 1e-9
    for m, (ts, cs, hs) in figures.items():
        t, c, th = statistics.median(ts), statistics.median(cs), statistics.median(hs)
        print(f"N={n:3d} {w}x{h} {m:9s} learner step {t * 1e6:8.0f} us ({t / base_t:5.2f}x "
              f"{base})  learner CPU {c * 1e6:7.0f} us ({c / base_c:5.2f}x; target "
              f"{100 + 5 * n} us; its own thread {th * 1e6:.0f})  [{len(ts)} steps]")
    busy = sorted(((v, k) for k, v in others.items() if v > 0), reverse=True)
    print(f"N={n:3d} the learner's other threads over the {timed} timed steps "
          f"({loop_s / timed * 1e6:.0f} us each, the games' part included): "
          + (", ".join(f"{name} ({tid}) {v / 1e3 / timed:.1f} us/step"
                       for v, (tid, name) in busy) or "none on the CPU"))
    print(f"N={n:3d} vector learner counters {counters}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("producer")
    p.add_argument("--envs", default="1,8,32")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--size", default="128x128")
    p.add_argument("--sync", choices=("semaphore", "fence"), default="semaphore")
    p.add_argument("--modes", default="per-ring,vector,memcpy",
                   help="which of per-ring, vector, memcpy, idle (the games step, nothing is "
                        "read) alternate")
    p.add_argument("--profile", type=int, default=0, metavar="STEPS",
                   help="then profile STEPS vector steps (cProfile, top functions)")
    a = p.parse_args()
    modes = tuple(a.modes.split(","))
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        p.error(f"--modes: {', '.join(unknown)} not one of {', '.join(MODES)}")
    w, h = (int(x) for x in a.size.split("x"))
    try:
        R.CudaImporter()
    except (OSError, R.RingError) as e:
        print(f"skipped: no CUDA driver: {e}")
        return 0
    for n in (int(x) for x in a.envs.split(",")):
        run(a.producer, n, w, h, a.sync, a.steps, a.profile, modes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
