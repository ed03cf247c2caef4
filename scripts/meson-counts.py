#!/usr/bin/env python3
# Count every check a meson test run made, not one per test: reads a build dir's
# meson-logs/testlog.json and prints "N passed, N failed" (scripts/test.sh's part line).
# Each test's own output says how many checks it made: the e2e scripts' "# N checks, M
# failed", a harness's last "N passed, M failed", cmocka's "[==========] N test(s) run."
# with "[  FAILED  ] M test(s)", or bare "ok"/"not ok" lines.  A test that says none of
# these counts as one check by its result.  A test that meson failed (a crash, a sanitizer
# report, a timeout) while its own count says no failure counts one failure more.
import json
import re
import sys

SUMMARY_E2E = re.compile(r'^# (\d+) checks, (\d+) failed', re.M)
SUMMARY_PF = re.compile(r'(\d+) passed, (\d+) failed')
CMOCKA_RUN = re.compile(r'^\[=+\] (\d+) test\(s\) run\.', re.M)
CMOCKA_FAILED = re.compile(r'^\[  FAILED  \] (\d+) test\(s\)', re.M)
TAP_OK = re.compile(r'^ok\b', re.M)
TAP_NOT_OK = re.compile(r'^not ok\b', re.M)
OK_RESULTS = ('OK', 'SKIP', 'EXPECTEDFAIL')


def counts(out, meson_ok):
    """(passed, failed) of one test from its output; None when it says nothing."""
    m = SUMMARY_E2E.findall(out)
    if m:
        n, f = map(int, m[-1])
        return n - f, f
    m = SUMMARY_PF.findall(out)
    if m:
        return tuple(map(int, m[-1]))
    m = CMOCKA_RUN.findall(out)
    if m:
        n = sum(map(int, m))
        f = sum(map(int, CMOCKA_FAILED.findall(out)))
        return n - f, f
    ok, bad = len(TAP_OK.findall(out)), len(TAP_NOT_OK.findall(out))
    if ok or bad:
        return ok, bad
    return None


def main(path):
    passed = failed = 0
    try:
        lines = open(path, encoding='utf-8', errors='replace').readlines()
    except OSError:
        print('0 passed, 1 failed')
        return 1
    for line in lines:
        if not line.strip():
            continue
        try:
            test = json.loads(line)
        except ValueError:
            failed += 1  # a cut log: something went wrong
            continue
        meson_ok = test.get('result') in OK_RESULTS
        c = counts(test.get('stdout', '') + '\n' + test.get('stderr', ''), meson_ok)
        p, f = c if c is not None else ((1, 0) if meson_ok else (0, 1))
        if not meson_ok and f == 0:
            f = 1
        passed += p
        failed += f
    print(f'{passed} passed, {failed} failed')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
