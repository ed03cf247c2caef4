#!/bin/bash
# Boot an arm64 big.LITTLE board (Hikey960-like: CPUs 0-3 little, 4-7 big) with
# Debian's stock arm64 kernel under qemu-system-aarch64 (TCG), and run
# kernel/arm64/vm-test.sh inside: the kernel's own cpufreq, cooling devices,
# thermal zone and thermal pressure, and the cross-built thermpress against them.
# Everything comes from Debian packages; nothing is compiled but a small test
# module (tp_test_sensor.c) and the device tree.
#
# Exit status: 0 all checks passed; 1 a check failed; 2 usage or setup error;
# 3 the VM timed out or never reported.
set -euo pipefail

usage() {
	cat <<'EOF2'
usage: bash kernel/arm64/run.sh [OPTIONS]

  --build-dir DIR   downloads, extracted packages, device tree, initramfs and
                    console log (default: build-arm64-board/ at the top)
  --thermpress-build DIR
                    the arm64 meson build dir (cross/aarch64-linux-gnu.ini) whose
                    thermpress, plugins and libraries go into the VM
                    (default: $THERMPRESS_ARM64_BUILD, else build-arm64/)
  --kernel-abi ABI  Debian kernel ABI, e.g. 6.1.0-57 (default: the one the
                    archive's linux-image-arm64 depends on)
  --timeout SEC     kill qemu after SEC seconds (default: 300)
  --build-only      prepare everything, do not boot
  -h, --help        show this help
EOF2
}

me=arm64/run.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/host.sh"
bdir="$top/build-arm64-board"
tpbuild="${THERMPRESS_ARM64_BUILD:-build-arm64}"
abi=""
timeout_s=300
build_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) bdir=$2; shift 2 ;;
	--thermpress-build) tpbuild=$2; shift 2 ;;
	--kernel-abi) abi=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--build-only) build_only=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$me: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
resolve_dirs
t_all=$(now)

for tool in qemu-system-aarch64 dtc aarch64-linux-gnu-gcc aarch64-linux-gnu-readelf depmod \
	dpkg-deb apt-get cpio gzip make; do
	command -v "$tool" >/dev/null || die "$tool is missing (bash scripts/deps.sh installs it)"
done
dpkg --print-foreign-architectures | grep -qx arm64 ||
	die "the arm64 architecture is not enabled (bash scripts/deps.sh)"
[ -x "$tpbuild/cmd/thermpress" ] || die "no arm64 thermpress in $tpbuild: meson setup --cross-file cross/aarch64-linux-gnu.ini $tpbuild && ninja -C $tpbuild"

# ---- 1. the packages --------------------------------------------------------------
# The kernel ABI the archive's linux-image-arm64 currently points at.
if [ -z "$abi" ]; then
	abi=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\([0-9.]*-[0-9]*\)-arm64\(:arm64\)\?$/\1/p' | head -1)
	[ -n "$abi" ] || die "cannot find the archive's arm64 kernel (apt-cache depends linux-image-arm64:arm64; apt-get update?)"
fi
krel="$abi-arm64"
kver=$(apt-cache policy "linux-image-$krel-unsigned:arm64" | sed -n 's/^  Candidate: //p')
[ -n "$kver" ] && [ "$kver" != "(none)" ] || die "no linux-image-$krel-unsigned:arm64 in the archive"
kbuild_pkg="linux-kbuild-${abi%.0-*}"	# 6.1.0-57 -> linux-kbuild-6.1
debs="$bdir/debs"
mkdir -p "$debs"
debname() { echo "$debs/${1}_$(echo "$2" | sed 's/:/%3a/')_"; }	# PACKAGE VERSION: file prefix
fetch() {	# PACKAGE:ARCH=VERSION ...: apt-get download what is not there yet
	local need=() p name
	for p in "$@"; do
		name=${p%%=*}
		ls "$(debname "${name%%:*}" "${p##*=}")"*.deb >/dev/null 2>&1 || need+=("$p")
	done
	[ ${#need[@]} = 0 ] && return 0
	log "downloading ${need[*]}"
	(cd "$debs" && apt-get -o APT::Sandbox::User=root download "${need[@]}" >&2) ||
		die "apt-get download ${need[*]} failed"
}
bbver=$(apt-cache policy busybox-static:arm64 | sed -n 's/^  Candidate: //p')
fetch "linux-image-$krel-unsigned:arm64=$kver" "busybox-static:arm64=$bbver" \
	"linux-headers-$krel:arm64=$kver" "linux-headers-$abi-common=$kver" "$kbuild_pkg:amd64=$kver"
deb() { ls "$(debname "$1" "$2")"*.deb | head -1; }

# Extract once per version: the image (kernel and modules, with modules.dep made by
# the host's depmod), busybox, and the headers with the amd64 kbuild tools.
stamp="$krel $kver $bbver"
img="$bdir/img"
hdr="$bdir/hdr"
if [ "$(cat "$bdir/extract.stamp" 2>/dev/null)" != "$stamp" ]; then
	log "extracting linux-image-$krel-unsigned $kver, busybox-static $bbver, headers"
	rm -rf "$img" "$hdr" "$bdir/bb"
	dpkg-deb -x "$(deb "linux-image-$krel-unsigned" "$kver")" "$img"
	depmod -b "$img" "$krel"
	dpkg-deb -x "$(deb busybox-static "$bbver")" "$bdir/bb"
	for p in "linux-headers-$krel" "linux-headers-$abi-common" "$kbuild_pkg"; do
		dpkg-deb -x "$(deb "$p" "$kver")" "$hdr"
	done
	# the arm64 headers include the common ones by absolute path
	sed -i "s|^include /usr/src/|include $hdr/usr/src/|" "$hdr/usr/src/linux-headers-$krel/Makefile"
	echo "$stamp" >"$bdir/extract.stamp"
fi
kernel="$img/boot/vmlinuz-$krel"
moddir="$img/lib/modules/$krel"
[ -f "$kernel" ] || die "$kernel is missing"
busybox="$bdir/bb/bin/busybox"
[ -x "$busybox" ] || die "$busybox is missing"

# ---- 2. the test sensor module ------------------------------------------------------
mod="$bdir/module"
mkdir -p "$mod"
cp "$here/tp_test_sensor.c" "$here/Kbuild" "$mod/"
if ! make -s -C "$hdr/usr/src/linux-headers-$krel" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	M="$mod" modules >"$bdir/module.log" 2>&1; then
	cat "$bdir/module.log" >&2
	die "the test sensor module does not build against linux-headers-$krel"
fi

# ---- 2b. the BPF probe of the kernel's averaged pressure (optional) ----------------------
# Needs clang, libbpf-dev (BPF headers) and libbpf-dev:arm64; without them the VM skips it.
probe="$bdir/bpf"
with_bpf=0
if command -v clang >/dev/null && [ -f /usr/include/bpf/bpf_helpers.h ] &&
	[ -e /usr/lib/aarch64-linux-gnu/libbpf.so ]; then
	mkdir -p "$probe"
	clang -O2 -g -target bpf -I/usr/include/aarch64-linux-gnu -c "$here/bpf/pelt_thermal.bpf.c" \
		-o "$probe/pelt_thermal.bpf.o" || die "cannot build kernel/arm64/bpf/pelt_thermal.bpf.c"
	aarch64-linux-gnu-gcc -O2 -Wall -Wextra -o "$probe/tp-avg-probe" "$here/bpf/avg_probe.c" -lbpf ||
		die "cannot build kernel/arm64/bpf/avg_probe.c"
	with_bpf=1
else
	log "no clang, libbpf-dev or libbpf-dev:arm64: the VM skips the BPF comparison"
fi

# ---- 3. the device tree -------------------------------------------------------------
qemu_board=(qemu-system-aarch64 -M virt -cpu cortex-a57 -smp 8 -m 512M -nographic)
qemu-system-aarch64 -M virt,dumpdtb="$bdir/virt.dtb" -cpu cortex-a57 -smp 8 -m 512M \
	-nographic >/dev/null 2>&1 || die "qemu cannot dump the virt device tree"
dtc -q -I dtb -O dts -o "$bdir/virt.dts" "$bdir/virt.dtb"
bash "$here/board-dts.sh" "$bdir/virt.dts" >"$bdir/board.dts"
dtc -q -I dts -O dtb -o "$bdir/board.dtb" "$bdir/board.dts" || die "the board device tree does not compile"

# ---- 4. initramfs ---------------------------------------------------------------------
t_initrd=$(now)
root="$bdir/initramfs"
initramfs_skeleton "$root" "$busybox"
mkdir -p "$root/lib/modules" "$root/lib/aarch64-linux-gnu" "$root/usr/lib/thermpress/plugins"
cp "$here/vm-test.sh" "$root/vm-test.sh"
# modules: cpufreq-dt and what modules.dep says it needs, in load order
mods=()
for m in cpufreq-dt; do
	line=$(grep -E "(^|/)$m\.ko(\.xz)?:" "$moddir/modules.dep") || die "$m is not in modules.dep"
	for dep in $(echo "${line#*:}" | tr ' ' '\n' | tac) "${line%%:*}"; do
		cp "$moddir/$dep" "$root/lib/modules/"
		mods+=("$(basename "$dep")")
	done
done
cp "$mod/tp_test_sensor.ko" "$root/lib/modules/"
mods+=(tp_test_sensor.ko)

# thermpress, its plugins, and every shared library they need (DT_NEEDED, recursively)
cp "$tpbuild/cmd/thermpress" "$root/usr/bin/thermpress"
cp "$tpbuild"/plugins/*.so "$root/usr/lib/thermpress/plugins/"
libdirs=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/local/lib/aarch64-linux-gnu
	"$tpbuild/core")
queue=("$root/usr/bin/thermpress" "$root"/usr/lib/thermpress/plugins/*.so)
if [ $with_bpf = 1 ]; then
	cp "$probe/tp-avg-probe" "$root/usr/bin/"
	cp "$probe/pelt_thermal.bpf.o" "$root/usr/lib/"
	queue+=("$root/usr/bin/tp-avg-probe")
fi
declare -A seen=()
while [ ${#queue[@]} -gt 0 ]; do
	f=${queue[0]}
	queue=("${queue[@]:1}")
	for lib in $(aarch64-linux-gnu-readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -n "${seen[$lib]:-}" ] && continue
		seen[$lib]=1
		src=""
		for d in "${libdirs[@]}"; do [ -e "$d/$lib" ] && { src="$d/$lib"; break; }; done
		[ -n "$src" ] || die "cannot find the arm64 library $lib (needed by $(basename "$f"))"
		cp -L "$src" "$root/lib/aarch64-linux-gnu/$lib"
		queue+=("$root/lib/aarch64-linux-gnu/$lib")
	done
done
cp -L /lib/ld-linux-aarch64.so.1 "$root/lib/"
# as on an installed Debian system: the kernel config (thermpress reads HZ from it)
mkdir -p "$root/boot" "$root/run"
cp "$img/boot/config-$krel" "$root/boot/"

initramfs_init "$root" vm-test.sh "TP_MODULES=${mods[*]}" "TP_KERNEL=$krel $kver"
initramfs_pack "$root" "$bdir/initramfs.cpio.gz"
log "initramfs built in $(elapsed "$t_initrd")s ($(du -k "$bdir/initramfs.cpio.gz" | cut -f1) KiB)"
prep_s=$(elapsed "$t_all")
if [ $build_only = 1 ]; then
	echo "$me: build only: linux-image-$krel-unsigned $kver, $bdir/board.dtb, $bdir/initramfs.cpio.gz (${prep_s}s)"
	exit 0
fi

# ---- 5. boot ---------------------------------------------------------------------------
console="$bdir/console.log"
log "booting $krel $kver (-smp 8, TCG, timeout ${timeout_s}s); console in $console"
run_vm "$timeout_s" "$console" "${qemu_board[@]}" -no-reboot \
	-kernel "$kernel" -initrd "$bdir/initramfs.cpio.gz" -dtb "$bdir/board.dtb" \
	-append "console=ttyAMA0 panic=-1 loglevel=4"
vm_report "kernel/arm64/run.sh results: linux-image-$krel-unsigned $kver"
echo "== timings: preparation ${prep_s}s, boot to init ${booted:-?}s (guest uptime), VM run ${vm_s}s, total $(elapsed "$t_all")s =="
echo "${vm_pass:-0} passed, ${vm_fail:-1} failed"
[ "${vm_fail:-1}" = 0 ]
