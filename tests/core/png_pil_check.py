"""Decode the encoder's output for every corpus frame with PIL and compare it
with the corpus frame as PIL reads it (pixel for pixel, RGB).

Usage: png_pil_check.py CORPUS_DIR ENCODED_DIR. Exit 77 (skip) without PIL.
"""
import os
import sys

try:
    from PIL import Image
except ImportError:
    print("png_pil_check: PIL is not installed (python3-pil); skipped")
    sys.exit(77)


def main():
    corpus, encoded = sys.argv[1], sys.argv[2]
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
            checked += 1
    print("png_pil_check: %d encodings of %d frames decode exactly" % (checked, len(frames)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
