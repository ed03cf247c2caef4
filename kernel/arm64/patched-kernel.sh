# Sourced by kernel/arm64/run.sh --patched: the patch series built for arm64 from a
# worktree (BUILD_DIR/src) of the source tree kernel/run.sh extracted (Debian's
# linux-source-6.1), tinyconfig plus kernel/arm64/config.fragment (cpufreq-dt and the
# thermal framework built in), the test sensor module built against it, and the
# host-side replay checker, and (not with --effect) tp_capacity_probe.ko.  With
# --prefix N: the series' first N patches, without the replay.  Sets kernel,
# mod_files, vm_script, kernel_label, min_logs and defines extra_initramfs().

# the series (with --prefix N its first N patches) in a worktree of its own: every
# prefix and the whole series share one object tree, so each builds incrementally
prefix_tree "$kdir" "$pdir" "${prefix:-all}" "$bdir/src"
series_sum="$series_sum prefix $prefix_n"

# ---- 1b. configure and build --------------------------------------------------------------
obj="$bdir/obj"
frag="$here/config${series_sfx:-}.fragment"
if [ -n "$study" ]; then	# the study's kernel: the same options without lock checking,
	# whose cost on every lock would weigh on the workloads rather than on the scheduler
	sed -E 's/^CONFIG_(PROVE_LOCKING|PROVE_RCU|DEBUG_ATOMIC_SLEEP)=y$/# CONFIG_\1 is not set/' \
		"$frag" >"$bdir/study.fragment"
	frag="$bdir/study.fragment"
fi
margs=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
cfg_sum=$( (cat "$frag"; echo "$series_sum") | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$bdir/config.stamp" 2>/dev/null)" != "$cfg_sum" ]; then
	log "configuring: arm64 tinyconfig + kernel/arm64/${frag##*/}"
	configure_fragment "$src" "$obj" "$frag" "${margs[@]}"
	echo "$cfg_sum" >"$bdir/config.stamp"
fi
t_build=$(now)
log "building the series for arm64 (Image and modules, -j$jobs)"
if ! make -s -C "$src" O="$obj" "${margs[@]}" -j"$jobs" Image modules >"$bdir/make.log" 2>&1; then
	tail -40 "$bdir/make.log" >&2
	die "the arm64 kernel build failed (see $bdir/make.log)"
fi
kbuild_s=$(elapsed "$t_build")
log "arm64 kernel built in ${kbuild_s}s"
kernel="$obj/arch/arm64/boot/Image"
kernel_label="the series on Linux $(make -s -C "$src" kernelversion) (arm64, built here)"
vm_script=vm-test-patched.sh
if [ -n "$prefix" ]; then
	kernel_label="$prefix_label on Linux $(make -s -C "$src" kernelversion) (arm64, built here)"
	vm_script=vm-test-prefix.sh
fi

# ---- 2. the modules the VM loads, built against this kernel ------------------------------
# external_module NAME SOURCE KBUILD: NAME.ko from SOURCE and KBUILD, in BUILD_DIR/mod-NAME,
# added to mod_files (the VM loads them in this order)
external_module() {
	local dir="$bdir/mod-$1"
	mkdir -p "$dir"
	cp "$2" "$dir/"
	cp "$3" "$dir/Kbuild"
	if ! make -s -C "$src" O="$obj" "${margs[@]}" M="$dir" modules >"$dir.log" 2>&1; then
		cat "$dir.log" >&2
		die "$1 does not build against $prefix_label"
	fi
	mod_files+=("$dir/$1.ko")
}
# the test sensor (the thermal zone's temperature, the heat model)
external_module tp_test_sensor "$here/tp_test_sensor.c" "$here/Kbuild"
# with --study: the board's limit channel
[ -z "$study" ] || external_module tp_speed_notify "$here/board/tp_speed_notify.c" "$here/board/Kbuild"
# for the checks: what the scheduler's tracepoints show (cpu_capacity, avg_thermal; 6.10+: avg_hw)
[ $effect = 1 ] || [ -n "$study" ] || external_module tp_capacity_probe "$here/tp_capacity_probe.c" "$here/Kbuild.probe"

# ---- 2b. the host-side replay checker (tests/kernel/replay.c) -------------------------------
build_replay_checker "$bdir" "$hostbuild"
min_logs=10	# kernel/arm64/vm-test-patched.sh writes one per backend setting and cluster
[ -z "$prefix" ] || min_logs=0

# ---- 2c. with --effect or --study: hackbench (Debian's arm64 rt-tests) and its libnuma -----
[ $effect = 1 ] && vm_script=vm-effect.sh
[ -n "$study" ] && vm_script=vm-study.sh
if [ $effect = 1 ] || [ -n "$study" ]; then
	rtver=$(apt-cache policy rt-tests:arm64 | sed -n 's/^  Candidate: //p')
	numaver=$(apt-cache policy libnuma1:arm64 | sed -n 's/^  Candidate: //p')
	fetch "rt-tests:arm64=$rtver" "libnuma1:arm64=$numaver"
	rm -rf "$bdir/rt"
	dpkg-deb -x "$(deb rt-tests "$rtver")" "$bdir/rt"
	dpkg-deb -x "$(deb libnuma1 "$numaver")" "$bdir/rt"
	libdirs_extra=("$bdir/rt/usr/lib/aarch64-linux-gnu" "$bdir/rt/lib/aarch64-linux-gnu")
fi

# ---- 2d. with --study: the board's two programs (kernel/arm64/board), static -------------
if [ -n "$study" ]; then
	for p in tp_work tp_speed_report; do
		aarch64-linux-gnu-gcc -O2 -Wall -Wextra -static -pthread -o "$bdir/$p" \
			"$here/board/$p.c" || die "board/$p.c does not build"
	done
fi

# extra_initramfs ROOT: hackbench for the effect run and the study; the board's programs
extra_initramfs() {
	[ $effect = 1 ] || [ -n "$study" ] || return 0
	cp "$bdir/rt/usr/bin/hackbench" "$1/usr/bin/"
	echo "$1/usr/bin/hackbench"
	[ -n "$study" ] || return 0
	cp "$bdir/tp_work" "$bdir/tp_speed_report" "$1/usr/bin/"
}
