#!/bin/sh
# SPDX-License-Identifier: MIT
# `cap hold` and `cap restore` on a copy of the arm64 big.LITTLE fixture: a timed hold,
# SIGINT and SIGTERM put every limit back at once, kill -9 leaves them for `cap restore`.
# Usage: cap_hold.sh THERMPRESS FIXTURES_DIR.  Exits 77 (skipped) while the command
# table does not list `cap hold`.
T=$1
FIX=$2
pass=0 fail=0

if ! "$T" help cap hold >/dev/null 2>&1; then
	echo "skipped: this thermpress has no 'cap hold' command"
	exit 77
fi
R=$(mktemp -d /tmp/tp-caphold-XXXXXX) || exit 1
trap 'rm -rf "$R"' EXIT
cp -a "$FIX/arm64-biglittle-6.1/." "$R/"
export THERMPRESS_ROOT="$R"
unset THERMPRESS_STATE_DIR
LITTLE=$R/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq
BIG=$R/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq
COOL=$R/sys/class/thermal/cooling_device1/cur_state

check() {	# NAME EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $1: expected '$2', got '$3'"
	fi
}
limits() { echo "$(cat "$LITTLE") $(cat "$BIG") $(cat "$COOL")"; }
ORIG="1416000 1416000 2"

# wait until the hold has capped (its first output line), at most 5 s
start_hold() {
	rm -f "$R/out"
	"$T" cap hold "$@" >"$R/out" 2>&1 &
	HOLD=$!
	i=0
	while ! grep -q holding "$R/out" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

"$T" cap hold all 1008000 --for 200ms >/dev/null
check "timed hold exit" 0 $?
check "timed hold restores" "$ORIG" "$(limits)"

for sig in INT TERM; do
	start_hold 0-5 1008000
	check "SIG$sig hold caps" "1008000 1008000 2" "$(limits)"
	kill -$sig $HOLD
	wait $HOLD
	check "SIG$sig exit" 0 $?
	check "SIG$sig restores at once" "$ORIG" "$(limits)"
done

start_hold big 1008000 --via cooling
check "cooling hold caps" "1416000 1416000 4" "$(limits)"
kill -INT $HOLD
wait $HOLD
check "cooling hold restores" "$ORIG" "$(limits)"

start_hold all 1008000
kill -9 $HOLD
wait $HOLD 2>/dev/null
check "kill -9 leaves the caps" "1008000 1008000 2" "$(limits)"
check "state file kept" yes "$([ -f "$R/run/thermpress/caps.state" ] && echo yes)"
check "cap restore output" "restored 2 limits" "$("$T" cap restore)"
check "cap restore restores" "$ORIG" "$(limits)"
check "state file removed" no "$([ -f "$R/run/thermpress/caps.state" ] && echo yes || echo no)"
check "second restore" "nothing to restore" "$("$T" cap restore)"

"$T" cap hold all 1008000 --via fan >/dev/null 2>&1
check "bad method is a usage error" 2 $?
check "bad method changes nothing" "$ORIG" "$(limits)"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
