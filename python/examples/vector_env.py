"""A vector env's step loop feeding a torch policy from VectorLearner.

N games each publish their frames into a zero-copy v2 ring; each step the
learner makes one (N, H, W, C) uint8 CUDA batch of them (one GPU wait, one
gather launch; docs/zero-copy-v2/learner.md, "The vector learner") and runs the
policy on it, in the same stream, with no host copy.

Two loops, as RL samplers run them:
  lockstep        every game steps, the policy sees all N frames, every game
                  gets its action, repeat
  double          the games are two halves: while the policy runs on half A's
                  batch rows, half B's games render (Sample Factory's double-
                  buffered sampling); step(..., which=half) gathers one half

The games here are stand-ins: `--producer` names test_zc_ring (or
test_gl_ring) from the build, whose "serve" mode renders a test pattern
into a ring and prints each frame's descriptor when it reads a line; in
CraftGround the descriptor arrives in each game's ObservationSpaceMessage
(ipc_handle) and the action goes back over the same socket.

    python vector_env.py --producer build/tests/vulkan/test_zc_ring --envs 8 --mode double

Without torch the policy is a constant action (the loop, the batch and the
counters still run); without a GPU, point $CRAFTGROUND_CAPTURE_LIBCUDA at the
stand-in libcuda the tests build (fence mode, lavapipe).
"""
import argparse
import subprocess
import sys
import time

try:  # the policy is optional: the loop runs without torch
    import torch
    import torch.nn as nn
except ImportError:  # pragma: no cover - exercised where torch is absent
    torch = None


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--producer", help="test_zc_ring / test_gl_ring (serve mode) from the build")
    p.add_argument("--envs", type=int, default=4, help="N games (default 4)")
    p.add_argument("--width", type=int, default=128)
    p.add_argument("--height", type=int, default=128)
    p.add_argument("--steps", type=int, default=100, help="steps per loop")
    p.add_argument("--mode", choices=("lockstep", "double", "both"), default="both")
    p.add_argument("--sync", choices=("fence", "semaphore"), default="fence",
                   help="the producers' ring mode (semaphore: the GPU machine)")
    p.add_argument("--actions", type=int, default=8, help="size of the action space")
    a = p.parse_args(argv)
    if a.envs < 1 or (a.mode != "lockstep" and a.envs < 2):
        p.error("--envs must be >= 1 (>= 2 for the double-buffered loop)")
    return a


class StandInGames:
    """N producer processes; send(rows) lets those games render their next
    frame (the action), recv(rows) returns their descriptors."""

    def __init__(self, producer, n, w, h, sync):
        self.procs = [subprocess.Popen([producer, "serve", sync, str(w), str(h), "1000000", "1"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                      for _ in range(n)]

    def send(self, rows, actions=None):
        for i in rows:
            self.procs[i].stdin.write("go\n")  # a real game would get actions[i] here
            self.procs[i].stdin.flush()

    def recv(self, rows):
        out = []
        for i in rows:
            line = self.procs[i].stdout.readline().strip()
            if not line:
                raise SystemExit(f"game {i} stopped (exit {self.procs[i].wait()})")
            out.append(bytes.fromhex(line))
        return out

    def close(self):
        for p in self.procs:
            p.stdin.close()
        for p in self.procs:
            p.stdout.read()
            p.wait()


def make_policy(channels, n_actions):
    """A Nature-CNN on (N, H, W, C) uint8 CUDA frames -> N actions; a
    constant action without torch."""
    if torch is None:
        return lambda batch, rows: [0] * len(rows)

    class NatureCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(channels, 32, 8, 4), nn.ReLU(), nn.Conv2d(32, 64, 4, 2), nn.ReLU(),
                nn.Conv2d(64, 64, 3, 1), nn.ReLU(), nn.Flatten(), nn.LazyLinear(512), nn.ReLU(),
                nn.Linear(512, n_actions))

        def forward(self, obs):  # obs: (B, H, W, C) uint8
            return self.body(obs.permute(0, 3, 1, 2).float().div_(255))

    net = host = done = obs = None

    @torch.no_grad()
    def act(batch, rows):
        nonlocal net, host, done, obs
        if obs is None:
            # No copy, made once: the batch's memory is the same every step and each step's
            # gather is queued on the stream given to step(), the one the policy runs on, so
            # this tensor shows every later batch in order (a DLPack export per step would
            # cost the loop ~100 us of CPU for nothing).
            obs = torch.from_dlpack(batch)
            net = NatureCNN().to(obs.device)
            host = torch.empty(len(batch.new), dtype=torch.int64, pin_memory=True)
            done = torch.cuda.Event(blocking=True)
        logits = net(obs[rows])
        a = torch.distributions.Categorical(logits=logits).sample()
        # The actions to the host: a blocking event sleeps until the GPU is
        # done, where .tolist() would spin a core for the whole wait.
        out = host[:len(a)]
        out.copy_(a, non_blocking=True)
        done.record()
        done.synchronize()
        return out.tolist()

    return act


def lockstep(games, vec, policy, steps, stream):
    everyone = list(range(vec.n))
    games.send(everyone)
    descs = games.recv(everyone)
    for _ in range(steps):
        batch = vec.step(descs, stream=stream)
        actions = policy(batch, everyone)
        games.send(everyone, actions)  # the games render their next frame ...
        descs = games.recv(everyone)   # ... and report it


def double_buffered(games, vec, policy, steps, stream):
    halves = [list(range(0, vec.n, 2)), list(range(1, vec.n, 2))]
    for h in halves:
        games.send(h)
    for t in range(steps):
        h = halves[t % 2]
        batch = vec.step(games.recv(h), which=h, stream=stream)
        actions = policy(batch, h)  # the other half renders meanwhile
        games.send(h, actions)
    for h in halves:  # drain the frames still on their way
        games.recv(h)


def main(argv=None):
    args = parse_args(argv)
    if not args.producer:
        print("no --producer given: nothing to run (see --help)")
        return 0
    from craftground_capture import VectorLearner

    stream = torch.cuda.current_stream() if torch is not None and torch.cuda.is_available() \
        else None
    loops = ("lockstep", "double") if args.mode == "both" else (args.mode,)
    for loop in loops:
        games = StandInGames(args.producer, args.envs, args.width, args.height, args.sync)
        try:
            games.send([0])
            first = games.recv([0])[0]
            # The rings' templates: any descriptor of each ring connects to it.
            games.send(range(1, args.envs))
            templates = [first] + games.recv(range(1, args.envs))
            with VectorLearner(templates) as vec:
                policy = make_policy(vec.channels, args.actions)
                t0 = time.perf_counter()
                (lockstep if loop == "lockstep" else double_buffered)(
                    games, vec, policy, args.steps, stream)
                dt = time.perf_counter() - t0
                steps = args.steps * (args.envs if loop == "lockstep" else (args.envs + 1) // 2)
                print(f"{loop}: {args.envs} envs, {args.steps} steps, {steps / dt:.0f} env "
                      f"frames/s, gather {vec.gather}, leases in {'C' if vec.native else 'Python'}"
                      f" (driver calls in {'C' if vec.native_calls else 'Python'}), "
                      f"policy {'torch' if torch else 'none'}")
                print(f"{loop}: learner counters {vec.counters}")
                for i, c in enumerate(vec.producer_counters()):
                    print(f"{loop}: game {i} producer counters {c}")
        finally:
            games.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
