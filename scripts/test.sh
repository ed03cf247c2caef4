#!/usr/bin/env bash
# The whole test suite: dependencies, a normal build and an ASan/UBSan build with every
# meson suite in both, each libFuzzer target briefly, the arm64 cross build's unit tests
# under qemu-user, the patched kernel under qemu (x86_64, and i386 for 32-bit), Debian's stock amd64 kernels
# 6.1, 6.12 and 7.3 under qemu, and Debian's stock arm64 kernels 6.1, 6.12 and 7.3 and
# the patched kernel built for arm64 on a big.LITTLE board in qemu.  Each part prints its
# wall time and its counts when it ends; the run ends with a table of every part's wall
# time, share and counts, then one line "N passed, N failed" over every check that ran:
# each harness's own checks (a kernel run's VM checks and replays, every prefix's checks,
# not one per run), each check a meson test made (scripts/meson-counts.py), each fuzz target.
#   scripts/test.sh                 everything
#   THERMPRESS_PARTS="P1 P2..." ... only those parts (names as in share below, spaces or
#                                   commas), in the usual order; each uses what the earlier
#                                   ones leave (build dirs, the kernel tree), so run them
#                                   after a full run or name those too
#   THERMPRESS_FUZZ_SECONDS=N ...   each fuzz target for N seconds (default 15)
#   THERMPRESS_SKIP_KERNEL=1 ...    without the kernel runs (x86_64 and i386 patched, arm64 stock, prefixes and patched)
#   THERMPRESS_SKIP_ARM64=1 ...     without the arm64 cross build and its board
#   THERMPRESS_SKIP_TRIXIE=1 ...    without the Debian 13 chroot (scripts/trixie-chroot.sh)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# The CI budget: .ci/run, cold on a fresh 2-core machine (nothing installed, nothing built),
# must finish within 60 minutes.  Each part has a share of it in seconds: its time in a
# full CI run on a 2-core machine, 2026-12 (the comment; deps from a cold install) with
# some room, the shares summing to the budget (said at the start when they do not).  A part over its share prints a warning line and is
# marked OVER in the closing table (the run goes on); so does a run over the budget.
# These are the parts' times for README.md and kernel/README.md too: they refer here.
CI_BUDGET_S=3600
declare -A share=(
  [deps]=180            # about 150 s cold (scripts/deps.sh: every package the tests need)
  [build]=240           # 210 s: configure, build, every meson suite but kernel
  [build-asan]=300      # 270 s: the same with ASan/UBSan
  [fuzz]=260            # 236 s: 13 targets, 15 s each, and their build
  [arm64-cross]=60      # 40 s: cross build, unit tests under qemu-user
  [trixie-chroot]=280   # 250 s: debootstrap, deps, build and suites in a Debian 13 chroot
  [x86-patched]=700     # 622 s (777 s on a loaded host): the 6.12 series with lockdep built from scratch, two boots
  [check-series]=200    # 185 s: every prefix of the 6.12 series compiled for i386 and arm64 from scratch, checkpatch
  [i386]=300            # 276 s: the i386 kernel (6.12 series) built from scratch, one boot
  [x86-stock]=110       # 90 s: three stock amd64 kernels booted
  [arm64-stock]=530     # 472 s: three stock arm64 kernels on the board
  [arm64-prefixes]=620  # 577 s: the arm64 kernel (6.12 series, lockdep) built from scratch, 6 prefixes booted
  [arm64-patched]=80    # 59 s: the 6.12 series on the board (built by arm64-prefixes)
)
shares_s=0
for n in "${!share[@]}"; do shares_s=$((shares_s + share[$n])); done
[ "$shares_s" -le "$CI_BUDGET_S" ] ||
  echo "thermpress: WARNING: the parts' shares sum to ${shares_s} s, over the ${CI_BUDGET_S} s CI budget (scripts/test.sh)" >&2
t_run=$(date +%s)
part_names=() part_secs=() part_counts=()
passed=0 failed=0
parts_wanted=${THERMPRESS_PARTS:-}
parts_wanted=" ${parts_wanted//,/ } "
for n in $parts_wanted; do	# a misspelt part would run nothing and pass
  [ -n "${share[$n]:-}" ] || { echo "thermpress: THERMPRESS_PARTS: no part '$n' (parts: ${!share[*]})" >&2; exit 2; }
done

# part NAME CMD...: one part of the run, timed.  Its checks are counted from the last
# "N passed, N failed" line it prints (every harness and script here ends with one); a
# part that prints none counts as one failure, and a nonzero exit with no failure
# counted as one more.  With THERMPRESS_PARTS, a part not named there does not run.
part() {
  local name=$1 t0 rc log p=0 f=0 secs over=
  shift
  [ -z "${THERMPRESS_PARTS:-}" ] || [[ $parts_wanted == *" $name "* ]] || return 0
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
  [ "$secs" -gt "${share[$name]:-0}" ] && over=OVER
  part_names+=("$name") part_secs+=("$secs") part_counts+=("$p passed, $f failed${over:+  $over}")
  echo "== part $name: ${secs} s of its ${share[$name]:-0} s share, $p passed, $f failed =="
  if [ -n "$over" ]; then
    echo "thermpress: WARNING: part $name took ${secs} s, over its share of ${share[$name]:-0} s of the ${CI_BUDGET_S} s CI budget (scripts/test.sh)" >&2
  fi
}

# deps installs and checks nothing: it counts only when it fails
deps() {
  bash scripts/deps.sh || { echo "thermpress: installing dependencies failed" >&2; echo "0 passed, 1 failed"; return 1; }
  echo "0 passed, 0 failed"
}

# meson_counts DIR: a build dir's meson results as "N passed, N failed", every check each
# test made (scripts/meson-counts.py reads the counts the tests print)
meson_counts() {
  python3 scripts/meson-counts.py "$1/meson-logs/testlog.json"
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
  # The series CI tests is the 6.12 one, in every part below; the 6.1 series stays in
  # kernel/patches, run by the same scripts without --series (kernel/README.md).
  # The patch series on Linux 6.12 under qemu x86 (two boots with lockdep, the update logs
  # replayed, the source's lockless rules and checkpatch)
  part x86-patched env THERMPRESS_BUILD=build bash kernel/run.sh --series 6.12
  # every prefix of the 6.12 series compiles for i386 and arm64, checkpatch, lockless
  # fields
  part check-series bash kernel/check-series.sh --series 6.12
  # the 6.12 series booted as a 32-bit kernel: caps where the pressure's product
  # overflows 32 bits
  part i386 bash kernel/i386/run.sh --series 6.12
  # Debian's stock amd64 kernels 6.1, 6.12 and 7.3 in a qemu guest (no cpufreq there)
  part x86-stock bash kernel/x86-stock/run.sh --thermpress-build build
  if [ "${THERMPRESS_SKIP_ARM64:-0}" != 1 ]; then
    # the arm64 big.LITTLE board with Debian's stock kernels 6.1, 6.12 and 7.3 in turn
    part arm64-stock bash kernel/arm64/run.sh --thermpress-build build-arm64
    # every prefix of the series on the same board (a cap through the cooling device lowers
    # the scheduler's capacity); the last prefix is the whole series, so the run after it
    # finds its kernel built
    part arm64-prefixes bash kernel/arm64/check-prefixes.sh --series 6.12 --thermpress-build build-arm64
    # the series on the same board, lockdep on, caps from every feed; its update logs are
    # replayed on the host through build's plugins
    part arm64-patched bash kernel/arm64/run.sh --patched --series 6.12 --thermpress-build build-arm64 \
      --host-build build
  fi
fi

total_s=$(($(date +%s) - t_run))
echo "== parts: wall time, share of the ${CI_BUDGET_S} s CI budget, checks =="
for i in "${!part_names[@]}"; do
  printf '  %-15s %5s s  %5s s  %s\n' "${part_names[$i]}" "${part_secs[$i]}" \
    "${share[${part_names[$i]}]:-0}" "${part_counts[$i]}"
done
printf '  %-15s %5s s  %5s s\n' total "$total_s" "$CI_BUDGET_S"
if [ "$total_s" -gt "$CI_BUDGET_S" ]; then
  echo "thermpress: WARNING: the run took ${total_s} s, over the ${CI_BUDGET_S} s CI budget (scripts/test.sh)" >&2
fi
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
