#!/bin/bash
# thermpress top in tmux with many CPUs: the summary line of a domain, compact cells at 256
# CPUs, the heatmap (one cell per CPU by averaged pressure) when cells do not fit, and the
# selected CPU's numbers and plot still on screen.
. "$(dirname "$0")/lib.sh"

run_top() {	# run_top ARGS...: start top in the pane's shell
	t send-keys "clear; \"$TP\" $* ; echo EXITED=\$?" Enter
}

# ---- 4096 CPUs in 120x50: the heatmap
start_shell 120 50
run_top --sim=smp:4096 --virtual-clock top --interval 200ms
check "smp:4096 starts" wait_for "clock 1" 20
check "heatmap chosen" wait_for "heatmap: 4096 CPUs" 5
check "domain summary line" wait_for "cluster0 cpus 0-4095  0/4096 capped  capacity min 1024 mean 1024  avg pressure mean 0" 5
check "one cell per CPU: 112 cells a line after the line's first CPU number" \
	wait_re "^ 112 $(printf '\302\267%.0s' $(seq 112))\$" 5
check "the plot is on screen" wait_re "pressure  .* avg pelt 32 ms" 5
t send-keys Down Right Right
check "cpu 2 selected: its numbers in the plot title" wait_for "cpu 2 (cluster0): capacity 1024 of 1024, 2000/2000 MHz" 5
t send-keys c "50%" Enter
check "cpu 2 capped" wait_for "capped cpu 2 at 50%" 5
check "summary counts the capped CPU" wait_for "1/4096 capped  capacity min 512 mean 1023  avg pressure mean 0" 10
t send-keys Right
# cpu 2's cell shows half its capacity taken away (50% .. 75%: the third shade)
check "cpu 2's cell by pressure" wait_for " $(printf '\302\267\302\267\342\226\223\302\267')" 10
t send-keys q
check "q exits" wait_for "EXITED=0" 5

# ---- 256 CPUs: compact cells in 120x50, the heatmap in 120x30
run_top --sim=smp:256 --virtual-clock top --interval 200ms
check "smp:256: compact at 120x50" wait_for "compact: 256 CPUs" 10
check "smp:256: summary line" wait_for "cluster0 cpus 0-255  0/256 capped  capacity min 1024" 5
t resize-window -x 120 -y 30
check "smp:256: heatmap at 120x30" wait_for "heatmap: 256 CPUs" 5
check "smp:256: the plot stays" wait_re "^cluster cluster0 \(cpus 0-255, mean\): pressure 0, avg 0" 5
t send-keys q
check "q exits (256)" wait_for "EXITED=0" 5
t resize-window -x 120 -y 50

# ---- hikey960: a summary line per domain in the wide rows
run_top --sim --virtual-clock top --interval 200ms
check "hikey960: big's summary" wait_for "big cpus 4-7  0/4 capped  capacity min 1024 mean 1024  avg pressure mean 0" 10
check "hikey960: little's summary" wait_for "little cpus 0-3  0/4 capped  capacity min 462 mean 462" 5
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

# ---- ASCII heatmap in the C locale
t kill-server
SOCK="$SOCK-c"
TUI_LANG=C start_shell 120 50
run_top --sim=smp:4096 top
check "ASCII heatmap" wait_for "heatmap: 4096 CPUs, averaged pressure of max capacity: . none - <25% + <50% * <75% # more" 20
check "ASCII cells, the line's first CPU number" wait_re "^ 112 \.{112}\$" 5
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

finish
