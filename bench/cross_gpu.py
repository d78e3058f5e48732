"""The learner on another GPU than its games, against the same-GPU import, same run.

    python3 bench/cross_gpu.py PRODUCER [--envs 4] [--steps 200] [--size 640x360]

Needs 2 CUDA devices (else it prints "skipped"). N games (test_zc_ring
serve semaphore, each put on a GPU by $CG_VKT_DEVICE_UUID) step in lockstep
with one VectorLearner whose batch is on GPU B; for (A, B) = (0, 1) and
(1, 0), three setups side by side, alternating every 20 steps so drift hits
all alike:

  same-gpu   the games on B: the rings imported where they are (the baseline)
  peer       the games on A, cross_gpu="peer": gathered on A, cuMemcpyPeerAsync
             to B (not run, with the driver's reason, without peer access)
  staged     the games on A, cross_gpu="staged": gathered on A, D2H into
             pinned memory, H2D on B

Printed per setup: the learner's median step from the descriptors in hand to
the batch complete on B (step() and a host sync of its stream), as a ratio
to same-gpu; the aggregate frames/s of the whole lockstep loop (the games'
frames included: N frames per loop); and the copy's rate (N frames' bytes
per learner step). The games' own upload dominates the loop here; the
learner step column is the cost of crossing GPUs.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from craftground_capture import _device as D  # noqa: E402
from craftground_capture import ring as R  # noqa: E402
from craftground_capture import vector as V  # noqa: E402
from vector_learner import Games  # noqa: E402  (bench/: N producer processes in lockstep)


def setups(gpus, a, b):
    """(name, games' GPU, cross_gpu) for the learner on GPU b."""
    return (("same-gpu", gpus[b], "refuse"), ("peer", gpus[a], "peer"),
            ("staged", gpus[a], "staged"))


def run(producer, gpus, a, b, n, w, h, steps):
    live = []
    try:
        for name, where, cross in setups(gpus, a, b):
            games = Games(producer, n, w, h, "semaphore",
                          env=dict(os.environ, CG_VKT_DEVICE_UUID=where.uuid.hex()))
            live.append([name, games, None, [], []])
            try:
                live[-1][2] = V.VectorLearner(games.step(), device=b, cross_gpu=cross)
            except D.DeviceError as e:
                print(f"GPU {a} -> {b} {name}: not run: {e}")
                games.close()
                live.pop()
        for k in range(steps * len(live)):
            name, games, vec, ts, loops = live[(k // 20) % len(live)]
            t0 = time.perf_counter()
            descs = games.step()
            t1 = time.perf_counter()
            batch = vec.step(descs)
            vec._api.synchronize(batch.stream)  # the batch complete on the learner's GPU
            t2 = time.perf_counter()
            ts.append(t2 - t1)
            loops.append(t2 - t0)
    finally:
        for entry in live:
            if entry[2] is not None:
                entry[2].close()
            entry[1].close()
    base = statistics.median(live[0][3]) if live and live[0][0] == "same-gpu" else None
    nbytes = n * w * h * 4
    for name, _, vec, ts, loops in live:
        t = statistics.median(ts)
        ratio = f"{t / base:5.2f}x same-gpu" if base else "no baseline"
        print(f"GPU {a} -> {b} N={n} {w}x{h} {name:8s} ({vec.path}): learner step "
              f"{t * 1e6:8.0f} us ({ratio}), {n * len(loops) / sum(loops):7.0f} frames/s "
              f"aggregate, copy {nbytes / t / 1e9:6.2f} GB/s  [{len(ts)} steps]")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("producer")
    p.add_argument("--envs", type=int, default=4)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--size", default="640x360")
    args = p.parse_args()
    w, h = (int(x) for x in args.size.split("x"))
    # tests/python/fake_game.py (with the stand-in libcuda): a dry run of this script.
    producer = [sys.executable, args.producer] if args.producer.endswith(".py") else args.producer
    try:
        gpus = D.list_gpus(R.CudaImporter())
    except (OSError, R.RingError) as e:
        print(f"skipped: no CUDA driver: {e}")
        return 0
    if len(gpus) < 2:
        print(f"skipped: {len(gpus)} CUDA device(s); crossing GPUs needs 2")
        return 0
    print(f"GPUs: {'; '.join(str(g) for g in gpus)}")
    for a, b in ((0, 1), (1, 0)):
        run(producer, gpus, a, b, args.envs, w, h, args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
