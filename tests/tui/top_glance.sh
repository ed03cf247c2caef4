#!/bin/bash
# thermpress top in tmux, what reads at a glance: the plot legend's span in human units
# and the default selection (the most pressured domain).
. "$(dirname "$0")/lib.sh"

run_top() {	# run_top ARGS...: start top in the pane's shell
	t send-keys "clear; \"$TP\" $* ; echo EXITED=\$?" Enter
}

legend_span() {	# the "last ..." of the plot legend in the last capture
	grep -oE 'shadow estimate +last .*$' "$TMPD/last" | sed 's/.*last //'
}

start_shell 120 40

# ---- the legend's span on a real clock (samples are not a round number of us apart)
run_top --sim top --interval 300ms
check "top starts" wait_for "clock 1" 10
check "legend shows a span" wait_for "shadow estimate  last " 10
sleep 1
capture >/dev/null
span=$(legend_span)
check "legend span '$span' in ms, s or min" bash -c '[[ "$1" =~ ^[0-9]+(\.[0-9])?\ (ms|s|min)$ ]]' _ "$span"
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

finish
