"""Decode the encoder's output for every corpus frame with PIL and compare it
with the corpus frame as PIL reads it (pixel for pixel, RGB); with
PACKAGE_DIR (the folder holding craftground_capture), decode it with the
Python reader's own decoder (zlib + numpy, what the reader uses without PIL)
too and compare the same way.

Usage: png_pil_check.py CORPUS_DIR ENCODED_DIR [PACKAGE_DIR]. Exit 77 (skip)
without PIL; without numpy the second decoder is skipped with a line saying so.
"""
import os
import sys

try:
    from PIL import Image
except ImportError:
    print("png_pil_check: PIL is not installed (python3-pil); skipped")
    sys.exit(77)


def own_decoder(package_dir):
    """The reader's decode_png, or None (with a line saying why)."""
    sys.path.insert(0, package_dir)
    try:
        from craftground_capture.png import decode_png
    except ImportError as e:
        print("png_pil_check: the reader's decoder is not importable (%s); skipped" % e)
        return None
    return decode_png


def main():
    corpus, encoded = sys.argv[1], sys.argv[2]
    decode_png = own_decoder(sys.argv[3]) if len(sys.argv) > 3 else None
    frames = sorted(f for f in os.listdir(corpus) if f.endswith(".png"))
    if not frames:
        print("png_pil_check: no corpus frames in " + corpus)
        return 1
    checked = 0
    for name in frames:
        with Image.open(os.path.join(corpus, name)) as src:
            want = src.convert("RGB")
        for tag in ("default", "fast"):
            path = os.path.join(encoded, name[:-4] + "." + tag + ".png")
            with Image.open(path) as got:
                if got.format != "PNG" or got.mode != "RGB" or got.size != want.size:
                    print("%s: %s %s %s" % (path, got.format, got.mode, got.size))
                    return 1
                got.load()  # decodes the whole stream, CRCs included
                if got.tobytes() != want.tobytes():
                    print("%s: pixels differ from %s" % (path, name))
                    return 1
            if decode_png is not None:
                with open(path, "rb") as f:
                    own = decode_png(f.read())
                if own.shape != (want.size[1], want.size[0], 3) or own.tobytes() != want.tobytes():
                    print("%s: the reader's decoder gives other pixels than %s" % (path, name))
                    return 1
            checked += 1
    print("png_pil_check: %d encodings of %d frames decode exactly (PIL%s)"
          % (checked, len(frames), ", the reader's decoder" if decode_png else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
