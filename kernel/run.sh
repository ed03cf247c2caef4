#!/bin/bash
# Build the thermal-pressure kernel (Debian linux-source-6.1 + kernel/patches, or
# with --series 6.12, linux-source-6.12 + kernel/patches-6.12),
# boot it under qemu with 4 CPUs, run kernel/vm-test.sh inside, and check the
# results and the bit-exactness logs on the host.
#
# Exit status: 0 all checks passed; 1 a check failed; 2 usage or build error;
# 3 the VM timed out or never reported.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: bash kernel/run.sh [OPTIONS]

  --build-dir DIR   where the kernel source, objects and initramfs go
                    (default: build-kernel/ at the top of the repository)
  --thermpress-build DIR
                    the meson build dir whose thermpress binary, library and
                    plugins go into the VM and replay the logs
                    (default: $THERMPRESS_BUILD, else build/)
  --timeout SEC     kill qemu after SEC seconds (default: 420)
  --jobs N          make -j N (default: 2)
  --series V        the series to build: 6.1 (kernel/patches, the default) or
                    6.12 (kernel/patches-6.12, kernel/config-6.12.fragment)
  --build-only      build the kernel and initramfs, do not boot
  --source-only     prepare the source tree with the series applied, and stop
                    (what kernel/check-series.sh, kernel/i386 and kernel/arm64 start
                    from, for the 6.1 series)
  --quick           skip the placement (load balancer) experiment in the VM
  --kcsan           build the kernel with KCSAN (strict; kernel/kcsan.fragment, in
                    BUILD_DIR/obj-kcsan), run the checks with --quick, and fail on a
                    data race reported in the series' code (timeout default 900 s)
  -h, --help        show this help

The kernel is rebuilt incrementally: the source tree is a git checkout of the
Debian tarball, and a changed patch series is re-applied with git am on top of
the pristine base, so only the touched files are rebuilt.
EOF
}

me=run.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/lib/host.sh"
bdir="$top/build-kernel"
tpbuild="${THERMPRESS_BUILD:-build}"
timeout_s=420
jobs=2
build_only=0
source_only=0
quick=0
kcsan=0
series=6.1

while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) bdir=$2; shift 2 ;;
	--thermpress-build) tpbuild=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--series) series=$2; shift 2 ;;
	--build-only) build_only=1; shift ;;
	--source-only) source_only=1; shift ;;
	--quick) quick=1; shift ;;
	--kcsan) kcsan=1; quick=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
resolve_dirs
[ $kcsan = 1 ] && [ "$timeout_s" = 420 ] && timeout_s=900

# Per series: the Debian source package, the patches, the configuration, and
# where the objects, stamps and consoles go (6.1 keeps its historical names)
series_suffix "$series"
sfx_series=$series_sfx
patchdir="$here/patches$sfx_series" fragment="$here/config$sfx_series.fragment"
src="$bdir/linux-source-$series"
obj="$bdir/obj$sfx_series"
tarball=/usr/src/linux-source-$series.tar.xz	# when installed; else downloaded below

for tool in make gcc flex bison bc cpio gzip qemu-system-x86_64 git; do
	command -v "$tool" >/dev/null || die "$tool is missing (apt-get install -y flex bison libelf-dev bc libssl-dev cpio qemu-system-x86 busybox-static)"
done
busybox=$(command -v busybox || true)
[ -n "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q "statically linked" ||
	busybox=/bin/busybox
[ -x "$busybox" ] || die "busybox-static is missing (apt-get install -y busybox-static)"

git_k() { git -C "$src" -c user.name="thermpress developers" \
	-c user.email=thermpress@example.org -c core.hooksPath=/dev/null "$@"; }

# ---- 1. source -------------------------------------------------------------
t_build=$(now)
if ! git_k rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	if [ ! -f "$tarball" ]; then	# Debian 12's package, on any host release
		debs="$bdir/debs"
		mkdir -p "$debs"
		debian_apt "$top/build-debian-apt"
		srcver=$("${apt_cache[@]}" madison "linux-source-$series" | awk '{ print $3 }' | sort -V | tail -1)
		[ -n "$srcver" ] || die "no linux-source-$series in Debian's archive"
		fetch "linux-source-$series=$srcver"
		rm -rf "$bdir/linux-source-deb"
		dpkg-deb -x "$(deb "linux-source-$series" "$srcver")" "$bdir/linux-source-deb"
		tarball="$bdir/linux-source-deb/usr/src/linux-source-$series.tar.xz"
		[ -f "$tarball" ] || die "linux-source-$series $srcver has no usr/src/linux-source-$series.tar.xz"
	fi
	log "extracting $tarball"
	rm -rf "$src" "$obj"
	tar -C "$bdir" -xf "$tarball"
	[ -d "$src" ] || die "$tarball did not give $src"
	git_k init -q
	git_k add -f -A .
	git_k commit -q -m "Debian linux-source-$series"
	git_k tag base
fi

# ---- 2. patches ------------------------------------------------------------
mapfile -t patches < <(series_patches "$patchdir")
[ "${#patches[@]}" -gt 0 ] || die "no patches in $patchdir"
series_sum=$(cat "${patches[@]}" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$bdir/series$sfx_series.stamp" 2>/dev/null)" != "$series_sum" ]; then
	log "applying ${#patches[@]} patches"
	git_k am --abort >/dev/null 2>&1 || true
	git_k reset -q --hard base
	git_k clean -q -fdx
	git_k am -q "${patches[@]}" || die "the patch series does not apply"
	echo "$series_sum" >"$bdir/series$sfx_series.stamp"
fi

if [ $source_only = 1 ]; then
	echo "run.sh: source only: $src with ${#patches[@]} patches"
	exit 0
fi

# ---- 2b. 6.12: the series' lockless rules, checked in its source ----------------
# (6.1's run in kernel/check-series.sh, per prefix). The plain-write check and its self
# test, and that no feed takes a lock: the cpufreq feed, the inject feed, and what they
# call to mark an idle CPU (the 6.1 feed took the rq lock of every capped CPU)
src_pass=0 src_fail=0
src_check() {	# src_check NAME CMD...: one check, its output shown when it fails
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then echo "  ok $name"; src_pass=$((src_pass + 1))
	else echo "  FAIL $name:"; sed 's/^/    /' <<<"$out"; src_fail=$((src_fail + 1)); fi
}
if [ "$series" = 6.12 ]; then
	echo "== kernel/run.sh source checks (6.12) =="
	src_check "lockless: every field thermal.c reads with READ_ONCE() is written with WRITE_ONCE()" \
		bash "$here/check-lockless.sh" "$src/kernel/sched/thermal.c"
	src_check "lockless: the check's self test reports both planted plain writes" \
		bash "$here/check-lockless.sh" --selftest "$src/kernel/sched/thermal.c"
	src_check "lock-free feeds: cpufreq_update_pressure, tp_inject_one, sched_thermal_pressure_changed, nohz_mark_blocked_load take no lock" \
		bash "$here/check-lockless.sh" --feeds "$src/drivers/cpufreq/cpufreq.c:cpufreq_update_pressure" \
		"$src/kernel/sched/thermal.c:tp_inject_one" "$src/kernel/sched/thermal.c:sched_thermal_pressure_changed" \
		"$src/kernel/sched/fair.c:nohz_mark_blocked_load"
	for p in "${patches[@]}"; do	# checkpatch: no error, warning or check
		src_check "checkpatch --strict: ${p##*/}" \
			bash -c 'cd "$1" && ! perl scripts/checkpatch.pl --strict --no-tree -q "$2" 2>&1 | grep -E "^(ERROR|WARNING|CHECK)"' _ "$src" "$p"
	done
fi

# ---- 3. configuration ------------------------------------------------------
frag=$fragment stamp="$bdir/config$sfx_series.stamp"
if [ $kcsan = 1 ]; then	# a second object tree from the same source
	obj="$bdir/obj-kcsan$sfx_series" stamp="$bdir/config-kcsan$sfx_series.stamp"
	cat "$fragment" "$here/kcsan.fragment" >"$bdir/kcsan-config$sfx_series.fragment"
	frag="$bdir/kcsan-config$sfx_series.fragment"
fi
cfg_sum=$( (cat "$frag"; echo "$series_sum") | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$cfg_sum" ]; then
	log "configuring: tinyconfig + kernel/${fragment##*/}$([ $kcsan = 1 ] && echo ' + kernel/kcsan.fragment')"
	configure_fragment "$src" "$obj" "$frag"
	echo "$cfg_sum" >"$stamp"
fi

# ---- 4. kernel -------------------------------------------------------------
# kernel/sched/Makefile turns KCSAN off for the whole directory (KCSAN_SANITIZE := n),
# and the series' thermal.c is compiled inside build_policy.c: without this, KCSAN
# would not see one access of the series.  It turns it back on for that unit (rt,
# deadline, idle, cpufreq and the series), whose reports outside the series are counted
kmake=()
[ $kcsan = 1 ] && kmake+=(KCSAN_SANITIZE_build_policy.o=y)
log "building bzImage (-j$jobs)"
if ! make -s -C "$src" O="$obj" -j"$jobs" "${kmake[@]}" bzImage >"$bdir/make$sfx_series.log" 2>&1; then
	tail -40 "$bdir/make$sfx_series.log" >&2
	die "kernel build failed (see $bdir/make$sfx_series.log)"
fi
kernel="$obj/arch/x86/boot/bzImage"
kbuild_s=$(elapsed "$t_build")
log "kernel built in ${kbuild_s}s"

# ---- 5. initramfs ----------------------------------------------------------
t_initrd=$(now)
root="$bdir/initramfs$sfx_series"
initramfs_skeleton "$root" "$busybox"
mkdir -p "$root"/{lib64,lib/x86_64-linux-gnu}
cp "$here/vm-test.sh" "$root/vm-test.sh"
initramfs_init "$root" vm-test.sh "TPTEST_QUICK=$quick" "TP_KCSAN=$kcsan" "TP_SERIES=$series"

tp_bin=""
for cand in "$tpbuild/cmd/thermpress" "$tpbuild/thermpress"; do
	[ -x "$cand" ] && { tp_bin=$cand; break; }
done
if [ -n "$tp_bin" ] && ldd "$tp_bin" >/dev/null 2>&1; then
	log "adding $tp_bin and its libraries to the initramfs"
	cp "$tp_bin" "$root/usr/bin/thermpress"
	mkdir -p "$root/usr/lib/thermpress/plugins"
	plugins=()
	for p in "$tpbuild"/plugins/*.so; do
		[ -f "$p" ] && { cp "$p" "$root/usr/lib/thermpress/plugins/"; plugins+=("$p"); }
	done
	ldd "$tp_bin" "${plugins[@]}" 2>/dev/null |
		awk '/=> \// { print $3 } /^\t\/lib64\// { print $1 }' | sort -u |
		while read -r lib; do
			case "$lib" in
			*/ld-linux-x86-64.so.2) cp -L "$lib" "$root/lib64/" ;;
			*) cp -L "$lib" "$root/lib/x86_64-linux-gnu/" ;;
			esac
		done
	[ -e "$root/lib64/ld-linux-x86-64.so.2" ] || cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
else
	log "no thermpress binary in $tpbuild: the VM skips the thermpress checks"
fi

initramfs_pack "$root" "$bdir/initramfs$sfx_series.cpio.gz"
log "initramfs built in $(elapsed "$t_initrd")s ($(du -k "$bdir/initramfs$sfx_series.cpio.gz" | cut -f1) KiB)"

# ---- 6. host-side replay checker --------------------------------------------
build_replay_checker "$bdir" "$tpbuild"

if [ $build_only = 1 ]; then
	echo "run.sh: build only: kernel ${kbuild_s}s, $kernel, $bdir/initramfs$sfx_series.cpio.gz"
	exit 0
fi

# ---- 7. boot ----------------------------------------------------------------
# The kernel has CONFIG_NO_HZ_IDLE. Boot 1 (nohz=off, every CPU ticks) runs every
# check and writes the logs; boot 2 (idle CPUs stop their tick) runs the NO_HZ check.
boot() {
	local label=$1 console=$2
	shift 2
	log "booting qemu ($label, -smp 4, TCG, timeout ${timeout_s}s); console in $console"
	run_vm "$timeout_s" "$console" qemu-system-x86_64 -smp 4 -m 512M -nographic -no-reboot \
		-kernel "$kernel" -initrd "$bdir/initramfs$sfx_series.cpio.gz" \
		-append "console=ttyS0 panic=-1 loglevel=4 tsc=reliable $*"
	vm_report "kernel/run.sh results ($label)"
}
sfx=$sfx_series$([ $kcsan = 1 ] && echo -kcsan || true)
nohz_console="$bdir/console-nohz$sfx.log"
boot "NO_HZ idle" "$nohz_console"
nohz_pass=$vm_pass nohz_fail=$vm_fail nohz_vm_s=$vm_s
console="$bdir/console$sfx.log"
boot "periodic tick" "$console" nohz=off

# ---- 8. bit-exactness replay -------------------------------------------------
replay_console_logs "$console.txt" "$bdir/logs$sfx_series" 8

vm_pass=$(( ${vm_pass:-0} + ${nohz_pass:-0} ))
vm_fail=$(( ${vm_fail:-1} + ${nohz_fail:-1} ))

# ---- 8b. 6.12: both boots ran with lockdep, PROVE_RCU and DEBUG_ATOMIC_SLEEP -----------
if [ "$series" = 6.12 ]; then
	echo "== lock checking (both boots) =="
	lockrep=$(cat "$nohz_console.txt" "$console.txt" | grep -av '^TPT:' | grep -aE 'WARNING: (possible|suspicious|inconsistent)|BUG: (sleeping function|scheduling while atomic|spinlock|workqueue lockup)|possible (recursive|circular) locking|inconsistent lock state|lockdep|DEBUG_LOCKS_WARN_ON' || true)
	if [ -z "$lockrep" ]; then
		echo "  ok lock checking: no lockdep, RCU or atomic-sleep report in either console"
		vm_pass=$((vm_pass + 1))
	else
		echo "  FAIL lock checking: reports in the consoles:"
		sed 's/^/    /' <<<"$lockrep" | head -20
		vm_fail=$((vm_fail + 1))
	fi
fi

# ---- 9. with --kcsan: the data races reported ---------------------------------
# A report starts "BUG: KCSAN: data-race in A / B"; it is the series' when A or B is
# one of its functions (tp_*, sched_*thermal*, thermal_load_avg)
if [ $kcsan = 1 ]; then
	echo "== KCSAN reports (both boots) =="
	races=$(cat "$nohz_console.txt" "$console.txt" | grep -a '^BUG: KCSAN: ' || true)
	ours=$(grep -E ' (tp_[a-z_]+|[a-z_]*sched_[a-z_]*thermal[a-z_]*|thermal_load_avg)[+/ ]' <<<"$races" || true)
	echo "  INFO $(grep -c . <<<"$races" || true) reports in all, of $(grep -o 'in .*' <<<"$races" | sort -u | grep -c . || true) distinct pairs"
	if [ -z "$ours" ]; then
		echo "  ok KCSAN: no data race reported in the series' code"
		vm_pass=$((vm_pass + 1))
	else
		echo "  FAIL KCSAN: data races in the series' code:"
		sort -u <<<"$ours" | sed 's/^/    /'
		vm_fail=$((vm_fail + 1))
	fi
fi
echo "== timings: kernel build ${kbuild_s}s, boot to init ${booted:-?}s (guest uptime), VM runs ${vm_s}s (periodic) + ${nohz_vm_s}s (NO_HZ idle) =="
echo "== VM checks: ${vm_pass:-0} passed, ${vm_fail:-?} failed; replayed logs: $nlogs, $replay_fail failed$([ $with_lib = 1 ] && echo ' (thermpress plugins and reference)' || echo ' (reference only)') =="
total_pass=$(( ${vm_pass:-0} + nlogs - replay_fail + src_pass ))
total_fail=$(( ${vm_fail:-1} + replay_fail + src_fail ))
echo "$total_pass passed, $total_fail failed"
[ "${vm_fail:-1}" = 0 ] && [ $replay_fail = 0 ] && [ $src_fail = 0 ] || exit 1
exit 0
