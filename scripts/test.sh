#!/usr/bin/env bash
# The whole test suite: dependencies, a normal build and an ASan/UBSan build, every
# meson suite in both, and the patched kernel under qemu.  Ends with one line
# "N passed, N failed" over everything that ran.
#   scripts/test.sh                 everything
#   THERMPRESS_SKIP_KERNEL=1 ...    without the kernel suite
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh || { echo "thermpress: installing dependencies failed" >&2; exit 1; }

passed=0 failed=0
count() {	# add a meson build dir's results to the totals
  local log="$1/meson-logs/testlog.json"
  [ -f "$log" ] || return 0
  local p f
  p=$(grep -c '"result": "OK"' "$log" || true)
  f=$(grep -c -E '"result": "(FAIL|ERROR|TIMEOUT|UNEXPECTEDPASS)"' "$log" || true)
  passed=$((passed + p)) failed=$((failed + f))
}

run_build() {	# dir, meson options...
  local dir=$1; shift
  if [ -d "$dir" ]; then meson setup --reconfigure "$dir" "$@" >/dev/null
  else meson setup "$dir" "$@" >/dev/null; fi || { failed=$((failed + 1)); return; }
  ninja -C "$dir" || { echo "thermpress: build in $dir failed" >&2; failed=$((failed + 1)); return; }
  rm -f "$dir"/meson-logs/testlog*.json "$dir"/*.xml
  meson test -C "$dir" --print-errorlogs --no-suite kernel
  count "$dir"
}

run_build build
run_build build-asan -Db_sanitize=address,undefined -Db_lundef=false

if [ "${THERMPRESS_SKIP_KERNEL:-0}" != 1 ] && [ -f kernel/run.sh ]; then
  if THERMPRESS_BUILD=build bash kernel/run.sh; then passed=$((passed + 1))
  else echo "thermpress: kernel suite failed" >&2; failed=$((failed + 1)); fi
fi

echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
