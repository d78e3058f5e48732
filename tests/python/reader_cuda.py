#!/usr/bin/env python3
"""The Python reader's zero-copy frame (craftground_capture.open_ipc_handle)
as the second process of test_cuda_vk's IPC check: same protocol and the same
independent pattern as consumer.py.

Usage: reader_cuda.py HANDLE_HEX WIDTH HEIGHT [--flip|--no-flip]
stdin "FRAME f" lines, then "DONE"; stdout "READY", then "OK f" / "BAD f why";
"SKIP why" when no CUDA driver is usable here.

Each frame is checked through every path available: the host copy
(to_numpy, always), CuPy through __cuda_array_interface__ and torch through
__dlpack__ when they are importable. The first half of the frames uses the
driver API (libcuda), the second half the runtime (libcudart), reopening the
handle in between.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from consumer import expected  # noqa: E402  (the pattern's independent definition)

import craftground_capture as cc  # noqa: E402

try:
    import cupy
except ImportError:
    cupy = None
try:
    import torch
except ImportError:
    torch = None


def views(frame):
    """(name, host numpy array) for every way this process can read the frame."""
    out = [("to_numpy/" + frame.backend, frame.to_numpy())]
    if cupy is not None:
        with cupy.cuda.Device(frame.device):
            a = cupy.asarray(frame)  # __cuda_array_interface__, no copy
            assert a.data.ptr == frame.ptr, "CuPy copied the frame"
            out.append(("cupy/__cuda_array_interface__", cupy.asnumpy(a)))
    if torch is not None:
        t = torch.from_dlpack(frame)  # __dlpack__, no copy
        assert t.data_ptr() == frame.ptr and t.device.index == frame.device, "torch copied it"
        assert tuple(t.shape) == frame.shape and t.dtype == torch.uint8
        out.append(("torch/__dlpack__", t.cpu().numpy()))
        del t
    return out


def main():
    raw = bytes.fromhex(sys.argv[1])
    w, h = int(sys.argv[2]), int(sys.argv[3])
    flip = len(sys.argv) > 4 and sys.argv[4] == "--flip"
    backends = ["driver", "runtime"]
    try:
        frame = cc.open_ipc_handle(raw, w, h, backend="driver")
    except RuntimeError as e:
        print("SKIP %s" % e, flush=True)
        return 0
    print("READY", flush=True)
    print("reader_cuda: cupy %s, torch %s" % (cupy is not None, torch is not None), file=sys.stderr)
    lines = []
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] == "DONE":
            break
        f = int(parts[1])
        lines.append(f)
        if len(lines) == 31 and frame.backend == "driver":
            frame.close()
            try:
                frame = cc.open_ipc_handle(raw, w, h, backend="runtime")
            except RuntimeError as e:  # no libcudart on this machine: stay on the driver
                print("reader_cuda: runtime backend unavailable: %s" % e, file=sys.stderr)
                backends.remove("runtime")
                frame = cc.open_ipc_handle(raw, w, h, backend="driver")
        want = expected(w, h, f, not flip)
        bad = []
        try:
            for name, img in views(frame):
                if flip:
                    img = img[::-1]
                if not np.array_equal(img, want):
                    bad.append("%s differs at %s" % (name, np.argwhere(img != want)[0].tolist()))
        except Exception as e:  # noqa: BLE001 - any failure is a BAD frame
            bad.append("%s: %s" % (type(e).__name__, e))
        print(("BAD %d %s" % (f, "; ".join(bad))) if bad else ("OK %d" % f), flush=True)
    frame.close()
    print("reader_cuda: backends used: %s" % ", ".join(backends), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
