#!/usr/bin/env bash
# --scenario is a global simulator option for every command; the README's record and
# replay lines record a trace that moves; record warns about a trace without samples
# or without any pressure.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

FIX=$(cd "$E2E_DIR/../fixtures/stock" && pwd)
README=$E2E_DIR/../../README.md

# --scenario with any command
run_stdin $'sim advance 5s\nshow cpu big\n' "$TP" --sim --virtual-clock --scenario heat
assert_rc 0 "--scenario heat in a script"
assert_contains "$out" "scenario heat" "the source names its scenario"
assert_match "$(awk '$1 == 4 {print $7}' <<<"$out")" '^[1-9][0-9]*$' "after 5 s of heat, cpu 4 is under pressure"
run "$TP" --sim --scenario heat show status
assert_rc 0 "--scenario heat show status"
run "$TP" --scenario heat show
assert_rc 2 "--scenario without --sim"
assert_eq "$err" "thermpress: --scenario needs the simulator (--sim)" "--scenario without --sim: said"
run "$TP" --sim --scenario cold show
assert_rc 2 "an unknown scenario"
assert_eq "$err" "thermpress: unknown scenario 'cold' (expected heat)" "an unknown scenario: said"

# the README's record and replay lines, run as written (thermpress: the built binary)
grep -E '^thermpress .*(record|replay) .*t\.csv' "$README" | sed 's/ *#.*//' >"$tmp/readme.sh"
assert_eq "$(wc -l <"$tmp/readme.sh")" 2 "README: one record and one replay line"
(cd "$tmp" && run env TP="$TP" bash -c "set -e; $(sed 's/^thermpress /"$TP" /' "$tmp/readme.sh")"
 printf '%s\n%s\n%s\n' "$rc" "$out" "$err" >"$tmp/readme.out")
rc=$(head -1 "$tmp/readme.out")
assert_rc 0 "README: record and replay"
assert_not_contains "$(cat "$tmp/readme.out")" "warning" "README: no warning"
rows=$(grep -c '^[0-9]' "$tmp/t.csv")
pressured=$(awk -F, '/^[0-9]/ && $6 > 0' "$tmp/t.csv" | wc -l)
[ "$pressured" -gt 0 ] && pass "README: the trace moves ($pressured of $rows rows under pressure)" \
	|| fail "README: the trace is flat ($rows rows, none under pressure)"
[ -s "$tmp/t.svg" ] && pass "README: the plot is written" || fail "README: no plot"

# record warns about a flat or empty trace, and still writes it
run "$TP" --sim --virtual-clock record --duration 1s -o "$tmp/idle.csv"
assert_rc 0 "an idle simulator: recorded"
assert_eq "$err" "thermpress: warning: $tmp/idle.csv has no thermal pressure: no CPU was capped while recording (--scenario heat makes the simulator cap CPUs, or cap them from a script)" \
	"an idle simulator: no pressure, said with the way out"
cp -a "$FIX/x86-laptop-6.5" "$FIX/x86-qemu-7.3" "$tmp/"
run "$TP" --root "$tmp/x86-laptop-6.5" record --duration 30ms -o "$tmp/x86.csv"
assert_rc 0 "a stock kernel without caps: recorded"
assert_contains "$err" "$tmp/x86.csv has no thermal pressure: no CPU was capped while recording" \
	"a stock kernel without caps: no pressure, said"
assert_not_contains "$err" "--scenario" "a stock kernel: no simulator advice"
run "$TP" --root "$tmp/x86-qemu-7.3" record --duration 30ms -o -
assert_rc 0 "a machine without cpufreq: recorded"
assert_contains "$err" "warning: the trace has no samples: stock kernel" "no cpufreq: no samples, said"
run "$TP" --sim --virtual-clock --scenario heat record --duration 10s -o "$tmp/heat.csv"
assert_eq "$err" "" "a heating simulator: nothing said"

finish
