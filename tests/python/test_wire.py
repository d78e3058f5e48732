"""One definition of the zero-copy v2 wire format on the learner's side
(python/craftground_capture/_wire.py), checked against the C header that
is the source of truth (src/zc/cg_zc_proto.h), read here as text: every
copy that drifts fails this test.

Usage: test_wire.py HEADER LEASE_C
  - _wire's descriptor, plane and hello tables = the header's
    CG_ZC_DESC_FIELDS / CG_ZC_HELLO_FIELDS (name, offset, size), its sizes
    and lease states = the header's #defines and enum;
  - parse_descriptor reads every field at the header's offset (a descriptor
    written field by field from the header's table);
  - no module of the package but _wire slices a descriptor by a number of
    its own;
  - lease.c's offsets (its source, and the built helper's LAYOUT where
    $CRAFTGROUND_CAPTURE_NATIVE names one) = _wire.LEASE_LAYOUT, and a helper
    of another layout is refused when it loads;
  - the row template's and lease entry's fields: lease.c's name lists (its
    source, and the built helper's ROW_FIELDS / ENTRY_FIELDS) = _wire's,
    _wire's E_ and R_ indexes name their fields, vector.py and _device.py
    read no entry by a number, and a helper with two fields swapped is
    refused when it loads.
Exit 0 pass, 1 failure.
"""
import os
import re
import struct
import sys
import tempfile

import test_ring as T
from craftground_capture import _wire as W
from craftground_capture import ring as R
from craftground_capture import vector as V


def header_table(text, macro):
    m = re.search(r"#define " + macro + r"\(X\)((?:.*\\\n)*.*)\n", text)
    return [(n, int(o), int(s)) for n, o, s in
            re.findall(r"X\((\w+),\s*(\d+),\s*(\d+)\)", m.group(1))] if m else []


def ours(fields):
    return [(n.upper(), o, struct.calcsize("<" + c)) for n, o, c in fields]


def main(header, lease_c):
    text = open(header).read()
    desc = header_table(text, "CG_ZC_DESC_FIELDS")
    T.check(len(desc) == 28 and desc == ours(W.DESC_FIELDS + W.PLANE_FIELDS),
            f"descriptor fields = the header's ({len(desc)} there)")
    hello = header_table(text, "CG_ZC_HELLO_FIELDS")
    T.check(len(hello) == 10 and hello == ours(W.HELLO_FIELDS),
            f"hello fields = the header's ({len(hello)} there)")
    defines = dict(re.findall(r"#define CG_ZC_(\w+) (\d+)\b", text))
    for name in ("VERSION", "DESC_SIZE", "DESC_V3_SIZE", "HELLO_SIZE", "CONTROL_SIZE",
                 "SLOT_STRIDE", "MAX_SLOTS", "PATH_SIZE"):
        T.check(int(defines.get(name, -1)) == getattr(W, name),
                f"{name}: header {defines.get(name)}, _wire {getattr(W, name)}")
    states = dict(re.findall(r"CG_ZC_(EMPTY|WRITING|PUBLISHED|ACTIVE|RELEASED|CLOSED) = (\d)",
                             text))
    T.check({k: int(v) for k, v in states.items()} ==
            {n: getattr(W, n) for n in W.STATE_NAMES} and len(states) == 6,
            f"lease states = the header's {states}")

    # A version 3 descriptor written field by field at the header's offsets.
    raw = bytearray(256)
    values = dict(MAGIC=b"CGZ2", VERSION=3, LENGTH=256, FORMAT=23, WIDTH=4, HEIGHT=2,
                  ROW_PITCH=12, SLOT_COUNT=3, MODE=1, DEVICE_UUID=bytes(range(16)),
                  RING_ID=0x1122334455, SLOT_SIZE=4096, SLOT=2, FLAGS=0, FRAME=0x0A0B0C,
                  SOCKET_PATH=b"/run/w.sock", EYES=2, DEPTH_FORMAT=100, COLOR_EYE_STRIDE=24,
                  DEPTH_OFFSET=64, DEPTH_EYE_STRIDE=32, DEPTH_ROW_PITCH=16, DEPTH_ENCODING=2)
    for name, off, size in desc:
        v = values.get(name)
        if isinstance(v, bytes):
            raw[off:off + len(v)] = v
        elif v is not None:
            raw[off:off + size] = v.to_bytes(size, "little")
    d = R.parse_descriptor(bytes(raw))
    got = {n: getattr(d, n.lower()) for n in values if n not in ("MAGIC", "LENGTH")}
    got["SOCKET_PATH"] = d.socket_path.encode()
    want = {n: v for n, v in values.items() if n not in ("MAGIC", "LENGTH")}
    T.check(got == want, f"parse_descriptor reads each field at the header's offset: {got}")

    # No module but _wire slices a descriptor by numbers of its own.
    pkg = os.path.dirname(R.__file__)
    mods = sorted(m for m in os.listdir(pkg) if m.endswith(".py") and m != "_wire.py")
    T.check({"ring.py", "vector.py", "_device.py"} <= set(mods), f"the package's modules {mods}")
    for mod in mods:
        src = open(os.path.join(pkg, mod)).read()
        bad = re.findall(r"raw\[\d*:?\d+\]|raw\[\d+:\]|unpack\(raw, \d+\)", src)
        T.check(not bad, f"{mod}: no descriptor slice by number ({bad})")

    # lease.c: its source's offsets, the built helper's, and a helper of another layout.
    csrc = open(lease_c).read()
    c = {k: int(v) for k, v in re.findall(r"#define (SLOT_OFF|MID_OFF|MID_BYTES|FRAME_OFF|"
                                          r"TAIL_OFF) (\d+)", csrc)}
    layout = tuple(c.get(k) for k in ("SLOT_OFF", "MID_OFF", "MID_BYTES", "FRAME_OFF",
                                      "TAIL_OFF"))
    T.check(layout == W.LEASE_LAYOUT, f"lease.c's offsets {layout} = _wire's {W.LEASE_LAYOUT}")
    for macro, ours_ in (("ROW_FIELDS", W.ROW_FIELDS), ("ENTRY_FIELDS", W.ENTRY_FIELDS)):
        m = re.search(r"#define " + macro + r"\(X\)((?:.*\\\n)*.*)\n", csrc)
        names = tuple(re.findall(r'X\(\w+, "(\w+)"\)', m.group(1))) if m else ()
        T.check(names == ours_, f"lease.c's {macro} {names} = _wire's {ours_}")
    for i, name in enumerate(W.ENTRY_FIELDS):
        T.check(getattr(W, "E_" + name.upper(), None) == i, f"_wire.E_{name.upper()} = {i}")
    for name in ("head", "mid", "tail"):
        T.check(getattr(W, "R_" + name.upper()) == W.ROW_FIELDS.index(name), f"_wire.R_{name}")
    for mod in ("vector.py", "_device.py"):
        src = open(os.path.join(pkg, mod)).read()
        bad = re.findall(r"\b[erx]\[\d+:?\]|\bentries\[\d+\]\[\d+", src)
        T.check(not bad, f"{mod}: no entry or row field read by number ({bad})")
    mod, why = V.load_native()
    if mod is not None:
        T.check(mod.LAYOUT == W.LEASE_LAYOUT, f"the built helper's LAYOUT {mod.LAYOUT}")
        T.check((mod.ROW_FIELDS, mod.ENTRY_FIELDS) == (W.ROW_FIELDS, W.ENTRY_FIELDS),
                f"the built helper's field names {mod.ROW_FIELDS} {mod.ENTRY_FIELDS}")
    else:
        print(f"note: no built helper to ask ({why})")
    swapped = W.ENTRY_FIELDS[:2] + (W.ENTRY_FIELDS[3], W.ENTRY_FIELDS[2]) + W.ENTRY_FIELDS[4:]
    other_layout = W.LEASE_LAYOUT[:-1] + (W.LEASE_LAYOUT[-1] + 4,)
    for what, layout, entry in (("another layout", other_layout, W.ENTRY_FIELDS),
                                ("two entry fields swapped", W.LEASE_LAYOUT, swapped),
                                (None, W.LEASE_LAYOUT, W.ENTRY_FIELDS)):
        with tempfile.TemporaryDirectory() as tmp:
            stand_in = os.path.join(tmp, "_lease.py")
            with open(stand_in, "w") as f:
                f.write(f"ABI = 2\nSTATES = {(W.PUBLISHED, W.ACTIVE, W.RELEASED)!r}\n"
                        f"LAYOUT = {layout!r}\nROW_FIELDS = {W.ROW_FIELDS!r}\n"
                        f"ENTRY_FIELDS = {entry!r}\n")
            os.environ[V.NATIVE_ENV] = stand_in
            if what is None:  # the same stand-in, every field ours: the refusals have their cause
                T.check(V.load_native()[0] is not None, "the stand-in with every field ours loads")
            else:
                T.raises(R.RingError, V.load_native, f"a helper of {what} is refused",
                         "another version")
    del os.environ[V.NATIVE_ENV]


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
    print("PASS" if T.failures == 0 else f"{T.failures} failures")
    sys.exit(1 if T.failures else 0)
