#!/bin/bash
# Compile check of every prefix of a series (kernel/patches on 6.1, or
# kernel/patches-6.12 with --series 6.12): after each patch, the objects the series
# touches must build for i386 (32-bit: the pressure's 64-bit arithmetic) and arm64
# (arch_topology and cpufreq, which feed the store), without a warning, and the patch must pass checkpatch.pl --strict with no error and
# no warning, and kernel/sched/thermal.c must write with WRITE_ONCE() every field it
# reads with READ_ONCE() (kernel/check-lockless.sh, with its self test once).
# kernel/run.sh builds and boots the whole series on x86_64.
#
# Needs the source tree kernel/run.sh extracts (run it first, --build-only is
# enough); works in a git worktree of it, so run.sh's tree and objects are not
# touched. Exit status: 0 every prefix built; 1 a prefix failed; 2 setup error.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: bash kernel/check-series.sh [OPTIONS]

  --build-dir DIR   kernel/run.sh's build dir (default: build-kernel/)
  --series V        6.1 (kernel/patches on linux-source-6.1, the default) or 6.12
                    (kernel/patches-6.12 on linux-source-6.12)
  --patches DIR     the series to check (default: the --series one)
  --jobs N          make -j N (default: 2)
  --arch LIST       comma-separated, of i386 and arm64 (default: i386,arm64)
  -h, --help        show this help
EOF
}

me=check-series.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/lib/host.sh"
bdir="$top/build-kernel"
jobs=2
arches=i386,arm64
pdir=
series=6.1

while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) bdir=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--patches) pdir=$2; shift 2 ;;
	--series) series=$2; shift 2 ;;
	--arch) arches=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$me: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done

# Per series: the source tree kernel/run.sh prepared, the patches, and where the
# worktree and objects go (6.1 keeps the names it had)
series_suffix "$series"
sfx=$series_sfx
[ -n "$pdir" ] || pdir="$here/patches$sfx"
src="$bdir/linux-source-$series"
wt="$bdir/series-src$sfx"
git_tree "$src" rev-parse -q --verify refs/tags/base >/dev/null 2>&1 ||
	die "no kernel source in $src: run kernel/run.sh --build-only first"
mapfile -t patches < <(series_patches "$pdir")
[ "${#patches[@]}" -gt 0 ] || die "no patches in $pdir"

if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
	log "creating the worktree $wt"
	git_tree "$src" worktree prune
	git_tree "$src" worktree add -q --detach "$wt" base || die "cannot create $wt"
fi

# The objects each architecture compiles after each patch
targets_for() {
	local extra=
	# 6.12: cpufreq_update_pressure() is the cooling feed
	[ "$series" = 6.1 ] || extra=drivers/cpufreq/cpufreq.o
	case "$1" in
	i386) echo kernel/sched/ arch/x86/kernel/tsc.o $extra ;;
	arm64) echo kernel/sched/ drivers/base/arch_topology.o $extra ;;
	esac
}
make_args() {
	case "$1" in
	i386) echo ARCH=i386 ;;
	arm64) echo ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- ;;
	esac
}
# tinyconfig plus what the series' code needs (the option itself is not
# user-visible: it follows from these)
fragment() {
	cat <<'EOF'
CONFIG_SMP=y
CONFIG_CPU_FREQ=y
CONFIG_THERMAL=y
CONFIG_OF=y
CONFIG_THERMAL_OF=y
CONFIG_CPU_THERMAL=y
CONFIG_CPU_FREQ_THERMAL=y
CONFIG_DEBUG_FS=y
CONFIG_PROC_FS=y
CONFIG_DEBUG_KERNEL=y
CONFIG_SCHED_DEBUG=y
CONFIG_NO_HZ_IDLE=y
EOF
	# 6.12: the options the series adds (patches 2 and 5); kept for the prefixes that
	# have them, dropped by olddefconfig before
	[ "$series" = 6.1 ] || printf '%s\n' CONFIG_SCHED_THERMAL_PRESSURE=y \
		CONFIG_SCHED_THERMAL_PRESSURE_DEBUGFS=y
	case "$1" in
	i386) echo "# CONFIG_64BIT is not set" ;;
	esac
}

series_options() {
	echo SCHED_THERMAL_PRESSURE
	[ "$series" = 6.1 ] || echo SCHED_THERMAL_PRESSURE_DEBUGFS
}

IFS=, read -r -a arch_list <<<"$arches"
for a in "${arch_list[@]}"; do
	case "$a" in i386|arm64) ;; *) die "unknown architecture '$a' (i386, arm64)" ;; esac
done
[[ ",$arches," != *,arm64,* ]] || command -v aarch64-linux-gnu-gcc >/dev/null ||
	die "aarch64-linux-gnu-gcc is missing (apt-get install -y gcc-aarch64-linux-gnu)"

log "resetting $wt to base"
git_tree "$wt" am --abort >/dev/null 2>&1 || true
git_tree "$wt" reset -q --hard base
git_tree "$wt" clean -q -fdx

failed=0
n=0
checked=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	git_tree "$wt" am -q "$p" || { git_tree "$wt" am --abort || true; die "patch $n does not apply: $p"; }
	# the kernel's own style checker, as a maintainer runs it: no error, no warning
	# (Debian's python3 first: its SPDX check needs python3-ply, not a pyenv's python)
	cp_out=$(cd "$wt" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --show-types \
		"$p" 2>&1) || true
	cp_total=$(grep -E '^total: ' <<<"$cp_out" || true)
	if [[ $cp_total == "total: 0 errors, 0 warnings, "* ]] && ! grep -q Traceback <<<"$cp_out"; then
		echo "  ok patch $n checkpatch --strict: ${cp_total#total: }"
	else
		echo "  FAIL patch $n checkpatch --strict: ${cp_total:-no summary}"
		grep -E '^(ERROR|WARNING|CHECK):|^#[0-9]+: FILE|Traceback|Error' <<<"$cp_out" | head -12 |
			sed 's/^/    /'
		failed=$((failed + 1))
	fi
	checked=$((checked + 1))
	# the lockless pairs: every field read with READ_ONCE() written with WRITE_ONCE()
	if [ -f "$wt/kernel/sched/thermal.c" ]; then
		if lk_out=$(bash "$here/check-lockless.sh" "$wt/kernel/sched/thermal.c"); then
			echo "  ok patch $n lockless pairs: no plain write of a field read with READ_ONCE()"
		else
			echo "  FAIL patch $n lockless pairs:"
			sed "s|^$wt/||; s/^/    /" <<<"$lk_out"
			failed=$((failed + 1))
		fi
		checked=$((checked + 1))
	fi
	for a in "${arch_list[@]}"; do
		obj="$bdir/series-obj$sfx-$a"
		mkdir -p "$obj"
		t=$(now)
		read -r -a margs <<<"$(make_args "$a")"
		if [ ! -f "$obj/.config" ] || ! fragment "$a" | cmp -s - "$obj/fragment"; then
			make -s -C "$wt" O="$obj" "${margs[@]}" tinyconfig >/dev/null
			fragment "$a" >"$obj/fragment"
			(cd "$wt" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" \
				"$obj/fragment" >/dev/null)
		fi
		make -s -C "$wt" O="$obj" "${margs[@]}" olddefconfig >/dev/null
		# the series' options must be on from the patch that defines them (6.1: the
		# stock option, which patch 1 makes available here); the fragment is merged
		# again for an option that appeared since the configuration was made
		opts_on=1
		for o in $(series_options); do
			grep -qx "config $o" "$wt/init/Kconfig" || continue
			if ! grep -qx "CONFIG_$o=y" "$obj/.config"; then
				(cd "$wt" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" \
					"$obj/fragment" >/dev/null)
				make -s -C "$wt" O="$obj" "${margs[@]}" olddefconfig >/dev/null
			fi
			grep -qx "CONFIG_$o=y" "$obj/.config" && continue
			echo "  FAIL patch $n $a: CONFIG_$o is not set"
			failed=$((failed + 1))
			opts_on=0
		done
		[ $opts_on = 1 ] || continue
		read -r -a tg <<<"$(targets_for "$a")"
		if make -C "$wt" O="$obj" "${margs[@]}" -j"$jobs" "${tg[@]}" \
			>"$obj/make-$n.log" 2>&1 && ! grep -q 'warning:' "$obj/make-$n.log"; then
			echo "  ok patch $n $a: ${tg[*]} ($(elapsed "$t")s)"
		else
			echo "  FAIL patch $n $a: ${tg[*]} (see $obj/make-$n.log)"
			grep -E 'error|warning' "$obj/make-$n.log" | head -10 | sed 's/^/    /'
			failed=$((failed + 1))
		fi
	done
done
# the lockless check can fail: the plain writes review found, planted again, are reported
if [ -f "$wt/kernel/sched/thermal.c" ]; then
	# one ok or FAIL line per planted write; a self test that printed neither failed
	if st_out=$(bash "$here/check-lockless.sh" --selftest "$wt/kernel/sched/thermal.c" 2>&1); then st=0; else st=1; fi
	echo "$st_out"
	st_ok=$(grep -c '^  ok ' <<<"$st_out" || true)
	st_fail=$(grep -c '^  FAIL ' <<<"$st_out" || true)
	[ "$st" = 0 ] || [ "$st_fail" -gt 0 ] || st_fail=1
	failed=$((failed + st_fail))
	checked=$((checked + st_ok + st_fail))
fi
total=$((n * ${#arch_list[@]} + checked))
echo "$((total - failed)) passed, $failed failed"
[ $failed = 0 ]
