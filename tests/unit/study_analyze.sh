#!/bin/bash
# SPDX-License-Identifier: MIT
# kernel/arm64/board/study-analyze.py, the slowing board study's pre-registered analysis:
# its statistics against values worked out by hand, the calibration's 5% criterion and
# exit status, and the results table on made-up runs (a clear winner, a tie, a failed run).
# Usage: study_analyze.sh SOURCE_ROOT
set -u
an="$1/kernel/arm64/board/study-analyze.py"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }
# expect NAME WANT GOT
expect() { if [ "$2" = "$3" ]; then ok "$1: $3"; else bad "$1: got '$3', expected '$2'"; fi; }

py() { python3 -c "import importlib.util as u; s = u.spec_from_file_location('a', '$an'); a = u.module_from_spec(s); s.loader.exec_module(a); print($1)"; }
expect "Mann-Whitney exact, all smaller (1/20)" "0.05" "$(py 'a.mw_less([1, 2, 3], [4, 5, 6])')"
expect "Mann-Whitney exact, all larger" "1.0" "$(py 'a.mw_less([4, 5, 6], [1, 2, 3])')"
expect "Mann-Whitney exact, one swap (2/20)" "0.1" "$(py 'a.mw_less([1, 2, 4], [3, 5, 6])')"
expect "Mann-Whitney, every value tied" "1.0" "$(py 'a.mw_less([7, 7], [7, 7])')"
expect "Holm: 3p, 2p, monotone" "[0.03, 0.06, 0.06]" "$(py '[round(v, 6) for v in a.holm([0.01, 0.04, 0.03])]')"
expect "Holm never above 1" "[1.0, 1.0]" "$(py 'a.holm([0.6, 0.9])')"
expect "Hodges-Lehmann shift" "1.5" "$(py 'a.hodges_lehmann([1, 2], [0, 0])')"
expect "Cliff's delta, all smaller" "-1.0" "$(py 'a.cliffs_delta([1, 2], [3, 4])')"
expect "Cliff's delta, half" "0.0" "$(py 'a.cliffs_delta([1, 4], [2, 3])')"

# calibration: points on the model (K = 1000) pass; one 6% off fails with exit 1
mkdir -p "$tmp/cal_ok" "$tmp/cal_bad"
for f in 903000 2362000; do
	r=$(python3 -c "print(1000 * $f / 2362000)")
	echo "TPCAL 4 1024 $f 2362000 $r $r $r $r $r $r" >>"$tmp/cal_ok/boot-1.txt"
	echo "TPCAL 0 462 $((f * 1844 / 2362)) 1844000 $(python3 -c "print(1000 * 462 / 1024 * $((f * 1844 / 2362)) / 1844000)")" >>"$tmp/cal_ok/boot-1.txt"
done
cp "$tmp/cal_ok/boot-1.txt" "$tmp/cal_bad/boot-1.txt"
echo "TPCAL 5 1024 2362000 2362000 1060" >>"$tmp/cal_bad/boot-1.txt"
python3 "$an" "$tmp/cal_ok" >"$tmp/out" 2>&1
expect "calibration on the model: exit 0" 0 $?
grep -q "worst deviation 0.0% (within 5%)" "$tmp/out" && ok "calibration: worst deviation 0.0%" || bad "calibration: $(grep worst "$tmp/out")"
python3 "$an" "$tmp/cal_bad" >"$tmp/out" 2>&1
expect "a point 6% off: exit 1" 1 $?
grep -q "+6.0% \*\*over 5%\*\*" "$tmp/out" && ok "the point is flagged over 5%" || bad "no flag: $(grep 1060 "$tmp/out")"

# results: pelt:32 always faster than instant (p = 1/C(10,5) = 1/252 before Holm, x2 after),
# none the same times as instant, one failed run left out and named
run() { # BOOT IDX CFG TIME RC
	printf 'TPSTUDY %s %s busy %s rc=%s minkhz=903000 {"placement_domain": {"id": 4}, "configurations": [{"times_s": [%s], "placement": [{"domain_id": 4, "shares": [0.5]}], "migrations": {"runs": [3]}}]}\n' "$1" "$2" "$3" "$5" "$4"
}
mkdir -p "$tmp/res"
{
	i=0
	for t in 10 11 12 13 14; do
		run 1 $((i += 1)) instant $t 0; run 1 $((i += 1)) none $t 0; run 1 $((i += 1)) pelt:32 $((t - 9)) 0
	done
	run 1 $((i += 1)) none 1 1
	cat "$tmp/cal_ok/boot-1.txt"
} >"$tmp/res/boot-1.txt"
python3 "$an" "$tmp/res" >"$tmp/out" 2>&1
expect "results: exit 0" 0 $?
row() { grep "^| $1 |" "$tmp/out" | head -1; }
row pelt:32 | grep -q "| 0.0040 | 0.0079 \*" && ok "pelt:32: p 1/252, Holm 2/252, significant" || bad "pelt:32 row: $(row pelt:32)"
row pelt:32 | grep -q "| -9.000 \[" && ok "pelt:32: Hodges-Lehmann shift -9" || bad "pelt:32 shift: $(row pelt:32)"
row pelt:32 | grep -q "| -1.00 |" && ok "pelt:32: Cliff's delta -1" || bad "pelt:32 delta: $(row pelt:32)"
row none | grep -q "| +0.00 |" && ok "none: Cliff's delta 0" || bad "none row: $(row none)"
row none | grep -q '\*' && bad "none marked significant: $(row none)" || ok "none: not significant"
grep -q "Faster than instant at family-wise alpha 0.05 (Holm): pelt:32." "$tmp/out" && ok "the verdict names pelt:32 alone" || bad "verdict: $(grep Faster "$tmp/out")"
grep -q "16 runs on record, 15 analysed, 1 failed and left out: boot 1 #16 busy none" "$tmp/out" && ok "the failed run is left out and named" || bad "counts: $(grep 'runs on record' "$tmp/out")"
python3 "$an" "$tmp/res" | cmp -s - "$tmp/out" && ok "the same data gives the same figures" || bad "two analyses differ"
python3 "$an" "$tmp/nothing" >/dev/null 2>&1
expect "no data dir: exit 2" 2 $?
echo "# $((pass + fail)) checks, $fail failed"
[ "$fail" = 0 ]
