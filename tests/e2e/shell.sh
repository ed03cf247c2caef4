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
assert_contains "$(block 'cap set 99 1')" "thermpress: cpu 99 does not exist (online: 0-7)" "an error is reported"
assert_contains "$(block 'show status | include capped')" "capped cpus:       4-7" "the session goes on after an error"
assert_match "$(block 'show backends | include yes')" 'decay +yes +1000 ms' "backend set in the shell"
assert_contains "$(block 'help cap set')" "usage: cap set CPULIST VALUE" "help in the shell"
assert_match "$(block 'version')" 'thermpress [0-9]+\.' "version in the shell"
assert_contains "$t" "exit 0" "quit leaves with status 0"

run "$TP" --sim shell
assert_rc 2 "shell without a terminal"
assert_eq "$err" "thermpress: shell: standard input is not a terminal (to run commands from a file: thermpress -f FILE)" "shell without a terminal: message"

finish
