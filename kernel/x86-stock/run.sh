#!/bin/bash
# Boot Debian's stock amd64 kernels (6.1 from bookworm, 6.12 from trixie, 7.3 from
# trixie-backports) under qemu-system-x86_64 (TCG) with a busybox initramfs holding the
# native thermpress build,
# and run kernel/x86-stock/vm-test.sh inside: a qemu guest has no cpufreq driver, so
# thermpress must say which model the kernel follows and why it sees no frequency
# limits, show its CPUs without inventing numbers, and refuse caps with the reason.
# Nothing is compiled: the kernel comes from Debian's archive through the harness's
# own apt state (kernel/lib/host.sh debian_apt).
#
# Exit status: 0 all checks passed; 1 a check failed; 2 usage or setup error;
# 3 the VM timed out or never reported.
set -euo pipefail

usage() {
	cat <<'EOF2'
usage: bash kernel/x86-stock/run.sh [OPTIONS]

  --kernel LINE     one kernel line, 6.1, 6.12 or 7.3 (default: each in turn, in
                    BUILD_DIR/LINE, summing the checks)
  --build-dir DIR   downloads, extracted image, initramfs and console log
                    (default: build-x86-stock/ at the top)
  --thermpress-build DIR
                    the native meson build whose thermpress and plugins go into the VM
                    (default: $THERMPRESS_BUILD, else build/)
  --timeout SEC     kill qemu after SEC seconds (default: 240)
  -h, --help        show this help
EOF2
}

me=x86-stock/run.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/host.sh"
bdir="$top/build-x86-stock"
tpbuild="${THERMPRESS_BUILD:-build}"
timeout_s=240
kernels="6.1 6.12 7.3"	# the amd64 kernel lines every run boots
kline=""
all_args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kline=$2; shift 2 ;;
	--build-dir) bdir=$2; shift 2 ;;
	--thermpress-build) tpbuild=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$me: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
resolve_dirs
if [ -z "$kline" ]; then	# every line, one run each
	each_kernel "$0" "$kernels" "$bdir" "${all_args[@]}"
	exit
fi
case " $kernels " in *" $kline "*) ;; *) die "--kernel $kline: not one of $kernels" ;; esac
t_all=$(now)
for tool in qemu-system-x86_64 dpkg-deb apt-get cpio gzip ldd; do
	command -v "$tool" >/dev/null || die "$tool is missing (bash scripts/deps.sh installs it)"
done
[ -x "$tpbuild/cmd/thermpress" ] || die "no thermpress in $tpbuild: meson setup $tpbuild && ninja -C $tpbuild"
busybox=/bin/busybox	# busybox-static's: the initramfs has no C library for it
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
	die "busybox-static is missing (bash scripts/deps.sh installs it)"

# ---- 1. the kernel (amd64 packages: linux-image-R-unsigned, or 7.x's linux-binary-R
# with the config in linux-base-R) -------------------------------------------------------
debs="$bdir/debs"
mkdir -p "$debs"
debian_apt "$top/build-debian-apt"
debian_kernel_pkg "$kline" amd64
if "${apt_cache[@]}" show "linux-image-$krel-unsigned:amd64=$kver" >/dev/null 2>&1; then
	image_pkgs=("linux-image-$krel-unsigned")
else
	image_pkgs=("linux-binary-$krel" "linux-base-$krel")
fi
fetch "${image_pkgs[@]/%/:amd64=$kver}"
img="$bdir/img"
if [ "$(cat "$bdir/extract.stamp" 2>/dev/null)" != "$krel $kver" ]; then
	log "extracting ${image_pkgs[*]} $kver"
	rm -rf "$img"
	for p in "${image_pkgs[@]}"; do dpkg-deb -x "$(deb "$p" "$kver")" "$img"; done
	echo "$krel $kver" >"$bdir/extract.stamp"
fi
first_file() { local f; for f in "$@"; do [ -f "$f" ] && { echo "$f"; return; }; done; }
kernel=$(first_file "$img/boot/vmlinuz-$krel" "$img/usr/lib/modules/$krel/vmlinuz")
kconfig=$(first_file "$img/boot/config-$krel" "$img/usr/lib/modules/$krel/config")
[ -f "$kernel" ] || die "no kernel image in ${image_pkgs[*]}"
[ -f "$kconfig" ] || die "no kernel config in ${image_pkgs[*]}"

# ---- 2. initramfs: busybox, thermpress with its plugins and libraries, the config where
# the kernel's packages put it on an installed system ---------------------------------------
root="$bdir/initramfs"
initramfs_skeleton "$root" "$busybox"
mkdir -p "$root"/{lib64,lib/x86_64-linux-gnu,usr/lib/thermpress/plugins,run}
cp "$here/vm-test.sh" "$root/vm-test.sh"
cp "$top/scripts/capture-stock-tree.sh" "$root/capture-stock-tree.sh"
cp "$tpbuild/cmd/thermpress" "$root/usr/bin/thermpress"
cp "$tpbuild"/plugins/*.so "$root/usr/lib/thermpress/plugins/"
# (ldd of the build's own files: their RUNPATH finds the build's libthermpress)
ldd "$tpbuild/cmd/thermpress" "$tpbuild"/plugins/*.so 2>/dev/null |
	awk '/=> \// { print $3 }' | sort -u | while read -r lib; do
		cp -L "$lib" "$root/lib/x86_64-linux-gnu/"
	done
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
case "$kconfig" in
*/boot/*) mkdir -p "$root/boot"; cp "$kconfig" "$root/boot/" ;;
*) mkdir -p "$root/usr/lib/modules/$krel"; cp "$kconfig" "$root/usr/lib/modules/$krel/config" ;;
esac
initramfs_init "$root" vm-test.sh "TP_KERNEL=${image_pkgs[0]} $kver"
initramfs_pack "$root" "$bdir/initramfs.cpio.gz"
prep_s=$(elapsed "$t_all")

# ---- 3. boot ------------------------------------------------------------------------------
console="$bdir/console.log"
log "booting ${image_pkgs[0]} $kver (-smp 2, TCG, timeout ${timeout_s}s); console in $console"
VM_RETRY_EARLY_CRASH=1 run_vm "$timeout_s" "$console" qemu-system-x86_64 -smp 2 -m 512M -nographic -no-reboot \
	-kernel "$kernel" -initrd "$bdir/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 loglevel=4 tsc=reliable"
vm_report "kernel/x86-stock/run.sh results: ${image_pkgs[0]} $kver"
capture_into "$console.txt" "$bdir/capture"
echo "== timings: preparation ${prep_s}s, boot to init ${booted:-?}s (guest uptime), VM run ${vm_s}s, total $(elapsed "$t_all")s =="
echo "${vm_pass:-0} passed, ${vm_fail:-1} failed"
[ "${vm_fail:-1}" = 0 ]
