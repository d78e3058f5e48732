#!/usr/bin/env python3
"""The RL side of zero-copy, as a test client: a second process that opens the
68-byte CUDA IPC handle (64-byte cudaIpcMemHandle_t + little-endian int32
device ordinal) and checks each frame the producer announces.

Usage: consumer.py HANDLE_HEX WIDTH HEIGHT [--flip|--no-flip]
stdin: "FRAME f" lines (the frame is complete in the buffer), then "DONE".
stdout: "READY" once the handle is open, then "OK f" or "BAD f <why>" per frame;
"SKIP <why>" when no CUDA Python binding is available.

Frames are read the way the RL side consumes them: RGBA, height x width x 4,
uint8; with --flip the rows are reversed on the Python side (GL buffers are
bottom-up). The expected image is computed here from the test pattern's
definition, independently of the C code: R = 7x + 13f, G = 5y + 29f,
B = (x ^ y) + 3f, A = 255 - f (mod 256), x, y in the source's row order.
"""
import struct
import sys

import numpy as np


def expected(w, h, f, rows_top_down_from_source):
    y, x = np.mgrid[0:h, 0:w]
    img = np.empty((h, w, 4), dtype=np.uint8)
    img[..., 0] = (x * 7 + f * 13) & 255
    img[..., 1] = (y * 5 + f * 29) & 255
    img[..., 2] = ((x ^ y) + f * 3) & 255
    img[..., 3] = (255 - f) & 255
    # The pattern is defined in source row order; after the Python-side flip
    # row 0 of the result is the source's last row.
    return img if rows_top_down_from_source else img[::-1]


def open_handle(raw):
    import cupy as cp

    mem_handle = raw[:64]
    device = struct.unpack("<i", raw[64:68])[0]
    cp.cuda.Device(device).use()
    ptr = cp.cuda.runtime.ipcOpenMemHandle(mem_handle)
    return cp, device, ptr


def main():
    raw = bytes.fromhex(sys.argv[1])
    w, h = int(sys.argv[2]), int(sys.argv[3])
    flip = len(sys.argv) > 4 and sys.argv[4] == "--flip"
    if len(raw) != 68:
        print("BAD handle length %d" % len(raw), flush=True)
        return 1
    try:
        cp, device, ptr = open_handle(raw)
    except ImportError as e:
        print("SKIP cupy not importable: %s" % e, flush=True)
        return 0
    nbytes = w * h * 4
    mem = cp.cuda.UnownedMemory(ptr, nbytes, None, device)
    frame = cp.ndarray((h, w, 4), dtype=cp.uint8, memptr=cp.cuda.MemoryPointer(mem, 0))
    print("READY", flush=True)
    bad = 0
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] == "DONE":
            break
        f = int(parts[1])
        img = cp.asnumpy(frame)
        if flip:
            img = img[::-1]
        want = expected(w, h, f, not flip)
        if np.array_equal(img, want):
            print("OK %d" % f, flush=True)
        else:
            diff = np.argwhere(img != want)
            print("BAD %d first difference at %s" % (f, diff[0].tolist()), flush=True)
            bad += 1
    cp.cuda.runtime.ipcCloseMemHandle(ptr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
