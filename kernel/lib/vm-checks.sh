# In-VM check helpers shared by kernel/vm-test.sh (x86, patched kernel) and
# kernel/arm64/vm-test.sh (arm64, stock kernel); sourced by busybox sh.
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
