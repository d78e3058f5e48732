"""Consumer side of the wire, read the way the Python RL process reads it.

RAW: numpy.frombuffer(...).reshape(h, w, 3)[::-1]; PNG: PIL.Image.open, then
the same flip. Both must equal the original top-down image, generated here
independently from the formula (and, for a resize, the nearest-neighbour
mapping of docs/wire-format.md applied to the bottom-up image).

Usage: consumer_check.py DIR   (files written by ConsumerFrames.java)
Exit 0 pass, 1 mismatch, 77 when numpy or PIL is missing.
"""
import io
import os
import sys

try:
    import numpy as np
    from PIL import Image
except ImportError as e:  # the check cannot run here: report SKIPPED
    print(f"SKIP: {e}")
    sys.exit(77)

CASES = [(64, 48, 64, 48), (64, 48, 32, 24), (854, 480, 128, 128), (33, 17, 33, 17)]


def top_down(w, h):
    y, x = np.mgrid[0:h, 0:w].astype(np.int64)
    img = np.empty((h, w, 3), np.uint8)
    img[..., 0] = (x * 7 + y * 3) & 255
    img[..., 1] = (x * 5 + y * 11 + 40) & 255
    img[..., 2] = (x * y + 13) & 255
    return img


def expected_observation(w, h, tw, th):
    """What the RL side should see (top-down) after the library's resize."""
    bottom_up = top_down(w, h)[::-1]
    rows = (np.arange(th) * h) // th
    cols = (np.arange(tw) * w) // tw
    return bottom_up[rows][:, cols][::-1]


def main():
    d = sys.argv[1]
    failures = 0
    for w, h, tw, th in CASES:
        base = os.path.join(d, f"{w}x{h}_to_{tw}x{th}")
        want = expected_observation(w, h, tw, th)
        with open(base + ".raw", "rb") as f:
            raw = f.read()
        if len(raw) != tw * th * 3:
            print(f"FAIL {base}.raw: {len(raw)} bytes, expected {tw * th * 3}")
            failures += 1
        else:
            got = np.frombuffer(raw, dtype=np.uint8).reshape(th, tw, 3)[::-1]
            ok = np.array_equal(got, want)
            print(("ok  " if ok else "FAIL") + f" {base}.raw")
            failures += not ok
        with open(base + ".png", "rb") as f:
            im = Image.open(io.BytesIO(f.read()))
            im.load()
        if im.mode != "RGB" or im.size != (tw, th):
            print(f"FAIL {base}.png: mode {im.mode} size {im.size}, expected RGB {(tw, th)}")
            failures += 1
        else:
            got = np.asarray(im)[::-1]
            ok = np.array_equal(got, want)
            print(("ok  " if ok else "FAIL") + f" {base}.png")
            failures += not ok
    # The check must be able to fail: an unflipped read must not match.
    if np.array_equal(expected_observation(64, 48, 64, 48), top_down(64, 48)[::-1]):
        print("FAIL: the test image is symmetric under a flip")
        failures += 1
    print(f"consumer_check: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
