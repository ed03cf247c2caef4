#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
A lower layer calls nothing of the layer above it: no member of LOWER.a uses a symbol
that a member of UPPER.a defines (from `nm`, as call_cycles.py reads archives).  The
commands of cmd/ hand their table to the machinery of cmd/cli/, which names none of them.
Usage: calls_down.py LOWER.a UPPER.a   (exit 0: none, 1: calls up, printed)
"""
import os
import sys

from call_cycles import members


def main():
    lower, upper = sys.argv[1], sys.argv[2]
    low, up = members(lower), members(upper)
    owner = {s: f for f, (d, _) in up.items() for s in d}
    bad = 0
    for f, (_, used) in sorted(low.items()):
        for s in sorted(used):
            if s in owner:
                bad += 1
                print(f'not ok - {f} ({os.path.basename(lower)}) calls up: {s} of {owner[s]}')
    if not low or not up:
        print('not ok - no members read')
        return 1
    if not bad:
        print(f'ok - {os.path.basename(lower)}: {len(low)} files, none uses a symbol of '
              f'{os.path.basename(upper)} ({len(up)} files)')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
