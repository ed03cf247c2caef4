#!/usr/bin/env bash
# Usage errors a newcomer makes, each answered with the fix: global options before the
# command, --sim=PRESET, a subcommand's words before the options, COMMAND --help for
# groups too, -V as --version.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

run "$TP" --sim hikey960 show
assert_rc 2 "--sim hikey960 show"
assert_eq "$err" "thermpress: unknown command 'hikey960': a preset is given as --sim=hikey960 (thermpress --sim=hikey960 show)" \
	"--sim hikey960 show: points at --sim=hikey960"
run "$TP" --sim smp:16 show cpu 0
assert_contains "$err" "--sim=smp:16" "--sim smp:16: points at --sim=smp:16"
run "$TP" --sim frob show
assert_eq "$err" "thermpress: unknown command 'frob' (see 'thermpress help')" "--sim frob: not a preset, unknown command"

run "$TP" show --sim
assert_rc 2 "show --sim"
assert_contains "$err" "'--sim' is a global option: it goes before the command (thermpress --sim show ...)" \
	"show --sim: goes before the command"
run "$TP" --sim cap set big 50% --hz 100
assert_rc 2 "cap set ... --hz 100"
assert_contains "$err" "(thermpress --hz N cap set ...)" "--hz after cap set: before, with its value"
run "$TP" --sim show --sim=db410c
assert_contains "$err" "(thermpress --sim=db410c show ...)" "--sim=db410c after show: before"
run_stdin $'show --sim\n' "$TP" --sim
assert_rc 2 "a script: show --sim"
assert_contains "$err" "'--sim' is an option of thermpress itself, given when starting it" \
	"a script: an option of thermpress itself"

run "$TP" --sim show --json cpu 0
assert_rc 2 "show --json cpu 0"
assert_eq "$err" "thermpress: 'cpu' after an option: the command's words come first, then its options (show cpu 0 --json)" \
	"show --json cpu 0: the words first"
run "$TP" --sim show cpu 0 --json
assert_rc 0 "show cpu 0 --json: as suggested"
run "$TP" --sim show --json frob
assert_eq "$err" "thermpress: unknown command 'show frob' (see 'thermpress help show')" "show --json frob: unknown"

run "$TP" cap --help
assert_rc 0 "cap --help"
run "$TP" help cap
help_cap=$out
run "$TP" cap --help
assert_eq "$out" "$help_cap" "cap --help prints help cap"
for group in $("$TP" __commands | cut -d: -f1 | awk '{print $1}' | sort -u); do
	run "$TP" "$group" --help
	assert_rc 0 "$group --help"
done

run "$TP" --sim show cpu -h
assert_rc 0 "show cpu -h"
assert_contains "$out" "usage: thermpress [OPTIONS] show cpu" "show cpu -h is show cpu --help"
run "$TP" cap -h
assert_eq "$out" "$help_cap" "cap -h prints help cap"

run "$TP" -V
assert_rc 0 "-V"
version=$out
run "$TP" --version
assert_eq "$version" "$out" "-V is --version"

finish
