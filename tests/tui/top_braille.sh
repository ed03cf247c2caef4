#!/bin/bash
# thermpress top in tmux: the plot in braille (2x4 dots a cell) on a UTF-8 terminal, the
# one-glyph-a-sample drawing with --no-unicode and in the C locale.
. "$(dirname "$0")/lib.sh"

run_top() {	# run_top ARGS...: start top in the pane's shell
	t send-keys "clear; \"$TP\" $* ; echo EXITED=\$?" Enter
}

BRAILLE=$'\xe2[\xa0-\xa3][\x80-\xbf]'
plot_rows() { grep -aE '^ *[0-9]*(│|\|)' "$TMPD/last"; }

cap_cpu4() {	# select cpu 4, cap it at 50%, let the curves move
	t send-keys Down Down Down Down Down Down
	wait_for "cpu 4 (big): capacity" 5 >/dev/null
	t send-keys c "50%" Enter
	wait_for "capped cpu 4 at 50%" 5 >/dev/null
	wait_for "pressure 512, avg 51" 10 >/dev/null
}

start_shell 120 40
run_top --sim --virtual-clock top --interval 100ms
check "UTF-8 top starts" wait_for "clock 1" 10
cap_cpu4
capture >/dev/null
check "braille dots in the plot" bash -c "plot_rows() { grep -aE '^ *[0-9]*│' \"\$1\"; }; plot_rows \"\$1\" | LC_ALL=C grep -qaE \"\$2\"" _ "$TMPD/last" "$BRAILLE"
check "no one-glyph curves in the plot" bash -c "! grep -aE '^ *[0-9]*│' \"\$1\" | grep -qE '●|·'" _ "$TMPD/last"
# the step at the cap is drawn as a line: dots on at least 4 plot rows
rows_with_dots=$(plot_rows | LC_ALL=C grep -caE "$BRAILLE")
check "the cap's step joins its dots ($rows_with_dots rows)" test "$rows_with_dots" -ge 4
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

run_top --sim --virtual-clock top --interval 100ms --no-unicode
check "--no-unicode top starts" wait_for "clock 1" 10
cap_cpu4
capture >/dev/null
check "--no-unicode: no braille" bash -c "! LC_ALL=C grep -qaE \"\$2\" \"\$1\"" _ "$TMPD/last" "$BRAILLE"
check "--no-unicode: one glyph a sample" bash -c "grep -aE '^ *[0-9]*\\|' \"\$1\" | grep -q '\\*'" _ "$TMPD/last"
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

t kill-server
SOCK="$SOCK-c"
TUI_LANG=C start_shell 120 40
run_top --sim --virtual-clock top --interval 100ms
check "C locale top starts" wait_for "clock 1" 10
cap_cpu4
capture >/dev/null
check "C locale: no braille" bash -c "! LC_ALL=C grep -qaE \"\$2\" \"\$1\"" _ "$TMPD/last" "$BRAILLE"
check "C locale: one glyph a sample" bash -c "grep -aE '^ *[0-9]*\\|' \"\$1\" | grep -q '\\*'" _ "$TMPD/last"
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

finish
