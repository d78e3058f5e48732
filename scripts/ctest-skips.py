#!/usr/bin/env python3
"""Lists every skipped test of a ctest run with the reason it printed.

Usage: ctest-skips.py JUNIT.xml   (the file of `ctest --output-junit JUNIT.xml`)

ctest's own summary names skipped tests without their reasons; the tests
print them (a line "SKIP name: reason" or "SKIP: reason", exit 77). Prints
one line per skipped test, "  name: reason", under a heading with the count;
nothing when none skipped. The reason is the test's SKIP lines (joined with
"; ", a leading "name:" that the test's name ends with left out), else its
last line of output, else ctest's own (e.g. "Disabled"). Exit 0, or 2 when
the file cannot be read.
"""
import re
import sys
import xml.etree.ElementTree as ET


def reason(name, output, fallback):
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    skips = []
    for line in lines:
        m = re.match(r"SKIP(?:PED)?\b:?\s*(.*)", line)
        if not m:
            continue
        text = m.group(1)
        # "SKIP ring_semaphore: ..." in test zc2_ring_semaphore: the name once.
        head = re.match(r"(\S+):\s+(.*)", text)
        if head and name.endswith(head.group(1)):
            text = head.group(2)
        skips.append(text)
    if skips:
        return "; ".join(skips)
    if lines:
        return lines[-1]
    return fallback or "(no reason printed)"


def main(argv):
    if len(argv) != 2:
        print("usage: ctest-skips.py JUNIT.xml", file=sys.stderr)
        return 2
    try:
        root = ET.parse(argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"ctest-skips: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
    rows = []
    for case in root.iter("testcase"):
        skipped = case.find("skipped")
        if skipped is None:
            continue
        name = case.get("name", "?")
        out = case.findtext("system-out") or ""
        rows.append((name, reason(name, out, skipped.get("message", ""))))
    if rows:
        print(f"skipped ({len(rows)}), with the reasons the tests printed:")
        for name, why in rows:
            print(f"  {name}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
