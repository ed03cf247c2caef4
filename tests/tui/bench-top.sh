#!/bin/bash
# Benchmark (by hand, not a meson test): CPU time of `thermpress top` at a 1-second
# interval over 30 seconds, on 256 and on 4096 simulated CPUs served over FUSE, against
# htop at the same interval (htop -d 10) in the same run.  Both run in tmux panes of
# 120x50; utime+stime come from /proc/PID/stat.  The target is a ratio top/htop of at
# most 0.5 at each size.
#
#   tests/tui/bench-top.sh [BUILD_DIR]      (default: build)
#   SECONDS_RUN=30 PRESETS="smp:256 smp:4096" SIZE=200x50 to change the run (SIZE: both
#   panes, default 120x50).
set -u

BUILD=${1:-build}
TP=${THERMPRESS:-$BUILD/cmd/thermpress}
export THERMPRESS_PLUGIN_DIR=${THERMPRESS_PLUGIN_DIR:-$BUILD/plugins}
RUN=${SECONDS_RUN:-30}
SIZE=${SIZE:-120x50}
COLS=${SIZE%x*}
LINES_=${SIZE#*x}
PRESETS=${PRESETS:-${PRESET:-smp:256 smp:4096}}
SOCK="tpbench-$$"
HZ=$(getconf CLK_TCK)

[ -x "$TP" ] || { echo "bench-top: no thermpress at $TP (give the build directory)" >&2; exit 2; }
command -v htop >/dev/null || { echo "bench-top: htop is not installed" >&2; exit 2; }
command -v tmux >/dev/null || { echo "bench-top: tmux is not installed" >&2; exit 2; }

mnt=$(mktemp -d)
server=
stop_server() {
	tmux -L "$SOCK" kill-server 2>/dev/null
	if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null; wait "$server" 2>/dev/null; fi
	server=
	if mountpoint -q "$mnt"; then fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt"; fi
}
cleanup() {
	stop_server
	rmdir "$mnt" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM

cpu_ticks() {	# utime + stime of PID, in clock ticks
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

status=0
for PRESET in $PRESETS; do
	"$TP" sim serve --preset "$PRESET" "$mnt" >/dev/null 2>&1 &
	server=$!
	for _ in $(seq 100); do
		[ -e "$mnt/sys/kernel/debug/sched/thermal_pressure/stats" ] && break
		sleep 0.1
	done
	[ -e "$mnt/sys/kernel/debug/sched/thermal_pressure/stats" ] ||
		{ echo "bench-top: sim serve did not mount ($PRESET)" >&2; exit 1; }

	tmux -L "$SOCK" new-session -d -x "$COLS" -y "$LINES_" -n top \
		"exec env THERMPRESS_PLUGIN_DIR=$THERMPRESS_PLUGIN_DIR TERM=screen-256color LANG=C.UTF-8 $TP --root $mnt top --interval 1s"
	tmux -L "$SOCK" new-window -d -n htop "exec env TERM=screen-256color LANG=C.UTF-8 htop -d 10"
	sleep 2
	top_pid=$(tmux -L "$SOCK" display -p -t top '#{pane_pid}')
	htop_pid=$(tmux -L "$SOCK" display -p -t htop '#{pane_pid}')

	t0_top=$(cpu_ticks "$top_pid")
	t0_htop=$(cpu_ticks "$htop_pid")
	sleep "$RUN"
	t1_top=$(cpu_ticks "$top_pid")
	t1_htop=$(cpu_ticks "$htop_pid")
	# proof of what top was drawing (compact cells, or the heatmap)
	tmux -L "$SOCK" capture-pane -p -t top | head -4

	top_ms=$(( (t1_top - t0_top) * 1000 / HZ ))
	htop_ms=$(( (t1_htop - t0_htop) * 1000 / HZ ))
	echo "preset $PRESET over FUSE, interval 1 s, ${RUN} s, ${SIZE} panes, CLK_TCK $HZ"
	echo "thermpress top: ${top_ms} ms CPU (utime+stime)"
	echo "htop -d 10:     ${htop_ms} ms CPU (utime+stime)"
	if [ "$htop_ms" -gt 0 ]; then
		awk -v a="$top_ms" -v b="$htop_ms" -v p="$PRESET" 'BEGIN {
			printf "ratio top/htop at %s: %.2f (target <= 0.5)\n", p, a / b
			exit !(a / b <= 0.5) }' || status=1
	else
		echo "ratio top/htop at $PRESET: htop used no measurable CPU"
	fi
	stop_server
done
exit $status
