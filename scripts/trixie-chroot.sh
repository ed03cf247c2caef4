#!/usr/bin/env bash
# The README's build and every meson suite but the kernel's on Debian 13 (trixie), in a
# chroot made by debootstrap under build-trixie/ (run as root on Debian 12 or 13).
#   1. debootstrap --variant=minbase trixie build-trixie/root, kept for later runs: redone
#      only when build-trixie/root.stamp does not name this release, variant, architecture
#      and mirror (rm -rf build-trixie makes the next run cold; a cold run's time: the
#      trixie-chroot part at the top of scripts/test.sh)
#   2. inside: THERMPRESS_DEPS_NATIVE=1 bash scripts/deps.sh (what the native build and
#      its non-kernel suites need: no arm64 cross packages, qemu or kernel build tools)
#   3. inside: meson setup build && ninja -C build, on a fresh copy of the working tree's
#      tracked files (/thermpress in the chroot)
#   4. inside: meson test -C build --no-suite kernel
# The chroot gets /proc, /sys, /dev and /dev/pts from the host, a /dev/shm of its own, and its root is a bind
# mount of itself, so that / is a mount point: the 'stock-ns' suite makes / private in a
# mount namespace of its own (mount(2) says EINVAL for a / that is not a mount point).
# A policy-rc.d that exits 101 keeps package scripts from starting services (prometheus).
# Every mount is undone on any exit, innermost first (lazily if busy), after the
# processes left in the chroot are killed.
# Prints each part's wall time, then one line "N passed, N failed" (every check each
# meson test made, as scripts/test.sh counts: scripts/meson-counts.py; a part that fails
# before the tests counts as one failure); exits nonzero on any failure.
#   THERMPRESS_TRIXIE_DIR=DIR      instead of build-trixie
#   THERMPRESS_TRIXIE_MIRROR=URL   instead of http://deb.debian.org/debian
set -uo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "trixie-chroot: run as root" >&2; exit 2; }

suite=trixie arch=amd64 variant=minbase
mirror=${THERMPRESS_TRIXIE_MIRROR:-http://deb.debian.org/debian}
top=$PWD/${THERMPRESS_TRIXIE_DIR:-build-trixie}
root=$top/root
stamp=$top/root.stamp
key="$suite $variant $arch $mirror"
inner_env=(/usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}"
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)

# ---- mounts: every mount at or under $root, innermost (latest) first
mounts_under() {
  awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo | tac
}
cleanup() {
  local pid m
  # processes left inside (a test's server): the chroot's processes have $root as root
  for pid in /proc/[0-9]*; do
    [ "$(readlink "$pid/root" 2>/dev/null)" = "$root" ] && kill -9 "${pid#/proc/}" 2>/dev/null
  done
  for m in $(mounts_under); do
    umount "$m" 2>/dev/null || umount -l "$m" || echo "trixie-chroot: cannot unmount $m" >&2
  done
}
no_mounts() {	# refuse to delete anything under $root while something is mounted there
  [ -z "$(mounts_under)" ] && return 0
  echo "trixie-chroot: mounts under $root, not deleting:" >&2; mounts_under >&2; exit 2
}
# one run at a time; what a killed earlier run left mounted is undone first
mkdir -p "$top"
exec 9>"$top/lock"
flock -n 9 || { echo "trixie-chroot: another run holds $top/lock" >&2; exit 2; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
cleanup

passed=0 failed=0
times=()
part() {	# name, command...: runs and times one part; its status is the command's
  local name=$1 t0=$SECONDS rc
  shift
  echo "== trixie-chroot: $name"
  "$@"; rc=$?
  times+=("$name $((SECONDS - t0)) s${reused:-}")
  reused=
  [ $rc -eq 0 ] || echo "trixie-chroot: $name failed (exit $rc)" >&2
  return $rc
}
finish() {
  echo "trixie-chroot: wall time: $(IFS=,; echo "${times[*]}" | sed 's/,/, /g')"
  echo "${passed} passed, ${failed} failed"
  [ "$failed" -eq 0 ]
  exit
}

# ---- 1. debootstrap, cached
bootstrap() {
  if [ "$(cat "$stamp" 2>/dev/null)" = "$key" ] && [ -x "$root/usr/bin/apt-get" ]; then
    echo "trixie-chroot: reusing $root ($key)"
    reused=" (reused)"
    return 0
  fi
  command -v debootstrap >/dev/null ||
    apt-get install -y --no-install-recommends debootstrap ||
    { apt-get update; apt-get install -y --no-install-recommends debootstrap; } || return
  no_mounts
  rm -rf --one-file-system "$root" "$stamp"
  mkdir -p "$top"
  debootstrap --variant="$variant" --arch="$arch" "$suite" "$root" "$mirror" >"$top/debootstrap.log" 2>&1 ||
    { tail -20 "$top/debootstrap.log" >&2; return 1; }
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  echo "$key" >"$stamp"
}
part debootstrap bootstrap || { failed=$((failed + 1)); finish; }

no_mounts
mount --bind "$root" "$root" && mount --make-private "$root" &&
  mount -t proc proc "$root/proc" &&
  mount --bind /sys "$root/sys" &&
  mount --bind /dev "$root/dev" &&
  mount --bind /dev/pts "$root/dev/pts" &&
  mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm" ||
  { echo "trixie-chroot: mounting failed" >&2; failed=$((failed + 1)); finish; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
inside() { chroot "$root" "${inner_env[@]}" bash -c "cd /thermpress && $1"; }

# the working tree's tracked files (what a checkout has), fresh each run
rm -rf --one-file-system "$root/thermpress"
mkdir "$root/thermpress"
git ls-files -z | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$root/thermpress" ||
  { echo "trixie-chroot: copying the tree failed" >&2; failed=$((failed + 1)); finish; }

# ---- 2. to 4.
part deps inside 'THERMPRESS_DEPS_NATIVE=1 bash scripts/deps.sh' ||
  { failed=$((failed + 1)); finish; }
part build inside 'meson setup build && ninja -C build' ||
  { failed=$((failed + 1)); finish; }
part tests inside 'meson test -C build --print-errorlogs --no-suite kernel'
log=$root/thermpress/build/meson-logs/testlog.json
if [ -f "$log" ]; then
  counts=$(python3 scripts/meson-counts.py "$log")
  if [[ $counts =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]}
  else
    echo "trixie-chroot: cannot count the tests: $counts" >&2; failed=1
  fi
else
  echo "trixie-chroot: the tests did not run" >&2; failed=1
fi
finish
