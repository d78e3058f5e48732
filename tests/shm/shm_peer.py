#!/usr/bin/env python3
"""The Python side of the shared-memory channel, written from its wire format
alone (POSIX shared memory and named semaphores through libc, via ctypes).

Objects for port N, as the RL package creates them:
  /craftground_N_p2j  136-byte header (64-bit little-endian sizes):
      0 layout_size (0), 8 action_offset (136), 16 action_size,
      24 initial_environment_offset (136 + initial action size),
      32 initial_environment_size,
      40 sem_obs_ready: 16 bytes of process-local pointers, name at 56 (char[30]),
      88 sem_action_ready: same, name at 104;
    then the action bytes, then the initial environment.
  /craftground_N_j2p  24-byte header: 0 layout_size, 8 data_offset, 16 data_size.
  /cg_sem_obsN (the Java side posts), /cg_sem_actN (we post); both start at 0.

Driven line by line on stdin by the JVM test (one reply line each on stdout):
  create PORT INIT_ACTION_SIZE INIT_ENV_SIZE [VARIANT]  make everything
  action STEP                 write action(STEP) and post /cg_sem_act
  action_later STEP MS        reply, sleep MS, then write and post
  action_raw OFFSET SIZE      post a header saying action_offset/size (no bytes)
  die_later SIGNAL MS         reply, sleep MS, then kill ourselves with SIGNAL
  read EXPECT                 wait for /cg_sem_obs, read the message, check it
  truncate p2j|j2p SIZE       ftruncate an object (shrink it under the reader)
  post_act [N]                post /cg_sem_act (N times) without touching the header
  drain_obs                   take every pending post of /cg_sem_obs
  drain_act                   take every pending post of /cg_sem_act
  hostile_start               fork a process that truncates both objects to small
                              sizes in a tight loop (restoring p2j between)
  hostile_stop                kill it; p2j whole again, as created
  unlink                      remove every object and semaphore
  quit
EXPECT: "ack" (the handshake bytes), "obs:STEP:LEN" (observation pattern),
"frame:STEP:W:H" (an ObservationSpaceMessage whose image is the RAW frame of
frame_rgba(STEP), bottom-up: see frame_expected).
Replies: "ok ...", or "fail <why>" (the JVM test then fails).

Like the real RL package, SIGTERM/SIGINT unlink the objects before exiting.

With CG_SHM_PEER_LIB naming the predecessor_peer.c library, the peer behaves
as CraftGround's own Python side does instead (PredecessorPeer): it creates
the semaphores in this process and keeps them open, maps the objects only
during a call and keeps nothing mapped between calls. It speaks the commands
create, action, action_later, read, die_later, unlink and quit.
"""
import ctypes
import ctypes.util
import mmap
import os
import signal
import struct
import sys
import time

P2J_HEADER = 136
J2P_HEADER = 24
OBS_SEED_MOD = 65521


def _libc():
    lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    try:
        lib.shm_open
    except AttributeError:  # glibc before 2.34 keeps shm_open in librt
        lib = ctypes.CDLL(ctypes.util.find_library("rt"), use_errno=True)
    return lib


libc = _libc()
libc.shm_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint]
libc.shm_open.restype = ctypes.c_int
libc.shm_unlink.argtypes = [ctypes.c_char_p]
libc.sem_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_uint]
libc.sem_open.restype = ctypes.c_void_p
libc.sem_post.argtypes = [ctypes.c_void_p]
libc.sem_trywait.argtypes = [ctypes.c_void_p]
libc.sem_unlink.argtypes = [ctypes.c_char_p]


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


libc.sem_timedwait.argtypes = [ctypes.c_void_p, ctypes.POINTER(Timespec)]
SEM_FAILED = {None, 0, ctypes.c_void_p(-1).value}


def oserr(what):
    e = ctypes.get_errno()
    return OSError(e, "%s: %s" % (what, os.strerror(e)))


def shm_create(name, size):
    fd = libc.shm_open(name.encode(), os.O_CREAT | os.O_RDWR, 0o666)
    if fd < 0:
        raise oserr("shm_open " + name)
    os.ftruncate(fd, size)
    return fd


def sem_create(name):
    s = libc.sem_open(name.encode(), os.O_CREAT, 0o666, 0)
    if s in SEM_FAILED:
        raise oserr("sem_open " + name)
    return s


def sem_wait(sem, seconds):
    deadline = time.time() + seconds
    ts = Timespec(int(deadline), int((deadline % 1) * 1e9))
    if libc.sem_timedwait(sem, ctypes.byref(ts)) != 0:
        raise oserr("sem_timedwait")


def drain(sem):
    """Takes every pending post; returns how many there were."""
    n = 0
    while libc.sem_trywait(sem) == 0:
        n += 1
    return n


# ---- the deterministic bytes both sides compute from the step number ----
# The JVM side computes the same functions independently (ShmTest.java).

def init_env_bytes(n):
    return bytes((i * 13 + 5) & 0xFF for i in range(n))


def ack_bytes():
    return b"craftground-ack\x00\x01\xff"


def action_len(step, limit):
    """Action lengths: mostly 16 (so the Java side can reuse its array), else
    anything from 0 to `limit` (past the initial action area, as Python may)."""
    return 16 if step % 3 else (step * 37) % (limit + 1)


def action_bytes(step, n):
    return bytes((step * 31 + i * 7 + 1) & 0xFF for i in range(n))


_obs_base = None


def obs_expected(step, n):
    """Byte i of observation `step` is f(i + o(step)), f(k) = (k * 0x9E3779B1
    mod 2^32) >> 16 & 0xFF, o(step) = step * 7919 mod 65521."""
    global _obs_base
    need = n + OBS_SEED_MOD
    if _obs_base is None or len(_obs_base) < need:
        _obs_base = bytes((((k * 0x9E3779B1) & 0xFFFFFFFF) >> 16) & 0xFF for k in range(need))
    o = (step * 7919) % OBS_SEED_MOD
    return _obs_base[o:o + n]


def frame_rgba_channels(step, w, h):
    """The frame the JVM side renders for `step` (ShmTest.frameRgba): RGBA8,
    rows top-down as a Vulkan readback, pixel (x, y):
    R = x*3 + step, G = y*5 + step*7, B = (x ^ y) + step*13, A = 255 (mod 256)."""
    import numpy as np
    x = np.arange(w, dtype=np.int64)[None, :]
    y = np.arange(h, dtype=np.int64)[:, None]
    r = (x * 3 + step) & 0xFF
    g = (y * 5 + step * 7) & 0xFF
    b = ((x ^ y) + step * 13) & 0xFF
    return np.broadcast_arrays(r, g, b)


def frame_expected(step, w, h):
    """RAW as the wire format defines it: RGB8, alpha dropped, rows bottom-up
    (the top-down source flipped)."""
    import numpy as np
    r, g, b = frame_rgba_channels(step, w, h)
    rgb = np.stack([r, g, b], axis=-1).astype(np.uint8)
    return rgb[::-1].tobytes()


def proto_fields(buf):
    """The length-delimited fields of a protobuf message (field -> bytes),
    parsed from the encoding rules alone; other wire types are skipped."""
    def varint(i):
        v = shift = 0
        while True:
            if i >= len(buf):
                raise ValueError("truncated varint")
            c = buf[i]
            i += 1
            v |= (c & 0x7F) << shift
            shift += 7
            if not c & 0x80:
                return v, i
    out, i = {}, 0
    while i < len(buf):
        key, i = varint(i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, i = varint(i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            n, i = varint(i)
            if i + n > len(buf):
                raise ValueError("field %d runs past the message" % field)
            out[field] = buf[i:i + n]
            i += n
        else:
            raise ValueError("wire type %d" % wire)
    return out


def check_message(got, expect):
    """'ok' or 'fail <why>': the message against what EXPECT says it is."""
    if expect == "ack":
        want = ack_bytes()
    elif expect.startswith("frame:"):
        _, step, w, h = expect.split(":")
        try:
            got = proto_fields(got).get(1, b"")  # ObservationSpaceMessage.image
        except ValueError as e:
            return "fail message %s is no protobuf message: %s" % (expect, e)
        want = frame_expected(int(step), int(w), int(h))
    else:
        _, step, n = expect.split(":")
        want = obs_expected(int(step), int(n))
    if got != want:
        bad = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]),
                   min(len(got), len(want)))
        return "fail message %s: %d bytes, expected %d; first difference at byte %d" % (
            expect, len(got), len(want), bad)
    return "ok"


class Peer:
    def __init__(self):
        self.port = None
        self.p2j = self.j2p = None
        self.p2j_fd = self.j2p_fd = -1
        self.sem_obs = self.sem_act = None
        self.limit = 0
        self.j2p_size_seen = 0
        self.p2j_image = b""
        self.hostile = 0

    def names(self):
        p = self.port
        return ("/craftground_%d_p2j" % p, "/craftground_%d_j2p" % p,
                "/cg_sem_obs%d" % p, "/cg_sem_act%d" % p)

    def create(self, port, action_size, env_size, variant="good"):
        self.port = port
        self.unlink()  # leftovers of a crashed run: a semaphore would keep its count
        p2j_name, j2p_name, obs_name, act_name = self.names()
        size = P2J_HEADER + action_size + env_size
        if variant == "p2j_tiny":
            size = 100
        self.p2j_fd = shm_create(p2j_name, size)
        if variant != "no_j2p":
            self.j2p_fd = shm_create(j2p_name, J2P_HEADER + env_size)
        if variant != "no_sems":
            self.sem_obs = sem_create(obs_name)
            self.sem_act = sem_create(act_name)
        self.p2j = mmap.mmap(self.p2j_fd, size)
        self.limit = action_size + env_size
        if variant == "p2j_tiny":
            return
        env_off = P2J_HEADER + action_size
        hdr = {"act_off": P2J_HEADER, "act_size": action_size, "env_off": env_off,
               "env_size": env_size}
        obs_field, act_field = obs_name.encode(), act_name.encode()
        # Corrupt variants: each breaks exactly one rule of the format.
        if variant == "env_past_end":
            hdr["env_size"] = env_size + 1
        elif variant == "env_off_past_end":
            hdr["env_off"] = size + 8
        elif variant == "env_size_huge":
            hdr["env_size"] = (1 << 64) - 1
        elif variant == "env_in_header":
            hdr["env_off"] = 8
        elif variant == "act_past_end":
            hdr["act_size"] = size
        elif variant == "act_off_huge":
            hdr["act_off"] = (1 << 64) - 16
        elif variant == "sem_name_other_port":
            obs_field = ("/cg_sem_obs%d" % (port + 1)).encode()
        elif variant == "sem_name_unterminated":
            act_field = (act_name.encode() + b"x" * 30)[:30]
        elif variant == "sem_name_prefix":
            obs_field = obs_name.encode()[:-1]
        struct.pack_into("<5Q", self.p2j, 0, 0, hdr["act_off"], hdr["act_size"],
                         hdr["env_off"], hdr["env_size"])
        # Two process-local pointers, garbage to anyone else.
        struct.pack_into("<2Q", self.p2j, 40, 0xDEADBEEF00000001, 0xDEADBEEF00000002)
        struct.pack_into("<2Q", self.p2j, 88, 0xDEADBEEF00000003, 0xDEADBEEF00000004)
        self.p2j[56:86] = obs_field.ljust(30, b"\0")[:30]
        self.p2j[104:134] = act_field.ljust(30, b"\0")[:30]
        self.p2j[env_off:env_off + env_size] = init_env_bytes(env_size)
        # An initial no-op action.
        self.p2j[P2J_HEADER:P2J_HEADER + action_size] = b"\0" * action_size
        self.p2j_image = bytes(self.p2j[:size])

    def hostile_start(self):
        """A child that shrinks both objects under the Java side, through the
        descriptors only (our mapping of p2j would fault)."""
        parent = os.getpid()
        pid = os.fork()
        if pid:
            self.hostile = pid
            return
        try:
            full = len(self.p2j_image)
            p2j_sizes = (0, 100, 140, full // 2, 0, full)
            j2p_sizes = (0, 24, 4096, 300000, 1)
            i = 0
            while True:
                os.ftruncate(self.p2j_fd, p2j_sizes[i % len(p2j_sizes)])
                os.ftruncate(self.p2j_fd, full)
                if i % 2:
                    os.pwrite(self.p2j_fd, self.p2j_image, 0)
                os.ftruncate(self.j2p_fd, j2p_sizes[i % len(j2p_sizes)])
                i += 1
                if i % 256 == 0 and os.getppid() != parent:
                    break  # orphaned: the test is over
        finally:
            os._exit(0)

    def hostile_stop(self):
        os.kill(self.hostile, signal.SIGKILL)
        os.waitpid(self.hostile, 0)
        self.hostile = 0
        os.ftruncate(self.p2j_fd, len(self.p2j_image))
        os.pwrite(self.p2j_fd, self.p2j_image, 0)
        self.j2p_size_seen = 0

    def write_action(self, data):
        # As the RL package does: bytes at 136, then action_size, then post.
        self.p2j[P2J_HEADER:P2J_HEADER + len(data)] = data
        struct.pack_into("<Q", self.p2j, 16, len(data))
        struct.pack_into("<Q", self.p2j, 8, P2J_HEADER)
        libc.sem_post(self.sem_act)

    def action(self, step):
        self.write_action(action_bytes(step, action_len(step, self.limit)))

    def read(self, expect):
        sem_wait(self.sem_obs, 30.0)
        size = os.fstat(self.j2p_fd).st_size
        if size < J2P_HEADER:
            return "fail j2p is %d bytes, below its header" % size
        with mmap.mmap(self.j2p_fd, J2P_HEADER, prot=mmap.PROT_READ) as h:
            _, data_offset, data_size = struct.unpack_from("<3Q", h, 0)
        if data_offset != J2P_HEADER:
            return "fail data_offset %d, expected %d" % (data_offset, J2P_HEADER)
        # The RL package maps 24 + data_size: the object must be that large.
        if size < J2P_HEADER + data_size:
            return "fail j2p is %d bytes, message needs %d" % (size, J2P_HEADER + data_size)
        if size < self.j2p_size_seen:
            return "fail j2p shrank from %d to %d bytes" % (self.j2p_size_seen, size)
        self.j2p_size_seen = size
        with mmap.mmap(self.j2p_fd, J2P_HEADER + data_size, prot=mmap.PROT_READ) as m:
            got = m[J2P_HEADER:J2P_HEADER + data_size]
        verdict = check_message(got, expect)
        return verdict if verdict != "ok" else "ok %d %d" % (data_size, size)

    def unlink(self):
        if self.port is None:
            return
        p2j_name, j2p_name, obs_name, act_name = self.names()
        for n in (p2j_name, j2p_name):
            libc.shm_unlink(n.encode())
        for n in (obs_name, act_name):
            libc.sem_unlink(n.encode())


class PredecessorPeer:
    """CraftGround's own Python side (see predecessor_peer.c), driven in its
    order: create (initialize_shared_memory), then per step write an action
    and read the observation. Holds no descriptor or mapping of the objects
    between calls; its semaphores stay open in this process."""

    READ_CAP = 64 << 20

    def __init__(self, lib):
        self.lib = ctypes.CDLL(lib, use_errno=True)
        self.lib.pp_create.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                                       ctypes.c_size_t]
        self.lib.pp_write_action.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        self.lib.pp_read.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p,
                                     ctypes.c_size_t, ctypes.c_long]
        self.lib.pp_read.restype = ctypes.c_long
        self.lib.pp_destroy.argtypes = [ctypes.c_char_p, ctypes.c_int]
        self.port = None
        self.limit = 0
        self.hostile = 0
        self.buf = ctypes.create_string_buffer(self.READ_CAP)

    def names(self):
        p = self.port
        return ("/craftground_%d_p2j" % p, "/craftground_%d_j2p" % p)

    def create(self, port, action_size, env_size, variant="good"):
        if variant != "good":
            raise ValueError("the predecessor's peer makes only good channels")
        self.port = port
        env = init_env_bytes(env_size)
        rc = self.lib.pp_create(port, env, env_size, action_size)
        if rc != 0:
            raise OSError(-rc, "create: " + os.strerror(-rc))
        self.limit = action_size + env_size

    def action(self, step):
        data = action_bytes(step, action_len(step, self.limit))
        rc = self.lib.pp_write_action(self.names()[0].encode(), data, len(data))
        if rc != 0:
            raise OSError(-rc, "write: " + os.strerror(-rc))

    def read(self, expect):
        p2j, j2p = self.names()
        n = self.lib.pp_read(p2j.encode(), j2p.encode(), self.buf, self.READ_CAP, 30000)
        if n < 0:
            return "fail read: %s" % os.strerror(-n)
        got = ctypes.string_at(self.buf, n)
        verdict = check_message(got, expect)
        size = os.stat("/dev/shm" + j2p).st_size
        return verdict if verdict != "ok" else "ok %d %d" % (n, size)

    def unlink(self):
        if self.port is None:
            return
        p2j, j2p = self.names()
        self.lib.pp_destroy(p2j.encode(), 1)
        self.lib.pp_destroy(j2p.encode(), 0)
        self.port = None


def main():
    lib = os.environ.get("CG_SHM_PEER_LIB")
    peer = PredecessorPeer(lib) if lib else Peer()

    def on_signal(signum, frame):
        if peer.hostile:
            os.kill(peer.hostile, signal.SIGKILL)
        peer.unlink()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def reply(s):
        sys.stdout.write(s + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        cmd = w[0]
        try:
            if cmd == "create":
                peer.create(int(w[1]), int(w[2]), int(w[3]), w[4] if len(w) > 4 else "good")
                reply("ok")
            elif cmd == "action":
                peer.action(int(w[1]))
                reply("ok")
            elif cmd == "action_later":
                reply("ok")
                time.sleep(int(w[2]) / 1000.0)
                peer.action(int(w[1]))
            elif cmd == "action_raw":
                struct.pack_into("<2Q", peer.p2j, 8, int(w[1]), int(w[2]))
                libc.sem_post(peer.sem_act)
                reply("ok")
            elif cmd == "die_later":
                reply("ok")
                time.sleep(int(w[2]) / 1000.0)
                os.kill(os.getpid(), getattr(signal, w[1]))
                time.sleep(60)
            elif cmd == "read":
                reply(peer.read(w[1]))
            elif cmd == "truncate":
                os.ftruncate(peer.p2j_fd if w[1] == "p2j" else peer.j2p_fd, int(w[2]))
                reply("ok")
            elif cmd == "drain_obs":
                reply("ok %d" % drain(peer.sem_obs))
            elif cmd == "post_act":
                for _ in range(int(w[1]) if len(w) > 1 else 1):
                    libc.sem_post(peer.sem_act)
                reply("ok")
            elif cmd == "drain_act":
                reply("ok %d" % drain(peer.sem_act))
            elif cmd == "hostile_start":
                peer.hostile_start()
                reply("ok")
            elif cmd == "hostile_stop":
                peer.hostile_stop()
                reply("ok")
            elif cmd == "unlink":
                peer.unlink()
                reply("ok")
            elif cmd == "quit":
                reply("ok")
                break
            else:
                reply("fail unknown command " + cmd)
        except Exception as e:  # reported to the JVM side, which fails the test
            reply("fail %s: %r" % (cmd, e))
    if peer.hostile:
        peer.hostile_stop()
    peer.unlink()


if __name__ == "__main__":
    main()
