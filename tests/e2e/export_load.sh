#!/usr/bin/env bash
# A bounded load test of thermpress export on loopback: 32 concurrent keep-alive clients,
# 10,000 scrapes of the simulator (--sim, no FUSE needed).  Every scrape must succeed; the
# exporter's resident memory after the whole run may exceed that after the first 3,000
# scrapes by at most 8 MiB (a leak of one scrape's buffer would grow it by some 60 MiB);
# it must still answer and stop cleanly afterwards.  In the ASan build (where meson runs it
# too) any memory error aborts the exporter and so fails the run; ASan's quarantine is
# capped, the global one and each thread's, so that resident memory measures the exporter
# rather than the quarantine.  The warm-up is 3,000 scrapes: each connection has its thread
# (export/http.c), and under ASan each thread's allocator cache fills over its first
# hundred or so scrapes (about 4 MiB more after 3,000, 11 after 1,000; flat after).
# Prints the figures (rate, latencies, memory).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/export_lib.sh"

CLIENTS=${THERMPRESS_LOAD_CLIENTS:-32}
TOTAL=${THERMPRESS_LOAD_SCRAPES:-10000}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
hwm_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=16:thread_local_quarantine_size_kb=64" \
	start_exporter "$tmp/exp.err" --sim --virtual-clock export --listen 127.0.0.1:0
pass "exporter started on port $exp_port"

WARMUP=3000
run python3 "$PROBE" load "$exp_port" "$CLIENTS" "$WARMUP"
assert_rc 0 "warm-up: $WARMUP scrapes by $CLIENTS clients"
echo "# warm-up: $out"
rss0=$(rss_kib "$exp_pid")

run python3 "$PROBE" load "$exp_port" "$CLIENTS" "$TOTAL"
assert_rc 0 "$TOTAL scrapes by $CLIENTS concurrent clients, none failed"
[ "$rc" -eq 0 ] || echo "  $err" | head -5
echo "# load: $out"
rss1=$(rss_kib "$exp_pid")
hwm=$(hwm_kib "$exp_pid")
cpu_ticks=$(awk '{ print $14 + $15 }' "/proc/$exp_pid/stat")
echo "# exporter memory: rss after warm-up ${rss0} KiB, after load ${rss1} KiB, peak ${hwm} KiB;" \
	"cpu $((cpu_ticks * 1000 / $(getconf CLK_TCK))) ms for $((TOTAL + WARMUP)) scrapes"
[ $((rss1 - rss0)) -le 8192 ] && pass "memory bounded: +$((rss1 - rss0)) KiB over $TOTAL scrapes" ||
	fail "memory grew by $((rss1 - rss0)) KiB over $TOTAL scrapes"

run python3 "$PROBE" get "http://127.0.0.1:$exp_port/metrics"
assert_contains "$out" $'\nthermpress_up 1\n' "still answering after the load"
kill -TERM "$exp_pid"
set +e; wait "$exp_pid"; rc=$?; set -e
assert_rc 143 "stops cleanly on SIGTERM after the load"
assert_not_contains "$(cat "$tmp/exp.err")" "ERROR: AddressSanitizer" "no ASan report"
assert_not_contains "$(cat "$tmp/exp.err")" "runtime error" "no UBSan report"
finish
