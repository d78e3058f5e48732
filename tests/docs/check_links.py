"""Check that every relative link of the project's Markdown resolves.

    check_links.py ROOT PATH...      check the .md files PATH names (a folder: every
                                     .md below it), paths relative to ROOT
    check_links.py --selftest        show that each kind of broken link is caught

A link is an inline link or image, [text](dest) or ![alt](dest), or a reference
definition, [id]: dest, outside fenced code blocks and code spans. A dest with a
scheme (https:, mailto:) is not checked. Otherwise its path, relative to the
file's folder (empty: the file itself), must exist, and a #fragment of a .md
target must be one of that file's anchors as GitHub makes them: each heading's
text as rendered (code spans' text, links' text), lower-cased, every character
but letters, digits, marks, '_', '-' and spaces dropped, spaces turned into '-',
the n-th repeat of a slug given '-n'; plus the names and ids of HTML anchors.
Exit 0 when every link resolves, 1 otherwise, each broken one printed as
FILE:LINE: DEST: why.
"""
import os
import re
import sys
import tempfile
import unicodedata
from urllib.parse import unquote

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
INLINE = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
                    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*(<[^>]*>|\S+)", re.M)
CODE_SPAN_IN_PARAGRAPH = re.compile(r"(`+)((?:(?!\n[ \t]*\n).)+?)\1", re.S)
HTML_ANCHOR = re.compile(r"<a\s[^>]*?\b(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.I)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def lines_outside_fences(text):
    """(line number, line) of every line outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                continue
            yield n, line
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                and line.strip() == m.group(1):
            fence = None


def rendered(heading):
    """A heading's text as GitHub renders it (what its slug is made from)."""
    parts, pos = [], 0
    for m in CODE_SPAN.finditer(heading):
        parts.append(("text", heading[pos:m.start()]))
        parts.append(("code", m.group(2).strip()))
        pos = m.end()
    parts.append(("text", heading[pos:]))
    out = []
    for kind, s in parts:
        if kind == "text":
            s = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", s)   # links, images: their text
            s = re.sub(r"<[^>]+>", "", s)                     # HTML tags
            s = re.sub(r"\\(.)", r"\1", s)                    # escapes
            s = re.sub(r"(?<!\w)_+|_+(?!\w)", "", s)          # _emphasis_ (not snake_case)
        out.append(s)
    return "".join(out)


def slug(text):
    out = []
    for ch in rendered(text).strip().lower():
        cat = unicodedata.category(ch)
        if ch in "-_ " or cat[0] in "LNM":
            out.append("-" if ch == " " else ch)
    return "".join(out)


def anchors(text):
    found, seen = set(), {}
    prev = None
    for _, line in lines_outside_fences(text):
        title = None
        m = ATX.match(line)
        if m:
            title = m.group(2) or ""
        elif prev is not None and prev.strip() and SETEXT.match(line) \
                and not ATX.match(prev) and not prev.lstrip().startswith(("-", "*", "|", ">")):
            title = prev.strip()
        if title is not None:
            s = slug(title)
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else "%s-%d" % (s, n))
        for a in HTML_ANCHOR.findall(line):
            found.add(a)
        prev = line
    return found


def links(text):
    """(line number, dest) of every link outside code; a link's text may span lines."""
    keep = dict(lines_outside_fences(text))
    bare = "\n".join(keep.get(n, "") for n in range(1, text.count("\n") + 2))
    bare = CODE_SPAN_IN_PARAGRAPH.sub(lambda c: re.sub(r"[^\n]", " ", c.group(0)), bare)
    found = [(m.start(), m.group(1)) for m in REFDEF.finditer(bare)]
    found += [(m.start(), m.group(2)) for m in INLINE.finditer(bare)]
    for pos, dest in sorted(found):
        yield bare.count("\n", 0, pos) + 1, dest.strip("<>")


def check(root, paths):
    files = []
    for p in paths:
        full = os.path.join(root, p)
        if os.path.isdir(full):
            for d, _, names in sorted(os.walk(full)):
                files += [os.path.join(d, x) for x in sorted(names) if x.endswith(".md")]
        elif os.path.isfile(full):
            files.append(full)
        else:
            return ["%s: no such file or folder" % p], 0
    cache, bad, count = {}, [], 0

    def anchors_of(path):
        if path not in cache:
            with open(path, encoding="utf-8") as f:
                cache[path] = anchors(f.read())
        return cache[path]

    for f in files:
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        rel = os.path.relpath(f, root)
        for n, dest in links(text):
            if not dest or SCHEME.match(dest) or dest.startswith("//"):
                continue
            count += 1
            path, _, frag = dest.partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(f), unquote(path))) if path else f
            if not os.path.exists(target):
                bad.append("%s:%d: %s: no file %s" % (rel, n, dest, os.path.relpath(target, root)))
                continue
            if frag and target.endswith(".md") and os.path.isfile(target):
                if unquote(frag) not in anchors_of(target):
                    bad.append("%s:%d: %s: no heading or anchor '#%s' in %s"
                               % (rel, n, dest, frag, os.path.relpath(target, root)))
    return bad, count


def selftest():
    cases = {
        "a.md": "# Title\n\n## The `ipc_handle` bytes (192; 256 in v3)\n\n## Repeat\n\n## Repeat\n\n"
                "Setext heading\n--------------\n\n<a name=\"custom\"></a>\n"
                "[ok](b.md) [ok](#title) [ok](#the-ipc_handle-bytes-192-256-in-v3) [ok](#repeat-1)\n"
                "[ok](#setext-heading) [ok](#custom) [ok](sub/) [ok](https://example.com/x#y)\n"
                "[ok](b.md#b-heading \"title\") `[not a link](nowhere.md)` [ok, over\ntwo lines](b.md)\n"
                "```\n[not a link](nowhere.md)\n```\n[ref]: b.md#b-heading\n",
        "b.md": "# B heading\n",
        "sub/c.md": "[ok](../a.md#repeat) [ok](../b.md)\n",
    }
    broken = {
        "missing file": "[x](nowhere.md)\n",
        "missing anchor": "[x](b.md#no-such-heading)\n",
        "missing own anchor": "[x](#nope)\n",
        "repeat past the last": "[x](a.md#repeat-2)\n",
        "anchor as written, not its slug": "[x](a.md#Title)\n",
        "broken reference definition": "[ref]: b.md#nope\n",
        "missing file from a subfolder": "[x](../nowhere.md)\n",
        "link text over two lines": "text [x\ny](b.md#nope) text\n",
    }
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in cases.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, name)), exist_ok=True)
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        bad, count = check(tmp, ["a.md", "sub"])
        if bad or count != 12:
            print("selftest: good links: %d checked (expected 12), reported %s" % (count, bad))
            failures += 1
        for why, text in broken.items():
            name = "sub/broken.md" if why.endswith("subfolder") else "broken.md"
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
            bad, _ = check(tmp, [name])
            os.remove(os.path.join(tmp, name))
            if len(bad) != 1:
                print("selftest: %s: expected one broken link, got %s" % (why, bad))
                failures += 1
            else:
                print("selftest: %s: caught (%s)" % (why, bad[0]))
    print("selftest: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) < 3:
        sys.exit(__doc__)
    bad, count = check(argv[1], argv[2:])
    for b in bad:
        print(b)
    print("%d relative links checked, %d broken" % (count, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
