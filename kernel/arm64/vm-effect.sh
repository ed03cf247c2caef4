#!/bin/sh
# In-VM run of kernel/arm64/run.sh --effect: the seeds' effect on the arm64 board with
# the patch series.  Two fixed workloads (four busy loops; hackbench) run under each
# averaging backend while a thermal model heats the big cluster through the thermal
# zone big-thermal; thermpress bench switches the backend, times each run, and measures
# where the work ran (share of CPU time on the big cluster) and the migrations.
#
# The heat model is the test sensor's (tp_test_sensor.ko, model=1, model_cpus 4-7; it
# runs in the kernel: a user-space model, even a fork-free shell loop at nice -20, was
# starved under TCG while hackbench forked, stepping once in 5 s): every 100 ms the big
# cluster's power is its busy fraction times (f / f_max)^3 (dynamic power at a voltage
# that scales with frequency); the temperature tends to 50 C plus 100 C at full power,
# with a time constant of 5 s, never above 110 C (the zone's critical trip, 115 C, would
# power the board off).  The time constant is long against the governor's 100 ms:
# step_wise raises the cooling state at each update while the temperature rises past the
# passive trip (65 C), so the big cluster goes down to state 4 (903 MHz, capacity 391,
# below the little CPUs' 462) before it cools, then back up as it cools: its capacity
# swings across the little CPUs', and whether the work follows is what the backends
# change (with a short time constant it settled in state 3, capacity 616, where no
# backend has a reason to move anything).  Each run starts cold: the workload wrapper
# writes the sensor's temperature (the model's state) and the cooling state.
. /vm-checks.sh
C=/sys/devices/system/cpu
P4=$C/cpufreq/policy4
TH=/sys/class/thermal
D=/sys/kernel/debug/sched/thermal_pressure
TEMP=/sys/module/tp_test_sensor/parameters/temp
RUNS=${TP_EFFECT_RUNS:-5}
info "kernel $(uname -r) ($TP_KERNEL)"
load_modules
CD4=""
for d in $TH/cooling_device*; do [ "$(cat $d/type)" = cpufreq-cpu4 ] && CD4=$d; done
[ -n "$CD4" ] && [ -d $D ] && [ -w $TEMP ] || { bad "board: cooling device, interface or sensor missing"; done_checks; exit 1; }
ok "board: big cooling device $CD4, interface, sensor"

# The two workloads, each run from a cold big cluster (the model reset, cooling state 0):
# four busy loops, as many as big CPUs, so that the scheduler has a choice (ten would keep
# all eight CPUs busy, and the share of busy time on big would stay at 50% whatever it
# does); and hackbench, one group of five senders and five receivers.
cat >/effect-reset.sh <<'EOF'
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
export TEMP CD4
M=/sys/module/tp_test_sensor/parameters
echo 4-7 >$M/model_cpus
echo 50000 >$TEMP
if echo 1 >$M/model 2>/tmp/err; then ok "heat model on (cpus $(cat $M/model_cpus))"
else bad "heat model: $(cat /tmp/err)"; done_checks; exit 1; fi
sleep 1
s=$(cat $M/model_steps)
if [ "$s" -ge 5 ]; then ok "heat model steps ($s in 1 s)"; else bad "heat model: $s steps in 1 s"; fi

# calibration runs under none: the model must heat the big cluster past its trip
echo none >$D/backend
for w in busy hackbench; do
	t0=$(cut -d' ' -f1 /proc/uptime)
	sh /effect-$w.sh
	t1=$(cut -d' ' -f1 /proc/uptime)
	steps=$(cat $M/model_steps) maxt=$(cat $M/model_max) minf=$(cat $M/model_min_khz)
	info "calibration, $w under none: $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }') s, $steps model steps, hottest $maxt m°C, lowest limit $minf kHz"
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
echo 0 >$M/model
eq "bench put the backend back" "$(cat $D/backend)" "instant [pelt] decay none"
done_checks
