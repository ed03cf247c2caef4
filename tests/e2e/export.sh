#!/usr/bin/env bash
# thermpress export with the real things around it: the simulator served over FUSE with
# the heat scenario (on a virtual clock, so a state holds still while it is compared),
# Debian's prometheus scraping the exporter and its HTTP API compared with show --json,
# node_exporter's textfile collector reading --textfile output, promtool on the output and
# on the example alerting rules, HTTP behaviour (/, 404, 405, malformed, long and slow
# requests), a source that vanishes and comes back, signals and usage errors.
# Exit 77 (skip) only when FUSE cannot be used here; a missing prometheus,
# prometheus-node-exporter or promtool (scripts/deps.sh installs them) skips its part with
# a "skip:" line.
set -euo pipefail
[ -n "${THERMPRESS_SIGNALS_DEFAULT:-}" ] ||
	THERMPRESS_SIGNALS_DEFAULT=1 exec env --default-signal=HUP,INT,QUIT,TERM bash "$0" "$@"
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/export_lib.sh"

if ! [ -c /dev/fuse ] || ! { exec 3<>/dev/fuse; } 2>/dev/null; then
	echo "skip: /dev/fuse is not usable"
	exit 77
fi
exec 3>&-

mnt="$tmp/mnt"
serve_heat "$mnt"
pass "sim serve --virtual-clock --scenario heat mounted"
# 20 s of the heat scenario at full load: the big domain heats past 70 C and the governor caps it
run "$TP" --root "$mnt" sim advance 20s
assert_rc 0 "advance the heat scenario"

start_exporter "$tmp/exp.err" --root "$mnt" export --listen 127.0.0.1:0
assert_match "$(cat "$tmp/exp.err")" "serving http://127\\.0\\.0\\.1:[0-9]+/metrics" "export names its port"
base="http://127.0.0.1:$exp_port"

# ---- HTTP ------------------------------------------------------------------------------
run python3 "$PROBE" get "$base/"
assert_eq "$(sed -n 1,2p <<<"$out")" $'200\ntext/html; charset=utf-8' "/ is an HTML page"
assert_contains "$out" '<a href="/metrics">' "/ links /metrics"
run python3 "$PROBE" get "$base/metrics"
assert_eq "$(sed -n 1,2p <<<"$out")" $'200\ntext/plain; version=0.0.4; charset=utf-8' "/metrics: text format 0.0.4"
metrics=$(sed 1,3d <<<"$out")
assert_contains "$metrics" $'\nthermpress_up 1\n' "thermpress_up 1"
assert_contains "$metrics" 'thermpress_source_info{kind="patched",description="patched kernel at '"$mnt"'"} 1' "source info"
assert_not_contains "$metrics" "# EOF" "no # EOF in the text format"
run python3 "$PROBE" get "$base/metrics" "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
assert_eq "$(sed -n 1,2p <<<"$out")" $'200\napplication/openmetrics-text; version=1.0.0; charset=utf-8' "/metrics: OpenMetrics when asked"
assert_eq "$(tail -n1 <<<"$out")" "# EOF" "OpenMetrics ends with # EOF"
assert_contains "$out" "# TYPE thermpress_cpu_average info" "OpenMetrics info family"
run python3 "$PROBE" get "$base/metrics?x=1"
assert_eq "$(head -n1 <<<"$out")" "200" "a query string is ignored"
for path in /metric /metrics/ /index.html /../metrics //metrics; do
	run python3 "$PROBE" method "$exp_port" GET "$path"
	assert_eq "$out" "404" "GET $path: 404"
done
for m in POST PUT DELETE OPTIONS PATCH TRACE; do
	run python3 "$PROBE" method "$exp_port" "$m" /metrics
	assert_eq "$out" "405 Allow: GET, HEAD" "$m /metrics: 405 with Allow"
done
run python3 "$PROBE" method "$exp_port" HEAD /metrics
assert_eq "$out" "200" "HEAD /metrics: 200"

# malformed and oversized requests: an error status or a closed connection, never a crash
probe_raw() {	# description expected-regex: the request is in $tmp/req
	out=$(python3 "$PROBE" raw "$exp_port" <"$tmp/req")
	assert_match "$out" "$2" "$1: $out"
}
printf 'GARBAGE\r\n\r\n' >"$tmp/req"
probe_raw "no method and path" '^(HTTP/1\.[01] 400|closed)'
printf 'GET /metrics HTTP/9.9\r\n\r\n' >"$tmp/req"
probe_raw "unknown HTTP version" '^(HTTP/1\.[01] (400|505)|closed)'
printf 'GET /metrics HTTP/1.1\r\n\r\n' >"$tmp/req"
probe_raw "HTTP/1.1 without Host" '^(HTTP/1\.1 (200|400)|closed)'
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n' >"$tmp/req"
probe_raw "header without a colon" '^(HTTP/1\.1 (200|400)|closed)'
printf '\x00\xff\xfe\r\n\r\n' >"$tmp/req"
probe_raw "binary request line" '^(HTTP/1\.[01] 400|closed)'
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n' >"$tmp/req"
probe_raw "negative Content-Length" '^(HTTP/1\.1 (200|400)|closed)'
{ printf 'GET /'; head -c 100000 /dev/zero | tr '\0' a; printf ' HTTP/1.1\r\nHost: x\r\n\r\n'; } >"$tmp/req"
probe_raw "100 kB URL" '^(HTTP/1\.1 (414|400)|closed)'
{ printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nX-Long: '; head -c 100000 /dev/zero | tr '\0' b; printf '\r\n\r\n'; } >"$tmp/req"
probe_raw "100 kB header" '^(HTTP/1\.1 (431|400|413)|closed)'
{ printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n'; for i in $(seq 3000); do printf 'X-%d: y\r\n' "$i"; done; printf '\r\n'; } >"$tmp/req"
probe_raw "3000 headers" '^(HTTP/1\.1 (431|400|413)|closed)'
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: ;;,,=;q=;application/openmetrics-text;q=9\r\n\r\n' >"$tmp/req"
probe_raw "malformed Accept" '^HTTP/1\.1 200'
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n' >"$tmp/req"
probe_raw "a well-formed raw request" '^HTTP/1\.1 200'
# slow clients: one sends its request a byte at a time over 3 s and is answered; meanwhile
# other scrapes are answered at once.  An idle connection is closed after 10 s.
run python3 "$PROBE" slow "$exp_port" /metrics 3
assert_eq "$(head -n1 <<<"$out")" "HTTP/1.1 200 OK" "a slow client is answered"
assert_match "$(tail -n1 <<<"$out")" '^[0-9]{1,3}$' "other scrapes meanwhile take under 1 s ($(tail -n1 <<<"$out") ms)"
run python3 "$PROBE" idle "$exp_port"
assert_match "$out" '^(9|10|11|12)$' "an idle connection is closed after 10 s ($out s)"
kill -0 "$exp_pid" 2>/dev/null && pass "the exporter is still running" || fail "the exporter died"

# ---- promtool check metrics ----------------------------------------------------------------
if command -v promtool >/dev/null; then
	run python3 "$PROBE" get "$base/metrics"
	sed 1,3d <<<"$out" >"$tmp/metrics.txt"
	run promtool check metrics <"$tmp/metrics.txt"
	assert_rc 0 "promtool check metrics"
	assert_eq "$out$err" "" "promtool check metrics reports nothing"
	rules="$E2E_DIR/../../examples/prometheus/thermpress-alerts.yml"
	run promtool check rules "$rules"
	assert_rc 0 "promtool check rules on the example rules"
	mkdir "$tmp/rules"
	cp "$rules" "$E2E_DIR/export_rules_test.yml" "$tmp/rules/"
	run bash -c "cd '$tmp/rules' && promtool test rules export_rules_test.yml"
	assert_rc 0 "promtool test rules: the alerts fire as expected"
else
	echo "skip: promtool is not installed (scripts/deps.sh installs prometheus)"
fi

# ---- Prometheus ------------------------------------------------------------------------------
# prom_query EXPR: the value of the one series EXPR gives, "" when none
prom_query() {
	python3 - "$prom_base" "$1" <<'P'
import json, sys, urllib.parse, urllib.request
base, expr = sys.argv[1], sys.argv[2]
with urllib.request.urlopen(base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr}), timeout=10) as r:
    d = json.load(r)
res = d["data"]["result"]
print(res[0]["value"][1] if len(res) == 1 else ("" if not res else "several"))
P
}
# wait_prom EXPR WANT: until Prometheus gives WANT for EXPR (20 s at most)
wait_prom() {
	local v=
	for _ in $(seq 100); do
		v=$(prom_query "$1")
		[ "$v" == "$2" ] && break
		sleep 0.2
	done
	printf '%s' "$v"
}
json_field() {	# JSON python-expression
	printf '%s' "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$2"
}

if command -v prometheus >/dev/null; then
	start_prometheus "$tmp/prom" "127.0.0.1:$exp_port"
	pass "prometheus is ready on port $prom_port"
	for _ in $(seq 100); do
		v=$(prom_query 'count_over_time(thermpress_up[1m])')
		[ "${v:-0}" -ge 4 ] 2>/dev/null && break
		sleep 0.2
	done
	[ "${v:-0}" -ge 4 ] && pass "prometheus scraped the exporter $v times" ||
		fail "prometheus scraped $v times"
	run "$TP" --root "$mnt" --json show
	assert_rc 0 "show --json on the same state"
	doc=$out
	capped=$(json_field "$doc" '[c["cpu"] for c in d["cpus"] if c["capped"]][0]')
	[ -n "$capped" ] && pass "the heat scenario capped cpu $capped" || fail "no capped cpu"
	for pair in capacity:capacity capped_capacity:capped_capacity pressure:pressure \
		    average_pressure:avg_pressure max_capacity:max_capacity; do
		metric=${pair%%:*} field=${pair#*:}
		want=$(json_field "$doc" "[c[\"$field\"] for c in d[\"cpus\"] if c[\"cpu\"] == $capped][0]")
		got=$(wait_prom "thermpress_cpu_${metric}{cpu=\"$capped\"}" "$want")
		assert_eq "$got" "$want" "prometheus thermpress_cpu_$metric of cpu $capped = show --json $field"
	done
	want=$(json_field "$doc" "[c['capped_freq_khz'] * 1000 for c in d['cpus'] if c['cpu'] == $capped][0]")
	assert_eq "$(prom_query "thermpress_cpu_capped_frequency_hertz{cpu=\"$capped\"}")" "$want" \
		"prometheus capped frequency in hertz = show --json kHz * 1000"
	backend=$(json_field "$doc" 'd["backend"]')
	assert_eq "$(prom_query "thermpress_backend_info{backend=\"$backend\"}")" "1" "prometheus backend = show --json ($backend)"
	# a served simulator: its average is the simulator's, an estimate thermpress's own
	origin=$(json_field "$doc" "['thermpress' if c['avg_estimated'] else 'simulator' for c in d['cpus'] if c['cpu'] == $capped][0]")
	assert_eq "$(prom_query "thermpress_cpu_average_info{cpu=\"$capped\",backend=\"$backend\",origin=\"$origin\"}")" "1" \
		"prometheus average origin = show --json avg_estimated ($origin)"
	# a cap applied between scrapes appears
	run "$TP" --root "$mnt" cap set 0 50%
	assert_rc 0 "cap set 0 50% between scrapes"
	run "$TP" --root "$mnt" --json show
	want=$(json_field "$out" "[c['capped_freq_khz'] * 1000 for c in d['cpus'] if c['cpu'] == 0][0]")
	wantp=$(json_field "$out" "[c['pressure'] for c in d['cpus'] if c['cpu'] == 0][0]")
	[ "$wantp" -gt 0 ] && pass "cap set 0 50% gives pressure $wantp" || fail "cap gave no pressure"
	assert_eq "$(wait_prom 'thermpress_cpu_capped_frequency_hertz{cpu="0"}' "$want")" "$want" "the new cap reaches prometheus"
	assert_eq "$(wait_prom 'thermpress_cpu_pressure{cpu="0"}' "$wantp")" "$wantp" "the new pressure reaches prometheus"
	stop_prometheus
else
	echo "skip: prometheus is not installed (scripts/deps.sh installs it)"
fi

# ---- the source vanishes and comes back ---------------------------------------------------------
kill -KILL "$server"
wait "$server" 2>/dev/null || true
run python3 "$PROBE" get "$base/metrics"
assert_contains "$out" $'\nthermpress_up 0\n' "FUSE server killed: thermpress_up 0"
assert_match "$out" 'thermpress_last_error_info\{error="[^"]+"\} 1' "FUSE server killed: the error"
assert_not_contains "$out" "thermpress_cpu_capacity{" "FUSE server killed: no stale CPU values"
kill -0 "$exp_pid" 2>/dev/null && pass "the exporter outlives its source" || fail "the exporter died with its source"
fusermount3 -u -z "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
run python3 "$PROBE" get "$base/metrics"
assert_contains "$out" $'\nthermpress_up 0\n' "mount point empty: thermpress_up 0"
serve_heat "$mnt"
run python3 "$PROBE" get "$base/metrics"
assert_contains "$out" $'\nthermpress_up 1\n' "server back: thermpress_up 1 without a restart"
assert_not_contains "$out" "thermpress_last_error_info{" "server back: no error"

# ---- node_exporter's textfile collector -------------------------------------------------------
mkdir "$tmp/textfile"
start_exporter "$tmp/tf.err" --root "$mnt" export --textfile "$tmp/textfile" --interval 200ms
tf_pid=$exp_pid
assert_contains "$(cat "$tmp/tf.err")" "writing $tmp/textfile/thermpress.prom every 0.2s" "textfile mode says what it writes"
run "$TP" --root "$mnt" cap set 4 1GHz
m1=$(stat -c %Y.%N "$tmp/textfile/thermpress.prom" 2>/dev/null || echo none)
for _ in $(seq 50); do
	grep -q '^thermpress_cpu_capped_frequency_hertz{cpu="4",domain="big"} 1000000000$' "$tmp/textfile/thermpress.prom" && break
	sleep 0.1
done
assert_contains "$(cat "$tmp/textfile/thermpress.prom")" 'thermpress_cpu_capped_frequency_hertz{cpu="4",domain="big"} 1000000000' \
	"--textfile rewrites the file with a cap applied meanwhile"
assert_eq "$(find "$tmp/textfile" -name '.*tmp*' | wc -l)" "0" "no temporary file left beside it"
if command -v promtool >/dev/null; then
	run promtool check metrics <"$tmp/textfile/thermpress.prom"
	assert_eq "$rc:$out$err" "0:" "promtool check metrics on the textfile"
fi
if command -v prometheus-node-exporter >/dev/null; then
	start_node_exporter "$tmp/textfile"
	run python3 "$PROBE" get "http://127.0.0.1:$ne_port/metrics"
	# the last line there: $(...) dropped its newline
	assert_match "$out" $'\nthermpress_up 1(\n|$)' "node_exporter serves thermpress_up 1 from the textfile"
	run "$TP" --root "$mnt" --json show
	want=$(json_field "$out" "[c['capacity'] for c in d['cpus'] if c['cpu'] == 4][0]")
	run python3 "$PROBE" get "http://127.0.0.1:$ne_port/metrics"
	assert_contains "$out" "thermpress_cpu_capacity{cpu=\"4\",domain=\"big\"} $want" "node_exporter: cpu 4's capacity = show --json ($want)"
	assert_match "$out" 'node_textfile_mtime_seconds\{file="[^"]*thermpress\.prom"\}' "node_exporter read thermpress.prom"
	assert_contains "$out" $'\nnode_textfile_scrape_error 0\n' "node_exporter: no textfile error"
	stop_node_exporter
else
	echo "skip: prometheus-node-exporter is not installed (scripts/deps.sh installs it)"
fi
kill -TERM "$tf_pid"
set +e; wait "$tf_pid"; rc=$?; set -e
assert_rc 143 "textfile mode: SIGTERM ends it"

# ---- signals: a clean stop with 128 + the signal ----------------------------------------------------
for sig in INT TERM HUP QUIT; do
	start_exporter "$tmp/sig.err" --root "$mnt" export --listen 127.0.0.1:0
	kill "-$sig" "$exp_pid"
	set +e; wait "$exp_pid"; rc=$?; set -e
	assert_rc $((128 + $(kill -l "$sig"))) "SIG$sig stops the exporter"
done
kill -TERM "$exp_pid" 2>/dev/null || true

# ---- a stock kernel's tree: zones and cooling devices; the root removed and put back --------------
cp -r "$E2E_DIR/../fixtures/stock/arm64-biglittle-6.1" "$tmp/stock"
start_exporter "$tmp/stock.err" --root "$tmp/stock" export --listen 127.0.0.1:0
run python3 "$PROBE" get "http://127.0.0.1:$exp_port/metrics"
assert_contains "$out" 'thermpress_thermal_zone_temperature_celsius{zone="0",type="cpu-thermal"} 71.25' "stock: zone temperature in celsius"
assert_contains "$out" 'thermpress_thermal_zone_trip_point_celsius{zone="0",type="cpu-thermal",trip="2",trip_type="critical"} 115' "stock: trip point"
assert_contains "$out" 'thermpress_cooling_device_state{device="1",type="cpufreq-cpu4"} 2' "stock: cooling device state"
assert_contains "$out" 'thermpress_cpu_average_info{cpu="4",domain="big",backend="pelt",origin="estimated"} 1' "stock: the average is thermpress's estimate"
if command -v promtool >/dev/null; then
	sed 1,3d <<<"$out" | promtool check metrics >"$tmp/pc.out" 2>&1 && pc=0 || pc=$?
	assert_eq "$pc:$(cat "$tmp/pc.out")" "0:" "promtool check metrics on a stock kernel's metrics"
fi
mv "$tmp/stock" "$tmp/stock.away"
run python3 "$PROBE" get "http://127.0.0.1:$exp_port/metrics"
assert_contains "$out" $'\nthermpress_up 0\n' "--root removed: thermpress_up 0"
assert_contains "$out" "thermpress_last_error_info{error=\"the source's root $tmp/stock is gone: No such file or directory\"} 1" "--root removed: the error"
cp -r "$tmp/stock.away" "$tmp/stock"
run python3 "$PROBE" get "http://127.0.0.1:$exp_port/metrics"
assert_contains "$out" $'\nthermpress_up 1\n' "--root back: thermpress_up 1"
assert_contains "$out" 'thermpress_cpu_max_capacity{cpu="0",domain="little"} 446' "--root back: the CPUs again"
kill -TERM "$exp_pid"
wait "$exp_pid" 2>/dev/null || true

# ---- usage and start-up errors --------------------------------------------------------------------
run "$TP" --root "$mnt" export --listen 127.1:80
assert_rc 2 "--listen with a short IPv4 form"
assert_eq "$err" "thermpress: export: invalid listen address '127.1:80' (expected [HOST]:PORT: :PORT for every address, a host name, an IPv4 address or [IPv6], and a port 0..65535, as :9465, localhost:9465, 127.0.0.1:9465 or [::1]:9465) (usage: export [--listen [HOST]:PORT] [--interval DURATION] [--textfile DIR])" "--listen message"
run "$TP" --root "$mnt" export --interval 1s
assert_rc 2 "--interval without --textfile"
run "$TP" --root "$mnt" export --textfile "$tmp" --interval 10ms
assert_rc 2 "--interval too short"
assert_eq "$err" "thermpress: export: interval '10ms' is too short (at least 100ms) (usage: export [--listen [HOST]:PORT] [--interval DURATION] [--textfile DIR])" "short interval message"
run "$TP" --root "$mnt" export --textfile "$tmp" --listen 127.0.0.1:0
assert_rc 2 "--listen with --textfile"
run "$TP" --root "$mnt" export --bogus
assert_rc 2 "unknown option"
run "$TP" --root "$mnt" export --textfile "$tmp/no/such/dir"
assert_rc 1 "--textfile into a missing directory"
assert_match "$err" "^thermpress: export: .*$tmp/no/such/dir" "missing directory: message names it"
run "$TP" --root "$tmp/nothing-here" export --listen 127.0.0.1:0
assert_rc 1 "a source that cannot be opened at start"
start_exporter "$tmp/busy.err" --root "$mnt" export --listen 127.0.0.1:0
run "$TP" --root "$mnt" export --listen "127.0.0.1:$exp_port"
assert_rc 1 "a port in use"
assert_eq "$err" "thermpress: export: cannot listen on 127.0.0.1:$exp_port: Address already in use" "port in use: message"
kill -TERM "$exp_pid"
wait "$exp_pid" 2>/dev/null || true

# ---- the systemd unit -----------------------------------------------------------------------------
unit="$(dirname "$TP")/../export/thermpress-export.service"
if command -v systemd-analyze >/dev/null && [ -f "$unit" ]; then
	# the built unit with ExecStart on the built binary (the installed one may not exist)
	sed "s|^ExecStart=[^ ]*|ExecStart=$TP|" "$unit" >"$tmp/thermpress-export.service"
	run systemd-analyze verify --man=no "$tmp/thermpress-export.service"
	assert_eq "$rc:$out$err" "0:" "systemd-analyze verify accepts the unit"
	for d in DynamicUser=yes NoNewPrivileges=yes ProtectSystem=strict PrivateTmp=yes \
		 'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX' 'CapabilityBoundingSet='; do
		assert_match "$(cat "$unit")" "(^|"$'\n'")$d("$'\n'"|$)" "the unit has $d"
	done
else
	echo "skip: systemd-analyze or the built unit is missing"
fi

finish
