#!/bin/bash
# thermpress top's plot axes (issue 28 §3): the y axis fits the curves (its top label well
# under 1024 while the pressure is low), y switches to the full 0..1024 scale and back, the
# legend says which; the time axis under the graph has labelled ticks ("-5 s").
. "$(dirname "$0")/lib.sh"

run_top() {	# run_top ARGS...: start top in the pane's shell
	t send-keys "clear; \"$TP\" $* ; echo EXITED=\$?" Enter
}

top_label() {	# the y axis's top label in the last capture
	grep -aoE '^ *[0-9]+(│|\|)' "$TMPD/last" | head -1 | grep -oE '[0-9]+'
}

start_shell 120 40
run_top --sim --virtual-clock top --interval 200ms
check "top starts" wait_for "clock 1" 10
check "legend: the y axis fitted" wait_re "^· pressure .*  y: fit" 5
capture >/dev/null
lab=$(top_label)
check "fitted y axis: top label $lab below the full scale" test "${lab:-1024}" -lt 1024
t send-keys y
check "y: the legend says full" wait_re "^· pressure .*  y: full" 5
capture >/dev/null
check "y: the top label is 1024" test "$(top_label)" = 1024
t send-keys y
check "y again: fitted" wait_re "^· pressure .*  y: fit" 5
check "time axis: labelled ticks" wait_re "^ +└.*-[0-9.]+ s┴" 20
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

# ---- a cap: the fitted axis still holds the curve (the top label at least the pressure)
run_top --sim --virtual-clock top --interval 200ms
wait_for "clock 1" 10 >/dev/null
t send-keys Down Down Down Down Down Down c "1.18GHz" Enter
check "cpu 4 capped" wait_for "pressure 513, avg 512" 10
capture >/dev/null
lab=$(top_label)
check "fitted axis $lab holds pressure 513 and stays under 1024" \
	bash -c '[ "$1" -ge 513 ] && [ "$1" -lt 1024 ]' _ "${lab:-0}"
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

finish
