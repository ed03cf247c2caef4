#!/bin/bash
# selftest.sh: board-speed.py against a stand-in for qemu (a process whose threads are
# named "CPU 0/TCG" and "CPU 1/TCG" and a console file it writes TPSPEED lines to):
# the quotas it sets, the host settings it puts back, and its clean-up when qemu exits
# and when it is signalled.  Needs root and the cgroup v1 cpu controller, as the board
# does; kernel/arm64/study.sh runs it before the boots.
# Output: "ok ..." / "FAIL ..." lines, then "N passed, N failed"; exit 1 on a failure.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d) || exit 2
fake=""
trap '[ -n "$fake" ] && kill "$fake" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
expect() { if [ "$2" = "$3" ]; then ok "$1: $3"; else bad "$1: got '$3', want '$2'"; fi; }
slice=/proc/sys/kernel/sched_cfs_bandwidth_slice_us
slice_before=$(cat $slice)

# a stand-in for qemu: two named threads, a pidfile, and a console it appends to while it
# lives (it exits when $tmp/stop appears)
cat >"$tmp/fake.py" <<'EOF2'
import os, sys, threading, time
tmp = sys.argv[1]
def vcpu(n):
    with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as f:
        f.write(f"CPU {n}/TCG")
    while not os.path.exists(f"{tmp}/stop"):
        time.sleep(0.01)
ts = [threading.Thread(target=vcpu, args=(n,)) for n in (0, 1)]
for t in ts:
    t.start()
time.sleep(0.1)
with open(f"{tmp}/qemu.pid", "w") as f:
    f.write(str(os.getpid()))
for t in ts:
    t.join()
EOF2
start() {	# the stand-in and board-speed.py, the first report written
	rm -f "$tmp/stop" "$tmp/qemu.pid"
	: >"$tmp/console"
	python3 "$tmp/fake.py" "$tmp" &
	fake=$!
	python3 "$here/board-speed.py" --console "$tmp/console" --pidfile "$tmp/qemu.pid" \
		--log "$tmp/log" --period-us 32000 --full 0.25 --offset-us 200 &
	speed=$!
	for _ in $(seq 100); do [ -d /sys/fs/cgroup/cpu/thermpress-board-$fake/cpu1 ] && break; sleep 0.05; done
	printf 'boot noise\nTPSPEED 1 2 1024:2362000:2362000 462:1844000:1844000\n' >>"$tmp/console"
	sleep 0.3
}
g=/sys/fs/cgroup/cpu/thermpress-board

start
g="$g-$fake"
expect "a group per vCPU thread" "cpu0 cpu1" "$(ls "$g" 2>/dev/null | grep -x 'cpu[0-9]' | tr '\n' ' ' | sed 's/ $//')"
expect "big CPU at f_max: 32 ms x 0.25 + 200 us" 8200 "$(cat "$g/cpu0/cpu.cfs_quota_us" 2>/dev/null)"
expect "little CPU at f_max: x 462/1024" 3809 "$(cat "$g/cpu1/cpu.cfs_quota_us" 2>/dev/null)"
expect "the period" 32000 "$(cat "$g/cpu0/cpu.cfs_period_us" 2>/dev/null)"
expect "the bandwidth slice while it runs" 1000 "$(cat $slice)"
tid0=$(cat "$g/cpu0/tasks" 2>/dev/null)
expect "the vCPU thread is in its group" "CPU 0/TCG" "$(cat /proc/$fake/task/$tid0/comm 2>/dev/null)"
printf 'TPSPEED 2 2 1024:903000:2362000 462:1844000:1844000\nTPSPEED 3 2 1024:90' >>"$tmp/console"
sleep 0.3
expect "a cap follows: x 903/2362" 3258 "$(cat "$g/cpu0/cpu.cfs_quota_us" 2>/dev/null)"
printf '3000:2362000 462:1844000:1844000\n' >>"$tmp/console"	# the line, completed
sleep 0.3
expect "a line read in two pieces" 3258 "$(cat "$g/cpu0/cpu.cfs_quota_us" 2>/dev/null)"
printf 'TPSPEED 4 3 1024:2362000:2362000 462:533000:1844000\n' >>"$tmp/console"
sleep 0.3
expect "a line whose count is wrong changes nothing" 3809 "$(cat "$g/cpu1/cpu.cfs_quota_us" 2>/dev/null)"
kill -TERM $speed
wait $speed
expect "SIGTERM: exit status 128 + 15" 143 $?
[ -d "$g" ] && bad "SIGTERM: $g is left" || ok "SIGTERM: the groups are removed"
expect "SIGTERM: the bandwidth slice is put back" "$slice_before" "$(cat $slice)"
expect "SIGTERM: the thread is back in its group" "$(grep ':cpu:' /proc/self/cgroup | cut -d: -f3)" \
	"$(grep ':cpu:' /proc/$fake/task/$tid0/cgroup | cut -d: -f3)"
touch "$tmp/stop"
wait $fake

start
touch "$tmp/stop"	# qemu exits
wait $fake
fake=""
wait $speed
expect "qemu gone: board-speed.py exits 0" 0 $?
ls -d /sys/fs/cgroup/cpu/thermpress-board-* >/dev/null 2>&1 && bad "qemu gone: a group is left" || ok "qemu gone: the groups are removed"
expect "qemu gone: the bandwidth slice is put back" "$slice_before" "$(cat $slice)"
grep -q "^# cpu0 cpu.stat: nr_periods" "$tmp/log" && ok "each group's cpu.stat is logged" || bad "no cpu.stat in the log"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
