#!/usr/bin/env bash
# The whole test suite: dependencies, a normal build and an ASan/UBSan build with every
# meson suite in both, each libFuzzer target briefly, the arm64 cross build's unit tests
# under qemu-user, the patched kernel under qemu (x86_64, and i386 for 32-bit), Debian's stock amd64 kernels
# 6.1, 6.12 and 7.3 under qemu, and Debian's stock arm64 kernels 6.1, 6.12 and 7.3 and
# the patched kernel built for arm64 on a big.LITTLE board in qemu.  Ends with one line
# "N passed, N failed" over every check that ran (each harness's own checks, each meson
# test, each fuzz target), after a table of each part's wall time.
#   scripts/test.sh                 everything
#   THERMPRESS_FUZZ_SECONDS=N ...   each fuzz target for N seconds (default 15)
#   THERMPRESS_SKIP_KERNEL=1 ...    without the kernel runs (x86_64 and i386 patched, arm64 stock, prefixes and patched)
#   THERMPRESS_SKIP_ARM64=1 ...     without the arm64 cross build and its board
#   THERMPRESS_SKIP_TRIXIE=1 ...    without the Debian 13 chroot (scripts/trixie-chroot.sh)
set -uo pipefail
cd "$(dirname "$0")/.."

# The CI budget: .ci/run must finish in 90 minutes on a fresh 2-core machine and is kept
# under 60 (README.md).  Each part has a share in seconds, from measured cold runs with
# some room; a part over its share prints a warning line (the run goes on), and the
# closing table gives every part's wall time.
CI_BUDGET_S=3600
declare -A share=(
  [deps]=420 [build]=480 [build-asan]=600 [fuzz]=240 [arm64-cross]=360 [trixie-chroot]=660
  [x86-patched]=900 [check-series]=300 [i386]=480 [x86-stock]=180
  [arm64-stock]=600 [arm64-prefixes]=900 [arm64-patched]=240
)
t_run=$(date +%s)
part_names=() part_secs=() part_counts=()
passed=0 failed=0

# part NAME CMD...: one part of the run, timed.  Its checks are counted from the last
# "N passed, N failed" line it prints (every harness and script here ends with one); a
# part that prints none counts as one failure, and a nonzero exit with no failure
# counted as one more.
part() {
  local name=$1 t0 rc log p=0 f=0 secs
  shift
  log=$(mktemp)
  t0=$(date +%s)
  echo "== part $name =="
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  secs=$(($(date +%s) - t0))
  local last
  last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  rm -f "$log"
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
    [ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
  else
    echo "thermpress: part $name printed no 'N passed, N failed' line (exit $rc)" >&2
    f=1
  fi
  passed=$((passed + p)) failed=$((failed + f))
  part_names+=("$name") part_secs+=("$secs") part_counts+=("$p passed, $f failed")
  if [ "$secs" -gt "${share[$name]:-0}" ]; then
    echo "thermpress: warning: part $name took ${secs}s, over its share of ${share[$name]:-0}s of the ${CI_BUDGET_S}s CI budget" >&2
  fi
}

deps() {
  bash scripts/deps.sh || { echo "thermpress: installing dependencies failed" >&2; echo "0 passed, 1 failed"; return 1; }
  echo "1 passed, 0 failed"
}

# meson_counts DIR: a build dir's meson results as "N passed, N failed"
meson_counts() {
  local log="$1/meson-logs/testlog.json" p=0 f=0
  if [ -f "$log" ]; then
    p=$(grep -c '"result": "OK"' "$log" || true)
    f=$(grep -c -E '"result": "(FAIL|ERROR|TIMEOUT|UNEXPECTEDPASS)"' "$log" || true)
  else
    f=1
  fi
  echo "$p passed, $f failed"
}

build_and_test() {	# dir, meson options...
  local dir=$1; shift
  if [ -d "$dir" ]; then meson setup --reconfigure "$dir" "$@" >/dev/null
  else meson setup "$dir" "$@" >/dev/null; fi || { echo "0 passed, 1 failed"; return 1; }
  ninja -C "$dir" || { echo "thermpress: build in $dir failed" >&2; echo "0 passed, 1 failed"; return 1; }
  rm -f "$dir"/meson-logs/testlog*.json "$dir"/*.xml
  meson test -C "$dir" --print-errorlogs --no-suite kernel
  meson_counts "$dir"
}

# The arm64 cross build: its unit tests (cmocka) run under qemu-user, the cross file's
# exe wrapper.  The shell-script tests would exec the arm64 binary directly: left out.
arm64_cross() {
  rm -f build-arm64/meson-logs/testlog*.json
  if [ -d build-arm64 ]; then meson setup --reconfigure build-arm64 >/dev/null
  else meson setup --cross-file cross/aarch64-linux-gnu.ini build-arm64 >/dev/null; fi &&
  ninja -C build-arm64 &&
  meson test -C build-arm64 --print-errorlogs --suite unit --suite stock-ns
  meson_counts build-arm64
}

part deps deps || true
# bpf enabled, not auto: a build dir that scripts/quickstart.sh configured before clang,
# bpftool and libbpf were installed must not keep testing without the BPF reader
part build build_and_test build -Dbpf=enabled
part build-asan build_and_test build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbpf=enabled

# The libFuzzer targets, briefly, when clang can build them: each target is one test.
if command -v clang >/dev/null; then
  part fuzz bash scripts/fuzz.sh "${THERMPRESS_FUZZ_SECONDS:-15}"
else
  echo "thermpress: clang not found: fuzz targets skipped" >&2
fi

[ "${THERMPRESS_SKIP_ARM64:-0}" != 1 ] && part arm64-cross arm64_cross

# Debian 13 (trixie): deps.sh, the build and every suite but kernel in a debootstrap
# chroot (scripts/trixie-chroot.sh)
[ "${THERMPRESS_SKIP_TRIXIE:-0}" != 1 ] && part trixie-chroot bash scripts/trixie-chroot.sh

if [ "${THERMPRESS_SKIP_KERNEL:-0}" != 1 ]; then
  # the patch series on Linux 6.1 under qemu x86 (two boots, the update logs replayed)
  part x86-patched env THERMPRESS_BUILD=build bash kernel/run.sh
  # every prefix of the series compiles for i386 and arm64, checkpatch, lockless fields
  part check-series bash kernel/check-series.sh
  # the series booted as a 32-bit kernel: caps where the pressure's product overflows 32 bits
  part i386 bash kernel/i386/run.sh
  # Debian's stock amd64 kernels 6.12 and 7.3 in a qemu guest (no cpufreq there)
  part x86-stock bash kernel/x86-stock/run.sh --thermpress-build build
  if [ "${THERMPRESS_SKIP_ARM64:-0}" != 1 ]; then
    # the arm64 big.LITTLE board with Debian's stock kernels 6.1, 6.12 and 7.3 in turn
    part arm64-stock bash kernel/arm64/run.sh --thermpress-build build-arm64
    # every prefix of the series on the same board (a cap through the cooling device lowers
    # the scheduler's capacity); the last prefix is the whole series, so the run after it
    # finds its kernel built
    part arm64-prefixes bash kernel/arm64/check-prefixes.sh --thermpress-build build-arm64
    # the series on the same board; its update logs are replayed on the host through
    # build's plugins
    part arm64-patched bash kernel/arm64/run.sh --patched --thermpress-build build-arm64 --host-build build
  fi
fi

total_s=$(($(date +%s) - t_run))
echo "== parts: wall time and checks (CI budget ${CI_BUDGET_S}s) =="
for i in "${!part_names[@]}"; do
  printf '  %-15s %5ss  %s\n' "${part_names[$i]}" "${part_secs[$i]}" "${part_counts[$i]}"
done
printf '  %-15s %5ss\n' total "$total_s"
[ "$total_s" -gt "$CI_BUDGET_S" ] &&
  echo "thermpress: warning: the run took ${total_s}s, over the ${CI_BUDGET_S}s CI budget" >&2
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
