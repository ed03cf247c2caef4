# Sourced by kernel/arm64/run.sh: Debian's stock arm64 kernel of line $kline (image, modules and
# headers from the archive), the test sensor module built against those headers, and
# the BPF probe of the kernel's averaged pressure.  Sets kernel, mod_files, vm_script,
# kernel_label, with_bpf and fills extra_initramfs().

# ---- 1b. the kernel packages -----------------------------------------------------------
# Through the harness's own apt state (kernel/lib/host.sh debian_apt), so that 6.12 and
# 7.3 come from trixie whatever the machine runs.  Three package layouts:
#   6.1 (bookworm):  linux-image-R-unsigned (boot/, lib/modules/), linux-headers-R,
#                    linux-headers-ABI-common, linux-kbuild-6.1 (amd64)
#   6.12 (trixie):   the same, modules under usr/lib/modules, kbuild named linux-kbuild-V
#   7.3 (trixie-backports): linux-image-R is empty; the image is usr/lib/modules/R/vmlinuz
#                    in linux-binary-R, the config in linux-base-R, the modules in
#                    linux-modules-R
debian_apt "$top/build-debian-apt"
debian_kernel_pkg "$kline" arm64
base=${krel%-arm64}				# 6.1.0-57, 6.12.118+deb13, 7.3.4+deb13
case "$kline" in
6.1) kbuild_pkg="linux-kbuild-$kline" ;;
*) kbuild_pkg="linux-kbuild-$base" ;;
esac
if "${apt_cache[@]}" show "linux-image-$krel-unsigned:arm64=$kver" >/dev/null 2>&1; then
	image_pkgs=("linux-image-$krel-unsigned")
else
	image_pkgs=("linux-binary-$krel" "linux-base-$krel" "linux-modules-$krel")
fi
hdr_pkgs=("linux-headers-$krel" "linux-headers-$base-common" "$kbuild_pkg")
fetch "${image_pkgs[@]/%/:arm64=$kver}" "linux-headers-$krel:arm64=$kver" \
	"linux-headers-$base-common=$kver" "$kbuild_pkg:amd64=$kver"

# kbuild_glibc_wrap DIR: trixie's kbuild tools that need a newer C library than the
# machine's (modpost.real-*: GLIBC_2.38 on bookworm's 2.36) run through the dynamic
# loader of the kernel's own release's libc6 (amd64, unpacked beside them)
kbuild_glibc_wrap() {
	local f need have libc_ver
	have=$(ldd --version | sed -n '1s/.* \([0-9]*\.[0-9]*\)$/\1/p')
	for f in "$1"/usr/lib/linux-kbuild-*/scripts/mod/modpost.real-*; do
		[ -f "$f" ] || continue
		need=$(objdump -T "$f" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
		[ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | tail -1)" = "$have" ] && continue
		if [ ! -d "$bdir/libc" ]; then
			libc_ver=$("${apt_cache[@]}" madison libc6:amd64 | awk '{ print $3 }' | sort -V | tail -1)
			fetch "libc6:amd64=$libc_ver"
			dpkg-deb -x "$(deb libc6 "$libc_ver")" "$bdir/libc"
		fi
		mv "$f" "$f.bin"
		printf '#!/bin/sh\nexec %s --library-path %s "$0.bin" "$@"\n' \
			"$bdir/libc/usr/lib64/ld-linux-x86-64.so.2" "$bdir/libc/usr/lib/x86_64-linux-gnu" >"$f"
		chmod +x "$f"
	done
}

# Extract once per version: the image (kernel and modules, with modules.dep made by
# the host's depmod; usr/lib/modules is reached as lib/modules too) and the headers
# with the amd64 kbuild tools.
stamp="$krel $kver"
img="$bdir/img"
hdr="$bdir/hdr"
if [ "$(cat "$bdir/extract.stamp" 2>/dev/null)" != "$stamp" ]; then
	log "extracting $krel $kver (${image_pkgs[*]}) and its headers"
	rm -rf "$img" "$hdr"
	mkdir -p "$img/usr/lib/modules"
	for p in "${image_pkgs[@]}"; do dpkg-deb -x "$(deb "$p" "$kver")" "$img"; done
	if [ -d "$img/lib/modules/$krel" ]; then
		mv "$img/lib/modules/$krel" "$img/usr/lib/modules/"
		rmdir "$img/lib/modules" "$img/lib" 2>/dev/null || true
	fi
	[ -e "$img/lib" ] || ln -s usr/lib "$img/lib"
	depmod -b "$img" "$krel"
	for p in "${hdr_pkgs[@]}"; do dpkg-deb -x "$(deb "$p" "$kver")" "$hdr"; done
	# the arm64 headers include the common ones by absolute path
	# (and 7.x names its own directory as KBUILD_OUTPUT, by absolute path too)
	sed -i -e "s|^include /usr/src/|include $hdr/usr/src/|" \
		-e "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$hdr/usr/src/|" "$hdr/usr/src/linux-headers-$krel/Makefile"
	kbuild_glibc_wrap "$hdr"
	echo "$stamp" >"$bdir/extract.stamp"
fi
moddir="$img/usr/lib/modules/$krel"
first_file() { local f; for f in "$@"; do [ -f "$f" ] && { echo "$f"; return; }; done; }
kernel=$(first_file "$img/boot/vmlinuz-$krel" "$moddir/vmlinuz")
kconfig=$(first_file "$img/boot/config-$krel" "$moddir/config")
[ -f "$kernel" ] || die "no kernel image in ${image_pkgs[*]}"
[ -f "$kconfig" ] || die "no kernel config in ${image_pkgs[*]}"
kernel_label="${image_pkgs[0]} $kver"
vm_script=vm-test.sh

# cpufreq-dt and what modules.dep says it needs, in load order
for m in cpufreq-dt; do
	line=$(grep -E "(^|/)$m\.ko(\.xz)?:" "$moddir/modules.dep") || die "$m is not in modules.dep"
	for dep in $(echo "${line#*:}" | tr ' ' '\n' | tac) "${line%%:*}"; do
		case "$dep" in	# busybox insmod takes plain modules
		*.xz) mkdir -p "$bdir/ko"; xz -dc "$moddir/$dep" >"$bdir/ko/$(basename "${dep%.xz}")"
			mod_files+=("$bdir/ko/$(basename "${dep%.xz}")") ;;
		*) mod_files+=("$moddir/$dep") ;;
		esac
	done
done

# ---- 2. the test sensor module ------------------------------------------------------
# trixie's kernels were built with gcc 14 (aarch64-linux-gnu-gcc-14, which bookworm lacks):
# build with the machine's cross gcc, without the one gcc-14-only flag their config turns
# on (-fmin-function-alignment; -falign-functions takes its place).  The module gets no
# BTF of its own (that step wants the pahole release the kernel was built with; the
# make variable changes only the build steps, struct module still follows the
# headers' autoconf.h)
kmake_cc=(CONFIG_DEBUG_INFO_BTF_MODULES=)
if ! command -v "aarch64-linux-gnu-gcc-$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)[0-9]\{4\}$/\1/p' "$kconfig")" >/dev/null; then
	kmake_cc+=(CC=aarch64-linux-gnu-gcc CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=)
fi
mod="$bdir/module"
mkdir -p "$mod"
cp "$here/tp_test_sensor.c" "$here/Kbuild" "$mod/"
if ! make -s -C "$hdr/usr/src/linux-headers-$krel" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- "${kmake_cc[@]}" \
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
	for o in sched_inputs sched_trace; do
		clang -O2 -g -target bpf -I/usr/include/aarch64-linux-gnu -c "$here/bpf/$o.bpf.c" \
			-o "$probe/$o.bpf.o" || die "cannot build kernel/arm64/bpf/$o.bpf.c"
	done
	aarch64-linux-gnu-gcc -O2 -Wall -Wextra -o "$probe/tp-sched-inputs" "$here/bpf/sched_inputs.c" -lbpf ||
		die "cannot build kernel/arm64/bpf/sched_inputs.c"
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
		cp "$probe/tp-avg-probe" "$probe/tp-sched-inputs" "$1/usr/bin/"
		cp "$probe/pelt_thermal.bpf.o" "$probe/sched_inputs.bpf.o" "$probe/sched_trace.bpf.o" "$1/usr/lib/"
		echo "$1/usr/bin/tp-avg-probe"
		echo "$1/usr/bin/tp-sched-inputs"
	fi
	mkdir -p "$1/run"
	# where the kernel's packages put the config on an installed system:
	# /boot/config-R (6.1, 6.12), /usr/lib/modules/R/config only (7.x)
	case "$kconfig" in
	*/boot/*) mkdir -p "$1/boot"; cp "$kconfig" "$1/boot/" ;;
	*) mkdir -p "$1/usr/lib/modules/$krel"; cp "$kconfig" "$1/usr/lib/modules/$krel/config" ;;
	esac
}
