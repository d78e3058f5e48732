#!/usr/bin/env python3
"""The Python side of the shared-memory round-trip benchmark, in Python as the
RL package is (bench/shm/ShmBench.java starts it and serves it through the real
natives and through a Unix SocketChannel, in alternating blocks of rounds).

One step over the channel: write a 24-byte action at 136 of p2j, set
action_size, post /cg_sem_act<port>, wait on /cg_sem_obs<port>, copy the
691,200-byte RAW 640x360 message out of j2p into a kept buffer. One step over
the socket (the limit, between the same two processes): send the same 24 bytes,
receive the 691,200 bytes into the same buffer.

  kept   (default) one mapping per object, kept for the whole run (j2p is
         mapped again only when a message does not fit the mapping);
  remap  the predecessor's reader: fstat, map the 24-byte header, map
         24 + data_size, copy, unmap, every step;
  predecessor  CraftGround's own Python side as it behaves
         (tests/shm/predecessor_peer.c, named by CG_SHM_PEER_LIB): it creates
         the semaphores itself, maps nothing between calls, and each step maps
         p2j to write the action, maps its header again for the wait, then
         maps j2p's header and 24 + data_size, every step. Its per-call
         mapping is its own cost, not the library's.

Usage: shm_bench_peer.py kept|remap|predecessor PORT ROUNDS SOCKET_PATH
Prints "ready" once the objects exist and the socket is connected, then the
medians and their ratio when the JVM has served every round.
"""
import ctypes
import mmap
import os
import socket
import statistics
import struct
import sys
import time

ACTION, ENV, OBS = 24, 64, 640 * 360 * 3
BLOCK, WARM_BLOCKS = 25, 2


# The test peer's libc bindings (tests/shm/shm_peer.py), plus sem_wait.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "shm"))
from shm_peer import libc  # noqa: E402

libc.sem_wait.argtypes = [ctypes.c_void_p]


def main():
    mode, port, rounds, sock_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rounds -= rounds % BLOCK
    names = ["/craftground_%d_p2j" % port, "/craftground_%d_j2p" % port,
             "/cg_sem_obs%d" % port, "/cg_sem_act%d" % port]

    def cleanup():
        for n in names[:2]:
            libc.shm_unlink(n.encode())
        for n in names[2:]:
            libc.sem_unlink(n.encode())

    cleanup()
    if mode == "predecessor":
        return run_predecessor(port, rounds, sock_path, cleanup)
    p2j_size = 136 + ACTION + ENV
    pfd = libc.shm_open(names[0].encode(), os.O_CREAT | os.O_RDWR, 0o666)
    jfd = libc.shm_open(names[1].encode(), os.O_CREAT | os.O_RDWR, 0o666)
    os.ftruncate(pfd, p2j_size)
    os.ftruncate(jfd, 24 + ENV)
    p2j = mmap.mmap(pfd, p2j_size)
    sem_obs = libc.sem_open(names[2].encode(), os.O_CREAT, 0o666, 0)
    sem_act = libc.sem_open(names[3].encode(), os.O_CREAT, 0o666, 0)
    struct.pack_into("<5Q", p2j, 0, 0, 136, ACTION, 136 + ACTION, ENV)
    p2j[56:56 + len(names[2]) + 1] = names[2].encode() + b"\0"
    p2j[104:104 + len(names[3]) + 1] = names[3].encode() + b"\0"
    p2j[136 + ACTION:136 + ACTION + ENV] = b"\7" * ENV
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(sock_path)
    print("ready", flush=True)

    out = bytearray(OBS)
    out_mv = memoryview(out)
    p2j_mv = memoryview(p2j)
    j2p = None
    j2p_mv = None

    def read_kept():
        nonlocal j2p, j2p_mv
        if j2p is None or len(j2p) < 24 + OBS:
            if j2p_mv is not None:
                j2p_mv.release()
                j2p.close()
            j2p = mmap.mmap(jfd, os.fstat(jfd).st_size, prot=mmap.PROT_READ)
            j2p_mv = memoryview(j2p)
        off, n = struct.unpack_from("<2Q", j2p, 8)
        if off != 24 or n != OBS:
            return "header says data_offset %d, data_size %d" % (off, n)
        out_mv[:n] = j2p_mv[24:24 + n]
        return None

    def read_remap():
        size = os.fstat(jfd).st_size
        with mmap.mmap(jfd, 24, prot=mmap.PROT_READ) as h:
            off, n = struct.unpack_from("<2Q", h, 8)
        if off != 24 or n != OBS or size < 24 + n:
            return "header says data_offset %d, data_size %d" % (off, n)
        with mmap.mmap(jfd, 24 + n, prot=mmap.PROT_READ) as m:
            mv = memoryview(m)
            out_mv[:n] = mv[24:24 + n]
            mv.release()
        return None

    read = read_kept if mode == "kept" else read_remap

    def channel_step(action):
        p2j_mv[136:136 + ACTION] = action
        struct.pack_into("<Q", p2j, 16, ACTION)
        libc.sem_post(sem_act)
        libc.sem_wait(sem_obs)
        return read()

    # The handshake ack.
    libc.sem_wait(sem_obs)
    bad, t_shm, t_sock = run_blocks(rounds, channel_step, lambda a: socket_step(sock, a, out_mv))
    sock.close()
    cleanup()
    return report("kept" if mode == "kept" else "re-mapped every read", bad, t_shm, t_sock, rounds)


def report(what, bad, t_shm, t_sock, rounds):
    if bad:
        print("shm_bench_peer.py: %s" % bad, file=sys.stderr)
        return 1
    shm, sk = statistics.median(t_shm), statistics.median(t_sock)
    print("Python peer (%s): one step, a %d-byte action to the JVM and a RAW 640x360 "
          "observation (%d bytes) back; medians of %d steps each, alternating blocks of %d"
          % (what, ACTION, OBS, rounds, BLOCK))
    print("  shared-memory channel (readActionImpl + writeObservationImpl)  %8.1f us" % shm)
    print("  limit: Unix SocketChannel, same bytes, same two processes       %8.1f us" % sk)
    print("  ratio channel/socket: %.2f (target < 1) %s" % (shm / sk, "MET" if shm < sk else "MISSED"))
    return 0


def run_blocks(rounds, channel_step, sock_step):
    """Alternating blocks of BLOCK steps, channel then socket, WARM_BLOCKS
    untimed first; each step gets the round's action bytes and returns None
    or what went wrong. Returns (what went wrong, channel times, socket
    times), times in us."""
    now = time.perf_counter_ns
    times = ([], [])
    for b in range(-WARM_BLOCKS, rounds // BLOCK):
        for k, step in enumerate((channel_step, sock_step)):
            for i in range(BLOCK):
                r = b * BLOCK + i
                action = bytes((r + j) & 0xFF for j in range(ACTION))
                t0 = now()
                bad = step(action)
                t1 = now()
                if bad:
                    return bad, times[0], times[1]
                if r >= 0:
                    times[k].append((t1 - t0) / 1000.0)
    return None, times[0], times[1]


def socket_step(sock, action, out_mv):
    """The limit's step: the action out, the observation back into out_mv."""
    sock.sendall(action)
    got = 0
    while got < OBS:
        k = sock.recv_into(out_mv[got:], OBS - got)
        if k == 0:
            return "socket closed"
        got += k
    return None


def run_predecessor(port, rounds, sock_path, cleanup):
    """The same blocks with CraftGround's own peer behaviour: its create, then
    per step its write (map, copy, post, unmap) and its read (map, wait,
    map j2p twice, copy, unmap)."""
    lib = ctypes.CDLL(os.environ["CG_SHM_PEER_LIB"], use_errno=True)
    lib.pp_create.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_size_t]
    lib.pp_write_action.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.pp_read.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                            ctypes.c_long]
    lib.pp_read.restype = ctypes.c_long
    rc = lib.pp_create(port, b"\7" * ENV, ENV, ACTION)
    if rc != 0:
        print("shm_bench_peer.py: create: %s" % os.strerror(-rc), file=sys.stderr)
        return 1
    p2j, j2p = b"/craftground_%d_p2j" % port, b"/craftground_%d_j2p" % port
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(sock_path)
    print("ready", flush=True)
    out = ctypes.create_string_buffer(OBS)
    out_mv = memoryview(out).cast("B")
    if lib.pp_read(p2j, j2p, out, OBS, 30000) < 0:  # the handshake ack
        bad, t_shm, t_sock = "no handshake", [], []
    else:
        def channel_step(action):
            lib.pp_write_action(p2j, action, ACTION)
            n = lib.pp_read(p2j, j2p, out, OBS, 30000)
            return None if n == OBS else "read returned %d" % n

        bad, t_shm, t_sock = run_blocks(rounds, channel_step,
                                        lambda a: socket_step(sock, a, out_mv))
    sock.close()
    cleanup()
    return report("CraftGround's own peer: semaphores its own, objects mapped per call", bad,
                  t_shm, t_sock, rounds)


if __name__ == "__main__":
    sys.exit(main())
