#!/usr/bin/env bash
# A cap below the CPU's lowest frequency is refused, whatever its unit, where the source
# knows that frequency (the simulator's lowest operating point, a stock kernel's
# cpuinfo_min_freq), changing nothing; a bare number (kHz) with a hint.  Where the source
# does not know it (the patched interface), a frequency below a tenth of the maximum is
# applied with a warning.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/../support/patched_tree.sh"

# the simulator: hikey960's big cluster runs 903000..2362000 kHz
run "$TP" --sim cap set big 50
assert_rc 2 "sim: cap set big 50"
assert_contains "$err" "50 kHz is below cpu 4's lowest frequency (903000..2362000 kHz); did you mean 50%?" \
	"sim: cap set big 50: refused, did you mean 50%?"
run "$TP" --sim cap set big 1800
assert_rc 2 "sim: cap set big 1800"
assert_contains "$err" "did you mean 1800MHz?" "sim: cap set big 1800: did you mean 1800MHz?"
run "$TP" --sim cap set big 902999
assert_rc 2 "sim: 1 kHz below the lowest operating point"
assert_not_contains "$err" "did you mean" "sim: 902999: no hint that would not fit"
run_stdin $'cap set big 903000\nshow cpu 4\n' "$TP" --sim
assert_rc 0 "sim: cap set big 903000, the lowest operating point"
assert_contains "$out" "903/2362" "sim: capped at the lowest operating point"
assert_not_contains "$err" "kHz" "sim: at the lowest operating point, nothing said"
run "$TP" --sim cap set big 900MHz
assert_rc 2 "sim: cap set big 900MHz: a unit is checked the same"
assert_contains "$err" "900000 kHz is below cpu 4's lowest frequency (903000..2362000 kHz)" \
	"sim: cap set big 900MHz: the same range text"
run "$TP" --sim cap hold big 50 --for 1ms
assert_rc 2 "sim: cap hold big 50"
assert_contains "$err" "did you mean 50%?" "sim: cap hold big 50: refused too"

# a stock kernel: cpuinfo_min_freq; nothing written when refused
FIX=$(cd "$E2E_DIR/../fixtures/stock" && pwd)
cp -a "$FIX/arm64-biglittle-6.1" "$tmp/"
BL=$tmp/arm64-biglittle-6.1
POL=$BL/sys/devices/system/cpu/cpufreq
min4=$(cat "$POL/policy4/cpuinfo_min_freq")
orig4=$(cat "$POL/policy4/scaling_max_freq")
run env -u THERMPRESS_STATE_DIR "$TP" --root "$BL" cap set big 60
assert_rc 2 "stock: cap set big 60"
assert_contains "$err" "60 kHz is below cpu 4's lowest frequency ($min4.." "stock: cpuinfo_min_freq named"
assert_contains "$err" "did you mean 60%?" "stock: did you mean 60%?"
assert_eq "$(cat "$POL/policy4/scaling_max_freq")" "$orig4" "stock: refused, scaling_max_freq untouched"

# the patched interface gives no lowest frequency: applied, with a warning
PT=$tmp/patched
patched_tree "$PT" little
INJ=$PT/sys/kernel/debug/sched/thermal_pressure/inject
run "$TP" --root "$PT" cap set 2 50
assert_rc 0 "patched: cap set 2 50 applied"
assert_eq "$err" "thermpress: warning: 50 kHz is below a tenth of cpu 2's maximum (2362000 kHz), and its lowest frequency is unknown; did you mean 50%?" \
	"patched: the warning, with the hint"
assert_contains "$(cat "$INJ")" "50" "patched: the cap was written"
run "$TP" --root "$PT" cap set 2 1200000
assert_rc 0 "patched: cap set 2 1200000"
assert_eq "$err" "" "patched: a plausible frequency, nothing said"
run "$TP" --root "$PT" cap set 2 50%
assert_eq "$err" "" "patched: a percentage, nothing said"

finish
