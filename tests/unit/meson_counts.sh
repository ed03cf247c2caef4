#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/meson-counts.py counts every check a test made, from what each kind of test
# prints, and a test meson failed is never counted as clean.
# Usage: meson_counts.sh SOURCE_ROOT
set -u
counter="$1/scripts/meson-counts.py"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
# check NAME EXPECTED LINE...: the counts of a testlog made of LINEs (JSON objects)
check() {
	local name=$1 want=$2 got
	shift 2
	printf '%s\n' "$@" >"$tmp/testlog.json"
	got=$(python3 "$counter" "$tmp/testlog.json")
	if [ "$got" = "$want" ]; then pass=$((pass + 1)); echo "ok - $name: $got"
	else fail=$((fail + 1)); echo "not ok - $name: '$got', expected '$want'"; fi
}
e2e='{"result": "OK", "stdout": "ok 1 - a\nok 2 - b\n# 7 checks, 0 failed\n"}'
e2e_bad='{"result": "FAIL", "stdout": "not ok 1 - a\n# 7 checks, 2 failed\n"}'
cmocka='{"result": "OK", "stdout": "[==========] 9 test(s) run.\n", "stderr": "[  PASSED  ] 9 test(s).\n"}'
cmocka_bad='{"result": "FAIL", "stdout": "[==========] 9 test(s) run.\n", "stderr": "[  FAILED  ] 3 test(s), listed below:\n"}'
harness='{"result": "OK", "stdout": "ok - x\n== VM checks ==\n193 passed, 0 failed\n"}'
tap='{"result": "OK", "stdout": "ok - one\nok - two\nnot ok - three\n"}'
silent='{"result": "OK", "stdout": "nothing counted\n"}'
crashed='{"result": "FAIL", "stdout": "ok 1 - a\n# 4 checks, 0 failed\n", "stderr": "ERROR: AddressSanitizer\n"}'
timeout='{"result": "TIMEOUT", "stdout": ""}'
check "e2e script" "7 passed, 0 failed" "$e2e"
check "e2e script with failures" "5 passed, 2 failed" "$e2e_bad"
check "cmocka" "9 passed, 0 failed" "$cmocka"
check "cmocka with failures" "6 passed, 3 failed" "$cmocka_bad"
check "a harness's last line" "193 passed, 0 failed" "$harness"
check "bare ok lines" "2 passed, 1 failed" "$tap"
check "a test that counts nothing" "1 passed, 0 failed" "$silent"
check "meson failed what said no failure" "4 passed, 1 failed" "$crashed"
check "a timeout" "0 passed, 1 failed" "$timeout"
check "a sum over tests" "207 passed, 4 failed" "$e2e" "$cmocka_bad" "$silent" "$harness" "$timeout"
check "a line that is not JSON" "7 passed, 1 failed" "$e2e" '{"result": "OK", "std'
got=$(python3 "$counter" "$tmp/missing.json")
if [ "$got" = "0 passed, 1 failed" ]; then pass=$((pass + 1)); echo "ok - no testlog: $got"
else fail=$((fail + 1)); echo "not ok - no testlog: '$got'"; fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
