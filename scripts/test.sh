#!/usr/bin/env bash
# The whole test suite: dependencies, a normal build and an ASan/UBSan build with every
# meson suite in both, each libFuzzer target briefly, the arm64 cross build's unit tests
# under qemu-user, the patched kernel under qemu (x86_64, and i386 for 32-bit), Debian's stock amd64 kernels
# 6.12 and 7.3 under qemu, and Debian's stock arm64 kernels 6.1, 6.12 and 7.3 and
# the patched kernel built for arm64 on a big.LITTLE board in qemu.  Ends with one line
# "N passed, N failed" over everything that ran.
#   scripts/test.sh                 everything
#   THERMPRESS_FUZZ_SECONDS=N ...   each fuzz target for N seconds (default 15)
#   THERMPRESS_SKIP_KERNEL=1 ...    without the kernel runs (x86_64 and i386 patched, arm64 stock, prefixes and patched)
#   THERMPRESS_SKIP_ARM64=1 ...     without the arm64 cross build and its board
#   THERMPRESS_SKIP_TRIXIE=1 ...    without the Debian 13 chroot (scripts/trixie-chroot.sh)
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

# The libFuzzer targets, briefly, when clang can build them: each target is one test.
if command -v clang >/dev/null; then
  fuzz_log=$(mktemp)
  bash scripts/fuzz.sh "${THERMPRESS_FUZZ_SECONDS:-15}" >"$fuzz_log" 2>&1
  cat "$fuzz_log"
  fuzz_out=$(tail -1 "$fuzz_log")
  rm -f "$fuzz_log"
  if [[ $fuzz_out =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
  else
    echo "thermpress: the fuzz targets did not run" >&2; failed=$((failed + 1))
  fi
else
  echo "thermpress: clang not found: fuzz targets skipped" >&2
fi

# The arm64 cross build: its unit tests (cmocka) run under qemu-user, the cross file's
# exe wrapper.  The shell-script tests would exec the arm64 binary directly: left out.
if [ "${THERMPRESS_SKIP_ARM64:-0}" != 1 ]; then
  rm -f build-arm64/meson-logs/testlog*.json
  if [ -d build-arm64 ]; then meson setup --reconfigure build-arm64 >/dev/null
  else meson setup --cross-file cross/aarch64-linux-gnu.ini build-arm64 >/dev/null; fi &&
  ninja -C build-arm64 &&
  meson test -C build-arm64 --print-errorlogs --suite unit --suite stock-ns
  count build-arm64
  [ -f build-arm64/meson-logs/testlog.json ] ||
    { echo "thermpress: arm64 cross build failed" >&2; failed=$((failed + 1)); }
fi

# Debian 13 (trixie): deps.sh, the build and every suite but kernel in a debootstrap
# chroot (scripts/trixie-chroot.sh; measured: its first run 9 to 10.5 minutes, later ones 4 to 5.5).
if [ "${THERMPRESS_SKIP_TRIXIE:-0}" != 1 ]; then
  trixie_log=$(mktemp)
  bash scripts/trixie-chroot.sh 2>&1 | tee "$trixie_log"
  trixie_out=$(tail -1 "$trixie_log")
  rm -f "$trixie_log"
  if [[ $trixie_out =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
  else
    echo "thermpress: the Debian 13 chroot did not run" >&2; failed=$((failed + 1))
  fi
fi

if [ "${THERMPRESS_SKIP_KERNEL:-0}" != 1 ] && [ -f kernel/run.sh ]; then
  if THERMPRESS_BUILD=build bash kernel/run.sh; then passed=$((passed + 1))
  else echo "thermpress: kernel suite failed" >&2; failed=$((failed + 1)); fi
  # every prefix of the series compiles for i386 and arm64 (kernel/README.md)
  if bash kernel/check-series.sh; then passed=$((passed + 1))
  else echo "thermpress: kernel series check failed" >&2; failed=$((failed + 1)); fi
  # the series booted as a 32-bit kernel: caps where the pressure's product overflows 32 bits
  if bash kernel/i386/run.sh; then passed=$((passed + 1))
  else echo "thermpress: i386 kernel run failed" >&2; failed=$((failed + 1)); fi
  # Debian's stock amd64 kernels 6.12 and 7.3 in a qemu guest (no cpufreq there)
  if bash kernel/x86-stock/run.sh --thermpress-build build; then passed=$((passed + 1))
  else echo "thermpress: x86 stock-kernel runs failed" >&2; failed=$((failed + 1)); fi
fi

# The arm64 big.LITTLE board with Debian's stock kernels 6.1, 6.12 and 7.3 in turn,
# running the cross build (kernel/README.md): 2 to 4 minutes each.
if [ "${THERMPRESS_SKIP_KERNEL:-0}" != 1 ] && [ "${THERMPRESS_SKIP_ARM64:-0}" != 1 ]; then
  if bash kernel/arm64/run.sh --thermpress-build build-arm64; then passed=$((passed + 1))
  else echo "thermpress: arm64 stock-kernel run failed" >&2; failed=$((failed + 1)); fi
  # every prefix of the series on the same board (a cap through the cooling device lowers
  # the scheduler's capacity), built for arm64 from kernel/run.sh's tree; the last prefix
  # is the whole series, so the run after it finds its kernel built
  if bash kernel/arm64/check-prefixes.sh --thermpress-build build-arm64; then passed=$((passed + 1))
  else echo "thermpress: arm64 prefix boots failed" >&2; failed=$((failed + 1)); fi
  # the patch series on the same board; its update logs are replayed on the host
  # through build's plugins
  if bash kernel/arm64/run.sh --patched --thermpress-build build-arm64 --host-build build; then
    passed=$((passed + 1))
  else echo "thermpress: arm64 patched-kernel run failed" >&2; failed=$((failed + 1)); fi
fi

echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
