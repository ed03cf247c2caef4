#!/bin/sh
# In-VM run of kernel/arm64/run.sh --effect: the seeds' effect on the arm64 board with
# the patch series.  Two fixed workloads (four busy loops; hackbench) run under each
# averaging backend while a thermal model heats the big cluster through the thermal
# zone big-thermal; thermpress bench switches the backend, times each run, and measures
# where the work ran (share of CPU time on the big cluster) and the migrations.
#
# The heat model (heat-loop.sh, every 100 ms or as late as TCG lets it, integers,
# milli-degrees): the big cluster's power is its utilisation times (f / f_max)^3 (dynamic
# power at a voltage that scales with frequency); the temperature tends to 50 C plus
# 100 C at full power, with a time constant of 5 s, never above 110 C (the zone's
# critical trip, 115 C, would power the board off).  The time constant is long against
# the governor's 100 ms: step_wise raises the cooling state at each update while the
# temperature rises past the passive trip (65 C), so the big cluster goes down to state
# 4 (903 MHz, capacity 391, below the little CPUs' 462) before it cools, then back up as
# it cools: its capacity swings across the little CPUs', and whether the work follows
# is what the backends change (with a short time constant it settled in state 3,
# capacity 616, where no backend has a reason to move anything).  The model runs on
# little cpu0 at nice -20.  Each run starts cold: the workload wrapper resets the model
# and the cooling state.
. /vm-checks.sh
C=/sys/devices/system/cpu
P4=$C/cpufreq/policy4
TH=/sys/class/thermal
D=/sys/kernel/debug/sched/thermal_pressure
TEMP=/sys/module/tp_test_sensor/parameters/temp
RUNS=${TP_EFFECT_RUNS:-5}
info "kernel $(uname -r) ($TP_KERNEL)"
for m in $TP_MODULES; do
	if insmod /lib/modules/$m 2>/tmp/err; then ok "insmod $m"; else bad "insmod $m: $(cat /tmp/err)"; fi
done
CD4=""
for d in $TH/cooling_device*; do [ "$(cat $d/type)" = cpufreq-cpu4 ] && CD4=$d; done
[ -n "$CD4" ] && [ -d $D ] && [ -w $TEMP ] || { bad "board: cooling device, interface or sensor missing"; done_checks; exit 1; }
ok "board: big cooling device $CD4, interface, sensor"
FMAX=$(cat $P4/cpuinfo_max_freq)

cat >/heat-loop.sh <<'EOF'
# the thermal model of the big cluster (see vm-effect.sh).  Shell builtins only (read,
# test, arithmetic; the 100 ms wait is a read timing out on a FIFO nobody writes): under
# TCG a fork or exec flushes the TLBs of all 8 vCPUs in lockstep, which with the vCPUs
# busy costs seconds (the first models, with awk and sleep, made a step every 6 s).  It integrates over the time that really passed (/proc/uptime, 10 ms),
# so a late step does not slow the model down.
t=50000 lb="" la="" lup=0
mkfifo /tmp/heat.tick
exec 3<>/tmp/heat.tick
while :; do
	[ -f /tmp/heat.reset ] && { t=50000; lb=""; rm -f /tmp/heat.reset; }
	b=0 a=0
	while read n us ni sy id io irq si st rest; do
		case $n in cpu4|cpu5|cpu6|cpu7)
			b=$((b + us + ni + sy + irq + si + st))
			a=$((a + us + ni + sy + id + io + irq + si + st)) ;;
		esac
	done </proc/stat
	read up rest </proc/uptime
	up=${up%.*}${up#*.}
	read f <$P4/scaling_max_freq
	if [ -n "$lb" ]; then
		db=$((b - lb)) da=$((a - la))
		[ $da -gt 0 ] || da=1
		u=$((db * 1000 / da))
		r=$((f * 1000 / FMAX))
		p=$((u * r / 1000 * r / 1000 * r / 1000))
		target=$((50000 + p * 100))
		dt=$((up - lup))
		[ $dt -le 500 ] || dt=500
		t=$((t + (target - t) * dt / 500))
		[ $t -le 110000 ] || t=110000	# the critical trip (115 C) would power off
		echo $t >$TEMP
		echo "$up $t $u $f" >>/tmp/heat.trace
	fi
	lb=$b la=$a lup=$up
	read -t 0.1 x <&3
done
EOF
# The two workloads, each run from a cold big cluster (the model reset, cooling state 0):
# four busy loops, as many as big CPUs, so that the scheduler has a choice (ten would keep
# all eight CPUs busy, and the share of busy time on big would stay at 50% whatever it
# does); and hackbench, one group of five senders and five receivers.
cat >/effect-reset.sh <<'EOF'
touch /tmp/heat.reset
echo 50000 >$TEMP
echo 0 >$CD4/cur_state
EOF
cat >/effect-busy.sh <<'EOF'
. /effect-reset.sh
for i in 1 2 3 4; do
	sh -c 'n=0; while [ $n -lt 150000 ]; do n=$((n + 1)); done' &
done
wait
EOF
cat >/effect-hackbench.sh <<'EOF'
. /effect-reset.sh
hackbench -g 1 -f 5 -l 20 >/dev/null
EOF
export P4 FMAX TEMP CD4
taskset -c 0 sh /heat-loop.sh &
heat=$!
renice -n -20 -p $heat >/dev/null	# busybox has renice, not nice
sleep 1
if [ -s /tmp/heat.trace ]; then ok "heat model running"; else bad "heat model: no trace"; fi

# calibration runs under none: the model must heat the big cluster past its trip
echo none >$D/backend
for w in busy hackbench; do
	: >/tmp/heat.trace
	t0=$(cut -d' ' -f1 /proc/uptime)
	sh /effect-$w.sh
	t1=$(cut -d' ' -f1 /proc/uptime)
	maxt=$(awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }' /tmp/heat.trace)
	info "calibration, $w under none: $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }') s, hottest $maxt m°C; $(awk -v fmax=$FMAX '{ n++; u += $3; if ($4 < fmax) c++; if (!m || $4 < m) m = $4 }
		END { printf "%d model steps, big cluster busy %.0f%%, capped in %.0f%% of them, lowest limit %d kHz", n, u / n / 10, 100 * c / n, m }' /tmp/heat.trace)"
	if [ "$maxt" -gt 65000 ]; then ok "$w heats the big cluster past its 65 C trip ($maxt)"
	else bad "$w heats the big cluster only to $maxt m°C"; fi
done

echo pelt >$D/backend
for w in busy hackbench; do
	echo "TPEFFECT BEGIN $w"
	thermpress bench --runs $RUNS --backends none,instant,pelt:32,decay --decay 125,250,500 \
		-- sh /effect-$w.sh 2>/tmp/bench.err
	rc=$?
	echo "TPEFFECT END $w"
	eq "thermpress bench ($w) exit status" $rc 0
	[ $rc = 0 ] || info "bench: $(tail -2 /tmp/bench.err | tr '\n' ' ')"
	cat /tmp/bench.err
done
kill $heat
wait 2>/dev/null
eq "bench put the backend back" "$(cat $D/backend)" "instant [pelt] decay none"
done_checks
