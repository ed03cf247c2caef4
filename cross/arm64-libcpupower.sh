#!/usr/bin/env bash
# Installs the arm64 libcpupower into /usr/local/lib/aarch64-linux-gnu (run as root).
# libcpupower1 and libcpupower-dev carry no Multi-Arch field, so dpkg refuses their arm64
# build beside the amd64 one that the native build needs; every other arm64 library comes
# from Debian's multiarch packages (scripts/deps.sh).  The libraries are extracted with
# dpkg-deb from the archive's arm64 packages of the installed amd64 version; the headers
# are the amd64 package's /usr/include/cpufreq.h, the same file.  /usr/local/lib/<triplet>
# is on an arm64 Debian loader's path; cross/aarch64-linux-gnu.ini links from it and points
# qemu-user's loader at it (the host's ld.so.cache has amd64 libraries only).
# Needs `dpkg --add-architecture arm64` and `apt-get update` first.  Idempotent: does
# nothing when that version is already there.
set -euo pipefail
libdir=/usr/local/lib/aarch64-linux-gnu
stamp=/usr/local/share/doc/thermpress-arm64-libcpupower/version
pkgs=(libcpupower1:arm64 libcpupower-dev:arm64)

# the same version as the amd64 libcpupower-dev, whose /usr/include/cpufreq.h is used
v=$(dpkg-query -W -f='${Version}' libcpupower-dev:amd64 2>/dev/null) || {
  echo "arm64-libcpupower.sh: libcpupower-dev (amd64) is not installed" >&2
  exit 2
}
want="${pkgs[*]/%/=$v}"
[ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && [ -e "$libdir/libcpupower.so" ] && exit 0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the download runs as root: _apt cannot write into a root-owned mktemp dir
(cd "$tmp" && apt-get -o APT::Sandbox::User=root download ${want} >/dev/null)
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
src="$tmp/root/usr/lib/aarch64-linux-gnu"
[ -e "$src/libcpupower.so" ] || { echo "arm64-libcpupower.sh: no libcpupower.so in $want" >&2; exit 2; }
mkdir -p "$libdir" "$(dirname "$stamp")"
cp -a "$src"/libcpupower.so* "$libdir/"
echo "$want" >"$stamp"
echo "arm64-libcpupower.sh: installed $want into $libdir" >&2
