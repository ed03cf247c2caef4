#!/usr/bin/env bash
# The interactive shell through a pseudo-terminal: ? help, TAB completion, history,
# | include filters, errors that do not end the session.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

shell_session --sim --virtual-clock >"$tmp/t" <<'S'
\?
show \?
sho\t
show c\t
cap set big 50%
sim advance 400ms
show | include big
\up
cap set 99 1
show status | include capped
backend set decay decay 1s
show backends | include yes
help cap set
version
frob
s
cap
cap frob
cap set 4
version extra
shell
cap set \?
show backends \?
S
t=$(cat "$tmp/t")
block() {	# the output of the session line $1
	WANT=">>> $1" awk '$0 == ENVIRON["WANT"] {on = 1; next} /^>>> / {on = 0} on' "$tmp/t"
}
assert_contains "$t" "thermpress shell:" "banner"
b=$(block '\?')
for c in show cap backend decay sim version help quit; do
	assert_match "$b" "  $c +" "? lists $c"
done
assert_not_contains "$b" "__complete" "? hides __complete"
assert_not_contains "$b" "  shell " "? does not offer a shell in the shell"
b=$(block 'show \?')
assert_match "$b" "cpu +show the listed CPUs only" "show ? lists cpu with its help"
assert_match "$b" "backends +list the averaging backends" "show ? lists backends"
assert_match "$b" "status +show the source" "show ? lists status"
assert_contains "$(block 'sho\t')" "show" "TAB completes sho to show"
assert_contains "$(block 'show c\t')" "cpu" "TAB completes show c to show cpu"
b=$(block 'show | include big')
assert_eq "$(printf '%s\n' "$b" | grep -c ' big ')" 4 "| include big: four lines"
assert_not_contains "$b" "little" "| include big: no little CPUs"
assert_match "$b" '4 +big +yes +513 +1024 +1181/2362 +512 +511' "state kept between commands"
assert_contains "$(block '\up')" "show | include big" "up arrow recalls the last command"
assert_contains "$(block 'cap set 99 1')" "thermpress: cap set: cpu 99 does not exist (online: 0-7) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])" "an error is reported"
assert_contains "$(block 'show status | include capped')" "capped cpus:       4-7" "the session goes on after an error"
assert_match "$(block 'show backends | include yes')" 'decay +yes +1000 ms' "backend set in the shell"
assert_contains "$(block 'help cap set')" "usage: cap set CPULIST VALUE" "help in the shell"
assert_match "$(block 'version')" 'thermpress [0-9]+\.' "version in the shell"
# The one-shot messages, one line each, not libcli's `Invalid command "x"`.
assert_not_contains "$t" "Invalid command" "no libcli error messages"
shell_error() {	# session line, message, what
	local b
	b=$(block "$1" | grep -v "^$1\$" | grep -v '^thermpress> ' | grep -v '^$')
	assert_eq "$b" "thermpress: $2" "$3"
}
shell_error 'frob' "unknown command 'frob' (see 'thermpress help')" "unknown command"
shell_error 's' "ambiguous command 's' (could be: show, sim, shell)" "ambiguous command"
shell_error 'cap' "'cap' needs a subcommand (set, clear, hold, restore, play)" "group without a subcommand"
shell_error 'cap frob' "unknown command 'cap frob' (see 'thermpress help cap')" "unknown subcommand"
shell_error 'cap set 4' "cap set: missing VALUE (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])" "missing argument"
shell_error 'version extra' "version: unexpected argument 'extra' (usage: version)" "unexpected argument"
shell_error 'shell' "'shell' cannot be run inside the shell" "no shell in the shell"
for w in frob s cap 'cap frob' 'cap set 4' 'version extra'; do
	run "$TP" --sim $w
	assert_eq "$err" "$(block "$w" | grep '^thermpress: ')" "'$w': the shell says what one-shot says"
done
b=$(block 'cap set \?')
assert_contains "$b" "<CPULIST VALUE [--via scaling_max_freq|cooling]>" "? after a command: its synopsis"
assert_contains "$b" "cap the maximum frequency" "? after a command: its summary"
assert_not_contains "$b" "<cr>" "? after a command with a required argument: no <cr>"
b=$(block 'show backends \?')
assert_match "$b" '\[--json\] +list the averaging backends' "? after a command with options only"
assert_contains "$b" "<cr>" "? after a command with options only: <cr>"
assert_contains "$t" "exit 0" "quit leaves with status 0"

run "$TP" --sim shell
assert_rc 2 "shell without a terminal"
assert_eq "$err" "thermpress: shell: standard input is not a terminal (to run commands from a file: thermpress -f FILE)" "shell without a terminal: message"

finish
