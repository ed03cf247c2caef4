#!/bin/bash
# thermpress top in tmux, what reads at a glance: the plot legend's span in human units
# and the selection (the most pressured domain at the start, then where the user puts it;
# following the most pressured is a mode, f).
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

# ---- default selection: on a tie (nothing pressured) the first domain
run_top --sim --virtual-clock top --interval 200ms
check "idle: the first domain selected" wait_for "cluster little (cpus 0-3, mean)" 10
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

# ---- the heat scenario caps big: the selection stays where it is (the y axis does not
# change under the reader) until the user turns on follow mode (f), shown in the header;
# moving turns it off
run_top --sim --virtual-clock top --scenario heat --interval 2s
check "heat: starts on the first domain" wait_for "cluster little (cpus 0-3, mean)" 10
check "heat: big gets capped" wait_re "big cpus 4-7  [1-4]/4 capped" 15
sleep 2.5	# one more sample with big the most pressured
capture >/dev/null
check "heat: the selection did not move by itself" grep -q "^cluster little (cpus 0-3, mean)" "$TMPD/last"
check "heat: no follow mode in the header" bash -c '! grep -q FOLLOWING "$1"' _ "$TMPD/last"
t send-keys f
check "f: follow mode shown in the header" wait_re "^backend .*FOLLOWING the most pressured" 5
check "f: big, the most pressured, selected" wait_for "cluster big (cpus 4-7, mean)" 5
t send-keys Up
check "up from big: cpu 3" wait_for "cpu 3 (little): capacity" 5
check "moving ends follow mode" wait_gone "FOLLOWING" 5
sleep 4.5	# two more samples
capture >/dev/null
check "a moved selection stays" grep -q "^cpu 3 (little): capacity" "$TMPD/last"
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

finish
