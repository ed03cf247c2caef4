#!/usr/bin/env bash
# A decay period the backend rounds (pelt: 32 << shift ms) is applied, and stderr says
# what is in force; one it has exactly is applied without a word.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

run "$TP" --sim backend set pelt decay 100
assert_rc 0 "backend set pelt decay 100"
assert_eq "$(head -1 <<<"$err")" "thermpress: warning: pelt has no decay period of 100 ms: 128 ms in force" \
	"backend set pelt decay 100: 128 ms in force, said"

run "$TP" --sim decay set 1000
assert_rc 0 "decay set 1000 (pelt)"
assert_eq "$(head -1 <<<"$err")" "thermpress: warning: pelt has no decay period of 1000 ms: 1024 ms in force" \
	"decay set 1000: 1024 ms in force, said"

run_stdin $'decay set 100\nshow status\n' "$TP" --sim
assert_rc 0 "a script: decay set 100, show status"
assert_contains "$out" "decay:             128 ms" "the period in force is the one said"
assert_contains "$err" "128 ms in force" "a script: said there too"

for cmd in "decay set 128" "backend set pelt decay 64" "backend set decay decay 100" "backend set pelt"; do
	run "$TP" --sim $cmd
	assert_rc 0 "$cmd"
	assert_not_contains "$err" "in force" "$cmd: exact, nothing said"
done

finish
