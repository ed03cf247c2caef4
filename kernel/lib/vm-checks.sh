# In-VM check helpers shared by kernel/vm-test.sh (x86, patched kernel),
# kernel/arm64/vm-test.sh (arm64, stock kernel) and kernel/arm64/vm-test-patched.sh
# (arm64, patched kernel); sourced by busybox sh.
# Console protocol, one line each:
#   TPT: ok NAME | TPT: FAIL NAME: DETAIL | TPT: SKIP NAME: WHY | TPT: INFO ...
#   TPT: DONE pass=N fail=M
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "TPT: ok $*"; }
bad() { fail=$((fail + 1)); echo "TPT: FAIL $*"; }
skip() { echo "TPT: SKIP $*"; }
info() { echo "TPT: INFO $*"; }

# eq NAME GOT WANT
eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi
}

# done_checks: the closing line; exit status 0 when nothing failed
# load_modules: insmod each of TP_MODULES from /lib/modules, one check each
load_modules() {
	local m
	for m in $TP_MODULES; do
		if insmod /lib/modules/$m 2>/tmp/err; then ok "insmod $m"; else bad "insmod $m: $(cat /tmp/err)"; fi
	done
}

done_checks() {
	echo "TPT: DONE pass=$pass fail=$fail"
	[ $fail = 0 ]
}

# wait_for SECONDS COMMAND...: until COMMAND succeeds (every 50 ms); 1 on timeout
wait_for() {
	n=$(($1 * 20))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}
# file_is FILE TEXT: FILE reads exactly TEXT
file_is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }
# cdev_of CPU: the cooling device of the cpufreq policy of CPU (type cpufreq-cpuN)
cdev_of() {
	for d in /sys/class/thermal/cooling_device*; do
		[ "$(cat $d/type)" = "cpufreq-cpu$1" ] && { echo $d; return; }
	done
}

# ---- the patched kernel's interface ($D: its debugfs directory) ----------------------
# stat_field CPU COLUMN(1-based) from stats: cpu online domain max_capacity max_freq
# capped_freq pressure avg_pressure capacity
stat_field() { awk -v c="$1" -v f="$2" 'NF == 9 && $1 == c { print $f }' $D/stats; }

# timer_irqs CPU: the local timer interrupts CPU has taken (x86 LOC, arm64 arch_timer):
# the scheduler tick comes only with one of them
timer_irqs() {
	awk -v c="$1" '$1 == "LOC:" || /arch_timer/ { n += $(c + 2) } END { print n + 0 }' /proc/interrupts
}

# cpu_irqs CPU: every interrupt CPU has taken (each row of /proc/interrupts): each wakes
# an idle CPU, which then updates its averages at a tick or marks them when idle again
cpu_irqs() {
	awk -v c="$1" 'NR > 1 && $(c + 2) ~ /^[0-9]+$/ { n += $(c + 2) } END { print n + 0 }' /proc/interrupts
}

# spin CPU: a busy loop pinned to CPU (its pid in $spinner); unspin: stop it
spin() { taskset -c "$1" sh -c 'while :; do :; done' & spinner=$!; }
unspin() { kill $spinner; wait $spinner 2>/dev/null; }

# nohz_blocked_decay IDLE BUSY: with NO_HZ idle, an idle CPU's average decays after its
# cap is cleared, updated with its blocked averages (by the idle load balancer, while BUSY
# runs), not only at its own ticks.  IDLE's pelt average (128 ms) builds up under a cap
# while it runs a busy loop; then it idles, uncapped, for 0.8 s.  The update log counts
# the updates of its average in that time, /proc/interrupts its timer interrupts: without
# updates from the blocked averages every update is a tick, so there are no more updates
# than timer interrupts.
nohz_blocked_decay() {
	idle=$1 busy=$2
	max=$(stat_field $idle 5)
	all=$(cat /sys/devices/system/cpu/online)
	taskset -p -c $busy $$ >/dev/null	# this shell and what it starts stay off IDLE
	echo pelt >$D/backend
	echo 128 >$D/decay_ms
	echo $idle >$D/log_cpu
	echo "$idle $((max / 5))" >$D/inject
	p=$(stat_field $idle 7)
	spin $idle
	# 0.6 s is 4.7 half-lives; a loaded host (TCG) can delay the guest's ticks, so up to
	# 3 s more until the average reaches half the pressure (seen: 287 of 820 after 0.6 s)
	sleep 0.6
	for _ in $(seq 30); do
		[ "$(stat_field $idle 8)" -gt $((p / 2)) ] && break
		sleep 0.1
	done
	unspin
	echo "$idle clear" >$D/inject
	# the interrupts' window holds the updates' window
	t0=$(timer_irqs $idle) a0=$(stat_field $idle 8) u0=$(grep -c '^update' $D/log)
	spin $busy
	sleep 0.8
	a1=$(stat_field $idle 8) u1=$(grep -c '^update' $D/log) t1=$(timer_irqs $idle)
	unspin
	echo -1 >$D/log_cpu
	taskset -p -c $all $$ >/dev/null
	u=$((u1 - u0)) t=$((t1 - t0))
	info "nohz: idle cpu$idle avg_pressure $a0 when its cap was cleared, $a1 0.8 s later; $u updates, $t timer interrupts"
	if [ "$a0" -gt $((p / 2)) ]; then ok "nohz: cpu$idle's average built up while busy ($a0, pressure $p)"
	else bad "nohz: cpu$idle's average did not build up while busy: $a0 (pressure $p)"; fi
	if [ "$a1" -lt $((a0 / 8)) ]; then ok "nohz: idle cpu$idle's average decays after its cap is cleared ($a0 -> $a1)"
	else bad "nohz: idle cpu$idle's average stays at $a1 (was $a0 when its cap was cleared 0.8 s before)"; fi
	if [ $u -gt $t ]; then ok "nohz: idle cpu$idle's average updated without its tick ($u updates, $t timer interrupts)"
	else bad "nohz: idle cpu$idle's average updated only at its ticks ($u updates, $t timer interrupts)"; fi
}

# nohz_idle_cap IDLE BUSY: a cap that lands on a CPU already idle with its tick stopped is
# averaged all the same: the feed marks the CPU as having blocked load, so the idle load
# balancer (run from BUSY's tick) updates its average.  IDLE idles uncapped for 1.5 s
# first, so nothing else of it is left to update; then a cap under pelt (128 ms) must
# build its average past half the pressure within 0.8 s, with more updates than IDLE took
# timer interrupts.  Without the mark the average stays 0 until IDLE wakes up.
nohz_idle_cap() {
	idle=$1 busy=$2
	max=$(stat_field $idle 5)
	all=$(cat /sys/devices/system/cpu/online)
	taskset -p -c $busy $$ >/dev/null
	echo pelt >$D/backend
	echo 128 >$D/decay_ms
	spin $busy
	sleep 1.5
	echo $idle >$D/log_cpu
	t0=$(timer_irqs $idle)
	echo "$idle $((max / 5))" >$D/inject
	p=$(stat_field $idle 7)
	sleep 0.8
	a1=$(stat_field $idle 8) u=$(grep -c '^update' $D/log) t1=$(timer_irqs $idle)
	unspin
	echo "$idle clear" >$D/inject
	echo -1 >$D/log_cpu
	taskset -p -c $all $$ >/dev/null
	t=$((t1 - t0))
	info "nohz: cap on idle cpu$idle: pressure $p, avg_pressure $a1 0.8 s later; $u updates, $t timer interrupts"
	if [ "$a1" -gt $((p / 2)) ]; then ok "nohz: a cap on idle cpu$idle is averaged ($a1 of $p after 0.8 s)"
	else bad "nohz: a cap on idle cpu$idle is not averaged: $a1 of $p after 0.8 s"; fi
	if [ $u -gt $t ]; then ok "nohz: idle cpu$idle's capped average updated without its tick ($u updates, $t timer interrupts)"
	else bad "nohz: idle cpu$idle's capped average updated only at its ticks ($u updates, $t timer interrupts)"; fi
}

# nohz_steady_instant IDLE BUSY MAX: under instant, a steady cap on an idle CPU leaves
# nothing to average once it is latched, so the idle load balancer stops updating it for
# the cap.  An idle CPU still wakes up (timers, IPIs), and each wakeup adds updates: its
# tick, and the balancer's updates of its other blocked load after it goes idle again
# (seen: about 1.5 per interrupt when a loaded host makes a vCPU wake 20 times a second).
# So each window of 1.5 s is allowed 2 updates per interrupt of IDLE, and the best of
# three windows may exceed that by at most MAX (seen: 1 to 4 on a quiet host, below 0 on a
# loaded one).  A CPU that keeps reporting blocked load for a steady cap is updated by the
# balancer about every 32 ms from another CPU, without waking it: 45 updates for 0
# interrupts in every window (seen with the old rule).
nohz_steady_instant() {
	idle=$1 busy=$2 most=$3
	max=$(stat_field $idle 5)
	all=$(cat /sys/devices/system/cpu/online)
	taskset -p -c $busy $$ >/dev/null
	echo instant >$D/backend
	spin $busy
	sleep 1
	echo "$idle $((max / 2))" >$D/inject
	sleep 0.3
	e=999999
	for try in 1 2 3; do
		echo $idle >$D/log_cpu
		t0=$(cpu_irqs $idle)
		sleep 1.5
		uw=$(grep -c '^update' $D/log) tw=$(($(cpu_irqs $idle) - t0))
		info "nohz: steady cap on idle cpu$idle under instant, window $try: $uw updates, $tw interrupts in 1.5 s"
		# updates beyond what the CPU's own wakeups explain
		[ $((uw - 2 * tw)) -lt "$e" ] && e=$((uw - 2 * tw)) u=$uw t=$tw
	done
	a=$(stat_field $idle 8) p=$(stat_field $idle 7)
	unspin
	echo "$idle clear" >$D/inject
	echo -1 >$D/log_cpu
	taskset -p -c $all $$ >/dev/null
	eq "nohz: instant latched the steady cap" "$a" "$p"
	if [ "$e" -le "$most" ]; then ok "nohz: a steady cap under instant costs the idle balancer no updates (best window: $u updates, $t interrupts)"
	else bad "nohz: idle cpu$idle under a steady instant cap: $u updates in 1.5 s for $t interrupts, $e beyond 2 per interrupt (at most $most)"; fi
}

# ---- stock kernels: the capture command (scripts/capture-stock-tree.sh at /) --------------
# capture_check NAME: capture what thermpress reads into /tmp/cap; thermpress must show
# the same per-CPU facts and model on the capture as on the live system; the tree goes to
# the console between TPCAPTURE BEGIN NAME / TPCAPTURE END (tar, gzip, base64), from
# which the host regenerates tests/fixtures/stock/NAME (kernel/lib/host.sh)
capture_check() {
	rm -rf /tmp/cap
	if ! sh /capture-stock-tree.sh /tmp/cap >/tmp/cap.out 2>&1; then
		bad "capture-stock-tree.sh: $(head -2 /tmp/cap.out | tr '\n' ' ')"; return
	fi
	ok "capture-stock-tree.sh: $(wc -l </tmp/cap/MANIFEST) MANIFEST lines"
	THERMPRESS_NO_BPF=1 thermpress show --json >/tmp/cap-live.json 2>&1
	thermpress --root /tmp/cap show --json >/tmp/cap-tree.json 2>&1
	# per CPU and source-wide facts, without times, roots and the source's description
	facts() { grep -E '"(cpu|domain|online|max_capacity|capacity|max_freq_khz|capped_freq_khz|pressure|release|model|hz|has_cpufreq|version_sublevel|config_file|reference_rule)":' "$1" |
		sed 's|"config_file": "/tmp/cap|"config_file": "|'; }
	facts /tmp/cap-live.json >/tmp/cap-live.facts
	facts /tmp/cap-tree.json >/tmp/cap-tree.facts
	if [ -s /tmp/cap-live.facts ] && cmp -s /tmp/cap-live.facts /tmp/cap-tree.facts
	then ok "capture: thermpress --root on the capture shows what it shows live ($(wc -l </tmp/cap-live.facts) facts)"
	else bad "capture: differs from live: $(diff /tmp/cap-live.facts /tmp/cap-tree.facts | head -4 | tr '\n' ' ')"; fi
	echo "TPCAPTURE BEGIN $1"
	tar -C /tmp/cap -cf - . | gzip -9 | base64
	echo "TPCAPTURE END"
}
