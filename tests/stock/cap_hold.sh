#!/bin/bash
# SPDX-License-Identifier: MIT
# `cap hold`, `cap play`, `cap restore` on a copy of the arm64 big.LITTLE fixture:
# every stop signal (INT, TERM, HUP, QUIT, a closed output pipe) puts every limit back
# and ends as the signal would; a hold puts back an earlier `cap set`; kill -9 leaves
# the limits for `cap restore`; the state file survives damage and is not attackable.
# Usage: cap_hold.sh THERMPRESS FIXTURES_DIR.
# The signals sent below must reach thermpress as they would from a terminal, whatever
# this script inherited (nohup ignores SIGHUP, a background job SIGINT and SIGQUIT).
[ -n "${THERMPRESS_SIGNALS_DEFAULT:-}" ] ||
	THERMPRESS_SIGNALS_DEFAULT=1 exec env --default-signal=HUP,INT,QUIT,TERM bash "$0" "$@"
T=$(realpath "$1")
FIX=$(realpath "$2")
pass=0 fail=0

R=$(mktemp -d /tmp/tp-caphold-XXXXXX) || exit 1
OUT=$(mktemp -d /tmp/tp-caphold-outside-XXXXXX) || exit 1	# outside the root
trap 'rm -rf "$R" "$OUT"' EXIT
cp -a "$FIX/arm64-biglittle-6.1/." "$R/"
export THERMPRESS_ROOT="$R"
unset THERMPRESS_STATE_DIR
LITTLE=$R/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq
BIG=$R/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq
COOL=$R/sys/class/thermal/cooling_device1/cur_state
STATE=$R/run/thermpress/caps.state

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

# wait until the hold has capped (its first output line), at most 20 s (a loaded machine
# may take seconds to start one; 5 s was once too short with the whole suite running)
wait_for() {	# FILE WORD
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
# reap PID: its exit status; one that does not end within 10 s is killed (status 255)
reap() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 "$1" 2>/dev/null; then
		echo "FAIL: pid $1 ($2) did not end: killed"
		kill -9 "$1"
		wait "$1" 2>/dev/null
		return 255
	fi
	wait "$1"
}
start_hold() {
	rm -f "$R/out"
	"$T" cap hold "$@" >"$R/out" 2>&1 &
	HOLD=$!
	wait_for "$R/out" holding
}

"$T" cap hold all 1008000 --for 200ms >/dev/null
check "timed hold exit" 0 $?
check "timed hold restores" "$ORIG" "$(limits)"

# every stop signal: the limits are back at once, then the exit status is 128 + signal
for sig in INT TERM HUP QUIT; do
	start_hold 0-5 1008000
	check "SIG$sig hold caps" "1008000 1008000 2" "$(limits)"
	kill -$sig $HOLD
	reap $HOLD "cap hold after SIG$sig"
	rc=$?
	check "SIG$sig exit status" $((128 + $(kill -l $sig))) $rc
	check "SIG$sig restores at once" "$ORIG" "$(limits)"
	check "SIG$sig leaves no record" no "$([ -f "$STATE" ] && echo yes || echo no)"
done

# a closed output pipe while nothing is written: the reader goes away, the caps come back
rm -f "$R/pipe.rc"
( "$T" cap hold all 1008000 --for 8s; echo $? >"$R/pipe.rc" ) | head -c1 >/dev/null
i=0
while [ ! -s "$R/pipe.rc" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check "closed pipe: restored within 5 s" yes "$([ -s "$R/pipe.rc" ] && echo yes || echo no)"
while [ ! -s "$R/pipe.rc" ]; do sleep 0.2; done
check "closed pipe: exit status 141 (SIGPIPE)" 141 "$(cat "$R/pipe.rc" 2>/dev/null)"
check "closed pipe restores" "$ORIG" "$(limits)"

# cap play gets the same treatment
printf '%s\n' "0, all, 1008000" "30s, all, clear" >"$R/long.prof"
for sig in INT HUP; do
	"$T" cap play "$R/long.prof" 2>"$R/play.err" &
	P=$!
	i=0
	while [ "$(cat "$BIG")" != 1008000 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	kill -$sig $P
	reap $P "cap play after SIG$sig"
	rc=$?
	check "cap play SIG$sig exit status" $((128 + $(kill -l $sig))) $rc
	check "cap play SIG$sig restores" "$ORIG" "$(limits)"
done

start_hold big 1008000 --via cooling
check "cooling hold caps" "1416000 1416000 4" "$(limits)"
kill -INT $HOLD
reap $HOLD "cooling hold"
check "cooling hold restores" "$ORIG" "$(limits)"

# a real kernel shows a cooling device's cap in scaling_max_freq (the effective limit):
# a hold through the cooling device must not write that back as a lasting limit, nor
# leave a record of it for a later cap restore (seen on the arm64 board)
start_hold big 1008000 --via cooling
echo 1008000 >"$BIG"
kill -INT $HOLD
reap $HOLD "cooling hold, kernel-style scaling_max_freq"
check "cooling hold leaves scaling_max_freq to the kernel" 1008000 "$(cat "$BIG")"
check "cooling hold leaves no scaling_max_freq record" "nothing to restore" "$("$T" cap restore)"
echo 1416000 >"$BIG"		# the kernel lifts it with the cooling state

# a hold puts back what was in force before it: an earlier cap set stays
"$T" cap set big 1200000
start_hold big 1008000
check "hold over a cap set caps" "1416000 1008000 2" "$(limits)"
kill -TERM $HOLD
reap $HOLD "hold over cap set"
check "hold puts the earlier cap set back" "1416000 1200000 2" "$(limits)"
check "the cap set is still recorded" "restored 1 limit" "$("$T" cap restore)"
check "and restored" "$ORIG" "$(limits)"

# holds nest (docs/state.md): A then B on the big policy; each end leaves the most recent
# live holder's limit, the last one what was there before the first; kill -9 of a holder,
# cap restore (which leaves the live holder's limit), then the other's end
start_nested() {	# NAME KHZ: a hold of big in the background, its pid in NAME
	rm -f "$R/$1.out"
	"$T" cap hold big "$2" >"$R/$1.out" 2>&1 &
	eval "$1=$!"
	wait_for "$R/$1.out" holding
}
# each pair A KHZ_A, then B KHZ_B (in force: LIMIT_B), in both orders of ending; a hold at
# the top frequency (100%) is a hold like any other (once recorded as a clear, outside
# the ledger: A's end then put the limit from before over B's, B's end A's over that)
"$T" cap set big 1200000
for pair in "1104000 1008000 1008000" "1008000 100% 1800000"; do
	read -r ka kb lb <<<"$pair"
	start_nested A "$ka"
	start_nested B "$kb"
	check "holds $ka then $kb: the most recent is in force" "1416000 $lb 2" "$(limits)"
	kill -INT $A; reap $A "nested hold A $ka"
	check "holds $ka then $kb, A ends first: B's limit stays" "1416000 $lb 2" "$(limits)"
	kill -TERM $B; reap $B "nested hold B $kb"
	check "holds $ka then $kb, B ends last: the limit from before the first hold" \
		"1416000 1200000 2" "$(limits)"
	start_nested A "$ka"
	start_nested B "$kb"
	kill -INT $B; reap $B "nested hold B $kb"
	check "holds $ka then $kb, B ends first: A's limit is back" "1416000 $ka 2" "$(limits)"
	kill -INT $A; reap $A "nested hold A $ka"
	check "holds $ka then $kb, A ends last: the limit from before the first hold" \
		"1416000 1200000 2" "$(limits)"
done
start_nested A 1104000
start_nested B 1008000
kill -9 $A; wait $A 2>/dev/null
"$T" cap restore >/dev/null
check "A killed, cap restore: the live holder B's limit stays" "1416000 1008000 2" "$(limits)"
kill -INT $B; reap $B "nested hold B"
check "B ends after A was killed: the limit from before the first hold" "1416000 1200000 2" "$(limits)"
# cap play is a holder too: a hold that ends while it plays leaves the player's cap, and
# the player's end puts back what was there before the first (not the ended hold's cap)
"$T" cap set big 1200000
start_nested A 1008000
printf '%s\n' "0, big, 1104000" "2s, big, 1104000" >"$R/nest.prof"
"$T" cap play "$R/nest.prof" >"$R/play.out" 2>&1 &
PLAY=$!
for _ in $(seq 100); do [ "$(cat "$BIG")" = 1104000 ] && break; sleep 0.05; done
kill -INT $A; reap $A "hold A under cap play"
check "a hold ends while cap play plays: the player's cap stays" "1416000 1104000 2" "$(limits)"
wait $PLAY
check "cap play ends last: exit 0" 0 $?
check "cap play ends last: the limit from before the first hold" "1416000 1200000 2" "$(limits)"
"$T" cap clear big

# the state directory swapped for a symbolic link while a holder holds: it keeps the
# directory it opened at its start and puts its limit back
start_nested A 1008000
mv "$R/run/thermpress" "$R/run/thermpress.moved"
mkdir -m 700 "$OUT/elsewhere"
ln -s "$OUT/elsewhere" "$R/run/thermpress"
kill -INT $A; reap $A "hold, state directory swapped"
check "state directory swapped for a link: exit 130" 130 $?
check "state directory swapped for a link: the limit is back" "$ORIG" "$(limits)"
rm "$R/run/thermpress"
mv "$R/run/thermpress.moved" "$R/run/thermpress"
check "state directory swapped for a link: nothing left" "nothing to restore" "$("$T" cap restore)"

# the same on the in-process simulator (one script: one simulator)
printf '%s\n' "cap set big 1.5GHz" "cap hold big 1GHz --for 100ms" "show --json" >"$R/hold.tp"
check "in-process simulator: hold puts back a cap set" "1500000 1500000 1500000 1500000" \
	"$("$T" --sim -f "$R/hold.tp" | sed -n '/^{/,$p' | python3 -c '
import json, sys
print(*[c["capped_freq_khz"] for c in json.load(sys.stdin)["cpus"][4:]])')"

# an admin limit below the maximum: cap play leaves no record behind that a later
# cap restore would replay over a newer admin limit
echo 1300000 >"$BIG"
printf '%s\n' "0, big, 1008000" >"$R/short.prof"
"$T" cap play "$R/short.prof"
check "cap play puts the admin limit back" 1300000 "$(cat "$BIG")"
echo 1100000 >"$BIG"		# the admin changes it later
check "no stale record after cap play" "nothing to restore" "$("$T" cap restore)"
check "the newer admin limit stays" 1100000 "$(cat "$BIG")"
echo 1416000 >"$BIG"

start_hold all 1008000
kill -9 $HOLD
wait $HOLD 2>/dev/null
check "kill -9 leaves the caps" "1008000 1008000 2" "$(limits)"
check "state file kept" yes "$([ -f "$STATE" ] && echo yes)"
check "cap restore output" "restored 2 limits" "$("$T" cap restore)"
check "cap restore restores" "$ORIG" "$(limits)"
check "state file removed" no "$([ -f "$STATE" ] && echo yes || echo no)"
check "second restore" "nothing to restore" "$("$T" cap restore)"

# the same root named two ways is one root
cd "$R/.." || exit 1
"$T" --root "$(basename "$R")" cap set big 1008000
check "relative root records" yes "$([ -f "$STATE" ] && echo yes)"
check "absolute root restores it" "restored 1 limit" "$("$T" --root "$R" cap restore)"
check "root named two ways: restored" "$ORIG" "$(limits)"
check "root line is canonical" no "$(grep -q "^root $(basename "$R")\$" "$STATE" 2>/dev/null && echo yes || echo no)"
cd / || exit 1

# a torn or damaged line does not block the intact ones
mkdir -p "$(dirname "$STATE")"
echo 1008000 >"$LITTLE"
echo 1008000 >"$BIG"
printf 'thermpress-caps 1\nroot %s\nscaling_max_freq 0 1416000 1008000\nscaling_max_freq 4 14160' "$R" >"$STATE"
out=$("$T" cap restore 2>"$R/err")
check "torn line: the intact entry is restored" "restored 1 limit" "$out"
check "torn line: named" "thermpress: warning: line 4 of $STATE was damaged and was left out" "$(cat "$R/err")"
check "torn line: little back, big untouched" "1416000 1008000 2" "$(limits)"
printf 'thermpress-caps 1\nroot %s\nscaling_max_freq x 1 1\nscaling_max_freq 4 1416000 1008000\n' "$R" >"$STATE"
out=$("$T" cap restore 2>"$R/err")
check "garbage line: the intact entry is restored" "restored 1 limit" "$out"
check "garbage line: named" "thermpress: warning: line 3 of $STATE was damaged and was left out" "$(cat "$R/err")"
check "garbage line: restored" "$ORIG" "$(limits)"
check "damaged lines removed" no "$([ -f "$STATE" ] && echo yes || echo no)"

# an unreadable state file is an error, never "pending: none"
printf 'thermpress-caps 1\nroot %s\nscaling_max_freq 4 1416000 1008000\n' "$R" >"$STATE"
chmod 000 "$STATE"
if [ "$(id -u)" = 0 ]; then
	# root reads anything: make it unreadable another way (a directory in its place)
	chmod 644 "$STATE"; mv "$STATE" "$R/keep"; mkdir "$STATE"
fi
"$T" show status >"$R/out" 2>"$R/err"
check "unreadable: show status fails" 1 $?
check "unreadable: show status names the file" yes "$(grep -q "$STATE" "$R/err" && echo yes || echo no)"
check "unreadable: no pending none" no "$(grep -q 'pending: *none' "$R/out" && echo yes || echo no)"
"$T" cap restore >"$R/out" 2>"$R/err"
check "unreadable: cap restore fails" 1 $?
check "unreadable: not nothing to restore" "" "$(cat "$R/out")"
rm -rf "$STATE"; mv "$R/keep" "$STATE" 2>/dev/null; rm -f "$STATE"

# a state file or directory that is a symlink is refused, its target untouched
echo "precious" >"$R/outside"
ln -s "$R/outside" "$STATE"
"$T" cap set big 1008000 2>"$R/err"
check "state file symlink: refused" 1 $?
check "state file symlink: target untouched" precious "$(cat "$R/outside")"
check "state file symlink: no cap" "$ORIG" "$(limits)"
rm -f "$STATE"
ln -s "$R/planted" "$STATE"		# dangling: it would be created through the link
"$T" cap set big 1008000 2>"$R/err"
check "dangling state file symlink: refused" 1 $?
check "dangling state file symlink: nothing created" no "$([ -e "$R/planted" ] && echo yes || echo no)"
check "dangling state file symlink: no cap" "$ORIG" "$(limits)"
rm -f "$STATE"
mv "$R/run/thermpress" "$R/run/thermpress.real"
mkdir "$R/elsewhere"
ln -s "$R/elsewhere" "$R/run/thermpress"
"$T" cap set big 1008000 2>"$R/err"
check "state directory symlink: refused" 1 $?
check "state directory symlink: says so" yes "$(grep -q 'symbolic link' "$R/err" && echo yes || echo no)"
check "state directory symlink: nothing written there" "" "$(ls "$R/elsewhere")"
check "state directory symlink: no cap" "$ORIG" "$(limits)"
rm "$R/run/thermpress"
mv "$R/run/thermpress.real" "$R/run/thermpress"

# no write follows a symlink out of the root: a limit file, or a directory above it,
# that leads outside is refused and the outside file is unchanged
echo 1416000 >"$OUT/max"
echo 2 >"$OUT/cur_state"
mv "$BIG" "$BIG.real"
ln -s "$OUT/max" "$BIG"			# absolute
"$T" cap set big 1008000 2>"$R/err"
check "limit symlink out of the root: refused" 1 $?
check "limit symlink out of the root: named" yes "$(grep -q 'outside the root' "$R/err" && echo yes || echo no)"
check "limit symlink out of the root: outside file unchanged" 1416000 "$(cat "$OUT/max")"
check "limit symlink out of the root: nothing recorded" "nothing to restore" "$("$T" cap restore)"
rm "$BIG"
mv "$BIG.real" "$BIG"
mv "$COOL" "$COOL.real"
ln -s "../../../../../$(basename "$OUT")/cur_state" "$COOL"	# relative, climbing out
"$T" cap set big 1008000 --via cooling 2>"$R/err"
check "cooling state symlink out of the root: refused" 1 $?
check "cooling state symlink out of the root: outside file unchanged" 2 "$(cat "$OUT/cur_state")"
rm "$COOL"
mv "$COOL.real" "$COOL"
POL=$R/sys/devices/system/cpu/cpufreq/policy4
cp -a "$POL" "$OUT/policy4"
mv "$POL" "$POL.real"
ln -s "$OUT/policy4" "$POL"		# a parent directory
"$T" cap set big 1008000 2>"$R/err"
check "parent directory symlink out of the root: refused" 1 $?
check "parent directory symlink out of the root: outside file unchanged" 1416000 \
	"$(cat "$OUT/policy4/scaling_max_freq")"
rm "$POL"
mv "$POL.real" "$POL"
check "symlink refusals leave the limits" "$ORIG" "$(limits)"

"$T" cap hold all 1008000 --via fan >/dev/null 2>&1
check "bad method is a usage error" 2 $?
check "bad method changes nothing" "$ORIG" "$(limits)"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
