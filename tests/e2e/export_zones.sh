#!/usr/bin/env bash
# One model of thermal zones (tp_thermal_read) for top, show status, show --json and export:
# the simulator's zones and cooling device everywhere, as a stock kernel's; trip points past
# TP_THERMAL_MAX_TRIPS said, not cut silently.  And export as Prometheus users expect it:
# --listen as node_exporter takes it, thermpress_build_info, an average's origin naming who
# computed it.  In-process simulator and a fixture tree: no FUSE.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/export_lib.sh"

SIM=(--sim --virtual-clock --scenario heat)
json_field() {	# JSON python-expression
	printf '%s' "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$2"
}

# ---- the simulator's zones: one model, four readers ------------------------------------------
run "$TP" "${SIM[@]}" --json show status
doc=$out
json_check "$doc" '[(z["id"], z["type"]) for z in d["thermal_zones"]] == [(0, "little-thermal"), (1, "big-thermal")] and d["thermal_zones"][1]["temp_mc"] == 40000' \
	"show --json: the simulator's two zones at the top level"
json_check "$doc" 'd["thermal_zones"][1]["trips"] == [{"type": "passive", "temp_mc": 70000, "hyst_mc": 5000}] and d["thermal_zones"][1]["trips_left_out"] is False' \
	"show --json: big-thermal's passive trip point"
json_check "$doc" '[(c["id"], c["type"], c["domain_id"], c["cur_state"], c["max_state"], c["cap_khz"]) for c in d["cooling_devices"]] == [(0, "cpufreq-cpu4", 4, 0, 4, 2362000)]' \
	"show --json: the simulator's cooling device"
json_check "$doc" '"stock" not in d' "show --json: no stock object on the simulator"
little=$(json_field "$doc" 'd["thermal_zones"][0]["temp_mc"]' 2>/dev/null || echo 0)
little_c=$(python3 -c "print('%d.%d' % divmod($little // 100, 10))")
little_p=$(python3 -c "print(repr($little / 1000).rstrip('0').rstrip('.'))")

run "$TP" "${SIM[@]}" show status
assert_rc 0 "show status on the simulator"
assert_contains "$out" "thermal zone:      thermal_zone0 little-thermal $little_c C, trips: none" "show status: little-thermal"
assert_contains "$out" "thermal zone:      thermal_zone1 big-thermal 40.0 C, trips: passive 70.0 C" "show status: big-thermal and its trip"
assert_contains "$out" "cooling device:    cooling_device0 cpufreq-cpu4 (policy4) state 0/4 -> cap 2362 MHz" "show status: the cooling device"

run "$TP" "${SIM[@]}" top --once
assert_contains "$out" "thermal  little-thermal $little_c C  big-thermal 40.0 C (passive 70.0 C)" "top --once: the same zones"

start_exporter "$tmp/sim.err" "${SIM[@]}" export --listen 127.0.0.1:0
run python3 "$PROBE" get "http://127.0.0.1:$exp_port/metrics"
metrics=$out
assert_contains "$metrics" $'\nthermpress_thermal_zone_temperature_celsius{zone="0",type="little-thermal"} '"$little_p"$'\n' "export: little-thermal = show --json"
assert_contains "$metrics" $'\nthermpress_thermal_zone_temperature_celsius{zone="1",type="big-thermal"} 40\n' "export: big-thermal = show --json"
assert_contains "$metrics" $'\nthermpress_thermal_zone_trip_point_celsius{zone="1",type="big-thermal",trip="0",trip_type="passive"} 70\n' "export: the trip point"
assert_contains "$metrics" $'\nthermpress_thermal_zone_trip_point_hysteresis_celsius{zone="1",type="big-thermal",trip="0",trip_type="passive"} 5\n' "export: its hysteresis"
assert_contains "$metrics" $'\nthermpress_cooling_device_state{device="0",type="cpufreq-cpu4"} 0\n' "export: the cooling device's state"
assert_contains "$metrics" $'\nthermpress_cooling_device_max_state{device="0",type="cpufreq-cpu4"} 4\n' "export: its highest state"

# ---- who computed the average; the build ------------------------------------------------------
assert_contains "$metrics" 'thermpress_cpu_average_info{cpu="4",domain="big",backend="pelt",origin="simulator"} 1' "export: the simulator's average is origin=\"simulator\""
assert_not_contains "$metrics" 'origin="kernel"' "export: nothing from the simulator is origin=\"kernel\""
version=$("$TP" --version | awk '{print $2}')
assert_contains "$metrics" $'\n# TYPE thermpress_build_info gauge\nthermpress_build_info{version="'"$version"$'",abi_version="1"} 1\n' \
	"export: thermpress_build_info{version=\"$version\",abi_version=\"1\"} 1, a gauge"
run python3 "$PROBE" get "http://127.0.0.1:$exp_port/metrics" "Accept: application/openmetrics-text; version=1.0.0"
assert_contains "$out" $'\n# TYPE thermpress_build info\nthermpress_build_info{version="'"$version"$'",abi_version="1"} 1\n' "OpenMetrics: thermpress_build as an info family"
if command -v promtool >/dev/null; then
	sed 1,3d <<<"$metrics" | promtool check metrics >"$tmp/pc.out" 2>&1 && pc=0 || pc=$?
	assert_eq "$pc:$(cat "$tmp/pc.out")" "0:" "promtool check metrics on the simulator's metrics"
fi
kill -TERM "$exp_pid"; wait "$exp_pid" 2>/dev/null || true

cp -r "$E2E_DIR/../fixtures/stock/arm64-biglittle-6.1" "$tmp/stock"
start_exporter "$tmp/stock.err" --root "$tmp/stock" export --listen 127.0.0.1:0
run python3 "$PROBE" get "http://127.0.0.1:$exp_port/metrics"
assert_contains "$out" 'thermpress_cpu_average_info{cpu="4",domain="big",backend="pelt",origin="estimated"} 1' "export: thermpress's own estimate is origin=\"estimated\""
kill -TERM "$exp_pid"; wait "$exp_pid" 2>/dev/null || true

# ---- a zone with more trip points than are read: said everywhere ------------------------------
z=$tmp/stock/sys/class/thermal/thermal_zone0
for t in $(seq 3 17); do
	echo active >"$z/trip_point_${t}_type"
	echo $((50000 + t * 1000)) >"$z/trip_point_${t}_temp"
done
run "$TP" --root "$tmp/stock" --json show status
json_check "$out" 'len(d["thermal_zones"][0]["trips"]) == 16 and d["thermal_zones"][0]["trips_left_out"] is True and d["thermal_zones"][0]["trips"][15]["temp_mc"] == 65000' \
	"show --json: 16 trip points read, trips_left_out"
json_check "$out" 'd["stock"]["thermal_zones"] == d["thermal_zones"]' "show --json: stock.thermal_zones is the same model"
json_check "$out" 'any("thermal_zone0 has more than 16 trip points" in n for n in d["stock"]["notes"])' "show --json: a note says so"
run "$TP" --root "$tmp/stock" show status
assert_contains "$out" "active 65.0 C, and more not read (at most 16)" "show status: the zone's line says more are not read"
start_exporter "$tmp/trips.err" --root "$tmp/stock" export --listen 127.0.0.1:0
run python3 "$PROBE" get "http://127.0.0.1:$exp_port/metrics"
assert_contains "$out" 'thermpress_thermal_zone_trip_point_celsius{zone="0",type="cpu-thermal",trip="15",trip_type="active"} 65' "export: the 16th trip point"
kill -TERM "$exp_pid"; wait "$exp_pid" 2>/dev/null || true

# ---- --listen as node_exporter takes it ----------------------------------------------------------
have_v6=0
python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null && have_v6=1
start_exporter "$tmp/any.err" --sim export --listen :0
assert_match "$(cat "$tmp/any.err")" 'serving http://(\[::\]|0\.0\.0\.0):[0-9]+/metrics' "--listen :0 serves every address"
run python3 "$PROBE" get "http://127.0.0.1:$exp_port/metrics"
assert_contains "$out" $'\nthermpress_up 1\n' "--listen :PORT answers on 127.0.0.1"
if [ $have_v6 = 1 ]; then
	run python3 "$PROBE" get "http://[::1]:$exp_port/metrics"
	assert_contains "$out" $'\nthermpress_up 1\n' "--listen :PORT answers on [::1] too"
fi
kill -TERM "$exp_pid"; wait "$exp_pid" 2>/dev/null || true
start_exporter "$tmp/name.err" --sim export --listen localhost:0
assert_match "$(cat "$tmp/name.err")" 'serving http://(127\.0\.0\.1|\[::1\]):[0-9]+/metrics' "--listen localhost:0 serves localhost's address"
kill -TERM "$exp_pid"; wait "$exp_pid" 2>/dev/null || true
if [ $have_v6 = 1 ]; then
	start_exporter "$tmp/v6.err" --sim export --listen '[::1]:0'
	run python3 "$PROBE" get "http://[::1]:$exp_port/metrics"
	assert_contains "$out" $'\nthermpress_up 1\n' "--listen [::1]:0 answers on [::1]"
	kill -TERM "$exp_pid"; wait "$exp_pid" 2>/dev/null || true
fi
for bad in 9465 : '::1:9465' 127.1:9465 localhost:99999 local_host:80 '[localhost]:80' 'localhost:http' ':9465:1'; do
	run "$TP" --sim export --listen "$bad"
	assert_eq "$rc:$(wc -l <<<"$err")" "2:1" "--listen '$bad': exit 2, one line"
	assert_contains "$err" "invalid listen address '$bad' (expected [HOST]:PORT: :PORT for every address, a host name, an IPv4 address or [IPv6], and a port 0..65535, as :9465, localhost:9465, 127.0.0.1:9465 or [::1]:9465)" "--listen '$bad': names the valid forms"
done
run "$TP" --sim export --listen no-such-host.invalid:0
assert_rc 1 "--listen with a host name that does not resolve: a runtime failure"
assert_contains "$err" "cannot listen on no-such-host.invalid:0: the host name does not resolve" "... and says so"

finish
