# The stock-kernel source end to end: the real binary with --root on copies of the
# fixture trees (tests/fixtures/stock): notes, status, JSON, caps and refusals.
source "$(dirname "$0")/lib.sh"

FIX=$(cd "$E2E_DIR/../fixtures/stock" && pwd)
# Caps are recorded under ROOT/run/thermpress unless this says otherwise.
unset THERMPRESS_STATE_DIR
cp -a "$FIX/arm64-biglittle-6.1" "$FIX/x86-laptop-6.5" "$FIX/x86-qemu-7.3" "$tmp/"
BL=$tmp/arm64-biglittle-6.1
POL=$BL/sys/devices/system/cpu/cpufreq
COOL_BIG=$BL/sys/class/thermal/cooling_device1/cur_state
orig0=$(cat "$POL/policy0/scaling_max_freq")
orig4=$(cat "$POL/policy4/scaling_max_freq")
orig_cool=$(cat "$COOL_BIG")

# show backends without plugins: every backend thermpress knows, the kernel's active
mkdir "$tmp/noplugins"
run env THERMPRESS_PLUGIN_DIR="$tmp/noplugins" "$TP" --root "$BL" show backends
assert_rc 0 "show backends without plugins"
assert_eq "$(printf '%s\n' "$out" | awk 'NR > 1 {print $1, $2}' | tr '\n' ' ')" "instant no pelt yes decay no none no " \
	"show backends without plugins: the known four, pelt active"

# show: the table, the estimate marker, the notes and the kernel's model
run "$TP" --root "$BL" show
assert_rc 0 "big.LITTLE: show"
assert_match "$out" $'\n   4  big +yes .*~[0-9]+' "show: avg_pressure marked ~"
assert_contains "$out" "~ estimated: the source does not report it" "show: the estimate legend"
assert_contains "$out" "note: on this kernel only the cpufreq cooling device feeds thermal pressure" \
	"show: the note on scaling_max_freq caps"
assert_match "$out" $'\nkernel: linux 6.1.0-18-arm64 on aarch64: .*PELT.*\\(half-life 128 ms' \
	"show: the kernel model line"
# the kernel's own average cannot be read under a fixture root: one line says why
if [ "${THERMPRESS_TEST_BPF:-1}" = 1 ]; then
	kavg_why="not read (no BTF at $BL/sys/kernel/btf/vmlinux); estimated"
else
	kavg_why="not read (thermpress was built without BPF support); estimated"
fi
assert_contains "$out" $'\n'"kernel average: $kavg_why" "show: why the kernel's average is estimated"
run "$TP" --root "$BL" show cpu big
assert_rc 0 "show cpu big"
assert_contains "$out" "kernel: linux 6.1.0-18-arm64" "show cpu: the kernel model line"
assert_not_contains "$out" "   0  little" "show cpu big: only big"

# show status: the stock facts
run "$TP" --root "$BL" show status
assert_rc 0 "show status"
assert_contains "$out" "kernel model:      linux 6.1.0-18-arm64" "status: kernel model"
assert_contains "$out" "decay shift:       2 (sched_thermal_decay_shift= on /proc/cmdline)" \
	"status: decay shift and where it came from"
assert_match "$out" "thermal zone: +thermal_zone0 cpu-thermal [0-9.]+ C, trips: passive" \
	"status: thermal zone with trips"
assert_match "$out" "cooling device: +cooling_device1 cpufreq-cpu4 \\(policy4\\) state $orig_cool/[0-9]+ -> cap [0-9.]+ MHz" \
	"status: cpufreq cooling device"
assert_contains "$out" "tracefs:           thermal_pressure_update present, hw_pressure_update absent" \
	"status: tracefs events"
assert_contains "$out" "kernel average:    $kavg_why" "status: why the kernel's average is estimated"
assert_contains "$out" "cap method:        scaling_max_freq" "status: cap method"
assert_contains "$out" "state file:        $BL/run/thermpress/caps.state" "status: state file"
assert_contains "$out" "pending:           none" "status: nothing pending"

# JSON
run "$TP" --root "$BL" show --json
assert_rc 0 "show --json"
json_check "$out" 'd["source"]["kind"] == "stock" and all(c["avg_estimated"] for c in d["cpus"])' \
	"json: stock source, estimated averages"
json_check "$out" 'd["stock"]["model"] == "thermal_pelt" and d["stock"]["decay_shift"] == 2 and d["stock"]["decay_shift_from_cmdline"] is True' \
	"json: model and decay shift"
json_check "$out" 'len(d["stock"]["notes"]) >= 1 and d["stock"]["model_text"].startswith("linux 6.1.0-18-arm64")' \
	"json: notes and model text"
json_check "$out" 'set(d["stock"]) == {"release","arch","model","model_text","decay_shift","decay_shift_from_cmdline","has_cpufreq","has_cpu_capacity","uses_libcpupower","thermal_zones","cooling_devices","trace_events","kernel_avg_read","kernel_avg","cap_method","state_file","nr_pending","notes","version_sublevel","config_file","reference_rule","reference","reference_assumed","nr_pending_scaling","nr_pending_cooling"}' \
	"json: stock fields"
KAVG_WHY=$kavg_why json_check "$out" 'd["stock"]["kernel_avg_read"] is False and d["stock"]["kernel_avg"] == __import__("os").environ["KAVG_WHY"]' \
	"json: the kernel's average not read, and why"
THERMPRESS_NO_BPF=1 run "$TP" --root "$BL" show status
if [ "${THERMPRESS_TEST_BPF:-1}" = 1 ]; then
	assert_contains "$out" "kernel average:    not read (THERMPRESS_NO_BPF is set); estimated" \
		"status: THERMPRESS_NO_BPF turns the BPF reading off"
fi
# only a missing value is null: a cooling state the driver reports as negative is
# shown as it is, in the text and in JSON (docs/values.md)
cool1=$(cat "$COOL_BIG")
echo -3 >"$COOL_BIG"
run "$TP" --root "$BL" show status
assert_contains "$out" "state -3/7" "status: a negative cooling state is shown as it is"
run "$TP" --root "$BL" show status --json
json_check "$out" '[c["cur_state"] for c in d["stock"]["cooling_devices"] if c["id"] == 1] == [-3]' \
	"json: a negative cooling state is a value, not null"
echo "$cool1" >"$COOL_BIG"
run "$TP" --root "$BL" --json show status
json_check "$out" 'd["stock"]["thermal_zones"][0]["type"] == "cpu-thermal" and d["stock"]["thermal_zones"][0]["trips"][0]["type"] == "passive"' \
	"json status: thermal zones"
json_check "$out" '[c["domain_id"] for c in d["stock"]["cooling_devices"]] == [0, 4] and d["stock"]["trace_events"]["thermal_pressure_update"] is True and d["stock"]["nr_pending"] == 0' \
	"json status: cooling devices, tracefs, nothing pending"
run "$TP" --root "$BL" show cpu 4 --json
json_check "$out" '[c["cpu"] for c in d["cpus"]] == [4] and d["stock"]["cap_method"] == "scaling_max_freq"' \
	"json show cpu: stock object"
run "$TP" --sim --json show
json_check "$out" '"stock" not in d' "json: no stock object on the simulator"

# cap set big 50% through scaling_max_freq, then clear all
run "$TP" --root "$BL" cap set big 50%
assert_rc 0 "cap set big 50%"
assert_eq "$(cat "$POL/policy4/scaling_max_freq")" "900000" "cap set: policy4 capped"
run "$TP" --root "$BL" show cpu big
assert_match "$out" "   4  big +yes +[0-9]+ +1024 +900/1800" "show: big capped at 900 MHz"
run "$TP" --root "$BL" show status
assert_contains "$out" "pending:           1 limit pending (run 'thermpress cap restore')" \
	"status: the pending limit"
run "$TP" --root "$BL" cap clear all
assert_rc 0 "cap clear all"
assert_eq "$(cat "$POL/policy0/scaling_max_freq")" "$orig0" "cap clear: policy0 as before"
assert_eq "$(cat "$POL/policy4/scaling_max_freq")" "$orig4" "cap clear: policy4 as before"
run "$TP" --root "$BL" show status
assert_contains "$out" "pending:           none" "cap clear: nothing pending"

# --via cooling
run "$TP" --root "$BL" cap set big 50% --via cooling
assert_rc 0 "cap set big 50% --via cooling"
assert_eq "$(cat "$POL/policy4/scaling_max_freq")" "$orig4" "--via cooling: scaling_max_freq untouched"
new_cool=$(cat "$COOL_BIG")
if [ "$new_cool" -gt "$orig_cool" ]; then pass "--via cooling: cur_state raised ($orig_cool -> $new_cool)"
else fail "--via cooling: cur_state $new_cool, was $orig_cool"; fi
run "$TP" --root "$BL" show cpu 4
assert_match "$out" "   4  big +yes +[0-9]+ +1024 +[0-9]+/1800 +[0-9]+" "--via cooling: shown"
# another process's status: the method of the cap in force, from the state file
run "$TP" --root "$BL" show status
assert_contains "$out" "cap method:        cooling in force (1); next cap: scaling_max_freq" \
	"status: the cap method in force, not only the default"
run "$TP" --root "$BL" cap clear big --via cooling
assert_rc 0 "cap clear big --via cooling"
assert_eq "$(cat "$COOL_BIG")" "$orig_cool" "cap clear --via cooling: cur_state as before"
run "$TP" --root "$BL" cap set big 50% --via fan
assert_rc 2 "--via with an unknown method"
assert_contains "$err" "unknown cap method 'fan'" "--via fan: message"
run "$TP" --sim cap set 0 50% --via cooling
assert_rc 2 "--via on the simulator"
assert_contains "$err" "--via only applies to a stock kernel" "--via on the simulator: message"
run "$TP" --sim cap clear 0 --via scaling_max_freq
assert_rc 2 "cap clear --via on the simulator"

# a refused backend switch
run "$TP" --root "$BL" backend set decay
assert_rc 1 "backend set decay refused"
assert_contains "$err" "cannot switch to decay" "backend set: says what the kernel does"
assert_contains "$err" "thermpress-patched kernel" "backend set: names what is needed"
run "$TP" --root "$BL" show
assert_contains "$out" "backend: pelt" "backend set: nothing changed"

# the x86 laptop, and a machine without cpufreq (Debian's amd64 7.3 in a qemu guest)
run "$TP" --root "$tmp/x86-laptop-6.5" show
assert_rc 0 "x86 laptop: show"
assert_contains "$out" "note: no cpu_capacity in sysfs: every cpu is taken to have capacity 1024" \
	"x86 laptop: the cpu_capacity note"
assert_contains "$out" "kernel: linux 6.5.0-44-generic on x86_64: pressure: nothing: the scheduler gets no thermal pressure" \
	"x86 laptop: the kernel model"
# x86 keeps no averaged pressure: none (null, '-'), not an estimated 0
assert_match "$out" $'\n   0  cluster0  yes +1024 +1024 +4700/4700 +400 +0 +-\n' "x86 laptop: AVG is -, not ~0"
assert_not_contains "$out" "~ estimated" "x86 laptop: nothing estimated"
run "$TP" --root "$tmp/x86-laptop-6.5" show --json
json_check "$out" 'all(c["avg_pressure"] is None and c["avg_estimated"] is False and c["pressure"] == 0 and c["capacity"] == 1024 for c in d["cpus"])' \
	"x86 laptop json: avg_pressure null, not estimated"
run "$TP" --root "$tmp/x86-qemu-7.3" show
assert_rc 0 "no cpufreq: show"
# no cpufreq: no policy, so no domain (not one invented cluster per cpu)
assert_not_contains "$out" "cluster" "no cpufreq: no invented domains"
assert_match "$out" $'\n   1  -  +yes ' "no cpufreq: the domain is -"
assert_contains "$out" "note: no cpufreq on this machine" "no cpufreq: said"
assert_contains "$out" "still shown: the cpus" "no cpufreq: what is still shown"
assert_contains "$out" "note: no thermal zones in $tmp/x86-qemu-7.3/sys/class/thermal" "no cpufreq: no thermal zones"
run "$TP" --root "$tmp/x86-qemu-7.3" show --json
json_check "$out" 'd["domains"] == [] and all(c["domain"] is None and c["domain_id"] is None for c in d["cpus"]) and len(d["cpus"]) == 2' \
	"no cpufreq json: no domains, every cpu's domain null"
run "$TP" --root "$tmp/x86-qemu-7.3" show status
assert_contains "$out" "thermal zones:     none" "no cpufreq status: no thermal zones"
assert_contains "$out" "tracefs:           thermal_pressure_update absent, hw_pressure_update absent" "no cpufreq status: tracefs read"

finish
