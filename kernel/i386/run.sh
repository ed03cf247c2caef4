#!/bin/bash
# Build the patch series for 32-bit x86 (i386) from the source tree kernel/run.sh
# prepared, boot it under qemu-system-i386 with a static i386 busybox (Debian's
# busybox-static:i386, downloaded) and run kernel/i386/vm-test.sh inside: caps of CPUs
# whose nominal frequency is 5 GHz, where max_capacity * cap overflows 32 bits.
#
# Exit status: 0 all checks passed; 1 a check failed; 2 usage or setup error;
# 3 the VM timed out or never reported.
set -euo pipefail

usage() {
	cat <<'EOF2'
usage: bash kernel/i386/run.sh [OPTIONS]

  --build-dir DIR   objects, downloads, initramfs and console log
                    (default: build-i386/ at the top of the repository)
  --kernel-dir DIR  kernel/run.sh's build dir, whose source tree carries the series
                    (default: build-kernel/; kernel/run.sh --source-only is enough)
  --series V        6.1 (kernel/patches, the default) or 6.12 (kernel/patches-6.12,
                    kernel/i386/config-6.12.fragment; objects in BUILD_DIR/obj-6.12)
  --timeout SEC     kill qemu after SEC seconds (default: 120)
  --jobs N          make -j N (default: 2)
  -h, --help        show this help
EOF2
}

me=i386/run.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/host.sh"
bdir="$top/build-i386"
kdir=build-kernel
tpbuild=build	# unused: nothing of thermpress runs in this VM
timeout_s=120
jobs=2
series=6.1
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) bdir=$2; shift 2 ;;
	--kernel-dir) kdir=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--series) series=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$me: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
resolve_dirs
case "$kdir" in /*) ;; *) kdir="$top/$kdir" ;; esac
t_all=$(now)
for tool in qemu-system-i386 make gcc dpkg-deb apt-get cpio gzip; do
	command -v "$tool" >/dev/null || die "$tool is missing (bash scripts/deps.sh installs it)"
done

# ---- 1. the kernel ----------------------------------------------------------------
series_suffix "$series"
sfx=$series_sfx
series_tree "$kdir" "$series"
obj="$bdir/obj$sfx"
frag="$here/config$sfx.fragment"
cfg_sum=$( (cat "$frag"; echo "$series_sum") | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$bdir/config$sfx.stamp" 2>/dev/null)" != "$cfg_sum" ]; then
	log "configuring: i386 tinyconfig + kernel/i386/config$sfx.fragment"
	configure_fragment "$src" "$obj" "$frag" ARCH=i386
	echo "$cfg_sum" >"$bdir/config$sfx.stamp"
fi
t_build=$(now)
log "building the $series series for i386 (bzImage, -j$jobs)"
if ! make -s -C "$src" O="$obj" ARCH=i386 -j"$jobs" bzImage >"$bdir/make$sfx.log" 2>&1; then
	tail -40 "$bdir/make$sfx.log" >&2
	die "the i386 kernel build failed (see $bdir/make$sfx.log)"
fi
kbuild_s=$(elapsed "$t_build")
kernel="$obj/arch/x86/boot/bzImage"
log "i386 kernel built in ${kbuild_s}s"

# ---- 2. busybox for i386 ------------------------------------------------------------
# Through an apt state of its own (BUILD_DIR/apt: i386 only, the release's main
# component): the machine need not enable i386, and its apt-get update never fetches an
# i386 index (a mirror mid-sync once served a broken one and failed the whole update).
# Once downloaded, the package is reused and nothing is fetched.
debs="$bdir/debs"
mkdir -p "$debs"
busybox_deb() { ls "$debs"/busybox-static_*_i386.deb 2>/dev/null | sort -V | tail -1 || true; }
bbdeb=$(busybox_deb)
if [ -z "$bbdeb" ]; then
	apt_dir="$bdir/apt"
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	mirror=${THERMPRESS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
	echo "deb [arch=i386 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $codename main" \
		>"$apt_dir/sources.list"
	apt_i386=(apt-get -o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache"
		-o APT::Architectures::=i386 -o APT::Sandbox::User=root)
	log "fetching the i386 package index ($mirror $codename main)"
	"${apt_i386[@]}" update >"$apt_dir/update.log" 2>&1 ||
		die "apt-get update of the i386 index failed (see $apt_dir/update.log)"
	(cd "$debs" && "${apt_i386[@]}" download busybox-static:i386 >"$apt_dir/download.log" 2>&1) ||
		die "apt-get download busybox-static:i386 failed (see $apt_dir/download.log)"
	bbdeb=$(busybox_deb)
	[ -n "$bbdeb" ] || die "apt-get download left no busybox-static i386 package in $debs"
fi
bbver=$(dpkg-deb -f "$bbdeb" Version)
if [ "$(cat "$bdir/bb.stamp" 2>/dev/null)" != "$bbver" ]; then
	rm -rf "$bdir/bb"
	dpkg-deb -x "$bbdeb" "$bdir/bb"
	echo "$bbver" >"$bdir/bb.stamp"
fi

# ---- 3. initramfs and boot ----------------------------------------------------------
root="$bdir/initramfs"
initramfs_skeleton "$root" "$bdir/bb/bin/busybox"
cp "$here/vm-test.sh" "$root/vm-test.sh"
initramfs_init "$root" vm-test.sh
initramfs_pack "$root" "$bdir/initramfs.cpio.gz"
prep_s=$(elapsed "$t_all")
console="$bdir/console$sfx.log"
log "booting the $series series (i386, -smp 2, TCG, nominal 5 GHz, timeout ${timeout_s}s); console in $console"
run_vm "$timeout_s" "$console" qemu-system-i386 -smp 2 -m 256M -nographic -no-reboot \
	-kernel "$kernel" -initrd "$bdir/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 loglevel=4 tsc=reliable tsc_early_khz=5000000"
vm_report "kernel/i386/run.sh results (the series on i386, busybox $bbver)"
echo "== timings: preparation ${prep_s}s (kernel build ${kbuild_s}s), boot to init ${booted:-?}s (guest uptime), VM run ${vm_s}s =="
echo "${vm_pass:-0} passed, ${vm_fail:-1} failed"
[ "${vm_fail:-1}" = 0 ]
