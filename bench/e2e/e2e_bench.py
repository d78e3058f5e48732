"""End-to-end benchmark of the observation path as CraftGround runs it (issue 27, item 4).

    python3 bench/e2e/e2e_bench.py --game build/bench/bench_e2e_game
        [--envs 1,8,32] [--sizes 64x64,128x128,640x360] [--costs 0.05,0.5,2]
        [--modes none,raw,png,v1,v2rgba,v2rgb,nowait] [--loops lockstep,double]
        [--steps 300] [--rounds 3] [--warmup 10] [--sync auto|fence|semaphore]
        [--policy auto|torch|torch-graph|null|numpy] [--wait spin|block] [--budget SECONDS]
        [--check] [--package DIR]

This process is the ONE learner. It starts N game JVMs (--game: the command
that runs cgbench.E2eGame, bench/e2e/E2eGame.java; this script appends the
socket path and the game's index), each rendering a changing 640x360 scene
with Vulkan (a compute dispatch whose GPU cost is calibrated to --costs ms a
frame) and capturing it through the real natives, and steps them in lockstep
over one Unix socket each: the game sends an ObservationSpaceMessage, the
learner makes the batch a CUDA tensor, runs a fixed policy forward (a
Nature-CNN in torch; the same in every mode) and sends each game its action.
--policy torch-graph runs the same network as one CUDA graph replayed per
step (captured once per batch tensor): its kernels reach the GPU in one
submission instead of one launch each from Python. --policy null makes
the batch on the device as every mode does and runs no policy (constant
actions): what the readers' own GPU work costs the loop.

Modes (the game's capture / the learner's batch):
  none    render + fence wait, no capture; the policy runs on a constant
          device batch: the ceiling
  raw     RAW on its best footing: the frame copied into host-cached memory
          in the frame's own command buffer, fence, convertCapturedFrameImpl
          (RAW, flip, resize), the message; the learner receives each image
          straight into its row of one pinned host batch (no copy), one H2D
          copy, rows upright on the GPU
  png     the same with convertCapturedFrameImpl (PNG); decoded on the host
          (craftground_capture.png_to_array: PIL where present)
  v1      CUDA IPC: the game image's exported memory imported by
          importVulkanMemoryAndInitCudaIpcImpl, fence, then
          copyImportedArrayToCudaSharedMemoryImpl each frame; the learner
          opens each game's handle once and resizes (nearest) on the GPU.
          Skipped, with the natives' reason, where they have no CUDA
  v2rgba  VulkanZerocopyRing RGBA (initCopyImpl, the compute copy), 640x360
          through VectorLearner, resized (nearest) on the GPU
  v2rgb   VulkanZerocopyRing RGB slot format (initRgbImpl: the target size,
          upright) through VectorLearner
  nowait  render + submit, no capture and no fence wait (two frames in
          flight, as v2's semaphore mode keeps): what games that never wait
          reach, against `none`'s (is the ceiling set by the games' waits?)
The v2 rings run in semaphore mode where the device exports timeline
semaphores (the game submits, publishes and goes on; it waits only for the
frame before the last, two frames in flight), else in fence mode (the game
waits for its frame); --sync forces one. Loops: lockstep (every game steps,
the policy sees all N) and double (Sample Factory's double-buffered sampling:
two halves of the games, the policy runs on one half's batch while the other
half renders; N >= 2; RAW/PNG/v1 games still wait their own fences).

Every mode and loop of one (N, size, render cost) runs in the same game
processes, in blocks that alternate (--rounds of them, the order rotated each
round) so drift hits all alike. v1 leaves a CUDA context in each game: it
runs last in the first round (every other mode's GPU memory is measured
before it), and the next sweep gets fresh games. Printed per configuration (a markdown table
for docs/benchmarks.md):
  steps/s      aggregate env steps/s: env steps per learner iteration / the
               median iteration time
  x ceiling    the ratio to `none` in the same loop, size, cost and run
  game CPU     median of the games' thread CPU for the whole step, action read
               to observation sent: the render's recording and submit, fence
               waits, capture, message, send; in brackets the same from the
               render recorded on (submit, fence wait, capture, message, send:
               what the capture costs the game, with its send)
  game wall    median of the games' wall time from the render recorded to the
               observation sent (the bracketed CPU figure's span): a fence wait
               counts whole here whether the driver spins or sleeps in it (what
               the observation holds the game's step up by)
  learner CPU  median process CPU per learner iteration, scaled to a step of
               all N games (recv, batch, policy, the actions' host copy and its
               wait, send); in brackets the part making the batch (the reader:
               VectorLearner.step, the host copies and H2D, decoding)
  GPU MiB/game NVML: each game process's device memory where NVML lists the
               games' pids, else (marked ~) the device's used memory less what
               it was before the games started and less the learner's torch
               growth, / N; n/a without NVML
  skipped      frames a ring skipped because every slot was held
The first iteration of each mode's first block (a warmup one) is checked
against the scene (sky on top, grass at the bottom, every row): a batch of
the wrong bytes, channels or row order prints WRONG BATCH.

The learner syncs with the GPU only where a training loop must: the policy's
actions go to the host (.cpu()) to be sent to the games. Without torch or a
CUDA device (CI: lavapipe, fence mode, the stand-in libcuda of
tests/python/fake_cuda_ext.c named by $CRAFTGROUND_CAPTURE_LIBCUDA) the batch
is a host array and the policy a numpy stand-in: the figures then say nothing
about a GPU; the run checks the harness. --check: exit 1 on a wrong batch, a
row without every column or steps, or a configuration without a row (only v1
may be skipped, with its reason). --package DIR: the learner imports
craftground_capture from DIR (another commit's python/, for an A/B of the
reader's code against the same games and natives; the first line printed
names the package's folder). Exit 77: no Vulkan device with external memory.
"""
import argparse
import ctypes
import os
import shlex
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import numpy as np  # noqa: E402

try:
    import torch
except ImportError:  # CI: no torch
    torch = None

MODES = ("none", "raw", "png", "v1", "v2rgba", "v2rgb", "nowait")
MODE_ID = {m: i for i, m in enumerate(MODES)}
SYNC_ID = {"auto": 0, "fence": 1, "semaphore": 2}
CONFIG, STEP, CALIBRATE, QUIT = 1, 2, 3, 4
OBS, READY, ERROR, UNAVAILABLE = 0, 1, 2, 3
W, H = 640, 360
N_ACTIONS = 6
HDR = struct.Struct("<iiqqqqq")


class Skip(Exception):
    """A mode this machine or build cannot run (the reason is printed)."""


# --- the games ------------------------------------------------------------------------------


class Games:
    """N E2eGame processes, one Unix socket each, in index order.
    cpus: the CPUs the games run on (--pin), or None: the learner's."""

    def __init__(self, cmd, n, tmp, cpus=None):
        self.n = n
        path = os.path.join(tmp, f"learner-{n}.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(n)
        srv.settimeout(1)
        own = os.sched_getaffinity(0)
        if cpus:  # a child starts with the affinity of the thread that forked it
            os.sched_setaffinity(0, cpus)
        try:
            self.procs = [subprocess.Popen(cmd + [path, str(i)]) for i in range(n)]
        finally:
            os.sched_setaffinity(0, own)
        self.socks = [None] * n
        try:
            deadline = time.monotonic() + 120
            for _ in range(n):
                while True:
                    try:
                        s, _ = srv.accept()
                        break
                    except socket.timeout:
                        dead = [i for i, p in enumerate(self.procs) if p.poll() is not None]
                        if dead or time.monotonic() > deadline:
                            for p in self.procs:
                                if p.poll() is None:
                                    p.kill()
                            raise SystemExit(f"games {dead} exited before connecting (their "
                                             "stderr is above)" if dead else
                                             "the games did not connect in 120 s")
                s.settimeout(120)
                i = struct.unpack("<i", self._exact(s, 4))[0]
                s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 21)
                self.socks[i] = s
        finally:
            srv.close()
            os.unlink(path)
        self.bufs = [bytearray(1 << 16) for _ in range(n)]
        self.hdr = bytearray(HDR.size)
        self.kinds = [self.recv(i)[0] for i in range(n)]
        self.v1_ran = False  # a v1 block ran: the games hold a CUDA context from then on
        self.hello = self.last_text

    @staticmethod
    def _exact(s, k):
        b = bytearray(k)
        v, pos = memoryview(b), 0
        while pos < k:
            got = s.recv_into(v[pos:], k - pos)
            if not got:
                raise SystemExit("a game closed its socket (see its stderr above)")
            pos += got
        return b

    def send(self, rows, cmd, args=None, a=0, b=0, c=0, d=0):
        for j, i in enumerate(rows):
            x = a if args is None else int(args[j])
            self.socks[i].sendall(struct.pack("<5i", cmd, x, b, c, d))

    def _fill(self, i, view):
        s, pos, n = self.socks[i], 0, len(view)
        while pos < n:
            got = s.recv_into(view[pos:], n - pos)
            if not got:
                raise SystemExit(f"game {i} closed its socket mid-message")
            pos += got

    def recv(self, i, into=None):
        """(kind, (step CPU ns, CPU ns after the render, wall ns after the render), frame,
        extra, payload memoryview)
        of game i's next reply. into: where an observation's image goes when the message is
        just that image (field 1) of exactly len(into) bytes: received there with no copy,
        the payload returned as None."""
        s, v = self.socks[i], memoryview(self.hdr)
        pos = 0
        while pos < HDR.size:
            got = s.recv_into(v[pos:], HDR.size - pos)
            if not got:
                raise SystemExit(f"game {i} closed its socket (exit {self.procs[i].poll()})")
            pos += got
        n, kind, cpu, cpu_after, frame, extra, wall_after = HDR.unpack(self.hdr)
        times = (cpu, cpu_after, wall_after)
        if n > len(self.bufs[i]):
            self.bufs[i] = bytearray(n)
        pv = memoryview(self.bufs[i])[:n]
        k = n - len(into) if into is not None and kind == OBS else 0
        if 0 < k <= 6:  # the tag and the length's varint, then the image
            self._fill(i, pv[:k])
            if pv[0] == 0x0A and _varint_is(pv[1:k], len(into)):
                self._fill(i, into)
                return kind, times, frame, extra, None
            self._fill(i, pv[k:])
        else:
            self._fill(i, pv)
        if kind != OBS:
            self.last_text = bytes(pv).decode("utf-8", "replace")
        return kind, times, frame, extra, pv

    def close(self):
        for s in self.socks:
            if s is not None:
                try:
                    s.sendall(struct.pack("<5i", QUIT, 0, 0, 0, 0))
                except OSError:
                    pass
        for p in self.procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for s in self.socks:
            if s is not None:
                s.close()


def _varint_is(b, value):
    """Is b exactly the varint encoding of value?"""
    got, shift = 0, 0
    for j, x in enumerate(b):
        got |= (x & 0x7F) << shift
        shift += 7
        if x < 0x80:
            return j == len(b) - 1 and got == value
    return False


def field(buf, want):
    """The bytes of length-delimited field `want` of a protobuf message, as a
    memoryview of buf (no copy), or None. The games' messages carry only
    fields 1 (image) or 37 (ipc_handle)."""
    pos, n = 0, len(buf)
    while pos < n:
        tag, shift = 0, 0
        while True:
            b = buf[pos]
            pos += 1
            tag |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        if tag & 7 != 2:
            raise ValueError(f"unexpected wire type {tag & 7} in the game's message")
        ln, shift = 0, 0
        while True:
            b = buf[pos]
            pos += 1
            ln |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        if tag >> 3 == want:
            return buf[pos:pos + ln]
        pos += ln
    return None


# --- the learner's device side ------------------------------------------------------------


class Device:
    """torch + CUDA where present (the real thing), else host numpy arrays."""

    def __init__(self, want):
        self.torch = want != "numpy" and torch is not None and torch.cuda.is_available()
        if want in ("torch", "torch-graph", "null") and not self.torch:
            raise SystemExit(f"--policy {want}: torch with a CUDA device is not here")
        self.graph = self.torch and want == "torch-graph"
        self.null = self.torch and want == "null"
        if self.torch:
            self.dev = torch.device("cuda")
            self.stream = torch.cuda.current_stream()
            self.name = torch.cuda.get_device_name(0)
        else:
            self.stream = None
            self.name = "host (numpy; no torch/CUDA)"

    def zeros(self, shape, pinned=False):
        if not self.torch:
            return np.zeros(shape, np.uint8)
        return torch.zeros(shape, dtype=torch.uint8, pin_memory=True) if pinned else \
            torch.zeros(shape, dtype=torch.uint8, device=self.dev)

    def from_vector(self, batch):
        """A VectorBatch as a tensor (torch: DLPack, no copy) or, with the
        stand-in libcuda (whose device memory is host memory), a numpy view."""
        if self.torch:
            return torch.from_dlpack(batch)
        cai = batch.__cuda_array_interface__
        shape = cai["shape"]
        nbytes = int(np.prod(shape))
        return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(cai["data"][0])) \
            .reshape(shape)


def make_policy(dev, th, tw, wait="spin"):
    """The fixed policy, the same for every mode: a Nature-CNN (torch, on the
    device, inference), else a numpy stand-in (a strided mean). wait: how the
    learner waits for the actions on the host: "spin" (.cpu(), CUDA's
    default, which spins while the GPU works) or "block" (a blocking event
    after a copy into pinned memory: the thread sleeps until the GPU is done)."""
    if not dev.torch:
        def act_np(obs):
            return (obs[:, ::4, ::4, :].mean(axis=(1, 2, 3)).astype(np.int64) % N_ACTIONS)
        return act_np, "numpy stand-in"
    if dev.null:
        def act_null(obs):  # the batch made on the device, never read: the readers' GPU work
            return np.zeros(len(obs), np.int64)
        return act_null, "null (no policy; the batch is made and not read)"
    import torch.nn as nn

    torch.manual_seed(0)
    body = nn.Sequential(nn.Conv2d(3, 32, 8, 4), nn.ReLU(), nn.Conv2d(32, 64, 4, 2), nn.ReLU(),
                         nn.Conv2d(64, 64, 3, 1), nn.ReLU(), nn.Flatten())
    with torch.no_grad():
        k = body(torch.zeros(1, 3, th, tw)).shape[1]
    net = nn.Sequential(body, nn.Linear(k, 512), nn.ReLU(), nn.Linear(512, N_ACTIONS))
    net = net.to(dev.dev).eval()

    host = torch.empty(4096, dtype=torch.int64, pin_memory=True)
    done = torch.cuda.Event(blocking=True)

    def forward(obs):
        return net(obs.permute(0, 3, 1, 2).float().div_(255)).argmax(1)

    graphs = {}  # (the batch's address, shape, strides) -> (CUDAGraph, its output)

    def graphed(obs):
        """forward(obs) as a replay of a CUDA graph captured for this batch
        tensor (a reader hands the same tensor, or the same rows of it, every
        step): the policy's kernels reach the GPU in one submission."""
        key = (obs.data_ptr(), tuple(obs.shape), tuple(obs.stride()))
        g = graphs.get(key)
        if g is None:
            if len(graphs) >= 8:  # a reader that makes a new tensor each step: eager
                return forward(obs)
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):  # warm-up: cuDNN's choices made before the capture
                    forward(obs)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                out = forward(obs)
            g = graphs[key] = (graph, out)
        g[0].replay()
        return g[1]

    @torch.inference_mode()
    def act(obs):  # (B, H, W, 3) uint8 on the device
        a = graphed(obs) if dev.graph else forward(obs)
        if wait == "spin":
            return a.cpu().numpy()  # the one host sync: the actions go to the games
        out = host[:len(a)]
        out.copy_(a, non_blocking=True)
        done.record()
        done.synchronize()  # sleeps: a blocking event
        return out.numpy().copy()

    return act, f"Nature-CNN (torch{', one CUDA graph' if dev.graph else ''}), host wait {wait}"


# --- readers: one per mode, the batch of rows lo:hi ----------------------------------------


class NoneReader:
    def __init__(self, dev, n, th, tw, templates):
        self.batch = dev.zeros((n, th, tw, 3))

    def rows(self, lo, hi, msgs):
        return self.batch[lo:hi]

    def close(self):
        pass


class HostReader:
    """RAW / PNG: each image into one pinned host batch, one H2D copy."""

    def __init__(self, dev, n, th, tw, templates, png):
        self.dev, self.th, self.tw, self.png = dev, th, tw, png
        self.host = dev.zeros((n, th, tw, 3), pinned=True)
        self.host_np = self.host.numpy() if dev.torch else self.host
        # RAW: each game's image is received straight into its row (Games.recv's into)
        self.targets = None if png else [memoryview(r.reshape(-1)) for r in self.host_np]
        self.dbatch = dev.zeros((n, th, tw, 3)) if dev.torch else None
        # --policy torch-graph: RAW's rows flipped into one kept tensor (the graph is captured
        # for the tensor it reads; flip() would hand a new one each step)
        self.flipped = dev.zeros((n, th, tw, 3)) if dev.torch and dev.graph else None
        if self.flipped is not None:
            self.rev = torch.arange(th - 1, -1, -1, device=dev.dev)
        if png:
            from craftground_capture import png_to_array
            self.decode = png_to_array

    def rows(self, lo, hi, msgs):
        for i, m in zip(range(lo, hi), msgs):
            if m is None:
                continue  # received into its row already
            img = field(m, 1)
            if self.png:
                self.host_np[i] = self.decode(img)  # (H, W, 3) upright
            else:  # RAW: RGB8 rows bottom-up, flipped on the GPU
                self.host_np[i] = np.frombuffer(img, np.uint8).reshape(self.th, self.tw, 3)
        if not self.dev.torch:
            part = self.host_np[lo:hi]
            return part if self.png else part[:, ::-1]
        d = self.dbatch[lo:hi]
        d.copy_(self.host[lo:hi], non_blocking=True)
        if self.png:
            return d
        if self.flipped is None:
            return d.flip(1)
        out = self.flipped[lo:hi]
        torch.index_select(d, 1, self.rev, out=out)  # the same one kernel as flip(1)
        return out

    def close(self):
        pass


class Phases:
    """--phases: where the v2 reader's batch time goes, per learner
    iteration: the message parse, and VectorLearner.step's parts (the poll
    of the last gathers' events with the releases, the leases, the
    semaphore wait, the gather launches with their list packing, the event
    record, the rest; with the native helper's driver calls, its poll and
    its one call for the wait, the launches and the record), timed
    around the vector's own methods (perf_counter in the learner's thread;
    the wrappers' own cost, ~0.3 us a call, is in the figures). Counted
    only while `on` (run_block: the measured iterations, not the warmup)."""
    PARTS = ("parse", "step", "poll", "lease", "wait", "launch", "record", "calls")

    def __init__(self):
        self.t = {k: 0.0 for k in self.PARTS}
        self.iters = self.rows = 0
        self.on = False

    def wrap(self, obj, name, part):
        fn, t = getattr(obj, name), self.t

        def timed(*args, **kw):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                if self.on:
                    t[part] += time.perf_counter() - t0
        setattr(obj, name, timed)

    def attach(self, vec):
        if getattr(vec, "native_calls", False):  # the helper's poll and queue, this vec's only
            vec._native = _Forward(vec._native)
            self.wrap(vec._native, "poll", "poll")
            self.wrap(vec._native, "queue", "calls")
        self.wrap(vec, "poll", "poll")
        self.wrap(vec, "_lease_all", "lease")
        self.wrap(vec._api, "wait_many", "wait")
        self.wrap(vec, "_gather", "launch")  # every gather launch goes through it
        self.wrap(vec._api, "record", "record")

    def text(self, n):
        if not self.iters:
            return "no iterations"
        per = {k: v / self.rows * n * 1e6 for k, v in self.t.items()}  # us a step of N games
        rest = per["step"] - sum(per[k] for k in ("poll", "lease", "wait", "launch", "record",
                                                  "calls"))
        calls = (f"wait + launch + record in C {per['calls']:,.0f}" if self.t["calls"] else
                 f"wait {per['wait']:,.0f} + launch {per['launch']:,.0f} + record "
                 f"{per['record']:,.0f}")
        return (f"parse {per['parse']:,.0f}, step {per['step']:,.0f} = poll {per['poll']:,.0f} "
                f"+ lease {per['lease']:,.0f} + {calls} + rest {rest:,.0f} us "
                f"a step of {n} games ({self.iters} iterations)")


class _Forward:
    """A module's attributes, forwarded; the ones set here (Phases' timed
    wrappers) shadow them for the one VectorLearner holding this."""

    def __init__(self, mod):
        self._mod = mod

    def __getattr__(self, name):
        return getattr(self._mod, name)


class VectorReader:
    """v2 RGB / RGBA: craftground_capture.VectorLearner, the batch on the GPU."""

    def __init__(self, dev, n, th, tw, templates, rgba, double, phases=None):
        from craftground_capture import VectorLearner, ring as R
        descs = [bytes(t) for t in templates]  # the rings' templates, as sent
        if os.environ.get("CRAFTGROUND_CAPTURE_LIBCUDA"):  # the stand-in: the device's UUID
            os.environ["CG_FAKE_CUDA_UUID"] = R.parse_descriptor(descs[0]).device_uuid.hex()
        self.dev, self.rgba, self.double = dev, rgba, double
        self.vec = VectorLearner(descs, stream=dev.stream)
        self.stale = 0
        # A message that is the descriptor alone (field 37, the template's length): its bytes
        # after this prefix, with no scan; any other message through field().
        ln, k, enc = len(descs[0]), len(descs[0]), bytearray()
        while True:
            enc.append((k & 0x7F) | (0x80 if k >> 7 else 0))
            k >>= 7
            if not k:
                break
        self.prefix = bytes([0xAA, 0x02]) + bytes(enc)  # tag: field 37, length-delimited
        self.msg_len = len(self.prefix) + ln
        # The batch's memory is the same every step: the tensor is made once (from_dlpack
        # on the first step's batch) and each later gather, queued on the policy's stream,
        # lands in it in stream order.
        self.tensor = None
        self.phases = phases
        if phases is not None:
            phases.attach(self.vec)
        if rgba:  # nearest resize on the device, as cg_convert's nearest: src = dst * s / d
            ri = (np.arange(th) * H) // th
            ci = (np.arange(tw) * W) // tw
            if dev.torch:
                self.ri = torch.as_tensor(ri, device=dev.dev)
                self.ci = torch.as_tensor(ci, device=dev.dev)
            else:
                self.ri, self.ci = ri, ci

    def rows(self, lo, hi, msgs):
        t0 = time.perf_counter()
        descs = []
        pre, k, size = self.prefix, len(self.prefix), self.msg_len
        for m in msgs:
            if len(m) == size and m[:k] == pre:
                descs.append(bytes(m[k:]))
                continue
            d = field(m, 37)
            descs.append(bytes(d) if d is not None and len(d) else None)
        which = list(range(lo, hi)) if self.double else None
        t1 = time.perf_counter()
        b = self.vec.step(descs, which=which, stream=self.dev.stream)
        if self.phases is not None and self.phases.on:
            ph = self.phases
            ph.t["parse"] += t1 - t0
            ph.t["step"] += time.perf_counter() - t1
            ph.iters += 1
            ph.rows += hi - lo
        if self.tensor is None:
            self.tensor = self.dev.from_vector(b)
        t = self.tensor if (lo, hi) == (0, self.vec.n) else self.tensor[lo:hi]
        if not self.rgba:
            return t
        if self.dev.torch:
            return t.index_select(1, self.ri).index_select(2, self.ci)[..., :3]
        return t[:, self.ri][:, :, self.ci, :3]

    def close(self):
        self.vec.close()


class IpcReader:
    """v1: each game's 68-byte CUDA IPC handle opened once (open_ipc_handle,
    640x360 RGBA, refilled by the game's natives before it sends the message);
    per step each frame resized (nearest) into the device batch."""

    def __init__(self, dev, n, th, tw, templates):
        if not dev.torch:
            raise Skip("v1: the learner needs torch with a CUDA device")
        from craftground_capture import open_ipc_handle
        self.frames = [open_ipc_handle(t, W, H) for t in templates]
        self.views = [torch.from_dlpack(f).view(-1, 4) for f in self.frames]
        ri, ci = (np.arange(th) * H) // th, (np.arange(tw) * W) // tw
        self.idx = torch.as_tensor((ri[:, None] * W + ci[None, :]).reshape(-1), device=dev.dev)
        self.batch = dev.zeros((n, th, tw, 3))

    def rows(self, lo, hi, msgs):
        for i in range(lo, hi):
            self.batch[i].view(-1, 3).copy_(self.views[i].index_select(0, self.idx)[:, :3])
        return self.batch[lo:hi]

    def close(self):
        self.views = []
        for f in self.frames:
            f.close()


def make_reader(mode, dev, n, th, tw, templates, loop, phases=None):
    if mode in ("none", "nowait"):
        return NoneReader(dev, n, th, tw, templates)
    if mode in ("raw", "png"):
        return HostReader(dev, n, th, tw, templates, mode == "png")
    if mode in ("v2rgb", "v2rgba"):
        return VectorReader(dev, n, th, tw, templates, mode == "v2rgba", loop == "double",
                            phases)
    if mode == "v1":
        return IpcReader(dev, n, th, tw, templates)
    raise Skip(f"{mode}: no reader")


def check_frames(obs, dev):
    """The scene's oracle (e2e_render.comp): every row's top line is sky (blue
    over green over red), its bottom line grass (green over red and blue).
    Catches a batch of the wrong bytes, channels or row order. None if it holds."""
    a = obs.cpu().numpy() if dev.torch else np.asarray(obs)
    top = a[:, 0].reshape(len(a), -1, 3).astype(np.float64).mean(axis=1)
    bottom = a[:, -1].reshape(len(a), -1, 3).astype(np.float64).mean(axis=1)
    for i, (t, b) in enumerate(zip(top, bottom)):
        if not (t[2] > t[1] > t[0] and b[1] > b[0] + 20 and b[1] > b[2] + 20):
            return f"row {i}: top line mean RGB {t.round()}, bottom {b.round()} (want sky, grass)"
    return None


# --- GPU memory -----------------------------------------------------------------------------


class _ProcInfo(ctypes.Structure):  # nvmlProcessInfo_t (the _v3 queries)
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong),
                ("gpuInstanceId", ctypes.c_uint), ("computeInstanceId", ctypes.c_uint)]


class Nvml:
    """GPU memory per game through NVML (libnvidia-ml, with the driver): each
    game process's own figure where NVML lists the games' pids (graphics or
    compute), else the device's used memory less what it was before the games
    started and less the learner's own torch growth since, / N (marked ~);
    None without NVML."""

    def __init__(self):
        self.h = None
        try:
            self.lib = ctypes.CDLL("libnvidia-ml.so.1")
            if self.lib.nvmlInit_v2() != 0:
                return
            h = ctypes.c_void_p()
            if self.lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)) == 0:
                self.h = h
        except (OSError, AttributeError):
            pass

    def used(self):
        if self.h is None:
            return None
        m = (ctypes.c_ulonglong * 3)()  # nvmlMemory_t: total, free, used
        if self.lib.nvmlDeviceGetMemoryInfo(self.h, m) != 0:
            return None
        return m[2]

    def by_pid(self):
        out = {}
        for name in ("nvmlDeviceGetComputeRunningProcesses_v3",
                     "nvmlDeviceGetGraphicsRunningProcesses_v3"):
            fn = getattr(self.lib, name, None)
            if fn is None:
                continue
            # Room for 256 entries of a larger struct than this one (a driver whose
            # nvmlProcessInfo_t grew writes no further; its pids then match none of ours).
            raw = (ctypes.c_ubyte * (256 * 64))()
            count = ctypes.c_uint(256)
            if fn(self.h, ctypes.byref(count), raw) != 0:
                continue
            infos = (_ProcInfo * 256).from_buffer(raw)
            for p in infos[:min(count.value, 256)]:
                if p.usedGpuMemory < 1 << 62:  # NVML_VALUE_NOT_AVAILABLE is all ones
                    out[p.pid] = max(out.get(p.pid, 0), p.usedGpuMemory)
        return out

    def base(self):
        """The baseline, taken before the games start."""
        return self.used(), learner_reserved()

    def per_game(self, pids, base):
        """MiB per game, as text ("n/a" without NVML)."""
        if self.h is None:
            return "n/a"
        mine = self.by_pid()
        if any(p in mine for p in pids):
            return f"{statistics.mean(mine.get(p, 0) for p in pids) / 2**20:.0f}"
        used = self.used()
        if used is None or base[0] is None:
            return "n/a"
        return f"~{(used - base[0] - (learner_reserved() - base[1])) / len(pids) / 2**20:.0f}"


def learner_reserved():
    return torch.cuda.memory_reserved() if torch is not None and torch.cuda.is_available() else 0


# --- the runs ------------------------------------------------------------------------------


def calibrate(games, target_ms):
    """Iterations of the render's ALU loop for target_ms of GPU time (game 0's
    timestamps), and the time measured at that count."""
    def gpu_ms(iters):
        games.send([0], CALIBRATE, a=iters)
        kind = games.recv(0)[0]
        if kind != READY:
            raise SystemExit(f"calibration failed: {games.last_text}")
        return float(games.last_text)

    base = gpu_ms(0)
    if target_ms <= base:
        return 0, base
    hi = 16
    while True:
        t = gpu_ms(hi)
        if t >= target_ms or hi >= 1 << 22:
            break
        hi *= 2
    per = max((t - base) / hi, 1e-9)
    iters = min(max(int((target_ms - base) / per), 0), (1 << 24) - 1)
    return iters, gpu_ms(iters)


def configure(games, mode, th, tw, iters, sync):
    games.send(range(games.n), CONFIG, a=MODE_ID[mode], b=tw, c=th, d=iters | SYNC_ID[sync] << 24)
    templates, info = [], set()
    reasons = []
    for i in range(games.n):
        kind, _, _, extra, p = games.recv(i)
        if kind == READY:
            templates.append(bytes(p))
            info.add(extra)
        else:
            reasons.append(games.last_text)
    if reasons:
        raise Skip(reasons[0])
    return templates, info


def run_block(games, reader, policy, loop, iters_n, warmup, out, dev, check):
    """warmup + iters_n learner iterations; appends (dt, cpu, envs, game step CPU ns, game
    CPU ns after the render, skipped, the learner's CPU making the batch, game wall ns after
    the render, the batch's CPU on the learner's own thread).
    check: the first iteration's batch is checked against the scene (returned: None or why)."""
    n = games.n
    halves = [(0, n)] if loop == "lockstep" else [(0, n // 2), (n // 2, n)]
    games.send(range(n), STEP, args=[0] * n)
    bad = None
    for k in range(warmup + iters_n):
        lo, hi = halves[k % len(halves)]
        t0, c0 = time.perf_counter(), time.process_time()
        msgs, gcpu, skipped = [], [], 0
        targets = getattr(reader, "targets", None)
        for i in range(lo, hi):
            kind, gc, _, extra, p = games.recv(i, targets[i] if targets else None)
            if kind != OBS:
                raise SystemExit(f"game {i}: {games.last_text}")
            msgs.append(p)
            gcpu.append(gc)
            skipped += extra
        cb, tb = time.process_time(), time.thread_time()
        if getattr(reader, "phases", None) is not None:
            reader.phases.on = k >= warmup
        obs = reader.rows(lo, hi, msgs)
        cb, tb = time.process_time() - cb, time.thread_time() - tb
        if check and k == 0:  # a warmup iteration: its time is not counted
            bad = check_frames(obs, dev)
        actions = policy(obs)
        games.send(range(lo, hi), STEP, args=actions)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        if k >= warmup:
            out.append((dt, cpu, hi - lo, statistics.mean(g[0] for g in gcpu),
                        statistics.mean(g[1] for g in gcpu), skipped, cb,
                        statistics.mean(g[2] for g in gcpu), tb))
    for lo, hi in halves:  # drain: every game has one frame on its way
        for i in range(lo, hi):
            games.recv(i)
    return bad


def summarize(samples, n):
    dts = [s[0] for s in samples]
    envs = statistics.mean(s[2] for s in samples)
    dt = statistics.median(dts)
    return dict(sps=envs / dt,
                learner_us=statistics.median(s[1] * n / s[2] for s in samples) * 1e6,
                batch_us=statistics.median(s[6] * n / s[2] for s in samples) * 1e6,
                batch_thread_us=statistics.median(s[8] * n / s[2] for s in samples) * 1e6,
                game_us=statistics.median(s[3] for s in samples) / 1e3,
                game_after_us=statistics.median(s[4] for s in samples) / 1e3,
                game_wall_us=statistics.median(s[7] for s in samples) / 1e3,
                skipped=sum(s[5] for s in samples), iters=len(samples))


def sweep(games, dev, nvml, base_mem, n, th, tw, iters, ms, a, modes, loops, report):
    """Every (mode, loop) at one N, size and render cost, in alternating
    blocks; report(kind, text, key) gets each row, skip and wrong batch."""
    cfgs = [(m, lp) for lp in loops for m in modes if not (lp == "double" and n < 2)]
    # v1 leaves a CUDA context in every game: it comes last in the first round, so that every
    # other mode's GPU memory is measured without it (the games are then restarted for the
    # next sweep).
    cfgs = [c for c in cfgs if c[0] != "v1"] + [c for c in cfgs if c[0] == "v1"]
    samples = {c: [] for c in cfgs}
    skip, mem, info, phases = {}, {}, {}, {}
    policy, pname = make_policy(dev, th, tw, a.wait)
    per_block = max(1, a.steps // a.rounds)
    for r in range(a.rounds):
        for c in cfgs[r % len(cfgs):] + cfgs[:r % len(cfgs)]:  # rotated each round
            if c in skip:
                continue
            mode, loop = c
            try:
                templates, info[c] = configure(games, mode, th, tw, iters, a.sync)
                games.v1_ran |= mode == "v1"
                if a.phases and mode.startswith("v2") and c not in phases:
                    phases[c] = Phases()
                reader = make_reader(mode, dev, n, th, tw, templates, loop, phases.get(c))
            except Skip as e:
                skip[c] = str(e)
                continue
            except (RuntimeError, OSError, ValueError) as e:  # RingError is a RuntimeError
                skip[c] = f"failed: {type(e).__name__}: {e}"  # nothing was stepped yet
                continue
            try:
                if c not in mem:  # the mode set up, before it runs
                    mem[c] = nvml.per_game([g.pid for g in games.procs], base_mem)
                why = run_block(games, reader, policy, loop, per_block, a.warmup, samples[c],
                                dev, mode not in ("none", "nowait") and r == 0)
                if why:
                    report("wrong", f"N={n} {tw}x{th} {loop} {mode}: {why}", c)
            finally:
                reader.close()
    got = {c: summarize(samples[c], n) for c in cfgs if c not in skip and samples[c]}
    ceil = {c[1]: s["sps"] for c, s in got.items() if c[0] == "none"}
    for c in cfgs:
        mode, loop = c
        if c not in got:
            report("skip", f"N={n} {tw}x{th} {loop} {mode}: {skip.get(c, 'no samples')}", c)
            continue
        s = got[c]
        ratio = s["sps"] / ceil[loop] if loop in ceil else float("nan")
        m = mem.get(c, "n/a")
        sync = ""
        if mode.startswith("v2"):
            sync = " (semaphore)" if any(x & 0x100 for x in info.get(c, ())) else " (fence)"
        report("row", f"| {n} | {tw}x{th} | {ms:.2f} | {loop} | {mode}{sync} | {s['sps']:,.0f} | "
                      f"{ratio:.2f} | {s['game_us']:,.0f} ({s['game_after_us']:,.0f}) | "
                      f"{s['game_wall_us']:,.0f} | "
                      f"{s['learner_us']:,.0f} ({s['batch_us']:,.0f}) | {m} | "
                      f"{s['skipped']} |", c)
    for (mode, loop), ph in phases.items():
        print(f"# N={n} {tw}x{th} {loop} {mode} batch: {ph.text(n)}", flush=True)
    print(f"# N={n} {tw}x{th}: policy {pname}; issue 27's targets: {targets(got, n)}", flush=True)


def targets(got, n):
    """Issue 27's targets from this sweep's figures, as text."""
    out = []

    def sps(mode, loop):
        return got[(mode, loop)]["sps"] if (mode, loop) in got else None

    v2, raw, ceil = sps("v2rgb", "lockstep"), sps("raw", "lockstep"), sps("none", "lockstep")
    if v2 and raw:
        out.append(f"lockstep v2rgb/raw {v2 / raw:.2f} (>= 1)")
    if v2 and ceil:
        out.append(f"lockstep v2rgb/ceiling {v2 / ceil:.2f} (>= 0.95 at N >= 8)")
    d2 = sps("v2rgb", "double")
    raws = [x for x in (raw, sps("raw", "double")) if x]
    if d2 and raws:
        out.append(f"double v2rgb / the better RAW {d2 / max(raws):.2f} "
                   "(>= 1.5 at N = 32, 128x128)")
    if ("v2rgb", "lockstep") in got:
        b = got[("v2rgb", "lockstep")]
        out.append(f"learner CPU making the batch {b['batch_us']:,.0f} us, its thread "
                   f"{b['batch_thread_us']:,.0f} (<= {100 + 5 * n})")
        if ("raw", "lockstep") in got:
            r = got[("raw", "lockstep")]
            g2, gr = b["game_after_us"], r["game_after_us"]
            out.append(f"game CPU after the render v2rgb/raw {g2 / gr:.3f} (<= 0.05)")
            w2, wr = b["game_wall_us"], r["game_wall_us"]
            out.append(f"game wall after the render v2rgb/raw {w2 / wr:.3f} (<= 0.05)")
    return "; ".join(out) or "n/a"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, help="the command running cgbench.E2eGame")
    p.add_argument("--envs", default="1,8,32")
    p.add_argument("--sizes", default="64x64,128x128,640x360")
    p.add_argument("--costs", default="0.05,0.5,2", help="render GPU ms per frame")
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--loops", default="lockstep,double")
    p.add_argument("--steps", type=int, default=300, help="measured iterations per configuration")
    p.add_argument("--rounds", type=int, default=3, help="alternating blocks per configuration")
    p.add_argument("--warmup", type=int, default=10, help="unmeasured iterations per block (>= 1)")
    p.add_argument("--sync", choices=tuple(SYNC_ID), default="auto",
                   help="the rings' mode (auto: semaphore where the device has it)")
    p.add_argument("--policy", choices=("auto", "torch", "torch-graph", "null", "numpy"),
                   default="auto")
    p.add_argument("--wait", choices=("spin", "block"), default="spin",
                   help="the learner's host wait for the actions (torch): spin (.cpu()) or a "
                        "blocking event")
    p.add_argument("--phases", action="store_true",
                   help="print where the v2 readers' batch time goes (Phases)")
    p.add_argument("--budget", type=float, default=0,
                   help="seconds: start no new N/size/cost after this many (0: no limit)")
    p.add_argument("--check", action="store_true",
                   help="exit 1 unless every configuration printed a row (v1: or a reason) and "
                        "every batch held the scene")
    p.add_argument("--pin", type=int, default=0, metavar="K",
                   help="the learner (every thread of it) on the first K of the CPUs it may "
                        "use, the games on the others (0: all share every CPU)")
    p.add_argument("--package", metavar="DIR",
                   help="the folder the learner imports craftground_capture from (default: "
                        "this tree's python/): another commit's python/, for an A/B of the "
                        "learner's code on the same games and natives")
    a = p.parse_args(argv)
    game_cpus = None
    if a.pin:  # before torch starts its threads, so that they are the learner's too
        cpus = sorted(os.sched_getaffinity(0))
        if not 0 < a.pin < len(cpus):
            p.error(f"--pin {a.pin}: this process may use {len(cpus)} CPUs")
        os.sched_setaffinity(0, cpus[:a.pin])
        game_cpus = cpus[a.pin:]
        print(f"# pinned: the learner on CPUs {cpus[:a.pin]}, the games on {game_cpus}",
              flush=True)
    if a.package:
        sys.path.insert(0, os.path.abspath(a.package))
    import craftground_capture
    try:
        from craftground_capture.vector import load_native
        native, why = load_native()
    except ImportError:  # --package of a commit before the native helper
        native, why = None, "a package without the native helper"
    print(f"# learner package: {os.path.dirname(os.path.abspath(craftground_capture.__file__))}"
          f"; leases in {'C (' + native.__file__ + ')' if native else 'Python (' + why + ')'}",
          flush=True)
    envs = [int(x) for x in a.envs.split(",")]
    sizes = [tuple(int(v) for v in s.split("x")) for s in a.sizes.split(",")]
    costs = [float(x) for x in a.costs.split(",")]
    modes, loops = a.modes.split(","), a.loops.split(",")
    for m in modes:
        if m not in MODE_ID:
            p.error(f"unknown mode {m!r} (modes: {', '.join(MODES)})")
    for lp in loops:
        if lp not in ("lockstep", "double"):
            p.error(f"unknown loop {lp!r} (lockstep, double)")
    if a.warmup < 1 or a.steps < 1 or a.rounds < 1:
        p.error("--warmup, --steps and --rounds must be >= 1")
    if "none" not in modes:
        modes = ["none"] + modes  # the ceiling of every ratio
    dev = Device(a.policy)
    if dev.torch and any(min(w, h) < 36 for w, h in sizes):
        p.error("the Nature-CNN needs observations of at least 36x36 (--policy numpy for less)")
    nvml = Nvml()
    table = ["| N | obs | render ms | loop | mode | steps/s | x ceiling "
             "| game CPU us/step (after render) | game wall us after render "
             "| learner CPU us/step (batch) | GPU MiB/game | skipped |",
             "| " + " | ".join(["---"] * 12) + " |"]
    problems = []

    def report(kind, text, key):
        if kind == "row":
            table.append(text)
            print(text, flush=True)
            cells = [x.strip() for x in text.strip("|").split("|")]
            if len(cells) != 12 or not float(cells[5].replace(",", "")) > 0:
                problems.append(f"a row without every column or with no steps: {text}")
            return
        print(("skipped: " if kind == "skip" else "WRONG BATCH: ") + text, flush=True)
        if kind == "wrong" or key[0] != "v1":  # only v1 may be missing (no CUDA natives)
            problems.append(text)

    print(f"# e2e: learner {dev.name}; {a.steps} steps in {a.rounds} rounds a configuration; "
          f"ring sync {a.sync}", flush=True)
    t_start = time.monotonic()

    def run_all(tmp):
        for n in envs:
            games = None
            try:
                for cost in costs:
                    cal = None
                    for tw, th in sizes:
                        if a.budget and time.monotonic() - t_start > a.budget:
                            print(f"stopped: --budget {a.budget:g} s spent; not run from N={n} "
                                  f"{tw}x{th} render {cost} ms on", flush=True)
                            return 0
                        if games is None or games.v1_ran:  # fresh games: no CUDA in them
                            if games is not None:
                                games.close()
                                games = None
                            base_mem = nvml.base()
                            games = Games(shlex.split(a.game), n, tmp, game_cpus)
                            cal = None
                            if any(k != READY for k in games.kinds):
                                print(f"skipped: N={n}: {games.hello}")
                                if "no Vulkan" in games.hello:
                                    return 77
                                problems.append(f"N={n}: {games.hello}")
                                break
                            print(f"# N={n}: games {games.hello}", flush=True)
                        if cal is None:
                            cal = calibrate(games, cost)
                            print(f"# N={n}: render {cost} ms asked, {cal[1]:.3f} ms measured "
                                  f"({cal[0]} ALU iterations)", flush=True)
                        sweep(games, dev, nvml, base_mem, n, th, tw, cal[0], cal[1], a, modes,
                              loops, report)
                    else:
                        continue
                    break  # the games did not start: the next N
            finally:
                if games is not None:
                    games.close()
        return 0

    try:
        with tempfile.TemporaryDirectory(prefix="cg-e2e-") as tmp:
            rc = run_all(tmp)
    finally:  # what was measured is printed, also when a run fails part way
        print()
        print("\n".join(table))
    if rc:
        return rc
    if a.check:
        if problems or len(table) == 2:
            print("check failed: " + ("; ".join(problems) or "no rows"))
            return 1
        print(f"check: {len(table) - 2} rows, every column, every batch the scene")
    return 0


if __name__ == "__main__":
    sys.exit(main())
