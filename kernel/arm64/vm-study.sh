#!/bin/sh
# In-VM part of kernel/arm64/study.sh (run.sh --patched --study): the slowing board's
# calibration, then one boot's share of the study, in the order /study-schedule.txt gives.
#
# tp_speed_report tells the host each CPU's frequency limit; the host slows that vCPU
# to capacity x f / f_max (board/board-speed.py).
#   calibration: each cluster's limit set to each OPP in turn (scaling_max_freq), the
#     same loop as the busy workload pinned to each CPU of it, five windows of TP_CAL_MS
#     ms: "TPCAL cpu capacity khz max_khz median w1 .. w5" (units per second); then all
#     eight CPUs at once at f_max:
#     "TPCALALL cpu capacity units_per_s"
#   study: the heat model of vm-effect.sh on the big cluster (tp_test_sensor.ko), and per
#     schedule line "INDEX WORKLOAD CONFIGURATION", from cold (50 C, cooling state 0,
#     one second idle), one run of thermpress bench (one
#     configuration, one run: it sets the backend, times the workload, measures the share
#     of CPU time on big and the migrations, and puts the backend back), printed as
#     "TPSTUDY BOOT INDEX WORKLOAD CONFIGURATION rc=RC JSON"
. /vm-checks.sh
C=/sys/devices/system/cpu
TH=/sys/class/thermal
D=/sys/kernel/debug/sched/thermal_pressure
M=/sys/module/tp_test_sensor/parameters
TEMP=$M/temp
info "kernel $(uname -r) ($TP_KERNEL), boot $TP_BOOT"
load_modules
CD4=""
for d in $TH/cooling_device*; do [ "$(cat $d/type)" = cpufreq-cpu4 ] && CD4=$d; done
[ -n "$CD4" ] && [ -d $D ] && [ -w $TEMP ] || { bad "board: cooling device, interface or sensor missing"; done_checks; exit 1; }
ok "board: big cooling device $CD4, interface, sensor"

tp_speed_report &
sleep 1

# ---- calibration -----------------------------------------------------------------------
if [ "${TP_CAL_MS:-0}" -gt 0 ]; then
	for pol in $C/cpufreq/policy*; do
		top=$(cat $pol/cpuinfo_max_freq)
		for f in $(cat $pol/scaling_available_frequencies); do
			echo $f >$pol/scaling_max_freq
			sleep 0.5	# the report, and the host's quota, follow within 20 ms
			for cpu in $(cat $pol/related_cpus); do	# the median of five windows
				rates=""
				for k in 1 2 3 4 5; do r=$(tp_work spin $cpu $TP_CAL_MS); rates="$rates ${r##*rate=}"; done
				r=$(echo $rates | tr ' ' '\n' | sort -n | sed -n 3p)
				echo "TPCAL $cpu $(cat $C/cpu$cpu/cpu_capacity) $(cat $pol/scaling_max_freq) $top $r$rates"
			done
		done
		echo $top >$pol/scaling_max_freq
	done
	sleep 0.5
	tp_work spin-all $TP_CAL_MS | sort -t= -k2 -n | while read -r c _ _ r; do
		cpu=${c#cpu=}
		echo "TPCALALL $cpu $(cat $C/cpu$cpu/cpu_capacity) ${r#rate=}"
	done
	ok "calibration done"
fi

# ---- study -------------------------------------------------------------------------------
# the workloads, as bench runs them (each run starts cold: see the loop)
echo "exec tp_work burn 4 $TP_BUSY_UNITS" >/study-busy.sh
echo "exec hackbench $TP_HACKBENCH_ARGS" >/study-hackbench.sh
echo 4-7 >$M/model_cpus
echo 50000 >$TEMP
if echo 1 >$M/model 2>/tmp/err; then ok "heat model on (cpus $(cat $M/model_cpus))"
else bad "heat model: $(cat /tmp/err)"; done_checks; exit 1; fi
n=0 nfail=0
while read -r idx w cfg; do
	[ -n "$idx" ] || continue
	# cold: the model's temperature and the cooling state reset, one second idle
	echo 50000 >$TEMP
	echo 0 >$CD4/cur_state
	sleep 1
	thermpress --json bench --runs 1 --backends "$cfg" -- sh /study-$w.sh </dev/null >/tmp/b.json 2>/tmp/b.err
	rc=$?
	echo "TPSTUDY $TP_BOOT $idx $w $cfg rc=$rc minkhz=$(cat $M/model_min_khz) $(tr -d '\n' </tmp/b.json)"
	n=$((n + 1))
	[ $rc = 0 ] || { nfail=$((nfail + 1)); info "run $idx ($w $cfg): $(tail -1 /tmp/b.err)"; }
done </study-schedule.txt
echo 0 >$M/model
eq "study runs that failed (of $n)" $nfail 0
done_checks
