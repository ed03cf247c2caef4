#!/bin/sh
# In-VM checks of one prefix of the patch series on the arm64 board
# (kernel/arm64/run.sh --patched --prefix N, run for every N by
# kernel/arm64/check-prefixes.sh): the kernel boots on the board and a cap through
# the big cluster's cooling device still lowers the capacity the scheduler uses.
# The series' debugfs interface comes only with patch 5, so the scheduler's view is
# read from tp_capacity_probe.ko: rq->cpu_capacity, as update_cpu_capacity() computes
# it from the averaged thermal pressure.  A prefix whose scheduler reads a store that
# nothing feeds keeps the capped CPU at 1024.
# Protocol: kernel/lib/vm-checks.sh.
. /vm-checks.sh
C=/sys/devices/system/cpu
P4=$C/cpufreq/policy4
CAP=/sys/module/tp_capacity_probe/parameters/capacity
info "kernel $(uname -r) ($TP_KERNEL)"
load_modules
[ -r $CAP ] || { bad "no $CAP"; done_checks; exit 1; }

# capacity_of CPU / updates_of CPU: the scheduler's last cpu_capacity of CPU, and how
# many times the load balancer computed it
capacity_of() { awk -v c="$1" '$1 == c { print $2 }' $CAP; }
updates_of() { awk -v c="$1" '$1 == c { print $3 }' $CAP; }
# fresh CPU SECONDS: wait SECONDS, then the capacity must have been computed again since
fresh() {
	u0=$(updates_of $1)
	sleep $2
	[ "$(updates_of $1)" -gt "$u0" ]
}
# in_range NAME VALUE LOW HIGH
in_range() {
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then ok "$1: $2 (want $3-$4)"
	else bad "$1: $2, want $3-$4"; fi
}

eq "8 cpus online" "$(cat $C/online)" 0-7
eq "capacities (little 462, big 1024)" "$(cat $C/cpu[0-7]/cpu_capacity | tr '\n' ' ')" "462 462 462 462 1024 1024 1024 1024 "
CD4=$(cdev_of 4)
[ -n "$CD4" ] || { bad "no cooling device cpufreq-cpu4: $(cat /sys/class/thermal/cooling_device*/type | tr '\n' ' ')"; done_checks; exit 1; }
ok "cooling device cpufreq-cpu4 ($CD4)"

# a busy CPU in each cluster: the load balancer runs there and recomputes their capacity
taskset -c 4 sh -c 'while :; do :; done' &
big=$!
taskset -c 0 sh -c 'while :; do :; done' &
little=$!
if fresh 4 1; then ok "the scheduler recomputes cpu4's capacity"; else bad "cpu4's capacity was not recomputed in 1 s"; fi
in_range "uncapped: big cpu4's capacity" "$(capacity_of 4)" 960 1024
in_range "uncapped: little cpu0's capacity" "$(capacity_of 0)" 430 462

# state 4: 903 MHz of 2362, capacity 1024 * 903000 / 2362000 = 391, pressure 633
echo 4 >$CD4/cur_state
eq "cur_state 4 caps policy4 to 903 MHz" "$(cat $P4/scaling_max_freq)" 903000
fresh 4 1.5 || bad "cpu4's capacity was not recomputed in 1.5 s under the cap"
in_range "capped (cur_state 4): big cpu4's capacity falls to the capped capacity" "$(capacity_of 4)" 300 420
in_range "capped big cluster: little cpu0 keeps its capacity" "$(capacity_of 0)" 430 462
info "capacities under the cap: $(awk '{ printf "%s:%s ", $1, $2 }' $CAP)"

echo 0 >$CD4/cur_state
eq "cur_state 0 lifts the cap" "$(cat $P4/scaling_max_freq)" 2362000
fresh 4 1.5 || bad "cpu4's capacity was not recomputed in 1.5 s after the cap"
in_range "cap cleared: big cpu4's capacity comes back" "$(capacity_of 4)" 960 1024

kill $big $little
wait 2>/dev/null
done_checks
