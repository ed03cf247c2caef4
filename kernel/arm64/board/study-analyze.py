#!/usr/bin/env python3
"""study-analyze.py DATA_DIR: the pre-registered analysis of kernel/arm64/study.sh's study
(kernel/arm64/study/PLAN.md), from the raw lines it saved (DATA_DIR/boot-*.txt); prints
the calibration and the results as Markdown.  Standard library only; deterministic (the
bootstrap's generator is seeded).

Exit status: 0 the analysis ran (whatever it found); 1 the calibration missed its 5%
criterion; 2 usage or missing data.
"""
import glob
import itertools
import json
import math
import os
import random
import re
import statistics
import sys

BASELINE = "instant"
ALPHA = 0.05
CAL_TOL = 0.05
BOOT_RESAMPLES = 10000


def load(ddir):
    cal, calall, runs = [], [], []
    for path in sorted(glob.glob(os.path.join(ddir, "boot-*.txt"))):
        boot = int(re.search(r"boot-(\d+)\.txt$", path).group(1))
        for line in open(path, encoding="utf-8", errors="replace"):
            f = line.split()
            if not f:
                continue
            if f[0] == "TPCAL" and len(f) >= 6:  # the median, then each window's rate
                cal.append(dict(boot=boot, cpu=int(f[1]), cap=int(f[2]), khz=int(f[3]),
                                max=int(f[4]), rate=float(f[5])))
            elif f[0] == "TPCALALL" and len(f) == 4:
                calall.append(dict(boot=boot, cpu=int(f[1]), cap=int(f[2]), rate=float(f[3])))
            elif f[0] == "TPSTUDY":
                m = re.match(r"TPSTUDY (\d+) (\d+) (\S+) (\S+) rc=(\d+) minkhz=(\d+) (.*)$",
                             line.strip())
                if not m:
                    continue
                r = dict(boot=int(m.group(1)), idx=int(m.group(2)), work=m.group(3),
                         cfg=m.group(4), rc=int(m.group(5)), minkhz=int(m.group(6)))
                try:
                    j = json.loads(m.group(7))
                    c = j["configurations"][0]
                    r["time"] = c["times_s"][0]
                    big = (j.get("placement_domain") or {}).get("id")
                    r["big"] = next((p["shares"][0] for p in c.get("placement") or []
                                     if p["domain_id"] == big), None)
                    r["mig"] = ((c.get("migrations") or {}).get("runs") or [None])[0]
                except (ValueError, KeyError, IndexError, TypeError):
                    r["rc"] = r["rc"] or -1
                runs.append(r)
    return cal, calall, runs


def calibration(cal, calall):
    print("## Calibration\n")
    print("Rate: units of the busy loop per second, one CPU busy at a time. Model: "
          "K x capacity/1024 x f/f_max, K fitted per boot (the median of rate / model).\n")
    ok = True
    for boot in sorted({c["boot"] for c in cal}):
        pts = [c for c in cal if c["boot"] == boot]
        k = statistics.median(c["rate"] / (c["cap"] / 1024 * c["khz"] / c["max"]) for c in pts)
        print(f"### Boot {boot}: K = {k:.1f} units/s\n")
        print("| CPU | capacity | limit (MHz) | model | measured | deviation |")
        print("| --- | --- | --- | --- | --- | --- |")
        worst = 0
        for c in sorted(pts, key=lambda c: (c["cpu"], c["khz"])):
            model = k * c["cap"] / 1024 * c["khz"] / c["max"]
            dev = c["rate"] / model - 1
            worst = max(worst, abs(dev))
            flag = "" if abs(dev) <= CAL_TOL else " **over 5%**"
            print(f"| {c['cpu']} | {c['cap']} | {c['khz'] // 1000} | {model:.1f} | "
                  f"{c['rate']:.1f} | {100 * dev:+.1f}%{flag} |")
        print(f"\nBoot {boot}: {len(pts)} points, worst deviation {100 * worst:.1f}% "
              f"({'within' if worst <= CAL_TOL else 'NOT within'} 5%).\n")
        ok &= worst <= CAL_TOL and len(pts) > 0
        allp = [c for c in calall if c["boot"] == boot]
        if allp:
            devs = [c["rate"] / (k * c["cap"] / 1024) - 1 for c in allp]
            print(f"All eight CPUs busy at once at f_max (not part of the criterion): deviation "
                  f"from the model {100 * min(devs):+.1f}% to {100 * max(devs):+.1f}%.\n")
    return ok


def median_ci(x, rng):
    meds = sorted(statistics.median(rng.choices(x, k=len(x))) for _ in range(BOOT_RESAMPLES))
    return statistics.median(x), meds[int(0.025 * BOOT_RESAMPLES)], meds[int(0.975 * BOOT_RESAMPLES) - 1]


def hodges_lehmann(x, y):
    return statistics.median(a - b for a in x for b in y)


def hl_ci(x, y, rng):
    d = sorted(hodges_lehmann(rng.choices(x, k=len(x)), rng.choices(y, k=len(y)))
               for _ in range(BOOT_RESAMPLES // 5))
    n = len(d)
    return d[int(0.025 * n)], d[int(0.975 * n) - 1]


def cliffs_delta(x, y):
    gt = sum(1 for a in x for b in y if a > b)
    lt = sum(1 for a in x for b in y if a < b)
    return (gt - lt) / (len(x) * len(y))


def mw_less(x, y):
    """One-sided exact Mann-Whitney (permutation of mid-ranks): P(X's rank sum <= observed)
    when X (the configuration) and Y (the baseline) are exchangeable; H1: X tends smaller."""
    allv = sorted(x + y)
    ranks = {}
    i = 0
    while i < len(allv):
        j = i
        while j < len(allv) and allv[j] == allv[i]:
            j += 1
        ranks[allv[i]] = (i + j + 1) / 2
        i = j
    r = [ranks[v] for v in x + y]
    obs = sum(ranks[v] for v in x)
    n, tot, le = len(x), 0, 0
    for comb in itertools.combinations(range(len(r)), n):
        s = sum(r[k] for k in comb)
        tot += 1
        le += s <= obs + 1e-9
    return le / tot


def holm(ps):
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    adj, run = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (len(ps) - rank) * ps[i]))
        adj[i] = run
    return adj


def fmt_ci(m, lo, hi, unit=""):
    return f"{m:.3g}{unit} [{lo:.3g}, {hi:.3g}]"


def results(runs, fmax):
    rng = random.Random(20261208)
    good = [r for r in runs if r["rc"] == 0 and r.get("time") is not None]
    bad = [r for r in runs if r not in good]
    print("## Results\n")
    print(f"{len(runs)} runs on record, {len(good)} analysed, {len(bad)} failed and left out"
          + ("" if not bad else ": " + ", ".join(f"boot {r['boot']} #{r['idx']} {r['work']} {r['cfg']}"
                                                 for r in bad)) + ".\n")
    for work in sorted({r["work"] for r in good}):
        rows = [r for r in good if r["work"] == work]
        cfgs = sorted({r["cfg"] for r in rows}, key=lambda c: (c != BASELINE, c))
        t = {c: [r["time"] for r in rows if r["cfg"] == c] for c in cfgs}
        if BASELINE not in t:
            print(f"### {work}: no {BASELINE} runs\n")
            continue
        base = t[BASELINE]
        others = [c for c in cfgs if c != BASELINE]
        ps = [mw_less(t[c], base) for c in others]
        adj = dict(zip(others, holm(ps)))
        raw = dict(zip(others, ps))
        print(f"### {work}\n")
        print("Completion time (s): median [95% bootstrap interval]; shift against "
              f"{BASELINE}: Hodges-Lehmann estimate [95% bootstrap interval] and in % of "
              f"{BASELINE}'s median; Cliff's delta (negative: faster); one-sided exact "
              "Mann-Whitney p (H1: faster than instant), raw and after Holm across the "
              f"{len(others)} configurations.  Share of CPU time on big and migrations: "
              "median [95% interval].\n")
        print("| configuration | n | time (s) | shift (s) | shift | Cliff's delta | p | p (Holm) "
              "| on big | migrations | runs capped |")
        # runs capped: the big cluster's limit went below f_max during the run (the heat model)
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        bmed = statistics.median(base)
        for c in cfgs:
            x = t[c]
            m, lo, hi = median_ci(x, rng)
            big = [r["big"] for r in rows if r["cfg"] == c and r["big"] is not None]
            mig = [r["mig"] for r in rows if r["cfg"] == c and r["mig"] is not None]
            capped = sum(1 for r in rows if r["cfg"] == c and 0 < r["minkhz"] < fmax)
            bs = fmt_ci(*[100 * v for v in median_ci(big, rng)], "%") if big else "-"
            ms = fmt_ci(*median_ci(mig, rng)) if mig else "-"
            if c == BASELINE:
                print(f"| {c} (baseline) | {len(x)} | {fmt_ci(m, lo, hi)} | | | | | | {bs} | {ms} | "
                      f"{capped}/{len(x)} |")
                continue
            s = hodges_lehmann(x, base)
            slo, shi = hl_ci(x, base, rng)
            print(f"| {c} | {len(x)} | {fmt_ci(m, lo, hi)} | {s:+.3f} [{slo:+.3f}, {shi:+.3f}] | "
                  f"{100 * s / bmed:+.1f}% | {cliffs_delta(x, base):+.2f} | {raw[c]:.4f} | "
                  f"{adj[c]:.4f}{' *' if adj[c] < ALPHA else ''} | {bs} | {ms} | {capped}/{len(x)} |")
        sig = [c for c in others if adj[c] < ALPHA]
        print(f"\nFaster than {BASELINE} at family-wise alpha {ALPHA} (Holm): "
              + (", ".join(sig) if sig else "none") + ".\n")


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: study-analyze.py DATA_DIR", file=sys.stderr)
        sys.exit(2)
    cal, calall, runs = load(sys.argv[1])
    if not cal and not runs:
        print(f"study-analyze.py: no boot-*.txt data in {sys.argv[1]}", file=sys.stderr)
        sys.exit(2)
    print(f"# The slowing board's study: analysis of {sys.argv[1]}\n")
    cal_ok = calibration(cal, calall)
    fmax = max([c["max"] for c in cal if c["cap"] == 1024] or [r["minkhz"] for r in runs] or [0])
    results(runs, fmax)
    sys.exit(0 if cal_ok else 1)


if __name__ == "__main__":
    main()
