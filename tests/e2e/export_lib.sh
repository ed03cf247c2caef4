# Helpers of the export tests (sourced after lib.sh): a served simulator, the exporter,
# prometheus and node_exporter on free loopback ports, each stopped by the cleanup hooks.
PROBE="$E2E_DIR/http_probe.py"

# free_port: a loopback port nobody listens on now (bound to port 0, read back, released).
# For programs that cannot be given port 0; their start is retried if it was taken since.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for CONDITION-COMMAND...: up to 10 s
wait_for() {
	for _ in $(seq 100); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# serve_heat DIR: sim serve --virtual-clock --scenario heat at DIR; sets $server
server=
serve_heat() {
	local dir=$1
	mkdir -p "$dir"
	"$TP" sim serve --virtual-clock --scenario heat "$dir" 2>>"$tmp/serve.err" &
	server=$!
	cleanup_hooks+=("kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; if mountpoint -q '$dir'; then fusermount3 -u -z '$dir' || umount -l '$dir'; fi")
	if ! wait_for test -e "$dir/sys/kernel/debug/sched/thermal_pressure/version"; then
		fail "sim serve did not mount: $(cat "$tmp/serve.err")"
		finish
		exit 1
	fi
}

# start_exporter ERRFILE ARGS...: "$TP" ARGS in the background; sets $exp_pid and, when it
# serves HTTP, $exp_port (from the line it writes on stderr)
exp_pid= exp_port=
start_exporter() {
	local errfile=$1; shift
	: >"$errfile"
	"$TP" "$@" 2>"$errfile" &
	exp_pid=$!
	cleanup_hooks+=("kill -TERM $exp_pid 2>/dev/null")
	if ! wait_for grep -Eq 'serving http://|writing ' "$errfile"; then
		fail "thermpress $* did not start: $(cat "$errfile")"
		finish
		exit 1
	fi
	exp_port=$(sed -n 's|.*serving http://[^ ]*:\([0-9]*\)/metrics.*|\1|p' "$errfile")
}

# start_prometheus DIR TARGET: prometheus scraping TARGET every 250 ms; sets $prom_port,
# $prom_base, $prom_pid
start_prometheus() {
	local dir=$1 target=$2
	mkdir -p "$dir"
	cat >"$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 250ms
  scrape_timeout: 200ms
scrape_configs:
  - job_name: thermpress
    static_configs:
      - targets: ['$target']
EOF
	for _ in 1 2 3; do
		prom_port=$(free_port)
		prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
			--web.listen-address="127.0.0.1:$prom_port" --log.level=warn \
			>"$dir/log" 2>&1 &
		prom_pid=$!
		cleanup_hooks+=("kill -TERM $prom_pid 2>/dev/null; wait $prom_pid 2>/dev/null")
		prom_base="http://127.0.0.1:$prom_port"
		wait_for python3 -c "import urllib.request; urllib.request.urlopen('$prom_base/-/ready', timeout=1)" && return 0
		kill -TERM "$prom_pid" 2>/dev/null; wait "$prom_pid" 2>/dev/null || true
	done
	fail "prometheus did not start: $(tail -5 "$dir/log")"
	finish
	exit 1
}

stop_prometheus() {
	kill -TERM "$prom_pid" 2>/dev/null
	wait "$prom_pid" 2>/dev/null || true
}

# start_node_exporter DIR: only the textfile collector, reading DIR; sets $ne_port, $ne_pid
start_node_exporter() {
	local dir=$1
	for _ in 1 2 3; do
		ne_port=$(free_port)
		prometheus-node-exporter --collector.disable-defaults --collector.textfile \
			--collector.textfile.directory="$dir" --web.listen-address="127.0.0.1:$ne_port" \
			>"$tmp/ne.log" 2>&1 &
		ne_pid=$!
		cleanup_hooks+=("kill -TERM $ne_pid 2>/dev/null; wait $ne_pid 2>/dev/null")
		wait_for python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$ne_port/metrics', timeout=1)" && return 0
		kill -TERM "$ne_pid" 2>/dev/null; wait "$ne_pid" 2>/dev/null || true
	done
	fail "node_exporter did not start: $(tail -5 "$tmp/ne.log")"
	finish
	exit 1
}

stop_node_exporter() {
	kill -TERM "$ne_pid" 2>/dev/null
	wait "$ne_pid" 2>/dev/null || true
}
