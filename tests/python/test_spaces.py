"""VectorLearner's observation spaces (gymnasium's vector-env names:
single_observation_space, observation_space), against shapes, dtypes and
bounds written here by hand from docs/zero-copy-v2/learner.md.

Usage: test_spaces.py unit   spec.planes_space and the package's own
                             BoxSpace/DictSpace (gymnasium's where importable)
       test_spaces.py fake   VectorLearners of rings served from Python
                             through the stand-in libcuda
                             ($CRAFTGROUND_CAPTURE_LIBCUDA): RGBA, RGB, two
                             eyes with depth; a step's batch lies in its space
Exit 0 pass, 1 failure, 77 when what the check needs is missing.
"""
import os
import sys
import tempfile

import numpy as np

import test_planes as P
import test_ring as T
from craftground_capture import ring as R
from craftground_capture import spec as S

try:
    from gymnasium import spaces as G  # type: ignore
except ImportError:
    G = None


def is_box(space, shape, dtype, low, high, what):
    box = G.Box if G is not None else S.BoxSpace
    T.check(isinstance(space, box) and tuple(space.shape) == shape and
            np.dtype(space.dtype) == np.dtype(dtype) and np.all(space.low == low) and
            np.all(space.high == high), f"{what}: {space!r} is Box({low}, {high}, {shape}, "
                                         f"{np.dtype(dtype)})")


def unit():
    rgb = S.observation_spec("ring_rgb", width=4, height=2, eyes=2)
    depth = S.observation_spec("ring_depth", width=4, height=2, eyes=2)
    is_box(S.planes_space({"rgb": rgb}), (2, 2, 4, 3), np.uint8, 0, 255, "one plane")
    is_box(S.planes_space({"rgb": rgb}, batch=5), (5, 2, 2, 4, 3), np.uint8, 0, 255,
           "one plane, 5 rows")
    d = S.planes_space({"rgb": rgb, "depth": depth}, batch=3)
    T.check(list(d.keys()) == ["rgb", "depth"], f"two planes: a Dict of rgb and depth ({d!r})")
    is_box(d["rgb"], (3, 2, 2, 4, 3), np.uint8, 0, 255, "two planes' rgb")
    is_box(d["depth"], (3, 2, 2, 4), np.float32, 0.0, 1.0, "two planes' depth")
    # The package's own, gymnasium or not.
    b = S.BoxSpace(0, 255, (2, 3), np.uint8)
    T.check(b.contains(np.full((2, 3), 255, np.uint8)) and
            not b.contains(np.zeros((3, 2), np.uint8)) and
            not b.contains(np.zeros((2, 3), np.int16)), "BoxSpace.contains: shape and dtype")
    f = S.BoxSpace(0.0, 1.0, (2,), np.float32)
    T.check(f.contains(np.array([0.0, 1.0], np.float32)) and
            not f.contains(np.array([0.5, 1.5], np.float32)), "BoxSpace.contains: bounds")
    ds = S.DictSpace({"a": b, "b": f})
    T.check(ds.contains({"a": np.zeros((2, 3), np.uint8), "b": np.zeros(2, np.float32)}) and
            not ds.contains({"a": np.zeros((2, 3), np.uint8)}), "DictSpace.contains")
    T.check(b == S.BoxSpace(0, 255, (2, 3), np.uint8) and b != S.BoxSpace(0, 254, (2, 3),
                                                                          np.uint8),
            "BoxSpace equality by bounds")


def fake():
    if not os.environ.get("CRAFTGROUND_CAPTURE_LIBCUDA"):
        print("skip: no stand-in libcuda ($CRAFTGROUND_CAPTURE_LIBCUDA)")
        sys.exit(77)
    from craftground_capture import VectorLearner

    lib = R.CudaImporter().lib
    lib.fake_ext_set_uuid(bytes(range(16)))
    tmp = tempfile.mkdtemp(prefix="cg-spaces-")
    os.chmod(tmp, 0o700)
    w, h = 4, 2
    # Two eyes with depth (version 3): eye planes packed, depth after them.
    rings = [P.Ring(tmp, 0x700 + k, w, h, 2, w * h * 3, 128, depth=R.DEPTH_LINEAR, doff=48,
                    des=w * h * 4, seed=k) for k in range(3)]
    vec = VectorLearner([r.desc(0, 0) for r in rings])
    single, whole = vec.single_observation_space, vec.observation_space
    is_box(single["rgb"], (2, h, w, 3), np.uint8, 0, 255, "stereo RGB-D: single rgb")
    is_box(single["depth"], (2, h, w), np.float32, 0.0, 1.0, "stereo RGB-D: single depth")
    is_box(whole["rgb"], (3, 2, h, w, 3), np.uint8, 0, 255, "stereo RGB-D: batch rgb")
    is_box(whole["depth"], (3, 2, h, w), np.float32, 0.0, 1.0, "stereo RGB-D: batch depth")
    b = vec.step([r.desc(1, 5) for r in rings], stream=3)
    got = {"rgb": b.rgb.to_numpy(), "depth": b.depth.to_numpy()}
    T.check(whole.contains(got), "stereo RGB-D: the step's batch lies in observation_space")
    T.check(single.contains({"rgb": got["rgb"][1], "depth": got["depth"][1]}),
            "stereo RGB-D: row 1 lies in single_observation_space")
    vec.close()
    for r in rings:
        r.close()
    # RGBA (version 1, format 37) and RGB (version 2, format 23) rings: one Box.
    for fmt, ch in ((37, 4), (R.FORMAT_RGB8, 3)):
        prods, descs = [], []
        for k in range(2):
            rid = 0x800 + 16 * fmt + k
            cfd, cmap = T.control_block(2, rid)
            path = os.path.join(tmp, f"ring{rid:x}.sock")
            mems = [os.memfd_create(f"slot{i}") for i in range(2)]
            for fd in mems:
                os.ftruncate(fd, 64)
            prods.append(T.FakeProducer(path, dict(ring_id=rid, slots=2, size=64,
                                                   mode=R.MODE_FENCE), [cfd] + mems))
            descs.append(T.descriptor(rid, 0, 0, path, slots=2, w=w, h=h, fmt=fmt))
        vec = VectorLearner(descs)
        is_box(vec.single_observation_space, (h, w, ch), np.uint8, 0, 255,
               f"format {fmt}: single")
        is_box(vec.observation_space, (2, h, w, ch), np.uint8, 0, 255, f"format {fmt}: batch")
        vec.close()
        for p in prods:
            p.close()


if __name__ == "__main__":
    T.run_modes({"unit": unit, "fake": fake}, __doc__)
