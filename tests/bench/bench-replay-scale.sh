#!/usr/bin/env bash
# Replay at scale (docs/experiments.md, "Benchmark"): run by hand, not in CI.
#
#   tests/bench/bench-replay-scale.sh [BUILD_DIR] [SIZES_MB...]     (default: build 100 1000)
#
# For each size it generates a trace of 8 CPUs sampled every 10 ms (time_ns,cpu,pressure;
# the pressure of each CPU changes every 100 samples), replays it with the backends
# instant,pelt:32,decay:250 and prints the throughput (MB/s), the peak RSS (GNU time), and,
# in the same run, the time of the baseline awk -F, '{s+=$3} END {print s}' on the same
# file, with the ratio.  Targets: peak RSS <= 64 MB at any size, time <= 2x awk.
# The traces go to ${TMPDIR:-/tmp} and are deleted afterwards.
set -euo pipefail

build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000)
tp=$build/cmd/thermpress
export THERMPRESS_PLUGIN_DIR=${THERMPRESS_PLUGIN_DIR:-$build/plugins}
[ -x "$tp" ] || { echo "no $tp: build first (meson setup $build && ninja -C $build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is missing: bash scripts/deps.sh" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/tp-replay-scale.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# seconds and peak RSS (kB) of a command, its output discarded
measure() {
	/usr/bin/time -f '%e %M' -o "$dir/time" "$@" >/dev/null
	cat "$dir/time"
}

printf '%-8s %10s %9s %9s %12s %9s %9s %7s\n' SIZE ROWS "TIME(s)" "MB/s" "PEAK RSS(MB)" \
	"AWK(s)" "AWK MB/s" RATIO
for mb in "${sizes[@]}"; do
	trace=$dir/trace-$mb.csv
	# 8 CPUs x 10 ms: about 25 bytes a row
	awk -v bytes=$((mb * 1000000)) 'BEGIN {
		print "time_ns,cpu,pressure"; n = 21
		for (i = 0; n < bytes; i++) {
			t = 10000000000 + i * 10000000
			for (c = 0; c < 8; c++) {
				p = (int(i / 100) * 37 + c * 101) % 1025
				line = sprintf("%.0f,%d,%d", t, c, p); print line; n += length(line) + 1
			}
		}
	}' >"$trace"
	size=$(stat -c %s "$trace")
	rows=$(( $(wc -l <"$trace") - 1 ))
	read -r tp_s tp_kb < <(measure "$tp" replay "$trace" --backends instant,pelt:32,decay:250)
	read -r awk_s awk_kb < <(measure awk -F, '{s+=$3} END {print s}' "$trace")
	awk -v mb="$mb" -v rows="$rows" -v size="$size" -v t="$tp_s" -v kb="$tp_kb" -v a="$awk_s" 'BEGIN {
		printf "%-8s %10d %9.2f %9.1f %12.1f %9.2f %9.1f %6.2fx\n", mb " MB", rows, t,
			size / 1e6 / (t > 0 ? t : 0.01), kb / 1024, a, size / 1e6 / (a > 0 ? a : 0.01),
			t / (a > 0 ? a : 0.01)
	}'
	rm -f "$trace"
done
