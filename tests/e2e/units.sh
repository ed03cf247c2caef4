#!/usr/bin/env bash
# Issue 28 §1, one rule whatever the spelling:
# - every duration option refuses a bare number and asks "did you mean 0.5s?" (top -d
#   alone takes a bare number, htop's tenths, and says so when it is wrong);
# - a cap outside the CPU's range is refused whatever its unit, with one range text;
# - replay --backends says when a decay period is rounded, in decay set's words.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$tmp"

# ---- durations: one rule ------------------------------------------------------
check_bare() {	# what-for: the command, the option's name, the bare number
	local name=$1 value=$2; shift 2
	RUN_TIMEOUT=20 run "$@"	# (the old rule ran export and cap hold for good)
	assert_rc 2 "$*: a bare number is a usage error"
	assert_contains "$err" "duration '$value' has no unit: did you mean ${value}s?" "$*: did you mean ${value}s?"
	assert_contains "$err" "$name" "$*: names $name"
	assert_eq "$(wc -l <<<"$err")" "1" "$*: one line"
}
check_bare --interval 0.5 "$TP" --sim record --interval 0.5 --duration 1s -o r.csv
[ ! -e r.csv ] && pass "record --interval 0.5: nothing written" || fail "record --interval 0.5: nothing written"
check_bare --duration 1 "$TP" --sim record --duration 1 -o r.csv
check_bare --interval 2 "$TP" --sim top --once --interval 2
check_bare --interval 15 "$TP" --sim export --textfile "$tmp" --interval 15
check_bare --for 3 "$TP" --sim cap hold big 60% --for 3
check_bare "sim advance" 100 "$TP" --sim --virtual-clock sim advance 100
printf '%s\n' "0, big, 60%" "500, big, clear" >p.prof
run "$TP" --sim cap play p.prof
assert_rc 2 "cap play: a bare TIME is refused"
assert_contains "$err" "duration '500' has no unit: did you mean 500s?" "cap play: the same words"

# with a unit, they run; 0.5s is half a second, not half a millisecond
run "$TP" --sim --virtual-clock record --interval 0.5s --duration 1s -o r.csv
assert_rc 0 "record --interval 0.5s --duration 1s"
rows=$(grep -vc '^#' r.csv || true)
cpus=8
assert_eq "$((rows <= 4 * cpus))" "1" "record --interval 0.5s: a few samples per cpu, not thousands ($rows rows)"
run "$TP" --sim top --once --interval 2s
assert_rc 0 "top --interval 2s"
assert_contains "$out" "interval 2 s" "top --interval 2s: 2 s"

# top -d: htop's tenths, and said so
run "$TP" --sim top --once -d 5
assert_rc 0 "top -d 5"
assert_contains "$out" "interval 500 ms" "top -d 5: tenths, 500 ms"
for bad in -3 0 x; do
	run "$TP" --sim top --once -d "$bad"
	assert_rc 2 "top -d $bad"
	assert_contains "$err" "invalid value '$bad' for -d (tenths of a second, as htop -d: 5 is 0.5s" \
		"top -d $bad: says it takes tenths"
done

# ---- caps: one range check, one range text ----------------------------------
range="(903000..2362000 kHz)"
for v in 600000 600MHz 0.6GHz 600000kHz; do
	run_stdin $'cap set big '"$v"$'\nshow cpu 4\n' "$TP" --sim
	assert_rc 2 "cap set big $v"
	assert_contains "$err" "600000 kHz is below cpu 4's lowest frequency $range" "cap set big $v: below, $range"
	assert_not_contains "$out" "600/2362" "cap set big $v: nothing capped"
done
run "$TP" --sim cap set big 1MHz
assert_rc 2 "cap set big 1MHz"
assert_contains "$err" "1000 kHz is below cpu 4's lowest frequency $range" "cap set big 1MHz: refused"
for v in 2.4GHz 2400000 2400MHz; do
	run "$TP" --sim cap set big "$v"
	assert_rc 2 "cap set big $v"
	assert_contains "$err" "2400000 kHz is above cpu 4's maximum $range" "cap set big $v: the same range"
done
run "$TP" --sim cap set big 10%
assert_rc 2 "cap set big 10%"
assert_contains "$err" "10% (236200 kHz) is below cpu 4's lowest frequency $range" "cap set big 10%: in kHz"
run "$TP" --sim cap set big cap=100
assert_rc 2 "cap set big cap=100"
assert_contains "$err" "is below cpu 4's lowest frequency $range" "cap set big cap=100: in kHz"
run "$TP" --sim cap hold big 600MHz --for 1ms
assert_rc 2 "cap hold big 600MHz"
assert_contains "$err" "600000 kHz is below cpu 4's lowest frequency $range" "cap hold: the same check"
printf '%s\n' "0, big, 600MHz" >low.prof
run "$TP" --sim cap play low.prof
assert_rc 2 "cap play with 600MHz"
assert_contains "$err" "600000 kHz is below cpu 4's lowest frequency $range" "cap play: the same check"
run_stdin $'cap set big 903MHz\nshow cpu 4\n' "$TP" --sim
assert_rc 0 "cap set big 903MHz: the lowest operating point"
assert_contains "$out" "903/2362" "cap set big 903MHz: applied"

# a stock kernel: its cpuinfo_min_freq, the same text
FIX=$(cd "$E2E_DIR/../fixtures/stock" && pwd)
cp -a "$FIX/arm64-biglittle-6.1" "$tmp/"
BL=$tmp/arm64-biglittle-6.1
POL=$BL/sys/devices/system/cpu/cpufreq
min4=$(cat "$POL/policy4/cpuinfo_min_freq")
max4=$(cat "$POL/policy4/cpuinfo_max_freq")
orig4=$(cat "$POL/policy4/scaling_max_freq")
run env -u THERMPRESS_STATE_DIR "$TP" --root "$BL" cap set big 1MHz
assert_rc 2 "stock: cap set big 1MHz"
assert_contains "$err" "1000 kHz is below cpu 4's lowest frequency ($min4..$max4 kHz)" "stock: the same text"
assert_eq "$(cat "$POL/policy4/scaling_max_freq")" "$orig4" "stock: refused, scaling_max_freq untouched"

# ---- decay periods: rounding said the same way everywhere -------------------
run "$TP" --sim --virtual-clock --scenario heat record --duration 2s -o t.csv
assert_rc 0 "record a trace"
run "$TP" replay t.csv --backends pelt:33,decay:250,pelt:64
assert_rc 0 "replay --backends pelt:33"
assert_eq "$(grep -c 'warning' <<<"$err")" "1" "replay: one warning, for pelt:33 only"
assert_contains "$err" "thermpress: warning: pelt has no decay period of 33 ms: 32 ms in force" \
	"replay --backends pelt:33: decay set's words"
run "$TP" --sim decay set 33
assert_contains "$err" "thermpress: warning: pelt has no decay period of 33 ms: 32 ms in force" \
	"decay set 33: the same words"

finish
