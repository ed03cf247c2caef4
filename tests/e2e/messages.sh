#!/usr/bin/env bash
# Issue 28 §2, messages that point the way: each names what was wrong and what is valid,
# exits 2 (a usage error) and changes nothing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$tmp"

run "$TP" --sim --virtual-clock --scenario heat record --duration 3s -o t.csv
assert_rc 0 "record a trace"

# replay --backends foo: the backends there are
run "$TP" replay t.csv --backends instant,foo
assert_rc 2 "replay --backends foo"
assert_contains "$err" "unknown backend 'foo' in 'instant,foo' (available: instant, pelt, decay, none)" \
	"replay --backends foo: lists the backends"

# an unknown scenario: one wording wherever it is given
want="unknown scenario 'cold' (expected heat)"
run "$TP" --sim --scenario cold show
assert_rc 2 "--scenario cold"
assert_contains "$err" "$want" "global --scenario: $want"
run "$TP" --sim top --once --scenario cold
assert_rc 2 "top --scenario cold"
assert_contains "$err" "$want" "top --scenario: the same words"
assert_eq "$out" "" "top --scenario cold: no frame"
run "$TP" --sim sim serve --scenario cold "$tmp/mnt"
assert_rc 2 "sim serve --scenario cold"
assert_contains "$err" "$want" "sim serve --scenario: the same words"

# sim advance on the real clock: a usage error that says what to add
run "$TP" --sim sim advance 1s
assert_rc 2 "--sim sim advance 1s without --virtual-clock"
assert_contains "$err" "add --virtual-clock" "sim advance: says to add --virtual-clock"
assert_eq "$(wc -l <<<"$err")" "1" "sim advance: one line"

# version --json does what it says
run "$TP" version --json
assert_rc 0 "version --json"
json_check "$out" "d['version'] and d['schema_version'] == 1 and isinstance(d['abi_version'], int)" \
	"version --json: an object with the version"
run "$TP" --json version
assert_rc 0 "--json version"
assert_contains "$out" '"version"' "--json version: JSON too"
run "$TP" version
assert_match "$out" '^thermpress [0-9]' "version: plain text"

# a Perfetto trace is an output format
run "$TP" --sim --virtual-clock record --duration 100ms --format perfetto -o t.perfetto.json
assert_rc 0 "record --format perfetto"
run "$TP" replay t.perfetto.json
assert_rc 2 "replay t.perfetto.json"
assert_contains "$err" "is a Perfetto trace (record --format perfetto), an output format" \
	"replay t.perfetto.json: a Perfetto trace is an output"
assert_contains "$err" "replay reads a trace recorded as csv or jsonl" "replay t.perfetto.json: what replay takes"

# --plot x.png: refused, never SVG bytes under a .png name
run "$TP" replay t.csv --plot x.png
assert_rc 2 "replay --plot x.png"
assert_contains "$err" "--plot writes SVG only: 'x.png'" "replay --plot x.png: refused, names SVG"
[ ! -e x.png ] && pass "replay --plot x.png: no x.png" || fail "replay --plot x.png: no x.png"
run "$TP" replay t.csv --plot x.svg
assert_rc 0 "replay --plot x.svg"
assert_contains "$(head -c 200 x.svg)" "<svg" "replay --plot x.svg: SVG"
# replay's EXACT: seconds, a reason where exactness cannot hold, - where it does not apply
run "$TP" replay t.csv --backends pelt:32,decay:250
assert_rc 0 "replay of the heat trace"
assert_lines_match "$out" '^pelt:32 .* no: scenario caps inside a tick \(cpu [0-9]+ at [0-9]+\.[0-9]{3} s\)$' \
	"EXACT: the reason, the time in seconds"
assert_not_contains "$out" "000000000" "EXACT: no raw nanoseconds"
assert_lines_match "$out" '^decay:250 .*  -$' "EXACT: - where not compared"
run_stdin $'record --duration 1s -o p.csv\n' "$TP" --sim --virtual-clock
run "$TP" replay p.csv --backends pelt:32
assert_lines_match "$out" '^pelt:32 .*  yes$' "EXACT: yes without a scenario"
run "$TP" replay --help
assert_contains "$out" "scenario caps inside a tick" "replay --help explains the reason"
assert_contains "$out" "where the comparison does not apply" "replay --help explains -"
finish
