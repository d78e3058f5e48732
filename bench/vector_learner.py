"""The vector learner's step against today's per-ring reading, same run.

    python3 bench/vector_learner.py PRODUCER [--envs 1,8,32] [--steps 300] [--size 128x128]
                                    [--sync semaphore|fence]

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

Printed per N and mode: the learner's median time per step from the
descriptors in hand to the batch queued (per-ring: to the batch complete, its
host sync; vector: the GPU work is waited for only by the next step's poll),
its median CPU per step (time.process_time), each as a ratio to per-ring in
the same run. Targets (issue 27): learner CPU per step <= 100 us
+ 5 us per game. Without a CUDA device (and no stand-in libcuda) it prints
"skipped". The producer's own upload dominates the step time here; the
learner CPU column is the figure this measures.
"""
import argparse
import cProfile
import os
import pstats
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
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
                         vec.row_bytes, vec.row_bytes, vec.height, R._CU_STREAM_LEGACY)
    vec._api.synchronize(R._CU_STREAM_LEGACY)
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


def run(producer, n, w, h, sync, steps, prof=0):
    games = Games(producer, n, w, h, sync)
    order = ("per-ring", "vector", "memcpy")
    figures = {m: ([], []) for m in order}
    try:
        vec = V.VectorLearner(games.step(), gather="kernel")
        kernel = vec._fn
        for k in range(steps * len(order)):
            mode = order[(k // 20) % len(order)]
            descs = games.step()
            t0, c0 = time.perf_counter(), time.process_time()
            if mode == "per-ring":
                per_ring_step(vec, descs)
            else:
                vec._fn = kernel if mode == "vector" else None  # None: the cuMemcpy2DAsync path
                vec.step(descs)
            figures[mode][0].append(time.perf_counter() - t0)
            figures[mode][1].append(time.process_time() - c0)
        vec._fn = kernel
        if prof:
            print(f"N={n:3d} profile of {prof} vector steps (cProfile: its own overhead inflates the figures):")
            profile(vec, games, prof)
        counters = dict(vec.counters)
        vec.close()
    finally:
        games.close()
    base_t = statistics.median(figures["per-ring"][0])
    base_c = statistics.median(figures["per-ring"][1])
    for m, (ts, cs) in figures.items():
        t, c = statistics.median(ts), statistics.median(cs)
        print(f"N={n:3d} {w}x{h} {m:9s} learner step {t * 1e6:8.0f} us ({t / base_t:5.2f}x "
              f"per-ring)  learner CPU {c * 1e6:7.0f} us ({c / base_c:5.2f}x; target "
              f"{100 + 5 * n} us)  [{len(ts)} steps]")
    print(f"N={n:3d} vector learner counters {counters}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("producer")
    p.add_argument("--envs", default="1,8,32")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--size", default="128x128")
    p.add_argument("--sync", choices=("semaphore", "fence"), default="semaphore")
    p.add_argument("--profile", type=int, default=0, metavar="STEPS",
                   help="then profile STEPS vector steps (cProfile, top functions)")
    a = p.parse_args()
    w, h = (int(x) for x in a.size.split("x"))
    try:
        R.CudaImporter()
    except (OSError, R.RingError) as e:
        print(f"skipped: no CUDA driver: {e}")
        return 0
    for n in (int(x) for x in a.envs.split(",")):
        run(a.producer, n, w, h, a.sync, a.steps, a.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
