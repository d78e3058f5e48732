"""Soak of the observation path: a training run's life, measured as one run (issue 43).

    python3 bench/e2e/soak.py --game build/bench/bench_e2e_soak_game
        [--games 16] [--render 640x360] [--obs 128x128] [--duration 420] [--seed 43]
        [--sync auto|fence|semaphore] [--policy auto|torch|numpy] [--hz 0] [--kills 3]
        [--resizes 2] [--gl-game CMD --gl-games 4] [--depth-games 4] [--check]

This process is the SUPERVISOR: it owns the schedule, and runs no GPU work itself. It starts
--games game JVMs (cgbench.SoakGame, bench/e2e/SoakGame.java) that run FREELY: each renders
the soak's scene at its render size, publishes it into its v2 ring (the RGB slot format at the
observation size) and leaves the descriptor in its mailbox (a shared file), never waiting for
a learner. One LEARNER process (this script, `learner`) reads the mailboxes, steps a
craftground_capture.VectorLearner over every ring and runs the policy on the batch every step
(the Nature-CNN in torch on a GPU, e2e_bench's numpy stand-in elsewhere): lockstep for the first
half of the run (a step waits, at most --step-timeout, until every game has a new frame), then
double-buffered (the two halves of the games in turn). Every batch row is checked each step
against the scene, which the learner predicts from the game's index, generation and frame: the
render's 8 bands from the top, the left half (frame bits 0-15, band * 16 + game), the right half
(frame bits 16-23, the generation, 255 - (band * 16 + game)), sampled by the RGB slot format's
nearest rows (docs/zero-copy-v2/protocol.md) at any render size of the schedule. A row is WRONG when its
bytes are not the scene of some frame of its own game, when it is new but not newer than the
row's last frame (a stale frame flagged as new) or its frame is not the descriptor's, or when
it changed without being new.

With --depth-games the first games' rings carry a raw depth plane too (their depth target
cleared each frame to a value of the game and frame: SoakLoop.depthOf); a VectorLearner takes
rings of one plane layout, so the learner steps one for them and one for the others, and checks
each depth row bit for bit against the frame its RGB row shows (a torn frame is wrong).

The events, on a schedule drawn from --seed and printed before the run: every game resizes
--resizes times (destroy + init at another render size, the observation size unchanged);
--kills games are SIGKILLed and restarted (their generation + 1); the learner is SIGKILLed
once and restarted (its successor connects to every ring again); the learner is stopped
(SIGSTOP) for 2 s twice; a second learner (`intruder`) tries to connect to a live ring and
must be refused without disturbing the first.

Printed at the end, one table: per game the step wall time (render, publish, mailbox) p50 /
p99.9 / max outside and inside event windows (an event's start to 1 s after its end), frames
published and skipped, the generations; per process the open fds and (NVML) GPU MiB at the
start and the end; then the learner's steps, wrong rows, batch CPU per step (VectorLearner.step,
its thread), steps/s over the run and over its event-free stretches, and for each event the
learner steps from the game's first frame after it (the learner's first step, for a learner
event) until every row it touched was new again; processes that died unasked; sockets left in
$XDG_RUNTIME_DIR (a private one) and /tmp. The timing targets are printed as ratios, never
asserted. --check: exit 1 unless 0 wrong rows, 0 unasked deaths, every event's rows new again
(within --new-within learner steps where given: CI's bound; the issue's target, 2, is printed),
the intruder refused, fds flat (at most one ring's worth more), no destroyed ring piling up and
no socket left. Exit 77: no Vulkan device (or no semaphores where asked).
"""
import argparse
import ctypes
import mmap
import os
import random
import shlex
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import e2e_bench as E  # noqa: E402  (puts this tree's python/ on sys.path)

BANDS = 8
MBOX_SIZE = 4096
SLOTS = 3  # SoakGame's ring
GAME_REC = np.dtype([("t", ">i8"), ("dur", ">i8"), ("frame", ">i8"), ("flags", ">i8")])
PUBLISHED, SKIPPED, RESIZED, FIRST = 1, 2, 4, 8
LRN = struct.Struct("<qqqQqqQ")
LRN_REC = np.dtype([("t", "<i8"), ("wall", "<i8"), ("cpu", "<i8"), ("new", "<u8"),
                    ("wrong", "<i8"), ("loop", "<i8"), ("asked", "<u8")])
SETTLE_NS = 1_000_000_000  # an event's window lasts this long after it ends


def die_with_parent():
    """Children go when the supervisor goes (no orphan learner)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def size(text):
    w, h = (int(v) for v in text.split("x"))
    return w, h


# --- the mailboxes and the scene (the learner's oracle) ------------------------------------


class Mailboxes:
    """The games' mailboxes (libe2e_game's mailboxPut: {u64 sequence, odd while the game
    writes; u32 length; the descriptor at 16}), read without ever making a game wait."""

    def __init__(self, paths):
        self.maps = []
        for p in paths:
            with open(p, "r+b") as f:
                self.maps.append(mmap.mmap(f.fileno(), MBOX_SIZE))
        self.seen = [0] * len(paths)

    def read(self, i):
        """(sequence, descriptor bytes), or None (empty, or being written all along)."""
        m = self.maps[i]
        for _ in range(64):
            s1 = struct.unpack_from("<Q", m, 0)[0]
            if s1 & 1:
                continue
            n = struct.unpack_from("<I", m, 8)[0]
            d = m[16:16 + n] if 0 < n <= 256 else b""
            # x86 keeps loads in order: a sequence read twice the same framed a whole copy.
            if struct.unpack_from("<Q", m, 0)[0] == s1:
                return (s1, d) if d else None
        return None

    def changed(self, i):
        """Game i left a descriptor since the last fresh(i) (a peek: nothing is taken)."""
        got = self.read(i)
        return got is not None and got[0] != self.seen[i]

    def fresh(self, i):
        """Game i's descriptor if it changed since the last fresh(i), else None."""
        got = self.read(i)
        if got is None or got[0] == self.seen[i]:
            return None
        self.seen[i] = got[0]
        return got[1]

    def close(self):
        for m in self.maps:
            m.close()


class Scene:
    """The soak's scene (e2e_render.comp, scene 1) as the RGB slot format samples it
    (docs/zero-copy-v2/protocol.md, "The RGB slot format": output row Y reads memory row
    H - 1 - ((th - 1 - Y) * H // th), column X reads X * W // tw), for every render size the
    schedule uses: each output row's band (two where the sizes disagree), the columns of the
    left half (W even: X * W // tw < W / 2 exactly when 2 X < tw)."""

    def __init__(self, th, tw, heights):
        bands = [set() for _ in range(th)]
        for h in heights:
            for y in range(th):
                bands[y].add((h - 1 - (th - 1 - y) * h // th) * BANDS // h)
        self.lo = np.array([min(b) for b in bands])
        self.hi = np.array([max(b) for b in bands])
        self.half = (tw + 1) // 2
        self.th, self.tw = th, tw
        exact = np.nonzero(self.lo == self.hi)[0]
        self.y0 = int(exact[0])  # a row of one band: the frame is read there

    def expected(self, games, gens, frames, bands):
        """(n, len(bands), tw, 3) uint8: the scene of each (game, gen, frame), its rows
        those of `bands`."""
        ident = bands[None, :] * 16 + (games[:, None] & 15)
        shape = ident.shape

        def col(v):
            return np.broadcast_to(v[:, None], shape)
        left = np.stack([col(frames & 255), col((frames >> 8) & 255), ident], -1)
        right = np.stack([col((frames >> 16) & 255), col(gens & 255), 255 - ident], -1)
        out = np.empty((len(games), len(bands), self.tw, 3), np.uint8)
        out[:, :, :self.half] = left[:, :, None, :]
        out[:, :, self.half:] = right[:, :, None, :]
        return out

    def decode(self, rows):
        """(game, gen, frame) each row shows, read at row y0 (one band)."""
        px = rows[:, self.y0].astype(np.int64)
        b = int(self.lo[self.y0])
        games = px[:, 0, 2] - b * 16
        frames = px[:, 0, 0] | (px[:, 0, 1] << 8) | (px[:, -1, 0] << 16)
        return games, px[:, -1, 1], frames

    def check(self, rows, games):
        """Per row: None, or why its bytes are not its game's scene; and the (gen, frame)
        each row shows. Every output row must be one band's row whole (a render row is)."""
        games = np.asarray(games, np.int64)
        seen, gens, frames = self.decode(rows)
        ok = (rows == self.expected(games, gens, frames, self.lo)).all(axis=(2, 3))
        two = self.lo != self.hi  # rows of two bands: either one's, whole
        ok[:, two] |= (rows[:, two] ==
                       self.expected(games, gens, frames, self.hi[two])).all(axis=(2, 3))
        ok = ok.all(axis=1)
        why = [f"another game's frame (game {seen[k]})" if seen[k] != games[k] else
               None if ok[k] else f"bytes that are not the scene (gen {gens[k]} frame "
               f"{frames[k]})" for k in range(len(rows))]
        return why, gens, frames


class Judge:
    """The rules across steps: a new row shows a later (generation, frame) than the row
    did, and the frame of the descriptor it was given (of a later ring frame when the ring is
    the same); a row not new shows what it showed."""

    def __init__(self, n):
        self.last = [None] * n  # (gen, frame) each row showed
        self.given = [None] * n  # (ring id, ring frame) of the descriptor each row last got

    def row(self, i, why, now, new, frame, desc):
        """why: Scene.check's verdict; now: the (gen, frame) shown; new, frame: the batch's;
        desc: (ring id, frame) of the descriptor given this step, or None. None or why
        the row is wrong."""
        last, self.last[i] = self.last[i], now
        if why is not None:
            return why
        if new:
            if desc is None or desc[1] != frame:
                return f"new with frame {frame}, but its descriptor was {desc}"
            given, self.given[i] = self.given[i], desc
            if last is not None and now <= last:
                return f"a stale frame flagged as new: {now} after {last}"
            if given is not None and given[0] == desc[0] and desc[1] <= given[1]:
                return f"ring frame {desc[1]} flagged as new after {given[1]}"
        elif last is not None and now != last:
            return f"changed without being new: {now} after {last}"
        return None


# --- the learner process --------------------------------------------------------------------


def depth_of(game, frame):
    """SoakLoop.depthOf: every depth pixel of the game's frame, exact in float32."""
    return np.float32(((game & 15) * 65536 + (frame & 0xFFFF) + 1) / float(1 << 21))


def depth_wrong(plane, game, frame):
    """None, or why a depth plane is not that of the game's frame (bit for bit: raw)."""
    want = depth_of(game, frame)
    if (plane.view(np.uint32) == want.view(np.uint32)).all():
        return None
    return f"a depth plane not its frame's (frame {frame}: {want!r}, seen {plane.flat[0]!r})"


class Group:
    """Rows of one plane layout (a VectorLearner takes rings of one): global row indices, in
    the vector's order (contiguous), and the vector."""

    def __init__(self, rows, vec, dev):
        self.rows, self.vec, self.dev = rows, vec, dev
        self.first = rows[0]
        self.tensor = None

    def host(self, batch, lo, hi):
        """The policy's input (rows lo:hi of the batch, local) and a host copy of it and of
        the depth rows (None without depth)."""
        if self.tensor is None:  # the batch's memory never moves: one tensor for the run
            self.tensor = self.dev.from_vector(batch)
        part = self.tensor[lo:hi]
        depth = None
        if batch.depth is not None:
            dv = batch.depth
            if self.dev.torch:
                depth = E.torch.from_dlpack(dv)[lo:hi].cpu().numpy()
            else:  # the stand-in's device memory is host memory
                cai = dv.__cuda_array_interface__
                nb = int(np.prod(cai["shape"])) * 4
                depth = np.frombuffer((ctypes.c_uint8 * nb).from_address(cai["data"][0]),
                                      np.float32).reshape(cai["shape"])[lo:hi].copy()
        return part, (part.cpu().numpy() if self.dev.torch else np.array(part)), depth


def connect(mail, rows, dev, stop):
    """A VectorLearner over these games' rings, all connected at once (a game may be
    restarting: retried for 120 s); None when asked to stop."""
    from craftground_capture import RingError, VectorLearner, parse_descriptor
    deadline = time.monotonic() + 120
    why = "no descriptor yet"
    while not stop:
        if time.monotonic() > deadline:
            raise SystemExit(f"learner: no VectorLearner in 120 s: {why}")
        got = [mail.read(i) for i in rows]
        if any(g is None for g in got):
            time.sleep(0.05)
            continue
        descs = [g[1] for g in got]
        if os.environ.get("CRAFTGROUND_CAPTURE_LIBCUDA"):  # the stand-in: the device's UUID
            os.environ["CG_FAKE_CUDA_UUID"] = parse_descriptor(descs[0]).device_uuid.hex()
        try:
            return VectorLearner(descs, stream=dev.stream)
        except (RingError, OSError) as e:
            why = f"{type(e).__name__}: {e}"
            time.sleep(0.1)
    return None


def learner_main(a):
    die_with_parent()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    from craftground_capture import RingError, parse_descriptor
    paths = a.mailboxes.split(",")
    n = len(paths)
    mail = Mailboxes(paths)
    dev = E.Device(a.policy)
    tw, th = size(a.obs)
    scene = Scene(th, tw, [int(h) for h in a.heights.split(",")])
    policy, pname = E.make_policy(dev, th, tw, "block" if dev.torch else "spin")
    log = os.open(a.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    groups = []
    for rows in (list(range(a.depth_rows)), list(range(a.depth_rows, n))):
        if rows:
            vec = connect(mail, rows, dev, stop)
            if vec is None:
                break
            groups.append(Group(rows, vec, dev))
    if stop:
        return 0
    print(f"learner {os.getpid()}: {n} rings in {len(groups)} vectors ("
          + ", ".join(f"rows {g.rows[0]}-{g.rows[-1]} depth {g.vec.depth_shape}" for g in groups)
          + f"), policy {pname}, gather {groups[0].vec.gather}, native {groups[0].vec.native}",
          flush=True)
    halves = [list(range(0, n // 2)), list(range(n // 2, n))] if n >= 2 else [[0]]
    judge = Judge(n)
    wrong = steps = errors = 0
    timeout = a.step_timeout
    k = 0
    while not stop:
        loop = 0 if time.monotonic() < a.switch_at else 1
        rows = list(range(n)) if loop == 0 else halves[k % 2]
        k += 1
        # Wait (bounded) until every game of the step has a new frame (games never wait),
        # then take each one's latest: a descriptor read early may name a slot its game
        # has written again since (stale).
        t_wait = time.monotonic() + timeout
        while not all(mail.changed(i) for i in rows) and time.monotonic() < t_wait:
            time.sleep(0.0005)
        descs = {}
        t0 = time.monotonic_ns()
        cpu = t_step = bad = 0
        mask_new = asked = 0
        for grp in groups:
            mine = [i for i in rows if i in grp.rows]
            if not mine:
                continue
            local = [i - grp.first for i in mine]
            # Read right before this vector's step, not before the other vector's step, host
            # copy and check: a free-running game has written its 3 slots again by then.
            descs.update((i, mail.fresh(i)) for i in mine)
            c0, t1 = time.thread_time_ns(), time.monotonic_ns()
            try:
                batch = grp.vec.step([descs[i] for i in mine],
                                     which=None if mine == grp.rows else local,
                                     stream=dev.stream)
            except RingError as e:  # the step raised (a failed gather, a misfit): ask again
                errors += 1
                if errors <= 5:
                    print(f"learner: step: {e}", flush=True)
                for i in mine:
                    if descs[i] is not None:
                        mail.seen[i] = 0
                continue
            cpu += time.thread_time_ns() - c0
            t_step += time.monotonic_ns() - t1
            asked |= sum(1 << i for i in mine)
            part, host, depth = grp.host(batch, local[0], local[-1] + 1)
            policy(part)
            new = {i: batch.new[i - grp.first] for i in mine}
            frames = {i: batch.frames[i - grp.first] for i in mine}
            mask_new |= sum(1 << i for i in mine if new[i])
            shown = [i for i in mine if frames[i]]
            if not shown:
                continue
            whys, gens, fr = scene.check(host[[i - mine[0] for i in shown]], shown)
            for j, i in enumerate(shown):
                w = whys[j]
                if w is None and depth is not None:
                    w = depth_wrong(depth[i - mine[0]], i, int(fr[j]))
                d = descs[i]
                pd = parse_descriptor(d) if d is not None and new[i] else None
                w = judge.row(i, w, (int(gens[j]), int(fr[j])), new[i], frames[i],
                              (pd.ring_id, pd.frame) if pd is not None else None)
                if w is not None:
                    bad += 1
                    if wrong + bad <= 20:
                        print(f"WRONG row {i} step {steps}: {w}", flush=True)
        wrong += bad
        steps += 1
        wall = time.monotonic_ns() - t0
        if wall > 500_000_000:
            print(f"learner: step {steps} took {wall / 1e6:,.0f} ms (VectorLearner.step "
                  f"{t_step / 1e6:,.0f} ms)", flush=True)
        os.write(log, LRN.pack(t0, wall, cpu, mask_new, bad, loop, asked))
    counters = [dict(g.vec.counters) for g in groups]
    for g in groups:
        g.vec.close()
    mail.close()
    os.close(log)
    print(f"learner {os.getpid()}: {steps} steps, {wrong} wrong rows, {errors} step errors, "
          f"counters {counters}", flush=True)
    return 0


def render_model(game, gen, frame, w, h):
    """e2e_render.comp's scene 1 written out pixel by pixel (the self-test's oracle)."""
    img = np.zeros((h, w, 3), np.uint8)
    for y in range(h):
        ident = (y * BANDS // h) * 16 + game % 16
        img[y, :w // 2] = (frame & 255, (frame >> 8) & 255, ident)
        img[y, w // 2:] = ((frame >> 16) & 255, gen & 255, 255 - ident)
    return img


def rgb_slot_model(img, tw, th):
    """The RGB slot format of a Vulkan image (docs/zero-copy-v2/protocol.md: nearest, upright)."""
    h, w = img.shape[:2]
    out = np.empty((th, tw, 3), np.uint8)
    for y in range(th):
        for x in range(tw):
            out[y, x] = img[h - 1 - (th - 1 - y) * h // th, x * w // tw]
    return out


def selftest_main(a):
    """The learner's oracle must fail: clean rows pass; a flipped row, another game's row, one
    byte off, swapped halves, a stale or repeated frame flagged new, a row changed without
    being new all fail. Exit 1 on any miss."""
    misses = []
    for (tw, th), sizes in (((32, 32), [(320, 180), (256, 144), (384, 216)]),
                            ((128, 128), [(640, 360), (800, 450), (512, 288), (960, 540)]),
                            ((37, 23), [(64, 48), (50, 30)])):
        scene = Scene(th, tw, [h for _, h in sizes])
        for w, h in sizes:
            rows = np.stack([rgb_slot_model(render_model(g, 3, 70000 + 5 * g, w, h), tw, th)
                             for g in range(4)])
            why, gens, frames = scene.check(rows, range(4))
            if any(why) or list(frames) != [70000 + 5 * g for g in range(4)] or set(gens) != {3}:
                misses.append(f"{w}x{h} -> {tw}x{th}: clean rows refused: {why}")
            bad = {"flipped": rows[1][::-1], "another game's": rows[2],
                   "one byte off": rows[1].copy(), "halves swapped": np.roll(rows[1], tw // 2, 1)}
            bad["one byte off"][th // 2, tw // 3, 1] ^= 1
            for name, r in bad.items():
                if scene.check(r[None], [1])[0][0] is None:
                    misses.append(f"{w}x{h} -> {tw}x{th}: {name} row passed")
    plane = np.full((8, 8), depth_of(5, 70000), np.float32)
    if depth_wrong(plane, 5, 70000) is not None:
        misses.append("depth: the frame's plane refused")
    for name, (g, f) in {"another frame's": (5, 70001), "another game's": (4, 70000)}.items():
        if depth_wrong(plane, g, f) is None:
            misses.append(f"depth: {name} plane passed")
    torn = plane.copy()
    torn[7, 7] = depth_of(5, 69999)
    if depth_wrong(torn, 5, 70000) is None:
        misses.append("depth: a torn plane passed")
    j = Judge(1)
    cases = [((0, 10), True, 5, (7, 5), None, "first"), ((0, 11), True, 6, (7, 6), None, "next"),
             ((0, 11), False, 6, None, None, "repeat"),
             ((0, 11), True, 7, (7, 7), "stale", "stale flagged new"),
             ((0, 12), False, 7, None, "changed", "changed, not new"),
             ((0, 13), True, 8, (7, 9), "descriptor", "frame not the descriptor's"),
             ((0, 14), True, 7, (7, 7), "ring frame", "ring frame repeated as new"),
             ((1, 1), True, 1, (8, 1), None, "a new generation's ring")]
    for now, new, frame, desc, want, name in cases:
        got = j.row(0, None, now, new, frame, desc)
        if (got is None) != (want is None) or (want and want not in got):
            misses.append(f"judge, {name}: {got!r}")
    for m in misses:
        print("MISSED: " + m)
    print(f"soak oracle self-test: {'failed' if misses else 'every wrong row caught'}")
    return 1 if misses else 0


def intruder_main(a):
    """A second learner at a live ring: it must be refused (exit 0), never served (exit 1)."""
    die_with_parent()
    from craftground_capture import RingError, RingLearner, parse_descriptor
    got = Mailboxes([a.mailbox]).read(0)
    if got is None:
        print("intruder: an empty mailbox")
        return 2
    if os.environ.get("CRAFTGROUND_CAPTURE_LIBCUDA"):
        os.environ["CG_FAKE_CUDA_UUID"] = parse_descriptor(got[1]).device_uuid.hex()
    try:
        r = RingLearner(got[1])
    except RingError as e:
        print(f"intruder: refused: {e}")
        return 0 if "another learner" in str(e) else 2
    r.close()
    print("intruder: ACCEPTED by a ring that has a learner")
    return 1


# --- the supervisor -------------------------------------------------------------------------


class Proc:
    """A child the supervisor started, and whether it was asked to die."""

    def __init__(self, kind, index, gen, popen, out):
        self.kind, self.index, self.gen, self.p, self.out = kind, index, gen, popen, out
        self.asked = False

    def fds(self):
        try:
            return len(os.listdir(f"/proc/{self.p.pid}/fd"))
        except OSError:
            return None

    def tail(self):
        try:
            with open(self.out, "rb") as f:
                return f.read()[-1500:].decode("utf-8", "replace")
        except OSError:
            return ""


def make_schedule(rng, n, a, t0, t1):
    """[(time s from the start, kind, game, arg)] on a grid of slots between t0 and t1."""
    sizes = [size(s) for s in a.resize_to.split(",")]
    events = []
    for g in range(n):
        for _ in range(a.resizes):
            events.append(("resize", g, rng.choice(sizes)))
    for g in rng.sample(range(n), min(a.kills, n)):
        events.append(("kill", g, None))
    events += [("learner_kill", None, None), ("stall", None, 2.0), ("stall", None, 2.0),
               ("intruder", rng.randrange(n), None)]
    rng.shuffle(events)
    slot = (t1 - t0) / len(events)
    return [(t0 + k * slot + rng.uniform(0, slot * 0.3), *e) for k, e in enumerate(events)]


class Supervisor:
    def __init__(self, a, tmp):
        self.a, self.tmp = a, tmp
        self.n = a.games
        self.rw, self.rh = size(a.render)
        self.tw, self.th = size(a.obs)
        self.run_dir = os.path.join(tmp, "run")
        os.mkdir(self.run_dir, 0o700)
        self.env = dict(os.environ, XDG_RUNTIME_DIR=self.run_dir)
        self.mail = [os.path.join(tmp, f"mailbox-{i}") for i in range(self.n)]
        for p in self.mail:
            with open(p, "wb") as f:
                f.write(bytes(MBOX_SIZE))
        self.games = [None] * self.n
        self.gens = [0] * self.n
        self.learner = None
        self.learners = 0
        self.dead_unasked = []
        self.heights = sorted({self.rh} | {size(s)[1] for s in a.resize_to.split(",")})
        self.t_run = time.monotonic_ns()
        self.all_pids = set()  # every child's, for the sockets left behind

    def start_game(self, i):
        a = self.a
        out = os.path.join(self.tmp, f"game-{i}-{self.gens[i]}.err")
        gl = i >= self.n - a.gl_games
        cmd = shlex.split(a.gl_game if gl else a.game) + [self.mail[i], os.path.join(self.tmp, f"game-{i}.steps"),
                                     str(i), str(self.gens[i]), str(self.rw), str(self.rh),
                                     str(self.tw), str(self.th), self.sync, str(a.hz),
                                     str(a.iters), str(a.wait_us),
                                     "1" if i < a.depth_games else "0"]
        with open(out, "wb") as f:
            p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=f, stderr=subprocess.STDOUT,
                                 env=self.env)
        self.games[i] = Proc("game", i, self.gens[i], p, out)
        self.all_pids.add(p.pid)

    def start_learner(self):
        a = self.a
        k = self.learners
        self.learners += 1
        out = os.path.join(self.tmp, f"learner-{k}.out")
        cmd = [sys.executable, os.path.abspath(__file__), "learner",
               "--mailboxes", ",".join(self.mail), "--obs", a.obs,
               "--heights", ",".join(map(str, self.heights)), "--policy", a.policy,
               "--log", os.path.join(self.tmp, f"learner-{k}.log"),
               "--switch-at", str(self.switch_at), "--step-timeout", str(a.step_timeout),
               "--depth-rows", str(a.depth_games)]
        with open(out, "wb") as f:
            p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=self.env)
        self.learner = Proc("learner", k, 0, p, out)
        self.all_pids.add(p.pid)

    def procs(self):
        return [g for g in self.games if g is not None] + ([self.learner] if self.learner else [])

    def watch(self):
        """Processes that died unasked: counted, their output printed, restarted."""
        for pr in self.procs():
            rc = pr.p.poll()
            if rc is None or pr.asked:
                continue
            self.dead_unasked.append(f"{pr.kind} {pr.index} (exit {rc})")
            print(f"DIED UNASKED: {pr.kind} {pr.index} exit {rc}:\n{pr.tail()}", flush=True)
            if rc == 77 and pr.kind == "game":
                raise SystemExit(77)
            if pr.kind == "game":
                self.gens[pr.index] += 1
                self.start_game(pr.index)
            else:
                self.start_learner()

    def sleep_until(self, t_ns):
        while time.monotonic_ns() < t_ns:
            self.watch()
            time.sleep(min(0.05, max(0.0, (t_ns - time.monotonic_ns()) / 1e9)))

    def snapshot(self):
        nv = self.nvml.by_pid() if self.nvml.h is not None else {}
        return {(pr.kind, pr.index): (pr.fds(), nv.get(pr.p.pid)) for pr in self.procs()}

    def run(self):
        a = self.a
        self.nvml = E.Nvml()
        self.sync = a.sync if a.sync != "auto" else ("semaphore" if self.nvml.h is not None
                                                     else "fence")
        t = self.t_run
        dur = int(a.duration * 1e9)
        self.switch_at = (t + dur // 2) / 1e9
        for i in range(self.n):
            self.start_game(i)
        # every game up (its template in the mailbox) before the learner starts
        limit = time.monotonic() + 120
        mb = Mailboxes(self.mail)
        while any(mb.read(i) is None for i in range(self.n)):
            for g in self.games:
                rc = g.p.poll()
                if rc is not None:
                    print(f"game {g.index} exited {rc}:\n{g.tail()}", flush=True)
                    return 77 if rc == 77 else 1
            if time.monotonic() > limit:
                print("the games did not start in 120 s", flush=True)
                return 1
            time.sleep(0.05)
        mb.close()
        self.start_learner()
        # the warmup counts from the learner's first step (JVMs and torch start first)
        first = os.path.join(self.tmp, "learner-0.log")
        while not (os.path.exists(first) and os.path.getsize(first) >= LRN.size):
            self.watch()
            if time.monotonic() > limit + 120:
                print("the learner made no step in 120 s:\n" + self.learner.tail(), flush=True)
                return 1
            time.sleep(0.05)
        warm = (time.monotonic_ns() - t) / 1e9 + a.warmup
        if a.duration - a.cooldown - warm < 5:
            print(f"--duration {a.duration:g} s leaves no time for the events: the games and "
                  f"the learner were up after {warm - a.warmup:.1f} s", flush=True)
            return 1
        self.t_warm = warm
        rng = random.Random(a.seed)
        sched = make_schedule(rng, self.n, a, warm, a.duration - a.cooldown)
        print(f"# soak: {self.n} games ({a.gl_games} of them GL, {a.depth_games} with depth; "
              f"{self.sync} mode, {a.render} -> {a.obs}, "
              f"{a.hz or 'free'} Hz), {a.duration:g} s, seed {a.seed}; schedule:", flush=True)
        for ts, kind, g, arg in sched:
            print(f"#   {ts:7.2f} s  {kind}" + (f" game {g}" if g is not None else "")
                  + (f" {arg[0]}x{arg[1]}" if kind == "resize" else "")
                  + (f" {arg:g} s" if kind == "stall" else ""), flush=True)
        self.sleep_until(t + int((warm - a.warmup * 0.2) * 1e9))
        self.start_snap = self.snapshot()
        events = []  # (kind, rows, t start ns, t end ns, game or None, pid of the new one)
        for ts, kind, g, arg in sched:
            self.sleep_until(t + int(ts * 1e9))
            t_e = time.monotonic_ns()
            if kind == "resize":
                pr = self.games[g]
                try:
                    pr.p.stdin.write(f"resize {arg[0]} {arg[1]}\n".encode())
                    pr.p.stdin.flush()
                except OSError:  # it died just now: watch() counts and restarts it
                    pass
                events.append(["resize", [g], t_e, t_e, g, f"{arg[0]}x{arg[1]}"])
            elif kind == "kill":
                pr = self.games[g]
                pr.asked = True
                pr.p.kill()
                pr.p.wait()
                self.gens[g] += 1
                self.start_game(g)
                events.append(["kill", [g], t_e, time.monotonic_ns(), g, f"gen {self.gens[g]}"])
            elif kind == "learner_kill":
                self.learner.asked = True
                self.learner.p.kill()
                self.learner.p.wait()
                self.start_learner()
                events.append(["learner_kill", list(range(self.n)), t_e, time.monotonic_ns(),
                               None, f"learner {self.learner.index}"])
            elif kind == "stall":
                self.learner.p.send_signal(signal.SIGSTOP)
                time.sleep(arg)
                self.learner.p.send_signal(signal.SIGCONT)
                events.append(["stall", list(range(self.n)), t_e, time.monotonic_ns(), None,
                               f"{arg:g} s"])
            elif kind == "intruder":
                r = subprocess.run([sys.executable, os.path.abspath(__file__), "intruder",
                                    "--mailbox", self.mail[g]], env=self.env,
                                   capture_output=True, text=True, timeout=120)
                text = (r.stdout + r.stderr).strip().splitlines()
                self.intruder = (r.returncode, text[-1] if text else "")
                print(f"# intruder at game {g}: exit {r.returncode}: {self.intruder[1]}",
                      flush=True)
                events.append(["intruder", list(range(self.n)), t_e, time.monotonic_ns(), g,
                               f"exit {r.returncode}"])
        self.sleep_until(t + dur)
        self.end_snap = self.snapshot()
        self.t_end = time.monotonic_ns()
        return self.finish(events)

    def stop_all(self):
        """The learner then the games, asked to end; anything left after 30 s killed."""
        if self.learner is not None and self.learner.p.poll() is None:
            self.learner.asked = True
            self.learner.p.send_signal(signal.SIGCONT)
            self.learner.p.terminate()
        for g in self.games:
            if g is not None and g.p.poll() is None:
                g.asked = True
                try:
                    g.p.stdin.write(b"quit\n")
                    g.p.stdin.flush()
                except OSError:
                    pass
        left = []
        limit = time.monotonic() + 30
        for pr in self.procs():
            try:
                pr.p.wait(max(0.1, limit - time.monotonic()))
            except subprocess.TimeoutExpired:
                left.append(f"{pr.kind} {pr.index}")
                pr.p.kill()
                pr.p.wait()
            if pr.kind == "game":
                pr.p.stdin.close()
        return left

    def finish(self, events):
        left = self.stop_all()
        a = self.a
        problems = []
        # the learners' steps, in time order
        logs = []
        for k in range(self.learners):
            p = os.path.join(self.tmp, f"learner-{k}.log")
            if os.path.exists(p):
                logs.append(np.fromfile(p, LRN_REC))
        steps = np.concatenate(logs) if logs else np.zeros(0, LRN_REC)
        steps.sort(order="t")
        games = []
        for i in range(self.n):
            p = os.path.join(self.tmp, f"game-{i}.steps")
            games.append(np.fromfile(p, GAME_REC) if os.path.exists(p) else
                         np.zeros(0, GAME_REC))
        windows = [(e[2], e[3] + SETTLE_NS) for e in events]

        def in_event(ts):
            m = np.zeros(len(ts), bool)
            for lo, hi in windows:
                m |= (ts >= lo) & (ts <= hi)
            return m

        def pct(x, q):
            return float(np.percentile(x, q)) / 1e3 if len(x) else float("nan")

        print()
        print("| process | steps | no event p50 / p99.9 / max us | event p50 / p99.9 / max us "
              "| published | skipped | gens | fds start -> end | GPU MiB start -> end |")
        print("| " + " | ".join(["---"] * 9) + " |")
        base999, ev_of = {}, {}
        for i, r in enumerate(games):
            ev = ev_of[i] = in_event(r["t"])
            q, e = r["dur"][~ev], r["dur"][ev]
            base999[i] = pct(q, 99.9)
            fd0, m0 = self.start_snap.get(("game", i), (None, None))
            fd1, m1 = self.end_snap.get(("game", i), (None, None))
            kind = "GL game" if i >= self.n - a.gl_games else \
                "RGB-D game" if i < a.depth_games else "game"
            print(f"| {kind} {i} | {len(r)} | {pct(q, 50):,.0f} / {pct(q, 99.9):,.0f} / "
                  f"{(q.max() / 1e3 if len(q) else float('nan')):,.0f} | {pct(e, 50):,.0f} / "
                  f"{pct(e, 99.9):,.0f} / {(e.max() / 1e3 if len(e) else float('nan')):,.0f} | "
                  f"{int((r['flags'] & PUBLISHED).astype(bool).sum())} | "
                  f"{int((r['flags'] & SKIPPED).astype(bool).sum())} | {self.gens[i] + 1} | "
                  f"{fd0} -> {fd1} | {mib(m0)} -> {mib(m1)} |")
            if fd0 is not None and fd1 is not None and fd1 - fd0 > SLOTS + 3:
                problems.append(f"game {i}: fds {fd0} -> {fd1}")
        lk = ("learner", 0)
        fd0, m0 = self.start_snap.get(lk, (None, None))
        fd1, m1 = next(((v[0], v[1]) for k2, v in self.end_snap.items() if k2[0] == "learner"),
                       (None, None))
        lw = steps["wall"]
        lev = in_event(steps["t"])
        print(f"| learner | {len(steps)} | {pct(lw[~lev], 50):,.0f} / {pct(lw[~lev], 99.9):,.0f}"
              f" / {(lw[~lev].max() / 1e3 if (~lev).any() else float('nan')):,.0f} | "
              f"{pct(lw[lev], 50):,.0f} / {pct(lw[lev], 99.9):,.0f} / "
              f"{(lw[lev].max() / 1e3 if lev.any() else float('nan')):,.0f} | - | - | "
              f"{self.learners} | {fd0} -> {fd1} | {mib(m0)} -> {mib(m1)} |")
        if fd0 is not None and fd1 is not None and fd1 - fd0 > SLOTS + 3:
            problems.append(f"learner: fds {fd0} -> {fd1}")
        print()
        wrong = int(steps["wrong"].sum())
        print(f"wrong batch rows: {wrong} (must be 0)")
        if wrong:
            problems.append(f"{wrong} wrong batch rows")
        for lp, name in ((0, "lockstep"), (1, "double-buffered")):
            c = steps["cpu"][steps["loop"] == lp]
            print(f"learner batch CPU per step ({name}, VectorLearner.step's thread): "
                  f"p50 {pct(c, 50):,.0f} us, p99.9 {pct(c, 99.9):,.0f} us over {len(c)} steps")
        run_s = (self.t_end - self.t_run) / 1e9
        # event-free stretches: the run less the union of the windows
        cover = sorted(windows)
        busy, cur = 0, None
        for lo, hi in cover:
            if cur is None or lo > cur[1]:
                if cur:
                    busy += cur[1] - cur[0]
                cur = [lo, hi]
            else:
                cur[1] = max(cur[1], hi)
        if cur:
            busy += cur[1] - cur[0]
        after = steps["t"] >= self.t_run + int(self.t_warm * 1e9)
        quiet_steps = int((~lev & after).sum())
        quiet = max(1e-9, run_s - busy / 1e9 - self.t_warm)
        sps_all = int(after.sum()) / max(1e-9, run_s - self.t_warm)
        sps_quiet = quiet_steps / quiet
        print(f"learner steps/s: {sps_all:,.1f} over the run, {sps_quiet:,.1f} in its event-free "
              f"stretches: ratio {sps_all / sps_quiet if sps_quiet else float('nan'):.2f} "
              f"(target >= 0.90)")
        # steps from each event until every row it touched is new again
        print("events (steps until every row it touched was new again, counted from the "
              "game's first frame after it / the learner's first step):")
        worst = 0
        for kind, rows, t0, t1, g, what in events:
            ref = t1
            if g is not None and kind in ("resize", "kill"):
                r = games[g]
                m = ((r["flags"] & FIRST) != 0) & (r["t"] >= t0)
                # its descriptor was in the mailbox at the end of that step
                ref = int(r["t"][m][0] + r["dur"][m][0]) if m.any() else None
            elif kind == "learner_kill":
                after = steps["t"][steps["t"] >= t1]
                ref = int(after[0]) if len(after) else None
            count = "never"
            if ref is not None:
                todo = set(rows)
                for k, s in enumerate(steps["new"][steps["t"] >= ref].tolist()):
                    todo -= {i for i in rows if s >> i & 1}
                    if not todo:
                        count = k + 1
                        break
            n_ok = isinstance(count, int) and (not a.new_within or count <= a.new_within)
            if isinstance(count, int):
                worst = max(worst, count)
            print(f"  {(t0 - self.t_run) / 1e9:7.2f} s {kind}"
                  + (f" game {g}" if g is not None else "") + f" ({what}): {count}")
            if not n_ok:
                problems.append(f"{kind} at {(t0 - self.t_run) / 1e9:.2f} s: rows new again "
                                f"after {count} steps (limit {a.new_within})")
        print(f"  the most: {worst} (target <= 2; --check limit: "
              f"{a.new_within or 'none, a row never new again fails'})")
        # the games' steps while the learner was dead, stalled or restarting, against the
        # bound of each game's no-event p99.9 + waitNanos + 1 ms; and how often the same
        # bound is passed in the event-free stretches (a game that waited for its learner
        # would pass it more often while the learner is away than without events)
        over = []
        bound = {i: (base999[i] + a.wait_us + 1000) * 1e3 for i in range(len(games))}  # ns
        away_n = away_over = 0
        for kind, rows, t0, t1, g, what in events:
            if kind not in ("learner_kill", "stall"):
                continue
            for i, r in enumerate(games):
                m = (r["t"] >= t0) & (r["t"] <= t1 + SETTLE_NS) & ((r["flags"] & RESIZED) == 0)
                if m.any():
                    dur, ts = r["dur"][m], r["t"][m]
                    away_n += len(dur)
                    away_over += int((dur > bound[i]).sum())
                    j = int(dur.argmax())
                    over.append((dur[j] / bound[i], i, kind, (t0 - self.t_run) / 1e9,
                                 (int(ts[j]) - t0) / 1e9, dur[j] / 1e3))
        if over:
            o = max(over)
            print(f"longest game step while the learner was dead, stalled or restarting / "
                  f"(its no-event p99.9 + waitNanos + 1 ms): {o[0]:.2f} (target <= 1; game "
                  f"{o[1]}, {o[5]:,.0f} us, {o[4]:+.2f} s after the {o[2]} at {o[3]:.2f} s)")
            free_n = free_over = 0
            for i, r in enumerate(games):
                dur = r["dur"][~ev_of[i]]
                free_n += len(dur)
                free_over += int((dur > bound[i]).sum())
            print(f"game steps past that bound: {away_over} of {away_n} "
                  f"({1e4 * away_over / max(1, away_n):.1f} in 10,000) while the learner was "
                  f"away, {free_over} of {free_n} ({1e4 * free_over / max(1, free_n):.1f} in "
                  f"10,000) in the event-free stretches")
        kept = [int(ln.rsplit(":", 1)[1]) for f in sorted(os.listdir(self.tmp))
                if f.endswith(".err") for ln in read_text(os.path.join(self.tmp, f)).splitlines()
                if ln.startswith("soak game: deferred rings before resize:")]
        if kept:
            print(f"destroyed fence-mode rings still kept at a resize: at most {max(kept)} "
                  f"(over {len(kept)} resizes; more than 1 is a leak)")
            if max(kept) > 1:
                problems.append(f"destroyed rings kept: up to {max(kept)}")
        intr = getattr(self, "intruder", None)
        print(f"second learner at a live ring: {intr[1] if intr else 'not run'}")
        if intr is None or intr[0] != 0:
            problems.append(f"the second learner was not refused: {intr}")
        print(f"processes that died unasked: {len(self.dead_unasked)} (must be 0)"
              + (": " + ", ".join(self.dead_unasked) if self.dead_unasked else ""))
        problems += [f"died unasked: {d}" for d in self.dead_unasked]
        if left:
            problems.append(f"did not end when asked: {', '.join(left)}")
        socks = leftover_sockets(self.run_dir, self.all_pids)
        print(f"sockets left in $XDG_RUNTIME_DIR and /tmp: {len(socks)}"
              + (": " + ", ".join(socks) if socks else ""))
        if socks:
            problems.append(f"sockets left: {socks}")
        for k in range(self.learners):  # what each learner said (its summary, slow steps)
            for ln in read_text(os.path.join(self.tmp, f"learner-{k}.out")).splitlines()[-12:]:
                print(f"# learner {k}: {ln}")
        if a.check:
            if problems:
                print("check failed: " + "; ".join(problems))
                return 1
            print(f"check: 0 wrong rows in {len(steps)} steps, 0 unasked deaths, every row new "
                  f"again within {worst} steps of each event, the intruder refused, fds flat, "
                  f"no socket left")
        return 0


def mib(b):
    return "n/a" if b is None else f"{b / 2**20:.0f}"


def read_text(p):
    try:
        with open(p, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def leftover_sockets(run_dir, pids):
    """Ring sockets of our processes left in the private runtime dir or /tmp."""
    out = []
    for base in (run_dir, "/tmp", os.environ.get("TMPDIR") or "/tmp"):
        d = os.path.join(base, f"cg-zc-{os.getuid()}")
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for nm in names:
            parts = nm.split("-")
            if base == run_dir or (len(parts) >= 3 and parts[1].isdigit()
                                   and int(parts[1]) in pids):
                out.append(os.path.join(d, nm))
    return sorted(set(out))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="role")
    lp = sub.add_parser("learner")
    lp.add_argument("--mailboxes", required=True)
    lp.add_argument("--obs", required=True)
    lp.add_argument("--heights", required=True)
    lp.add_argument("--policy", default="auto")
    lp.add_argument("--log", required=True)
    lp.add_argument("--switch-at", type=float, required=True)
    lp.add_argument("--step-timeout", type=float, default=0.05)
    lp.add_argument("--depth-rows", type=int, default=0)
    ip = sub.add_parser("intruder")
    ip.add_argument("--mailbox", required=True)
    if argv is None:
        argv = sys.argv[1:]
    sub.add_parser("selftest")
    if argv and argv[0] in ("learner", "intruder", "selftest"):
        a = p.parse_args(argv)
        return {"learner": learner_main, "intruder": intruder_main,
                "selftest": selftest_main}[a.role](a)
    s = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    s.add_argument("--game", required=True, help="the command running cgbench.SoakGame")
    s.add_argument("--games", type=int, default=16, help="games in all")
    s.add_argument("--gl-game", help="the command running cgtest.SoakGlGame")
    s.add_argument("--gl-games", type=int, default=0,
                   help="how many of the games (the last ones) are GL games (--gl-game)")
    s.add_argument("--depth-games", type=int, default=0,
                   help="how many of the games (the first ones, Vulkan) have a raw depth plane")
    s.add_argument("--render", default="640x360", help="the render size at start (even width)")
    s.add_argument("--resize-to", default="800x450,512x288,960x540,640x360",
                   help="the render sizes resizes pick from (even widths)")
    s.add_argument("--obs", default="128x128")
    s.add_argument("--duration", type=float, default=420, help="seconds of the run")
    s.add_argument("--warmup", type=float, default=10, help="seconds before the first event")
    s.add_argument("--cooldown", type=float, default=15, help="seconds after the last event")
    s.add_argument("--seed", type=int, default=43)
    s.add_argument("--sync", choices=("auto", "fence", "semaphore"), default="auto",
                   help="the rings' mode (auto: semaphore where NVML finds a GPU, else fence)")
    s.add_argument("--policy", choices=("auto", "torch", "numpy"), default="auto")
    s.add_argument("--hz", type=float, default=0, help="each game's frames a second (0: free)")
    s.add_argument("--iters", type=int, default=0, help="the render's extra ALU rounds")
    s.add_argument("--wait-us", type=int, default=1000, help="the rings' waitNanos, in us")
    s.add_argument("--kills", type=int, default=3, help="games SIGKILLed and restarted")
    s.add_argument("--resizes", type=int, default=2, help="resizes per game")
    s.add_argument("--step-timeout", type=float, default=0.05,
                   help="seconds a learner step waits at most for its games' new frames")
    s.add_argument("--new-within", type=int, default=0,
                   help="--check: learner steps after an event's first frame by which every "
                        "row it touched must be new again (0: only that it is, some time; "
                        "the issue's target, 2, is printed beside the figures)")
    s.add_argument("--check", action="store_true")
    s.add_argument("--keep", action="store_true",
                   help="keep the run's folder (mailboxes, logs, every process's output)")
    a = s.parse_args(argv)
    if a.gl_games and not a.gl_game or not 0 <= a.gl_games <= a.games:
        s.error("--gl-games needs --gl-game, and at most --games of them")
    if not 0 <= a.depth_games <= a.games - a.gl_games:
        s.error("--depth-games: at most the Vulkan games (--games less --gl-games)")
    for t in [a.render] + a.resize_to.split(","):
        if size(t)[0] % 2:
            s.error(f"render size {t}: the scene needs an even width")
    if a.duration < a.warmup + a.cooldown + 5:
        s.error("--duration must leave room for the events after --warmup and --cooldown")
    tmp = tempfile.mkdtemp(prefix="cg-soak-")
    sup = Supervisor(a, tmp)
    rc = 1
    try:
        rc = sup.run()
    finally:
        sup.stop_all()
        if rc == 77:
            print("skipped: no Vulkan device for the games (or no semaphores where asked)")
        if a.keep:
            print(f"# kept: {tmp}")
        else:
            import shutil
            shutil.rmtree(tmp, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
