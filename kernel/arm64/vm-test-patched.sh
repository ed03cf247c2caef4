#!/bin/sh
# In-VM checks on the arm64 board of kernel/arm64/run.sh --patched, run by /init
# under busybox sh: the patch series on the same big.LITTLE board as the stock run
# (cpufreq-dt, a cooling device per cluster, the thermal zone big-thermal on the test
# sensor), with caps arriving through the real cooling device, the governor and
# inject.  Protocol: kernel/lib/vm-checks.sh, plus the update logs between
# "TPLOG BEGIN NAME" and "TPLOG END NAME" that run.sh replays on the host.
# TP_SERIES=6.12 (run.sh --series 6.12): the series on 6.12, where the store's input is
# the larger of the cpufreq pressure and the injected one (docs/abi.md), instant is the
# default, no trace event carries the cooling pressure, and lockdep is on.
. /vm-checks.sh
series612=false
[ "${TP_SERIES:-6.1}" = 6.12 ] && series612=true
C=/sys/devices/system/cpu
P0=$C/cpufreq/policy0
P4=$C/cpufreq/policy4
TH=/sys/class/thermal
TR=/sys/kernel/tracing
D=/sys/kernel/debug/sched/thermal_pressure
TEMP=/sys/module/tp_test_sensor/parameters/temp
info "kernel $(uname -r) ($TP_KERNEL)"
load_modules

stat_cols() {	# COLUMN CPU...: that column of each CPU, on one line
	col=$1
	shift
	for c in "$@"; do printf '%s ' "$(stat_field $c $col)"; done
}
# mult_frac as the kernel: max_cap - max_cap * capped / max
pressure_of() { echo $(($1 - $1 * $2 / $3)); }

[ -d $D ] || { bad "interface: $D is missing"; done_checks; exit 1; }
CD0=$(cdev_of 0)
CD4=$(cdev_of 4)
ZONE=""
for z in $TH/thermal_zone*; do [ "$(cat $z/type)" = big-thermal ] && ZONE=$z; done

# ---- the board, as the series sees it -----------------------------------------------------
eq "8 cpus online" "$(cat $C/online)" 0-7
eq "cpufreq-dt built in: two policies" "$(ls -d $C/cpufreq/policy* | wc -l)" 2
eq "capacities (little 462, big 1024)" "$(cat $C/cpu[0-7]/cpu_capacity | tr '\n' ' ')" "462 462 462 462 1024 1024 1024 1024 "
if [ -n "$CD0" ] && [ -n "$CD4" ]; then ok "cooling devices cpufreq-cpu0 and cpufreq-cpu4"
else bad "cooling devices: $(cat $TH/cooling_device*/type | tr '\n' ' ')"; CD0=/nonexistent CD4=/nonexistent; fi
if [ -n "$ZONE" ]; then ok "thermal zone big-thermal"; else bad "no thermal zone big-thermal"; ZONE=/nonexistent; fi
if $series612; then
	eq "backends (6.12: instant, mainline's behaviour, by default)" "$(cat $D/backend)" "[instant] pelt decay none"
	[ -e /proc/lockdep ] && ok "lockdep enabled" || bad "lockdep is not enabled (no /proc/lockdep)"
else
	eq "backends" "$(cat $D/backend)" "instant [pelt] decay none"
fi
eq "hz" "$(cat $D/hz)" 250
eq "stats: max_capacity per cpu" "$(stat_cols 4 0 1 2 3 4 5 6 7)" "462 462 462 462 1024 1024 1024 1024 "
eq "stats: max_freq per cpu (the policies' cpuinfo_max_freq)" "$(stat_cols 5 0 3 4 7)" "1844000 1844000 2362000 2362000 "
eq "stats: one frequency domain per cluster" "$(stat_cols 3 0 1 2 3 4 5 6 7)" "0 0 0 0 4 4 4 4 "
eq "stats: nothing capped at boot" "$(stat_cols 7 0 1 2 3 4 5 6 7)" "0 0 0 0 0 0 0 0 "

# ---- caps through the real cooling device (cur_state) ---------------------------------------
EV=$TR/events/thermal_pressure/thermal_pressure_update
if $series612; then :	# 6.12: cpufreq_update_pressure() traces nothing
elif [ -d $EV ] && echo 1 >$EV/enable; then ok "thermal_pressure_update event enabled"
else bad "cannot enable $EV"; fi
kpressure() {	# the value of the last thermal_pressure_update of CPU in the trace (none: -)
	v=$(grep " cpu=$1 thermal_pressure=" $TR/trace | tail -1 | sed 's/.*thermal_pressure=//')
	echo "${v:--}"
}
echo instant >$D/backend
for st in 1 2 3 4; do
	echo >$TR/trace
	echo $st >$CD4/cur_state
	f=$(cat $P4/scaling_max_freq)
	p=$(pressure_of 1024 $f 2362000)
	eq "big cur_state $st: capped_freq of cpus 4-7 = scaling_max_freq" "$(stat_cols 6 4 5 6 7)" "$f $f $f $f "
	eq "big cur_state $st ($f kHz): pressure of cpus 4-7" "$(stat_cols 7 4 5 6 7)" "$p $p $p $p "
	eq "big cur_state $st: instant average at once" "$(stat_field 6 8)" $p
	$series612 || eq "big cur_state $st: the trace event still fires (cpu4)" "$(kpressure 4)" $p
	eq "big cur_state $st: little cluster untouched" "$(stat_cols 7 0 1 2 3)" "0 0 0 0 "
done
echo 0 >$CD4/cur_state
eq "big cur_state 0: pressure cleared" "$(stat_cols 7 4 5 6 7)" "0 0 0 0 "
echo 2 >$CD0/cur_state
f=$(cat $P0/scaling_max_freq)
p=$(pressure_of 462 $f 1844000)
eq "little cur_state 2 ($f kHz): pressure of cpus 0-3 (capacity 462)" "$(stat_cols 7 0 1 2 3)" "$p $p $p $p "
eq "little cur_state 2: big cluster untouched" "$(stat_cols 7 4 5 6 7)" "0 0 0 0 "
echo 0 >$CD0/cur_state
eq "little cur_state 0: pressure cleared" "$(stat_cols 7 0 1 2 3)" "0 0 0 0 "

# inject still works beside the cooling device, per CPU
echo "5 903000" >$D/inject
eq "inject cpu5 903000" "$(stat_field 5 7)" "$(pressure_of 1024 903000 2362000)"
echo "5 clear" >$D/inject
eq "inject clear cpu5" "$(stat_field 5 7)" 0

# ---- 6.12: two feeds, the larger pressure wins (docs/abi.md) --------------------------------
# the cooling device caps the big cluster; inject's milder cap, and its clear, must not
# hide it from the scheduler while cpufreq enforces it; a stronger injected cap wins
# until cleared, whatever the cooling device does meanwhile
if $series612; then
	echo instant >$D/backend
	echo 2 >$CD4/cur_state
	fc=$(cat $P4/scaling_max_freq)
	pc=$(pressure_of 1024 $fc 2362000)
	pi=$(pressure_of 1024 903000 2362000)
	eq "precedence: cooling cap ($fc kHz) alone: pressure of cpu4" "$(stat_field 4 7)" $pc
	echo "4 $((fc + (2362000 - fc) / 2))" >$D/inject
	eq "precedence: a milder injected cap keeps the cooling pressure" "$(stat_field 4 7)" $pc
	eq "precedence: capped_freq is the lower cap (cooling's)" "$(stat_field 4 6)" $fc
	echo "4 clear" >$D/inject
	eq "precedence: inject clear does not hide the cooling cap" "$(stat_field 4 7)" $pc
	eq "precedence: the scheduler's average after inject clear (instant)" "$(stat_field 4 8)" $pc
	echo "4 903000" >$D/inject
	eq "precedence: a stronger injected cap wins" "$(stat_field 4 7)" $pi
	eq "precedence: capped_freq is the lower cap (inject's)" "$(stat_field 4 6)" 903000
	echo 0 >$CD4/cur_state
	eq "precedence: lifting the cooling cap keeps the injected one" "$(stat_field 4 7)" $pi
	eq "precedence: cpu5, capped by cooling only, is clear" "$(stat_field 5 7)" 0
	echo "4 clear" >$D/inject
	eq "precedence: both cleared" "$(stat_field 4 7)" 0
fi

# ---- the governor: temperature -> step_wise -> cooling device -> the store ------------------
echo pelt >$D/backend
spin 4
s4=$!
echo 70000 >$TEMP
if wait_for 5 file_is $CD4/cur_state 1; then ok "70 C: step_wise puts the big cooling device in state 1"
else bad "70 C: big cooling state $(cat $CD4/cur_state), want 1"; fi
p1=$(pressure_of 1024 2112000 2362000)
eq "70 C: the store's pressure of the big cluster" "$(stat_cols 7 4 5 6 7)" "$p1 $p1 $p1 $p1 "
sleep 0.6
a=$(stat_field 4 8)
if [ "$a" -gt $((p1 / 2)) ] && [ "$a" -le $p1 ]; then ok "70 C: busy cpu4's pelt average builds up ($a of $p1)"
else bad "70 C: busy cpu4's pelt average $a after 0.6 s at $p1"; fi
# cool down: 6.1's step_wise lowers the state by one per update only while the
# temperature falls, so the sensor cools in 0.1 C steps until the governor lets go
t=40000
echo $t >$TEMP
while [ $t -gt 39000 ] && ! file_is $CD4/cur_state 0; do
	t=$((t - 100))
	echo $t >$TEMP
	sleep 0.1
done
eq "cooled: the governor lifts the cap" "$(cat $CD4/cur_state)" 0
eq "cooled: the store's pressure is 0 again" "$(stat_cols 7 4 5 6 7)" "0 0 0 0 "
kill $s4 $w0
wait 2>/dev/null
taskset -p -c 0-7 $$ >/dev/null

# ---- none: the store keeps the cap, the scheduler sees nothing -------------------------------
echo none >$D/backend
spin 4
s4=$!
echo 4 >$CD4/cur_state
sleep 0.5
p4=$(pressure_of 1024 903000 2362000)
eq "none: the store keeps cpu4's pressure" "$(stat_field 4 7)" $p4
eq "none: cpu4's average stays 0" "$(stat_field 4 8)" 0
c=$(stat_field 4 9)
if [ "$c" -gt $((1024 - p4)) ]; then ok "none: busy capped cpu4's capacity ignores the cap ($c)"
else bad "none: capped cpu4's capacity $c, want above $((1024 - p4))"; fi
echo instant >$D/backend
sleep 0.5
c=$(stat_field 4 9)
if [ "$c" -le $((1024 - p4)) ]; then ok "instant: the same cap lowers cpu4's capacity ($c)"
else bad "instant: capped cpu4's capacity $c, want at most $((1024 - p4))"; fi

# ---- pelt_thermal_tp: tracers still find the average in rq->avg_thermal.load_avg ----------
# (tp_capacity_probe.ko records it at the tracepoint; cpu4 busy under cur_state 4)
TTP=/sys/module/tp_capacity_probe/parameters/thermal
traced() { awk -v c="$1" -v f="$2" '$1 == c { print $f }' $TTP; }
# traced_is_avg NAME: cpu4's value at the tracepoint is the interface's avg_pressure:
# read between two reads of stats, it lies between them (the average moves at every
# tick, and only upwards where this is used)
traced_is_avg() {
	n=0
	while [ $n -lt 40 ]; do
		a1=$(stat_field 4 8) t=$(traced 4 2) a2=$(stat_field 4 8)
		if [ "$a1" -le "$t" ] && [ "$t" -le "$a2" ]; then
			ok "$1: pelt_thermal_tp shows cpu4's average ($a1 <= $t <= $a2)"
			return
		fi
		n=$((n + 1))
		sleep 0.05
	done
	bad "$1: pelt_thermal_tp shows $t, the interface $a1 then $a2"
}
if $series612; then :	# 6.12: the tracepoint shows hardware pressure, not the series' average
elif [ -r $TTP ]; then
	traced_is_avg "instant"
	echo none >$D/backend
	n0=$(traced 4 3)
	sleep 0.5
	n1=$(traced 4 3)
	eq "none: pelt_thermal_tp shows 0 under the cap" "$(traced 4 2)" 0
	if [ $((n1 - n0)) -ge 50 ]; then ok "none: pelt_thermal_tp still fires at cpu4's ticks ($((n1 - n0)) in 0.5 s)"
	else bad "none: pelt_thermal_tp fired $((n1 - n0)) times in 0.5 s on busy cpu4 (250 Hz)"; fi
	# decay 10000: the average builds up over tens of seconds (a tenth of the pressure
	# after 1 s), far from the pelt state (32 ms), which a tracer must not be shown
	echo decay >$D/backend
	echo 10000 >$D/decay_ms
	sleep 0.5
	a=$(stat_field 4 8)
	if [ "$a" -gt 0 ] && [ "$a" -lt $((p4 / 2)) ]; then ok "decay 10000: cpu4's average building up ($a of $p4)"
	else bad "decay 10000: cpu4's average $a, want between 0 and $((p4 / 2)) 0.5 s after the switch"; fi
	traced_is_avg "decay 10000, building up"
	echo pelt >$D/backend
	echo 32 >$D/decay_ms
	sleep 0.5
	traced_is_avg "pelt 32"
	echo instant >$D/backend
else
	bad "no $TTP: tp_capacity_probe.ko is not loaded"
fi
echo 0 >$CD4/cur_state
kill $s4 $w0
wait 2>/dev/null
taskset -p -c 0-7 $$ >/dev/null

# ---- thermpress on the patched kernel -----------------------------------------------------
if thermpress show --json >/tmp/tpo 2>/tmp/tpe; then ok "thermpress show --json"
else bad "thermpress show --json: $(head -2 /tmp/tpe | tr '\n' ' ')"; fi
n=$(grep -c '"max_capacity": 462' /tmp/tpo)
m=$(grep -c '"max_capacity": 1024' /tmp/tpo)
eq "thermpress: 4 cpus of capacity 462 and 4 of 1024" "$n $m" "4 4"
if thermpress cap set 4-7 60% >/tmp/tpo 2>/tmp/tpe; then ok "thermpress cap set 4-7 60%"
else bad "thermpress cap set 4-7 60%: $(head -2 /tmp/tpe | tr '\n' ' ')"; fi
f60=$((2362000 * 60 / 100))
eq "thermpress cap set: the store's capped_freq of cpus 4-7" "$(stat_cols 6 4 5 6 7)" "$f60 $f60 $f60 $f60 "
thermpress cap clear all >/dev/null 2>&1
eq "thermpress cap clear all" "$(stat_cols 7 0 1 2 3 4 5 6 7)" "0 0 0 0 0 0 0 0 "

# ---- update logs, one CPU of each cluster, caps through the cooling device -------------------
# cpu0 is mostly idle (NO_HZ: its tick stops, its average is updated with its blocked
# averages), cpu4 runs a busy loop (it ticks).  decay 1 ms skips windows at every tick.
capseq() {	# COOLING_DEVICE: six cap changes through cur_state
	for st in 2 4 0 1 3 0; do
		echo $st >$1/cur_state
		sleep 0.3
	done
}
spin 4
s4=$!
# cpu0 wakes every 100 ms and nothing else of ours runs there: between the wake-ups it
# idles with its tick stopped (an idle CPU that nothing wakes and whose average is 0 is
# updated by nobody, so its log would stay empty)
taskset -p -c 1-3,5-7 $$ >/dev/null
mkfifo /tmp/wake0
taskset -c 0 sh -c 'exec 3<>/tmp/wake0; while :; do read -t 0.1 x <&3; done' &
w0=$!
for s in instant:0 pelt:32 decay:1 decay:250 none:0; do
	b=${s%:*} ms=${s#*:}
	echo $b >$D/backend
	[ "$ms" != 0 ] && echo $ms >$D/decay_ms
	for cpu in 0 4; do
		if [ $cpu = 0 ]; then cd=$CD0; min=3; else cd=$CD4; min=100; fi
		echo $cpu >$D/log_cpu
		capseq $cd
		echo "-1" >$D/log_cpu
		n=$(grep -c '^update' $D/log)
		if [ "$n" -ge $min ]; then ok "log $b $ms cpu$cpu has $n updates"
		else bad "log $b $ms cpu$cpu has $n updates, want at least $min"; fi
		if [ $cpu = 0 ]; then	# NO_HZ: gaps of 5 ticks (20 ms at 250 Hz) and more: the idle cpu's tick stopped
			g=$(awk '$1 == "update" { if (p) { d = $2 - p; if (d > m) m = d } p = $2 }
				END { printf "%d", m / 1000000 }' $D/log)
			if [ "$g" -ge 20 ]; then ok "log $b $ms cpu0 spans NO_HZ idle periods (longest gap $g ms)"
			else bad "log $b $ms cpu0: longest gap between updates $g ms, no idle period"; fi
		fi
		echo "TPLOG BEGIN $b-$ms-cpu$cpu"
		cat $D/log
		echo "TPLOG END $b-$ms-cpu$cpu"
	done
done
kill $s4 $w0
wait 2>/dev/null
taskset -p -c 0-7 $$ >/dev/null

# ---- NO_HZ idle: an idle little CPU's average decays with its blocked averages -------
nohz_blocked_decay 3 0
echo 32 >$D/decay_ms
echo pelt >$D/backend
# 6.12: no lock report from lockdep, RCU or might_sleep while caps came from every feed
if $series612; then
	# the pattern of kernel/run.sh's console scan, on the whole log (the console has
	# only warnings: RCU's boot line saying lockdep checking is on is info)
	r=$(dmesg | grep -E 'WARNING: (possible|suspicious|inconsistent)|BUG: (sleeping function|scheduling while atomic|spinlock|workqueue lockup)|possible (recursive|circular) locking|inconsistent lock state|lockdep|DEBUG_LOCKS_WARN_ON' |
		grep -v 'RCU lockdep checking is enabled' | head -3)
	if ! dmesg | grep -q 'Linux version'; then bad "the kernel log lost its start: no lock report can be ruled out"
	elif [ -z "$r" ]; then ok "no lock report in the kernel log (caps from the cooling device, the governor and inject)"
	else bad "a lock report in the kernel log: $(echo "$r" | tr '\n' ' ')"; fi
fi
done_checks
