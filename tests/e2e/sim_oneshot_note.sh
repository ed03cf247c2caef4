#!/usr/bin/env bash
# A one-shot --sim command that changes the simulator says on stderr, once, that the
# change ends with the command and how to keep a simulator; read-only commands, failed
# commands, scripts and the shell say nothing of it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

note="thermpress: note: the simulator's state ends with this command; keep one running with a script (thermpress --sim -f FILE), the shell (thermpress --sim shell) or sim serve (thermpress --sim sim serve DIR, then --root DIR)"

for cmd in "cap set big 60%" "cap clear all" "backend set decay" "decay set 64" \
	"--virtual-clock sim advance 1s"; do
	read -ra words <<<"$cmd"
	run "$TP" --sim "${words[@]}"
	assert_rc 0 "$cmd"
	assert_eq "$err" "$note" "$cmd: the note, once"
done

run "$TP" --sim=db410c cap set all 50%
assert_contains "$err" "(thermpress --sim=db410c -f FILE)" "--sim=db410c: the preset carried into the advice"

for cmd in "show" "show status" "show backends" "show cpu big" "help cap set" "version"; do
	read -ra words <<<"$cmd"
	run "$TP" --sim "${words[@]}"
	assert_rc 0 "$cmd"
	assert_not_contains "$err" "note:" "$cmd (read-only): no note"
done

run "$TP" --sim cap set big 5GHz
assert_rc 2 "a refused cap set"
assert_not_contains "$err" "note:" "a refused cap set: no note"

printf 'cap set big 60%%\nbackend set decay\nshow cpu 4\n' >"$tmp/script.tp"
run "$TP" --sim -f "$tmp/script.tp"
assert_rc 0 "a script of changes"
assert_eq "$err" "" "a script: no note"
run_stdin $'cap set big 60%\n' "$TP" --sim
assert_eq "$err" "" "a script on stdin: no note"
transcript=$(printf 'cap set big 60%%\nquit\n' | shell_session --sim)
assert_not_contains "$transcript" "note:" "the shell: no note"

finish
