#!/usr/bin/env bash
# One-shot commands against the simulator: table contents, status, backends, help.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

run "$TP" --sim show
assert_rc 0 "show"
assert_match "$out" '^source: simulator hikey960 \(real clock\)  backend: pelt  decay: 32 ms  hz: 250  time: ' "show: header line"
assert_eq "$(printf '%s\n' "$out" | sed -n 2p | tr -s ' ')" " CPU DOMAIN ONLINE CAPACITY MAX_CAPACITY MHZ_CAPPED/MAX MIN_MHZ PRESSURE AVG_PRESSURE" "show: column names"
assert_eq "$(printf '%s\n' "$out" | tail -n +3 | wc -l)" 8 "show: 8 CPUs"
for cpu in 0 1 2 3; do
	assert_eq "$(printf '%s\n' "$out" | awk -v c=$cpu '$1 == c && NF == 9 {print $2, $3, $4, $5, $6, $7, $8, $9}')" \
		"little yes 462 462 1844/1844 533 0 0" "show: cpu $cpu little, 462, 1844 MHz"
done
for cpu in 4 5 6 7; do
	assert_eq "$(printf '%s\n' "$out" | awk -v c=$cpu '$1 == c && NF == 9 {print $2, $3, $4, $5, $6, $7, $8, $9}')" \
		"big yes 1024 1024 2362/2362 903 0 0" "show: cpu $cpu big, 1024, 2362 MHz"
done
assert_eq "$err" "" "show: nothing on stderr"

run "$TP" --sim=db410c show
assert_rc 0 "--sim=db410c show"
assert_contains "$out" "simulator db410c" "db410c: described"
assert_eq "$(printf '%s\n' "$out" | awk '$1 == 3 {print $6}')" "1209.6/1209.6" "db410c: fractional MHz"

run "$TP" --sim show cpu big
assert_rc 0 "show cpu big"
assert_eq "$(printf '%s\n' "$out" | tail -n +3 | awk '{print $1}' | tr '\n' ' ')" "4 5 6 7 " "show cpu big: CPUs 4-7"
run "$TP" --sim show cpu 0,6
assert_eq "$(printf '%s\n' "$out" | tail -n +3 | awk '{print $1}' | tr '\n' ' ')" "0 6 " "show cpu 0,6"

run "$TP" --sim show status
assert_rc 0 "show status"
assert_contains "$out" "source:            simulator hikey960 (real clock)" "status: source"
assert_contains "$out" "interface version: 1" "status: interface version"
assert_contains "$out" "backend:           pelt" "status: backend"
assert_contains "$out" "decay:             32 ms" "status: decay"
assert_contains "$out" "hz:                250" "status: hz"
assert_contains "$out" "capped cpus:       none" "status: nothing capped"
assert_contains "$out" "plugin warnings:   none" "status: no plugin warnings"

run "$TP" --sim --hz 1000 show status
assert_contains "$out" "hz:                1000" "--hz 1000"

run "$TP" --sim show backends
assert_rc 0 "show backends"
assert_eq "$(printf '%s\n' "$out" | awk 'NR > 1 {print $1, $2}' | tr '\n' ' ')" "instant no pelt yes decay no none no " "backends: names and the active one"
assert_match "$out" 'pelt +yes +32 ms +1-32768 ms +yes' "backends: pelt's decay and range"
assert_match "$out" 'decay +no +[-0-9a-z ]+ +1-10000 ms +yes' "backends: decay's range"

# none: the one-shot switch works; show keeps the pressure, avg 0, capacity the maximum.
run "$TP" --sim backend set none
assert_rc 0 "backend set none"
assert_eq "$out" "" "backend set none: nothing on stdout"
run_stdin $'cap set 4 cap=512\nsim advance 100ms\nbackend set none\nsim advance 100ms\nshow\n' "$TP" --sim --virtual-clock
assert_rc 0 "backend set none, then show"
assert_contains "$out" "backend: none  decay: none  " "none: the header"
assert_match "$out" $'\n +4 +big +yes +1024 +1024 +1181/2362 +903 +512 +0\n' "none: cpu 4 keeps its pressure, avg 0, capacity 1024"

# Abbreviations resolve when they are unique.
run "$TP" --sim sho st
assert_rc 0 "unique prefixes: sho st"
assert_contains "$out" "interface version: 1" "sho st is show status"

run "$TP" version
assert_rc 0 "version"
assert_match "$out" '^thermpress [0-9]+\.[0-9]+\.[0-9]+$' "version output"
run "$TP" --version
assert_match "$out" '^thermpress [0-9]+\.[0-9]+\.[0-9]+$' "--version output"

run "$TP" --help
assert_rc 0 "--help"
for c in "show [--json]" "show cpu CPULIST" "show backends" "show status" "cap set CPULIST VALUE" \
	"cap clear CPULIST" "backend set NAME [decay VALUE]" "decay set VALUE" "sim advance DURATION" \
	"sim serve" "shell" "version" "help [COMMAND]" "--root DIR" "--sim[=PRESET]" "--json" "-f FILE"; do
	assert_contains "$out" "$c" "--help lists $c"
done
assert_not_contains "$out" "__complete" "--help hides __complete"

run "$TP" help cap set
assert_rc 0 "help cap set"
assert_contains "$out" "usage: thermpress [OPTIONS] cap set CPULIST VALUE" "help cap set: usage line"
assert_contains "$out" "cap=600" "help cap set: explains the values"
run "$TP" help sim
assert_contains "$out" "thermpress sim advance DURATION" "help sim: lists the group"

# Without --sim and without a kernel interface: a runtime error that says what to do.
run env THERMPRESS_ROOT=/nonexistent-root "$TP" show
assert_rc 1 "no interface"
assert_eq "$(printf '%s\n' "$err" | wc -l)" 1 "no interface: one line"
assert_match "$err" '^thermpress: .*--sim' "no interface: points at --sim"
assert_eq "$out" "" "no interface: nothing on stdout"
run "$TP" --root /nonexistent-root show
assert_rc 1 "--root without an interface"

# Commands without a source do not need one.
run env THERMPRESS_ROOT=/nonexistent-root "$TP" help
assert_rc 0 "help needs no source"

# A closed pipe is quiet.
set +e
"$TP" --sim show 2>"$tmp/pipe_err" | head -c 1 >/dev/null
set -e
assert_eq "$(cat "$tmp/pipe_err")" "" "closed pipe: nothing on stderr"

finish
