#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz in build-fuzz (clang) and runs each for
# SECONDS (default 20) from its checked-in seed corpus, which is only read: new inputs
# go to build-fuzz/fuzz/corpus/NAME (kept, so later runs go on from there) and
# findings to build-fuzz/fuzz/artifacts/NAME/.  A target passes when it ran its time
# without a finding.  Ends with one line "N passed, N failed".
#   scripts/fuzz.sh [SECONDS] [NAME...]        e.g. scripts/fuzz.sh 600 abi
#   THERMPRESS_FUZZ_BUILD=dir                   another build dir
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
shift $(( $# > 0 ? 1 : 0 ))
case $seconds in
''|*[!0-9]*|0) echo "thermpress: fuzz.sh: '$seconds' is not a number of seconds (a positive integer)" >&2; exit 2 ;;
esac
build=${THERMPRESS_FUZZ_BUILD:-build-fuzz}

if ! command -v clang >/dev/null; then
	echo "thermpress: fuzz.sh needs clang (scripts/deps.sh installs it)" >&2
	exit 1
fi
if [ -d "$build" ]; then
	meson setup --reconfigure "$build" -Dfuzz=true -Dtests=false >"$build.setup.log" 2>&1
else
	CC=clang meson setup "$build" -Dfuzz=true -Dtests=false >"$build.setup.log" 2>&1
fi || { cat "$build.setup.log" >&2; echo "thermpress: fuzz.sh: meson setup of $build failed" >&2; exit 1; }
rm -f "$build.setup.log"

mapfile -t targets < <(grep -v '^$' "$build/tests/fuzz/targets.txt")
[ $# -gt 0 ] && targets=("$@")
exes=()
for t in "${targets[@]}"; do exes+=("tests/fuzz/fuzz_$t"); done
ninja -C "$build" "${exes[@]}" >"$build/fuzz-build.log" 2>&1 ||
	{ tail -30 "$build/fuzz-build.log" >&2; echo "thermpress: fuzz.sh: building the fuzz targets failed" >&2; exit 1; }

passed=0 failed=0
for t in "${targets[@]}"; do
	seed=tests/fuzz/corpus/$t work=$build/fuzz/corpus/$t art=$build/fuzz/artifacts/$t
	log=$build/fuzz/fuzz_$t.log
	mkdir -p "$work" "$art"
	dirs=("$work")
	[ -d "$seed" ] && dirs+=("$seed")	# libFuzzer writes new inputs only into the first
	# -timeout: one input taking seconds is a finding; a leak is one too (ASan)
	"$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$art/" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ $rc -eq 0 ] && grep -q '^Done ' "$log"; then
		passed=$((passed + 1))
		printf 'fuzz_%-10s ok      %10s execs in %ss, corpus %s inputs\n' "$t" "${execs:-?}" \
			"$seconds" "$(ls "$work" | wc -l)"
	else
		failed=$((failed + 1))
		printf 'fuzz_%-10s FAILED  %10s execs (exit %d): %s\n' "$t" "${execs:-?}" "$rc" \
			"$(grep -m1 -E 'property failed|ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error' "$log")"
		echo "  log: $log; input: $(ls -t "$art" | head -1 | sed "s|^|$art/|")"
	fi
done
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
