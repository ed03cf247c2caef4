#!/bin/bash
# Boot an arm64 big.LITTLE board (Hikey960-like: CPUs 0-3 little, 4-7 big) with
# Debian's stock arm64 kernel under qemu-system-aarch64 (TCG), and run
# kernel/arm64/vm-test.sh inside: the kernel's own cpufreq, cooling devices,
# thermal zone and thermal pressure, and the cross-built thermpress against them.
# Everything comes from Debian packages; nothing is compiled but a small test
# module (tp_test_sensor.c) and the device tree.
#
# With --patched the board boots the patch series instead (kernel/patches, built for
# arm64 with Debian's cross compiler from the source tree kernel/run.sh prepares, and
# kernel/arm64/config.fragment) and runs kernel/arm64/vm-test-patched.sh: caps through
# the real cooling device and the governor reach the series' store, and the update logs
# of one CPU of each cluster are replayed bit for bit on the host.
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
  --kernel LINE     the stock kernel: the newest Debian arm64 kernel of LINE, one of
                    6.1 (bookworm), 6.12 (trixie), 7.3 (trixie-backports); default:
                    each of them in turn, in BUILD_DIR/LINE, summing the checks
  --timeout SEC     kill qemu after SEC seconds (default: 600: a loaded host slows the
                    8 TCG vCPUs, and the cost measurements run each command 5 times)
  --build-only      prepare everything, do not boot
  --patched         boot the patch series instead of Debian's kernel (needs the source
                    tree kernel/run.sh extracts: run it first, --build-only is enough)
  --kernel-dir DIR  with --patched: kernel/run.sh's build dir (default: build-kernel/)
  --host-build DIR  with --patched: the native meson build whose library and plugins
                    replay the logs on the host (default: $THERMPRESS_BUILD, else build/)
  --jobs N          with --patched: make -jN (default: 2)
  --effect          with --patched: instead of the checks, measure the seeds' effect
                    (kernel/arm64/vm-effect.sh: thermpress bench of a fixed workload
                    under every backend while the big cluster heats); the table goes
                    to BUILD_DIR/effect.txt (timeout default 5400 s)
  --runs N          with --effect: runs per configuration (default 10; at 5 the
                    pelt check failed once, its interval ± 16 points)
  --study SCHEDULE  with --patched: one boot of kernel/arm64/study.sh's study on the
                    slowing board (each vCPU slowed to capacity x f / f_max by
                    board/board-speed.py; kernel/arm64/vm-study.sh runs the calibration
                    and the schedule's runs); its lines go to BUILD_DIR/study.txt.  Read
                    from the environment: TP_BOOT, TP_CAL_MS, TP_BUSY_UNITS,
                    TP_HACKBENCH_ARGS, TP_BOARD_PERIOD_US, TP_BOARD_FULL,
                    TP_BOARD_OFFSET_US, each required (study.sh sets them);
                    timeout default 3600 s
  --prefix N        with --patched: only the series' first N patches (0: none),
                    checked by kernel/arm64/vm-test-prefix.sh (a cooling device cap
                    lowers the scheduler's cpu_capacity); kernel/arm64/check-prefixes.sh
                    runs every N.  Every prefix and the whole series are built from one
                    worktree (BUILD_DIR/src) into one object tree, incrementally
  --patches DIR     with --patched: the series (default kernel/patches, or
                    kernel/patches-6.12 with --series 6.12)
  --series V        with --patched: 6.1 (the default) or 6.12: the series on Debian's
                    linux-source-6.12 (kernel/run.sh --series 6.12 --source-only
                    first), kernel/arm64/config-6.12.fragment (lockdep on), in
                    BUILD_DIR build-arm64-patched-6.12/ by default
  -h, --help        show this help
EOF2
}

me=arm64/run.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/host.sh"
bdir="$top/build-arm64-board"
tpbuild="${THERMPRESS_ARM64_BUILD:-build-arm64}"
stock_kernels="6.1 6.12 7.3"	# the kernel lines every stock run boots
kline=""
timeout_s=600
build_only=0
patched=0
kdir=build-kernel
hostbuild="${THERMPRESS_BUILD:-build}"
jobs=2
effect=0
study=""
runs=10
prefix=""
pdir=
series=6.1
all_args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) bdir=$2; shift 2 ;;
	--thermpress-build) tpbuild=$2; shift 2 ;;
	--kernel) kline=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--build-only) build_only=1; shift ;;
	--patched) patched=1; shift ;;
	--kernel-dir) kdir=$2; shift 2 ;;
	--host-build) hostbuild=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--effect) effect=1; shift ;;
	--runs) runs=$2; shift 2 ;;
	--study) study=$2; shift 2 ;;
	--prefix) prefix=$2; shift 2 ;;
	--patches) pdir=$2; shift 2 ;;
	--series) series=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$me: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
if [ $effect = 1 ]; then
	[ $patched = 1 ] || die "--effect needs --patched"
	case "$runs" in ''|*[!0-9]*|0) die "--runs wants a positive integer, not '$runs'" ;; esac
	[ "$timeout_s" = 600 ] && timeout_s=5400
fi
if [ -n "$study" ]; then
	[ $patched = 1 ] && [ $effect = 0 ] || die "--study needs --patched (and not --effect)"
	[ -f "$study" ] || die "--study $study: no such schedule"
	study=$(cd "$(dirname "$study")" && pwd)/$(basename "$study")
	[ "$timeout_s" = 600 ] && timeout_s=3600
	# the study's settings are study.sh's, stated there once: none has a default here
	for v in TP_BOOT TP_CAL_MS TP_BUSY_UNITS TP_HACKBENCH_ARGS TP_BOARD_PERIOD_US \
		TP_BOARD_FULL TP_BOARD_OFFSET_US; do
		[ -n "${!v:-}" ] || die "--study needs $v in the environment (kernel/arm64/study.sh sets it)"
	done
fi
if [ -n "$prefix" ]; then
	[ $patched = 1 ] && [ $effect = 0 ] && [ -z "$study" ] ||
		die "--prefix needs --patched (and not --effect or --study)"
fi
series_suffix "$series"
[ -z "$series_sfx" ] || [ $patched = 1 ] || die "--series needs --patched"
[ -n "$pdir" ] || pdir="$top/kernel/patches$series_sfx"
if [ $patched = 1 ] && [ "$bdir" = "$top/build-arm64-board" ]; then
	bdir="$top/build-arm64-patched$series_sfx"
	[ -z "$study" ] || bdir="$top/build-arm64-study$series_sfx"
fi
if [ $patched = 0 ] && [ -z "$kline" ]; then	# every stock kernel line, one run each
	each_kernel "$0" "$stock_kernels" "$bdir" "${all_args[@]}"
	exit
fi
if [ $patched = 0 ]; then
	case " $stock_kernels " in *" $kline "*) ;; *) die "--kernel $kline: not one of $stock_kernels" ;; esac
fi
case "$pdir" in /*) ;; *) pdir="$(pwd)/$pdir" ;; esac
resolve_dirs
case "$hostbuild" in /*) ;; *) hostbuild="$top/$hostbuild" ;; esac
case "$kdir" in /*) ;; *) kdir="$top/$kdir" ;; esac
t_all=$(now)

for tool in qemu-system-aarch64 dtc aarch64-linux-gnu-gcc aarch64-linux-gnu-readelf depmod \
	dpkg-deb apt-get cpio gzip make; do
	command -v "$tool" >/dev/null || die "$tool is missing (bash scripts/deps.sh installs it)"
done
dpkg --print-foreign-architectures | grep -x arm64 >/dev/null ||
	die "the arm64 architecture is not enabled (bash scripts/deps.sh)"
[ -x "$tpbuild/cmd/thermpress" ] || die "no arm64 thermpress in $tpbuild: meson setup --cross-file cross/aarch64-linux-gnu.ini $tpbuild && ninja -C $tpbuild"

# ---- 1. the packages --------------------------------------------------------------
debs="$bdir/debs"
mkdir -p "$debs"
bbver=$(apt-cache policy busybox-static:arm64 | sed -n 's/^  Candidate: //p')
fetch "busybox-static:arm64=$bbver"
if [ "$(cat "$bdir/bb.stamp" 2>/dev/null)" != "$bbver" ]; then
	rm -rf "$bdir/bb"
	dpkg-deb -x "$(deb busybox-static "$bbver")" "$bdir/bb"
	echo "$bbver" >"$bdir/bb.stamp"
fi
busybox="$bdir/bb/bin/busybox"
[ -x "$busybox" ] || die "$busybox is missing"

# Each kernel gives: kernel (the image to boot), mod_files (modules to load, in
# order), vm_script, kernel_label, and extra initramfs contents (extra_initramfs).
mod_files=()
libdirs_extra=()
with_bpf=0
if [ $patched = 1 ]; then
	. "$here/patched-kernel.sh"
else
	. "$here/stock-kernel.sh"
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
cp "$here/$vm_script" "$root/$vm_script"
cp "$top/scripts/capture-stock-tree.sh" "$root/capture-stock-tree.sh"
mods=()
for m in "${mod_files[@]}"; do
	cp "$m" "$root/lib/modules/"
	mods+=("$(basename "$m")")
done

# thermpress, its plugins, and every shared library they need (DT_NEEDED, recursively)
cp "$tpbuild/cmd/thermpress" "$root/usr/bin/thermpress"
cp "$tpbuild"/plugins/*.so "$root/usr/lib/thermpress/plugins/"
libdirs=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/local/lib/aarch64-linux-gnu
	"$tpbuild/core" "${libdirs_extra[@]}")
queue=("$root/usr/bin/thermpress" "$root"/usr/lib/thermpress/plugins/*.so)
while read -r f; do queue+=("$f"); done < <(extra_initramfs "$root")
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

study_env=()
if [ -n "$study" ]; then
	cp "$study" "$root/study-schedule.txt"
	study_env=("TP_BOOT=$TP_BOOT" "TP_CAL_MS=$TP_CAL_MS" "TP_BUSY_UNITS=$TP_BUSY_UNITS"
		"TP_HACKBENCH_ARGS=$TP_HACKBENCH_ARGS")
fi
initramfs_init "$root" "$vm_script" "TP_MODULES=${mods[*]}" "TP_KERNEL=$kernel_label" \
	"TP_EFFECT_RUNS=$runs" "TP_SERIES=$series" "${study_env[@]}"
initramfs_pack "$root" "$bdir/initramfs.cpio.gz"
log "initramfs built in $(elapsed "$t_initrd")s ($(du -k "$bdir/initramfs.cpio.gz" | cut -f1) KiB)"
prep_s=$(elapsed "$t_all")
if [ $build_only = 1 ]; then
	echo "$me: build only: $kernel_label, $bdir/board.dtb, $bdir/initramfs.cpio.gz (${prep_s}s)"
	exit 0
fi

# ---- 5. boot ---------------------------------------------------------------------------
# 6.10+ ignore sched_thermal_decay_shift=: the board carries one, as a machine upgraded
# from 6.1 may, so that thermpress is seen saying so (and the captured tree keeps it)
decay_option=""
case "$kline" in ""|6.1) ;; *) decay_option=" sched_thermal_decay_shift=3" ;; esac
console="$bdir/console.log"
log "booting $kernel_label (-smp 8, TCG, timeout ${timeout_s}s); console in $console"
# an early crash of Debian's own kernel is booted once more; never the series' (host.sh)
retry=1; [ $patched = 1 ] && retry=0
board_speed_pid=""
if [ -n "$study" ]; then	# the slowing board: each vCPU thread in a host cgroup of its own
	rm -f "$bdir/qemu.pid" "$console"
	qemu_board+=(-name debug-threads=on -pidfile "$bdir/qemu.pid")
	python3 "$here/board/board-speed.py" --console "$console" --pidfile "$bdir/qemu.pid" \
		--log "$bdir/board-speed.log" --period-us "$TP_BOARD_PERIOD_US" \
		--full "$TP_BOARD_FULL" --offset-us "$TP_BOARD_OFFSET_US" &
	board_speed_pid=$!
fi
VM_RETRY_EARLY_CRASH=$retry run_vm "$timeout_s" "$console" "${qemu_board[@]}" -no-reboot \
	-kernel "$kernel" -initrd "$bdir/initramfs.cpio.gz" -dtb "$bdir/board.dtb" \
	-append "console=ttyAMA0 panic=-1 loglevel=4 sched_verbose$decay_option"
if [ -n "$board_speed_pid" ]; then
	wait "$board_speed_pid" || die "board/board-speed.py failed (log: $bdir/board-speed.log)"
	grep -aE '^(TPCAL|TPCALALL|TPSTUDY) ' "$console.txt" >"$bdir/study.txt" || true
	log "study lines: $(grep -c '^TPSTUDY ' "$bdir/study.txt" || true) runs, $(grep -c '^TPCAL ' "$bdir/study.txt" || true) calibration points in $bdir/study.txt"
fi
vm_report "kernel/arm64/run.sh results: $kernel_label"
[ $patched = 1 ] || capture_into "$console.txt" "$bdir/capture"
echo "== timings: preparation ${prep_s}s, boot to init ${booted:-?}s (guest uptime), VM run ${vm_s}s, total $(elapsed "$t_all")s =="
total_pass=${vm_pass:-0} total_fail=${vm_fail:-1}
if [ $effect = 1 ]; then	# the tables, as bench printed them, one per workload
	awk '/^TPEFFECT BEGIN / { on = 1; print "== " $3; next } /^TPEFFECT END / { on = 0; next }
		on' "$console.txt" >"$bdir/effect.txt"
	echo "== the effect tables ($runs runs per configuration; $bdir/effect.txt) =="
	cat "$bdir/effect.txt"
	echo "== the seeds' claim: less of the busy workload on the throttled big cluster than under none =="
	bash "$here/effect-compare.sh" "$bdir/effect.txt" | tee "$bdir/effect-compare.txt" | sed '$d' || true
	read -r cmp_pass _ cmp_fail _ < <(tail -1 "$bdir/effect-compare.txt")
	total_pass=$((total_pass + cmp_pass)) total_fail=$((total_fail + cmp_fail))
elif [ $patched = 1 ] && [ -z "$prefix" ] && [ -z "$study" ]; then	# the update logs, replayed on the host
	replay_console_logs "$console.txt" "$bdir/logs" "$min_logs"
	echo "== replayed logs: $nlogs, $replay_fail failed$([ "$with_lib" = 1 ] && echo ' (thermpress plugins and reference)' || echo ' (reference only)') =="
	total_pass=$((total_pass + nlogs - replay_fail)) total_fail=$((total_fail + replay_fail))
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
