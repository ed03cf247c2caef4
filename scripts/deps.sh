#!/usr/bin/env bash
# Installs everything thermpress needs to build and test on Debian 12 or 13 (run as root).
# Fast when everything is there: one dpkg-query per package, no apt-get update.
#   THERMPRESS_DEPS_NATIVE=1   only what the native build and its meson suites other than
#                              'kernel' need: no arm64 architecture, cross or :arm64 packages,
#                              no qemu, no kernel build tools, no fuzzer runtime
#                              (scripts/trixie-chroot.sh, in a chroot)
#   THERMPRESS_DEPS_RUN=1      only what building and running thermpress needs (the
#                              README's first command, scripts/quickstart.sh): the
#                              compiler, meson, the libraries it links, cmocka (the default
#                              build builds the unit tests) and fuse3; no test tools,
#                              kernels, qemu, Prometheus, shells, clang or cross packages
#   THERMPRESS_DEPS_LIST=1     print the package list and change nothing
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

# ---- Per release (Debian 12 bookworm, 13 trixie): what each one names.
release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
# Drops the packages this release should not get from this script: on trixie,
# linux-source-6.1 (kernel/ fetches its kernel sources through an apt state of its own).
release_filter() {
  local p
  for p in "$@"; do
    case $release:$p in
      bookworm:*) echo "$p" ;;
      *:linux-source-6.1) ;;
      *) echo "$p" ;;
    esac
  done
}
# apt reads a name it has no package for as a regular expression when it has a dot
# ("linux-source-6.1" installs linux-source-6.12 on trixie): beyond bookworm, a versioned
# name (a digit after a dash, or a dot) is installed only if the archive has exactly that
# package; the others are named on stderr and left out.  Needs the indexes (apt-get update).
release_exact() {
  local p
  for p in "$@"; do
    if [ "$release" != bookworm ] && [[ $p == *-[0-9]* || $p == *.* ]] &&
       ! apt-cache show --no-all-versions "$p" 2>/dev/null | grep -qx "Package: ${p%%:*}"; then
      echo "thermpress: Debian ${release:-?} has no package $p: left out" >&2
      continue
    fi
    echo "$p"
  done
}
# The libFuzzer runtime must match the release's default clang (clang 14 on Debian 12,
# clang 19 on Debian 13); the other release has no such package
case "$release" in
  bookworm) clang_rt=libclang-rt-14-dev ;;
  trixie) clang_rt=libclang-rt-19-dev ;;
  *) echo "thermpress: scripts/deps.sh knows Debian bookworm and trixie, not '$release' (VERSION_CODENAME in /etc/os-release)" >&2
     exit 1 ;;
esac
packages=(
  build-essential meson ninja-build pkg-config git
  libcli-dev libjson-c-dev libfuse3-dev fuse3 libncurses-dev libcpupower-dev
  libcmocka-dev python3 tmux htop procps
  # the patched kernel and its qemu harness (kernel/)
  linux-source-6.1 linux-source-6.12 qemu-system-x86 busybox-static flex bison libelf-dev bc libssl-dev cpio xz-utils
  rt-tests
  # checkpatch.pl's SPDX check (kernel/check-series.sh)
  python3-ply python3-git
  # thermpress export (export/): libmicrohttpd, and the real Prometheus, promtool and
  # node_exporter its tests scrape it with (tests/e2e/export*.sh)
  libmicrohttpd-dev prometheus prometheus-node-exporter
  # the zsh and fish completions are tested by driving the real shells (tests/e2e/completion.sh)
  zsh fish
  strace  # tests/e2e/stats_reads.sh: reads of the kernel's stats per cap set
  # tests/tui/complete.sh checks the bash completion with bash-completion loaded too
  bash-completion
  time  # GNU time: peak memory in tests/exp/traces.sh and tests/bench/bench-replay-scale.sh
  universal-ctags  # scripts/func-lengths.sh: the cmd/ function length test
  # libFuzzer targets (tests/fuzz, scripts/fuzz.sh): clang and its fuzzer runtime
  clang "$clang_rt"
  # the arm64 cross build (cross/aarch64-linux-gnu.ini; its tests run under qemu-user) and the
  # arm64 big.LITTLE board with Debian's stock kernel (kernel/arm64/)
  gcc-aarch64-linux-gnu qemu-user qemu-system-arm device-tree-compiler kmod
  # the kernel's own average on stock kernels (core/stock/bpf/, -Dbpf): the BPF program is
  # built with clang and embedded with bpftool; libbpf (and its libelf, zlib) for each architecture
  bpftool libbpf-dev libbpf-dev:arm64 libelf-dev:arm64
  libcli-dev:arm64 libjson-c-dev:arm64 libfuse3-dev:arm64 libncurses-dev:arm64
  libcmocka-dev:arm64 zlib1g-dev:arm64 libmicrohttpd-dev:arm64
)
mapfile -t packages < <(release_filter "${packages[@]}")
if [ "${THERMPRESS_DEPS_RUN:-0}" = 1 ]; then
  packages=(build-essential meson ninja-build pkg-config
    libcli-dev libjson-c-dev libfuse3-dev fuse3 libncurses-dev libcpupower-dev libcmocka-dev
    libmicrohttpd-dev)
  THERMPRESS_DEPS_NATIVE=1	# and no arm64 architecture
fi
# THERMPRESS_DEPS_NATIVE=1: without the arm64, qemu, kernel and fuzzer packages (above)
native=${THERMPRESS_DEPS_NATIVE:-0}
if [ "$native" = 1 ]; then
  keep=()
  for p in "${packages[@]}"; do
    case $p in
      *:arm64 | gcc-aarch64-linux-gnu | qemu-* | device-tree-compiler | kmod | linux-source-* | \
      busybox-static | flex | bison | bc | libssl-dev | cpio | rt-tests | python3-ply | \
      python3-git | libclang-rt-*) ;;
      *) keep+=("$p") ;;
    esac
  done
  packages=("${keep[@]}")
fi
# THERMPRESS_DEPS_LIST=1: print the packages this run would make sure of, one a line, and
# change nothing (tests/e2e/deps_sets.sh)
if [ "${THERMPRESS_DEPS_LIST:-0}" = 1 ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi
# arm64 for the cross build and the board.  Not i386: kernel/i386/run.sh downloads its
# busybox-static:i386 through an apt state of its own, so a broken i386 index on the
# mirror cannot fail this update
[ "$native" = 1 ] || dpkg --print-foreign-architectures | grep -x arm64 >/dev/null || {
  dpkg --add-architecture arm64
  THERMPRESS_FORCE_APT=1
}
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ] || [ "${THERMPRESS_FORCE_APT:-0}" = 1 ]; then
  # a mirror caught mid-sync fails one index (seen: bookworm-security's i386 Packages,
  # which nothing here needs): retry, then go on with what was fetched, and let
  # apt-get install say whether a package is really missing
  apt-get update || { sleep 15; apt-get update; } || { sleep 15; apt-get update; } ||
    echo "thermpress: apt-get update failed 3 times; installing from the indexes it did fetch" >&2
  mapfile -t packages < <(release_exact "${packages[@]}")
  apt-get install -y --no-install-recommends "${packages[@]}"
fi
# libcpupower has no Multi-Arch: its arm64 build goes to /usr/local (does nothing when current)
[ "$native" = 1 ] || bash "$(dirname "$0")/../cross/arm64-libcpupower.sh"
