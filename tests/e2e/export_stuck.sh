#!/usr/bin/env bash
# thermpress export never waits for its source (docs/export.md, "A source that does not
# answer"): with the FUSE server behind --root stopped (SIGSTOP), / answers at once, a
# scrape answers thermpress_up 0 with the reason within its deadline (2 s), the next one at
# once, the source is read again after SIGCONT, and SIGTERM or SIGINT end the exporter
# within a second, in HTTP and in textfile mode.  Exit 77 (skip) without FUSE.
set -euo pipefail
[ -n "${THERMPRESS_SIGNALS_DEFAULT:-}" ] ||
	THERMPRESS_SIGNALS_DEFAULT=1 exec env --default-signal=HUP,INT,QUIT,TERM bash "$0" "$@"
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/export_lib.sh"
require_fuse

mnt="$tmp/mnt"
serve_heat "$mnt"
cleanup_hooks=("kill -CONT $server 2>/dev/null" "${cleanup_hooks[@]}")

# secs_lt A B: A < B (decimals)
secs_lt() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$1" "$2"; }

# stop_within PID SIG LIMIT DESCRIPTION: SIG ends PID within LIMIT seconds with 128 + SIG
stop_within() {
	local pid=$1 sig=$2 limit=$3 what=$4 t0 t1
	t0=$(date +%s.%N)
	kill "-$sig" "$pid"
	set +e
	for _ in $(seq 500); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
	kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
	wait "$pid"; rc=$?
	set -e
	t1=$(date +%s.%N)
	local took
	took=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
	if secs_lt "$took" "$limit"; then pass "$what: ended in ${took}s"
	else fail "$what: took ${took}s (limit ${limit}s)"; fi
	assert_rc "$(( 128 + $(kill -l "$sig") ))" "$what"
	kill -KILL "$pid" 2>/dev/null || true
}

start_exporter "$tmp/exp.err" --root "$mnt" export --listen 127.0.0.1:0
port=$exp_port
run python3 "$PROBE" timed "$port" /metrics
assert_contains "$out" $'\nthermpress_up 1\n' "source answering: thermpress_up 1"

kill -STOP "$server"
RUN_TIMEOUT=20 run python3 "$PROBE" timed "$port" /
read -r status secs <<<"$(head -1 <<<"$out")"
assert_eq "$status" 200 "source stopped: / answers"
secs_lt "$secs" 0.5 && pass "source stopped: / at once (${secs}s)" || fail "source stopped: / took ${secs}s"

RUN_TIMEOUT=20 run python3 "$PROBE" timed "$port" /metrics
read -r status secs <<<"$(head -1 <<<"$out")"
assert_eq "$status" 200 "source stopped: /metrics answers"
secs_lt "$secs" 3 && secs_lt 1.9 "$secs" && pass "source stopped: /metrics after the 2 s deadline (${secs}s)" ||
	fail "source stopped: /metrics took ${secs}s, not about 2"
assert_contains "$out" $'\nthermpress_up 0\n' "source stopped: thermpress_up 0"
assert_contains "$out" 'thermpress_last_error_info{error="the source did not answer within the scrape'"'"'s deadline of 2.0 s' "source stopped: the reason"

# / meanwhile, while a scrape waits: at once
python3 "$PROBE" timed "$port" /metrics >"$tmp/waiting" 2>&1 &
waiting=$!
sleep 0.3
RUN_TIMEOUT=20 run python3 "$PROBE" timed "$port" /
read -r status secs <<<"$(head -1 <<<"$out")"
secs_lt "$secs" 0.5 && pass "/ while a scrape waits: at once (${secs}s)" || fail "/ while a scrape waits took ${secs}s"
wait "$waiting" || true
assert_contains "$(cat "$tmp/waiting")" $'\nthermpress_up 0\n' "a scrape while the read is still stuck: thermpress_up 0"

RUN_TIMEOUT=20 run python3 "$PROBE" timed "$port" /metrics
read -r status secs <<<"$(head -1 <<<"$out")"
secs_lt "$secs" 0.5 && pass "a read stuck past the deadline: the next scrape says so at once (${secs}s)" ||
	fail "a read stuck past the deadline: the next scrape took ${secs}s"
assert_contains "$out" 'thermpress_last_error_info{error="the source has not answered a read for' "stuck read: the reason says how long"

kill -CONT "$server"
sleep 0.2
run python3 "$PROBE" timed "$port" /metrics
assert_contains "$out" $'\nthermpress_up 1\n' "source continued: thermpress_up 1 again"

# the stop signals while a scrape waits for the stopped source
for sig in TERM INT; do
	start_exporter "$tmp/exp.err" --root "$mnt" export --listen 127.0.0.1:0
	kill -STOP "$server"
	python3 "$PROBE" timed "$exp_port" /metrics >/dev/null 2>&1 &
	sleep 0.5
	stop_within "$exp_pid" "$sig" 1 "HTTP, source stopped, a scrape waiting: SIG$sig"
	kill -CONT "$server"
done

# textfile mode: its write waits for the stopped source, not its stop
mkdir "$tmp/tf"
start_exporter "$tmp/tf.err" --root "$mnt" export --textfile "$tmp/tf" --interval 200ms
kill -STOP "$server"
sleep 0.7
stop_within "$exp_pid" TERM 1 "textfile mode, source stopped: SIGTERM"
kill -CONT "$server"
mkdir "$tmp/tf2"
start_exporter "$tmp/tf2.err" --root "$mnt" export --textfile "$tmp/tf2" --interval 200ms
kill -STOP "$server"
sleep 3
assert_contains "$(cat "$tmp/tf2/thermpress.prom")" $'\nthermpress_up 0\n' "textfile mode, source stopped: the file says thermpress_up 0"
stop_within "$exp_pid" INT 1 "textfile mode, source stopped: SIGINT"
kill -CONT "$server"
finish
