#!/bin/bash
# thermpress top in tmux, htop's habits: F1 help, F10 quit, -d/--delay in tenths of a
# second, --no-color and --no-unicode, the d shadow curve readable on a dark background,
# and a status message as wide as the terminal.
. "$(dirname "$0")/lib.sh"

run_top() {	# run_top ARGS...: start top in the pane's shell
	t send-keys "clear; \"$TP\" $* ; echo EXITED=\$?" Enter
}

colours() {	# the pane's escape sequences contain a foreground colour
	t capture-pane -p -e >"$TMPD/last"
	grep -qE $'\e\\[([0-9;]*;)?3[0-7](;[0-9;]*)?m|\e\\[38;' "$TMPD/last"
}

start_shell 200 40

# ---- -d in tenths, F1, F10
run_top --sim --virtual-clock top -d 2
check "-d 2: interval 200 ms" wait_for "interval 200 ms" 10
check "status hint names F1 and F10" wait_re "\?/F1 help .* q/F10 quit" 5
t send-keys F1
check "F1 opens the help" wait_for "double / halve the decay period" 5
t send-keys F10
check "F10 in the help quits" wait_for "EXITED=0" 5
run_top --sim --virtual-clock top --delay 5
check "--delay 5: interval 500 ms" wait_for "interval 500 ms" 10
t send-keys F10
check "F10 quits" wait_for "EXITED=0" 5

# ---- the d shadow curve is not drawn in plain blue
run_top --sim --virtual-clock top -d 2
check "legend shows the decay shadow" wait_for "d ~decay 250 ms" 10
t capture-pane -p -e >"$TMPD/last"
check "d shadow not plain blue" bash -c "! grep -qaE $'\\e\\\\[34md ~decay' '$TMPD/last'"
check "d shadow in a colour" grep -qaE $'\e\\[(1;)?3[0-7]md ~decay' "$TMPD/last"

# ---- a status message wider than 80 columns is whole on a 200-column terminal
t send-keys Down c "abcdefghijklmnopqrstuvwxyz" Enter
check "long error shown" wait_for "error: invalid cap value 'abcdefghijklmnopqrstuvwxyz'" 5
check "long error whole past column 80" wait_re "^error: invalid cap value .{60,}60%\)$" 5
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

# ---- --no-color and --no-unicode (the locale is UTF-8 here)
run_top --sim top --no-color
check "--no-color starts" wait_for "clock 1" 10
no_colours() { ! colours; }
check "no colours with --no-color" no_colours
check "UTF-8 still on" grep -q "█" "$TMPD/last"
t send-keys q
wait_for "EXITED=0" 5 >/dev/null
run_top --sim top --no-unicode
check "--no-unicode starts" wait_for "clock 1" 10
capture >/dev/null
check "ASCII bars with --no-unicode" bash -c "[[ \"\$1\" =~ \ 4\ \#+\ +1024 ]]" _ "$(row 4)"
check "no UTF-8 with --no-unicode" bash -c "! LC_ALL=C grep -q \$'[\\x80-\\xff]' '$TMPD/last'"
check "colours still on" colours
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

finish
