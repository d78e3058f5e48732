"""demo_samples (labels demo, python, gl): the demo's sample messages read
with the Python package, against independent decodes of the same frame.

Usage: check_samples.py DIR WIDTH HEIGHT COUNT   (DIR: the demo's --out)

For each frame NNN < COUNT, with the package (decode_observation,
image_to_array, depth_to_array):
- obs_raw_NNN.bin's image must equal frame_NNN.png (the RAW capture the
  demo's Java code turned top-down and wrote with ImageIO), read by PIL;
- obs_png_NNN.bin's image must equal the same PNG bytes decoded by PIL and
  flipped (the wire's rows are bottom-up), and the RAW image above;
- the depth of both messages must equal the floats parsed from the message
  by hand (field 38, packed little-endian float32, rows bottom-up), and
  depth_NNN.png (the Java demo's sqrt-scaled grey, top-down) to within one
  grey level.
Exit 0 pass, 1 mismatch, 77 when numpy or PIL is missing.
"""
import io
import os
import struct
import sys

try:
    import numpy as np
    from PIL import Image
except ImportError as e:
    print(f"SKIP demo_samples: numpy or PIL missing ({e})")
    sys.exit(77)

from craftground_capture import decode_observation, depth_to_array, image_to_array

failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL", what)


def varint(buf, pos):
    v = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, pos


def depth_by_hand(msg):
    """Field 38 of the message, parsed here without the package."""
    pos, floats = 0, []
    while pos < len(msg):
        tag, pos = varint(msg, pos)
        field, wire = tag >> 3, tag & 7
        if wire == 2:
            n, pos = varint(msg, pos)
            if field == 38:
                floats.extend(struct.unpack(f"<{n // 4}f", msg[pos:pos + n]))
            pos += n
        else:
            raise ValueError(f"unexpected wire type {wire} of field {field}")
    return np.array(floats, dtype=np.float32)


def main(out, w, h, count):
    for f in range(count):
        raw_msg = open(os.path.join(out, f"obs_raw_{f:03d}.bin"), "rb").read()
        png_msg = open(os.path.join(out, f"obs_png_{f:03d}.bin"), "rb").read()
        raw_obs, png_obs = decode_observation(raw_msg), decode_observation(png_msg)
        rgb_raw = image_to_array(raw_obs.image, width=w, height=h)
        rgb_png = image_to_array(png_obs.image, width=w, height=h)
        frame = np.asarray(Image.open(os.path.join(out, f"frame_{f:03d}.png")).convert("RGB"))
        pil = np.asarray(Image.open(io.BytesIO(bytes(png_obs.image))).convert("RGB"))[::-1]
        check(rgb_raw.shape == (h, w, 3) and np.array_equal(rgb_raw, frame),
              f"frame {f}: RAW message != frame_{f:03d}.png")
        check(np.array_equal(rgb_png, pil), f"frame {f}: PNG message != PIL's decode, flipped")
        check(np.array_equal(rgb_png, rgb_raw), f"frame {f}: PNG message != RAW message")
        grey = np.asarray(Image.open(os.path.join(out, f"depth_{f:03d}.png")).convert("L"))
        for kind, msg, obs in (("raw", raw_msg, raw_obs), ("png", png_msg, png_obs)):
            d = depth_to_array(obs.depth, width=w, height=h)
            hand = depth_by_hand(msg)
            check(hand.size == w * h and np.array_equal(d, hand.reshape(h, w)[::-1]),
                  f"frame {f} {kind}: depth != the floats parsed by hand")
            want = np.round(np.sqrt(np.clip(d.astype(np.float64), 0, 1)) * 255)
            err = np.abs(want - grey).max()
            check(err <= 1, f"frame {f} {kind}: depth differs from depth_{f:03d}.png by {err} levels")
        print(f"frame {f}: RAW, PNG and depth messages checked ({w}x{h})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
