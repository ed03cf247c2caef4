# Sourced by kernel/arm64/run.sh: Debian's stock arm64 kernel (image, modules and
# headers from the archive), the test sensor module built against those headers, and
# the BPF probe of the kernel's averaged pressure.  Sets kernel, mod_files, vm_script,
# kernel_label, with_bpf and fills extra_initramfs().

# ---- 1b. the kernel packages -----------------------------------------------------------
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
fetch "linux-image-$krel-unsigned:arm64=$kver" \
	"linux-headers-$krel:arm64=$kver" "linux-headers-$abi-common=$kver" "$kbuild_pkg:amd64=$kver"

# Extract once per version: the image (kernel and modules, with modules.dep made by
# the host's depmod) and the headers with the amd64 kbuild tools.
stamp="$krel $kver"
img="$bdir/img"
hdr="$bdir/hdr"
if [ "$(cat "$bdir/extract.stamp" 2>/dev/null)" != "$stamp" ]; then
	log "extracting linux-image-$krel-unsigned $kver and its headers"
	rm -rf "$img" "$hdr"
	dpkg-deb -x "$(deb "linux-image-$krel-unsigned" "$kver")" "$img"
	depmod -b "$img" "$krel"
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
kernel_label="linux-image-$krel-unsigned $kver"
vm_script=vm-test.sh

# cpufreq-dt and what modules.dep says it needs, in load order
for m in cpufreq-dt; do
	line=$(grep -E "(^|/)$m\.ko(\.xz)?:" "$moddir/modules.dep") || die "$m is not in modules.dep"
	for dep in $(echo "${line#*:}" | tr ' ' '\n' | tac) "${line%%:*}"; do
		mod_files+=("$moddir/$dep")
	done
done

# ---- 2. the test sensor module ------------------------------------------------------
mod="$bdir/module"
mkdir -p "$mod"
cp "$here/tp_test_sensor.c" "$here/Kbuild" "$mod/"
if ! make -s -C "$hdr/usr/src/linux-headers-$krel" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	M="$mod" modules >"$bdir/module.log" 2>&1; then
	cat "$bdir/module.log" >&2
	die "the test sensor module does not build against linux-headers-$krel"
fi
mod_files+=("$mod/tp_test_sensor.ko")

# ---- 2b. the BPF probe of the kernel's averaged pressure (optional) ----------------------
# Needs clang, libbpf-dev (BPF headers) and libbpf-dev:arm64; without them the VM skips it.
probe="$bdir/bpf"
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

# extra_initramfs ROOT: the probe, and the kernel config as on an installed Debian
# system (thermpress reads HZ from it); prints files whose libraries must come along
extra_initramfs() {
	if [ $with_bpf = 1 ]; then
		cp "$probe/tp-avg-probe" "$1/usr/bin/"
		cp "$probe/pelt_thermal.bpf.o" "$1/usr/lib/"
		echo "$1/usr/bin/tp-avg-probe"
	fi
	mkdir -p "$1/boot" "$1/run"
	cp "$img/boot/config-$krel" "$1/boot/"
}
