#!/usr/bin/env bash
# The interactive shell through a pseudo-terminal: ? help, TAB completion, history,
# | include, exclude, begin and count filters (and their prefixes), errors that do not end
# the session, in the one-shot style (no libcli text).
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
show | inc big
show | in little
show | i little
show | exc big
show | ex little
show | begin ' 6 '
show | beg ' 6 '
show | count
show | co
show | inc big | count
show | cou x
show |
| inc big
show | frob
show | include
show | include (
history
help
cap \?
quit \?
version \?
s\t\t
show \t
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
assert_match "$b" '4 +big +yes +513 +1024 +1181/2362 +903 +512 +511' "state kept between commands"
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
# Unknown commands point at ?; ambiguity and subcommand lists leave out what the shell
# refuses (shell, cap hold).
shell_error 'frob' "unknown command 'frob' (? lists the commands)" "unknown command"
shell_error 's' "ambiguous command 's' (could be: show, sim)" "ambiguous command"
shell_error 'cap' "'cap' needs a subcommand (set, clear, restore, play)" "group without a subcommand"
shell_error 'cap frob' "unknown command 'cap frob' (cap ? lists the commands)" "unknown subcommand"
shell_error 'cap set 4' "cap set: missing VALUE (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])" "missing argument"
shell_error 'version extra' "version: unexpected argument 'extra' (usage: version [--json])" "unexpected argument"
shell_error 'shell' "'shell' cannot be run inside the shell" "no shell in the shell"
for w in 'cap set 4' 'version extra'; do
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

# The filters, as Cisco users type them.
lines() { block "$1" | grep -v '^thermpress> ' | grep -v "^$1\$" | grep -v '^$'; }
big=$(lines 'show | inc big')
assert_eq "$(printf '%s\n' "$big" | grep -c ' big ')" 4 "| inc big: the four big CPUs"
assert_eq "$(printf '%s\n' "$big" | wc -l)" 4 "| inc big: nothing else"
little=$(lines 'show | in little')
assert_eq "$(printf '%s\n' "$little" | grep -c ' little ')" 4 "| in little: the four little CPUs"
assert_eq "$(printf '%s\n' "$little" | wc -l)" 4 "| in little: nothing else"
assert_eq "$(lines 'show | i little')" "$little" "| i: include"
b=$(lines 'show | exc big')
assert_not_contains "$b" " big " "| exc big: no big CPU"
assert_contains "$b" "CPU  DOMAIN" "| exc big: the other lines"
assert_eq "$(lines 'show | ex little' | grep -c ' little ')" 0 "| ex: exclude"
b=$(lines "show | begin ' 6 '")
assert_match "$b" '^ +6 +big' "| begin: from the first line that matches"
assert_eq "$(printf '%s\n' "$b" | wc -l)" 2 "| begin: to the end"
assert_eq "$(lines "show | beg ' 6 '")" "$b" "| beg: begin"
n=$(lines 'show | count')
run "$TP" --sim show
assert_eq "$n" "$(printf '%s\n' "$out" | grep -c .)" "| count: the lines show prints"
assert_eq "$(lines 'show | co')" "$n" "| co: count"
assert_eq "$(lines 'show | inc big | count')" 4 "filters chain"
shell_error 'show | cou x' "count: unexpected argument 'x' (usage: COMMAND | count)" "| count x"
shell_error 'show |' "'|' needs a filter after it (include, exclude, begin, count)" "| alone"
shell_error '| inc big' "nothing before '|' (COMMAND | FILTER)" "| without a command"
shell_error 'show | frob' "unknown filter '| frob' (include, exclude, begin, count)" "unknown filter"
shell_error 'show | include' "include: missing PATTERN (usage: COMMAND | include PATTERN)" "filter without a pattern"
shell_error 'show | include (' "include: bad PATTERN '(' (a regular expression, such as big or 'cpu|big')" "bad pattern"
for leak in 'Empty command' 'Incomplete command' 'Count filter' 'Disconnect' 'Exit from' \
	'Show a list' 'Command history' 'Invalid pattern'; do
	assert_not_contains "$t" "$leak" "no libcli text: $leak"
done
b=$(lines 'history')
assert_match "$b" '^ +1  cap set big 50%' "history: numbered, no libcli heading"
# help and ? list what the shell runs, no more
b=$(block 'help')
for c in "show cpu" "cap set" "cap play" "sim advance" "quit, exit" "history"; do
	assert_match "$b" "  $c" "help lists $c"
done
for c in top export "cap hold" record bench shell "sim serve"; do
	assert_not_contains "$b" "  $c " "help in the shell leaves out $c"
done
b=$(block '\?')
for c in top export record bench shell; do
	assert_not_contains "$b" "  $c " "? leaves out $c"
done
assert_match "$b" "  quit +leave the shell" "? quit: lowercase help"
assert_eq "$(block 'quit \?' | grep -v '^quit' | grep -v '^$' | head -1)" "  <cr>" "quit ?: only <cr>, the shell goes on"
assert_match "$(block 'version \?' | grep -v '^version' | grep -v '^$' | head -1)" "^  \[--json\] +show the version" "version ?: --json, not an argument"
assert_contains "$(block 'version \?')" "  <cr>" "version ?: and <cr>"
b=$(block 'cap \?')
for c in set clear restore play; do
	assert_match "$b" "  $c +" "cap ? lists cap $c"
done
assert_not_contains "$b" "hold" "cap ? leaves out cap hold (refused in the shell)"
b=$(block 's\t\t')
assert_contains "$b" "show sim" "s TAB TAB: show and sim"
assert_not_contains "$b" "shell" "s TAB TAB: not shell (refused in the shell)"
# one TAB where nothing can be inserted lists the candidates, the words ? lists
words_of() { awk '{ for (i = 1; i <= NF; i++) print $i }' | sort | tr '\n' ' '; }
tab=$(block 'show \t' | grep -v '^show' | grep -v '^thermpress>' | grep -v '^exit [0-9]' | words_of)
q=$(block 'show \?' | grep '^  ' | awk '{print $1}' | words_of)
assert_eq "$tab" "backends cpu status " "show TAB: one TAB lists the subcommands"
assert_eq "$tab" "$q" "show TAB lists what show ? lists"
assert_contains "$t" "exit 0" "quit leaves with status 0"

# Keys: ^C drops the line being typed; ^C stops a running command (cap play puts the
# caps back); ^L clears the screen and keeps the line; ^D leaves, ending the line.
printf '0, big, 50%%\n60s, big, clear\n' >"$tmp/prof"
printf '%s\n' 'cap set big 50%\c' 'show | inc big' "cap play $tmp/prof\\r\\c" \
	'show | include big' 'sho\l' 'w | count' '\d' | shell_session --sim >"$tmp/t"
t=$(cat "$tmp/t")
assert_contains "$(block 'cap set big 50%\c')" "cap set big 50%^C
thermpress> " "^C: ^C shown, a fresh prompt"
b=$(block 'show | inc big')
assert_eq "$(printf '%s\n' "$b" | grep -cE ' big +yes +1024 +1024 +2362/2362 ')" 4 "^C: the line typed did not run"
b=$(block "cap play $tmp/prof\\r\\c")
assert_contains "$b" "thermpress: cap play: interrupted; every cap was restored" "^C stops cap play in the shell"
assert_contains "$b" "thermpress> " "the shell goes on after ^C"
b=$(block 'show | include big')
assert_eq "$(printf '%s\n' "$b" | grep -cE ' big +yes +[0-9]+ +1024 +2362/2362 +903 +0 ')" 4 "^C: cap play's caps are back"
assert_contains "$(block 'sho\l')" $'\e[H\e[2Jthermpress> sho' "^L: screen cleared, the line redrawn at the top"
assert_eq "$(block 'w | count' | grep -x '[0-9]*')" 10 "^L: the line goes on (sho + w | count)"
assert_contains "$t" '>>> \d

exit 0' "^D: a newline, then the shell ends with status 0"
assert_not_contains "$t" $'\a' "no bell"

# TAB after a command's words completes its arguments' values from what __complete
# offers (the bash, zsh and fish completions' source): a list when several fit and
# nothing is common, the common part, the whole word and a space when one fits; files
# by name.  ? and TAB before the arguments stay as above.
mkdir "$tmp/plays"
touch "$tmp/plays/profile.csv" "$tmp/plays/other.csv"
printf '%s\n' 'cap set \t' 'cap set bi\t' 'cap set big 50% --via \t' 'backend set \t' \
	'backend set de\t' "cap play $tmp/plays/pr\\t" "cap play $tmp/plays/\\t" 'cap set bi\tx' \
	'show \t' 'help cap \t' | shell_session --sim >"$tmp/t"
t=$(cat "$tmp/t")
listed() {	# the words TAB listed after the line $1 (not the hint over them: "  CPULIST: ...")
	block "$1" | { grep -v -e '^thermpress>' -e '^exit [0-9]' -e '^  ' || true; } | tail -n +2 | words_of
}
offered() {	# what __complete offers for the words $@, as listed
	"$TP" --sim __complete "$@" | cut -f1 | grep -v '^:' | words_of
}
assert_eq "$(listed 'cap set \t')" "all big little " "cap set TAB lists all, big and little"
assert_eq "$(listed 'cap set \t')" "$(offered cap set '')" "cap set TAB lists what __complete offers"
assert_contains "$(block 'cap set bi\t')" "cap set big " "cap set bi TAB completes big and a space"
assert_eq "$(listed 'cap set big 50% --via \t')" "cooling scaling_max_freq " "--via TAB lists its values"
b=$(listed 'backend set \t')
for p in decay instant none pelt; do
	assert_match "$b" "(^| )$p " "backend set TAB lists $p"
done
assert_eq "$b" "$(offered backend set '')" "backend set TAB lists what __complete offers"
assert_contains "$(block 'backend set de\t')" "backend set decay " "backend set de TAB completes decay"
assert_contains "$(block "cap play $tmp/plays/pr\\t")" "cap play $tmp/plays/profile.csv " \
	"a file argument: TAB completes the file name"
assert_eq "$(listed "cap play $tmp/plays/\\t")" "other.csv profile.csv " \
	"a file argument: TAB lists the directory's files by name"
assert_contains "$(block 'cap set bi\tx')" \
	"thermpress: cap set: invalid cap value 'x'" "keys typed after a TAB follow the completed word"
assert_eq "$(block 'show \t' | grep -v '^show' | grep -v '^thermpress>' | grep -v '^exit [0-9]' | words_of)" \
	"backends cpu status " "show TAB: the subcommands still"
assert_eq "$(listed 'help cap \t')" "clear play restore set " "help cap TAB: the commands the shell runs (not hold)"
assert_not_contains "$t" $'\a' "TAB: no bell"

run "$TP" --sim shell
assert_rc 2 "shell without a terminal"
assert_eq "$err" "thermpress: shell: standard input is not a terminal (to run commands from a file: thermpress -f FILE)" "shell without a terminal: message"

finish
