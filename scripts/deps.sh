#!/usr/bin/env bash
# Installs everything thermpress needs to build and test on Debian 12 (run as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential meson ninja-build pkg-config git
  libcli-dev libjson-c-dev libfuse3-dev fuse3 libncurses-dev libcpupower-dev
  libcmocka-dev python3 tmux htop procps
  # the patched kernel and its qemu harness (kernel/)
  linux-source-6.1 qemu-system-x86 busybox-static flex bison libelf-dev bc libssl-dev cpio xz-utils
  rt-tests
  time  # GNU time: peak memory in tests/exp/traces.sh and tests/bench/bench-replay-scale.sh
  # libFuzzer targets (tests/fuzz, scripts/fuzz.sh): clang and its fuzzer runtime
  clang libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ] || [ "${THERMPRESS_FORCE_APT:-0}" = 1 ]; then
  apt-get update
  apt-get install -y --no-install-recommends "${packages[@]}"
fi
