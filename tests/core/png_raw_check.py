"""The host side of png_raw_encode (which may run under Wine or qemu-user).

  png_raw_check.py prepare OUT_DIR FRAME.png...  corpus frames as PIL reads
      them -> OUT_DIR/<name>.rgba (top row first) and OUT_DIR/inputs.txt
  png_raw_check.py check OUT_DIR  every PNG of OUT_DIR/manifest.txt decoded
      with PIL equals the RAW bytes of its frame, and those RAW bytes equal
      the RGBA frame with alpha dropped and the rows reversed (flip)

Exit 77 (skip) without PIL.
"""
import os
import struct
import sys
import zlib

try:
    from PIL import Image
except ImportError:
    print("png_raw_check: PIL is not installed (python3-pil); skipped")
    sys.exit(77)


def prepare(out, frames):
    with open(os.path.join(out, "inputs.txt"), "w") as listing:
        for path in frames:
            name = os.path.basename(path)[:-4]
            with Image.open(path) as im:
                rgba = im.convert("RGBA")
            with open(os.path.join(out, name + ".rgba"), "wb") as f:
                f.write(rgba.tobytes())
            listing.write("%s %d %d\n" % (name, rgba.width, rgba.height))
    return 0


def read(path):
    with open(path, "rb") as f:
        return f.read()


def chunks_ok(data):
    """The signature, then chunks whose CRC-32 (zlib's) matches, ending at IEND."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    at = 8
    while at + 12 <= len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 4:at + 8 + n]
        if struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0] != zlib.crc32(body):
            return False
        at += 12 + n
        if kind == b"IEND":
            return at == len(data)
    return False


def check(out):
    with open(os.path.join(out, "manifest.txt")) as f:
        lines = [line.split() for line in f if line.strip()]
    if not lines:
        print("png_raw_check: the manifest lists no frame")
        return 1
    pngs = 0
    for fields in lines:
        name, w, h, tags = fields[0], int(fields[1]), int(fields[2]), fields[3:]
        if not tags:
            print("%s: no PNG was written" % name)
            return 1
        rgba = read(os.path.join(out, name + ".rgba"))
        raw = read(os.path.join(out, name + ".raw"))
        if len(rgba) != w * h * 4:
            print("%s: %d bytes of RGBA, wanted %d" % (name, len(rgba), w * h * 4))
            return 1
        flipped = Image.frombytes("RGBA", (w, h), rgba).transpose(Image.Transpose.FLIP_TOP_BOTTOM)
        if raw != flipped.convert("RGB").tobytes():
            print("%s: RAW bytes differ from the flipped RGB of the frame" % name)
            return 1
        for tag in tags:
            path = os.path.join(out, "%s.%s.png" % (name, tag))
            with Image.open(path) as got:
                if got.format != "PNG" or got.mode != "RGB" or got.size != (w, h):
                    print("%s: %s %s %s, wanted PNG RGB %dx%d"
                          % (path, got.format, got.mode, got.size, w, h))
                    return 1
                got.load()  # decodes the whole stream
                if got.tobytes() != raw:
                    print("%s: pixels differ from the RAW bytes" % path)
                    return 1
            if not chunks_ok(read(path)):
                print("%s: a chunk's CRC or the chunk sequence is wrong" % path)
                return 1
            pngs += 1
    print("png_raw_check: %d PNGs of %d frames decode to their RAW bytes" % (pngs, len(lines)))
    return 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "prepare":
        return prepare(sys.argv[2], sys.argv[3:])
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        return check(sys.argv[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
