#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
No function of the C sources (core/, cmd/, tui/, export/, plugins/, fmt/, util/) is longer
than 80 lines, from its opening brace to its closing one (the project's style: a
function does one job).  The functions listed in ALLOWED are known to be longer and are
to be split; each may only shrink: a listed function that grows past its recorded length,
or any other past 80, fails.  A listed one that fits is reported, to be taken off the list.
Functions are found as the kernel style writes them: the opening brace alone in column 0.
Usage: function_length.py SOURCE_ROOT
"""
import glob
import os
import sys

LIMIT = 80
DIRS = ["core", "cmd", "tui", "export", "plugins", "fmt", "util"]
# file: {first line of the signature (prefix): recorded length}
ALLOWED = {}


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            j = i - 1
            while j > 0 and "(" not in lines[j]:
                j -= 1
            k = i + 1
            while k < len(lines) and lines[k] != "}":
                k += 1
            yield lines[j].strip(), i + 1, k - i + 1
            i = k
        i += 1


def main():
    root = sys.argv[1]
    bad = 0
    for d in DIRS:
        for path in sorted(glob.glob(os.path.join(root, d, "**", "*.c"), recursive=True)):
            rel = os.path.relpath(path, root)
            for sig, line, n in functions(path):
                allowed = next((v for k, v in ALLOWED.get(rel, {}).items() if sig.startswith(k)), None)
                if allowed is not None and n <= LIMIT:
                    print(f"note - {rel}:{line}: {sig} fits now ({n} lines): take it off ALLOWED")
                if n > (allowed if allowed is not None else LIMIT):
                    bad += 1
                    limit = f"its recorded {allowed}" if allowed is not None else LIMIT
                    print(f"not ok - {rel}:{line}: {sig} is {n} lines, more than {limit}")
    listed = sum(len(v) for v in ALLOWED.values())
    print(f"{'ok' if not bad else 'not ok'} - functions within {LIMIT} lines "
          f"({listed} listed longer ones to split)")
    print(f"{1 if not bad else 0} passed, {1 if bad else 0} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
