#!/bin/bash
# thermpress top in tmux: colours by default, none with NO_COLOR, ASCII glyphs in the C locale.
. "$(dirname "$0")/lib.sh"

colours() {	# the pane's escape sequences contain a foreground colour
	t capture-pane -p -e >"$TMPD/last"
	grep -qE $'\e\\[([0-9;]*;)?3[0-7](;[0-9;]*)?m|\e\\[38;' "$TMPD/last"
}

start_shell 120 40
t send-keys "\"$TP\" --sim top; echo EXITED=\$?" Enter
check "colour top starts" wait_for "clock 1" 10
check "colours by default" colours
check "UTF-8 bars in C.UTF-8" grep -q "█" "$TMPD/last"
t send-keys q
wait_for "EXITED=0" 5 >/dev/null
t kill-server
SOCK="$SOCK-mono"	# a fresh server; cleanup kills this one

TUI_ENV=NO_COLOR=1 TUI_LANG=C start_shell 120 40
t send-keys "\"$TP\" --sim top; echo EXITED=\$?" Enter
check "mono top starts" wait_for "clock 1" 10
no_colours() { ! colours; }
check "no colours with NO_COLOR" no_colours
capture >/dev/null
check "ASCII bars in the C locale" bash -c "[[ \"\$1\" =~ \ 4\ \#+\ +1024 ]]" _ "$(row 4)"
check "no UTF-8 in the C locale" bash -c "! LC_ALL=C grep -q \$'[\\x80-\\xff]' '$TMPD/last'"
t send-keys q
check "mono top exits" wait_for "EXITED=0" 5

finish
