#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Each file depends one way: within one static library, no two source files call each
other, directly or around a longer loop (issue 12, section 5).  From `nm` of the
archive's members: a file uses a symbol another member defines -> an edge; any
strongly connected set of more than one file is a cycle, reported with the symbols
that close it.
Usage: call_cycles.py ARCHIVE.a...   (exit 0: no cycle, 1: cycles, printed)
"""
import os
import re
import subprocess
import sys

LINE = re.compile(r'^(?P<member>[^:]+\.o):\s*(?:[0-9a-fA-F]+)?\s+(?P<kind>[A-Za-z])\s+(?P<sym>\S+)$')


def members(archive):
    """{file: (defined, used)} for the archive's members (global symbols only)."""
    out = subprocess.run(['nm', '-A', archive], capture_output=True, text=True, check=True).stdout
    files = {}
    for line in out.splitlines():
        # "ARCHIVE:MEMBER: ..." (GNU nm on regular and thin archives)
        if line.startswith(archive + ':'):
            line = line[len(archive) + 1:]
        m = LINE.match(line)
        if not m:
            continue
        name = os.path.basename(m['member'])
        d, u = files.setdefault(name, (set(), set()))
        if m['kind'] == 'U':
            u.add(m['sym'])
        elif m['kind'] in 'TDBRVWG':
            d.add(m['sym'])
    return files


def cycles(files):
    owner = {s: f for f, (d, _) in files.items() for s in d}
    edges = {f: {} for f in files}
    for f, (_, u) in files.items():
        for s in u:
            g = owner.get(s)
            if g and g != f:
                edges[f].setdefault(g, set()).add(s)
    # Tarjan's strongly connected components
    index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return comps, edges


def main():
    bad = 0
    for archive in sys.argv[1:]:
        files = members(archive)
        if not files:
            print(f'not ok - {archive}: no members read')
            bad += 1
            continue
        comps, edges = cycles(files)
        for comp in comps:
            bad += 1
            print(f'not ok - {os.path.basename(archive)}: files that call each other: {", ".join(comp)}')
            for f in comp:
                for g in comp:
                    if g in edges[f]:
                        print(f'#   {f} -> {g}: {", ".join(sorted(edges[f][g])[:6])}')
        if not comps:
            print(f'ok - {os.path.basename(archive)}: {len(files)} files, every dependency one way')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
