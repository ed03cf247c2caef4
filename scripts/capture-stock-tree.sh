#!/bin/sh
# SPDX-License-Identifier: MIT
# Copy into OUTDIR exactly the files thermpress's stock-kernel source reads, so that
# `thermpress --root OUTDIR show` shows what it shows on this machine: for a bug report,
# or a test fixture.  POSIX sh (busybox sh too); reads only, enables nothing.
#
#   capture-stock-tree.sh [--from ROOT] OUTDIR
#
# ROOT (default /) is the tree to read: a system's root, or another capture.  OUTDIR
# must not exist yet, or be empty.  OUTDIR/MANIFEST lists every file taken, every place
# looked at and found empty, and what was left out on purpose:
#   - proc/cmdline keeps only the options thermpress reads (sched_thermal_decay_shift=):
#     a command line can carry secrets (root=UUID=..., passwords of initramfs scripts);
#   - proc/version keeps the version and the distribution's build (Debian's "Debian
#     6.1.192-1" gives the sublevel), with the builder's user@host removed;
#   - no hostname, environment, BTF or anything else.
set -eu

usage() {
	echo "usage: capture-stock-tree.sh [--from ROOT] OUTDIR" >&2
	exit 2
}

from=/
case ${1-} in
--from)
	[ $# -ge 2 ] || usage
	from=$2
	shift 2
	;;
--help | -h)
	sed -n '2,17p' "$0"
	exit 0
	;;
esac
[ $# -eq 1 ] || usage
out=$1
[ -d "$from" ] || { echo "capture-stock-tree.sh: $from is not a directory (--from takes a root such as /)" >&2; exit 2; }
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	echo "capture-stock-tree.sh: $out is not empty (give a new or empty directory)" >&2
	exit 2
fi
from=${from%/}
mkdir -p "$out"
manifest=$out/MANIFEST
: >"$manifest"

note() { printf '%s\n' "$*" >>"$manifest"; }

# take REL: copy ROOT/REL to OUTDIR/REL when it is a readable file
take() {
	if [ -f "$from/$1" ] && [ -r "$from/$1" ]; then
		mkdir -p "$out/$(dirname "$1")"
		if cat "$from/$1" >"$out/$1" 2>/dev/null; then
			note "copied $1"
			return 0
		fi
		rm -f "$out/$1"
		note "unreadable $1"
		return 1
	fi
	note "absent $1"
	return 1
}

# take_quiet REL: the same, without an "absent" line (optional files of a directory)
take_quiet() {
	[ -e "$from/$1" ] || return 0
	take "$1" || true
}

# ---- the kernel ----------------------------------------------------------------
take proc/sys/kernel/osrelease || true
take proc/sys/kernel/arch || true
release=$(cat "$from/proc/sys/kernel/osrelease" 2>/dev/null || true)

if [ -r "$from/proc/version" ]; then
	mkdir -p "$out/proc"
	# "(builder@buildhost)" says who built the kernel where: not needed, maybe private
	sed 's/([^()@ ]*@[^()]*)/(builder removed)/' "$from/proc/version" >"$out/proc/version"
	note "copied proc/version (the builder's user@host removed)"
else
	note "absent proc/version"
fi

if [ -r "$from/proc/cmdline" ]; then
	mkdir -p "$out/proc"
	kept=
	total=0
	# the kernel splits the command line at white space; "--" ends its own options
	set -f	# an option is not a file name pattern
	for arg in $(cat "$from/proc/cmdline"); do
		[ "$arg" = -- ] && break
		total=$((total + 1))
		case $arg in
		sched_thermal_decay_shift=*) kept="$kept${kept:+ }$arg" ;;
		esac
	done
	set +f
	printf '%s\n' "$kept" >"$out/proc/cmdline"
	note "copied proc/cmdline (only sched_thermal_decay_shift=: kept $(set -- $kept; echo $#) of $total options)"
else
	note "absent proc/cmdline"
fi

# the config, first found in thermpress's order (docs/kernels.md)
config=
for rel in proc/config.gz "boot/config-$release" "usr/lib/modules/$release/config" \
	"lib/modules/$release/config"; do
	if [ -z "$release" ] && [ "$rel" != proc/config.gz ]; then
		continue
	fi
	if [ -f "$from/$rel" ] && [ -r "$from/$rel" ] && take "$rel"; then
		config=$rel
		break
	fi
done
[ -n "$config" ] || note "absent kernel config (proc/config.gz, boot/config-R, usr/lib/modules/R/config, lib/modules/R/config)"

# ---- cpus and cpufreq -----------------------------------------------------------
cpu=sys/devices/system/cpu
take $cpu/possible || true
take $cpu/online || true
take_quiet $cpu/present
policy_files="related_cpus affected_cpus cpuinfo_max_freq cpuinfo_min_freq scaling_max_freq
scaling_min_freq scaling_cur_freq scaling_available_frequencies scaling_driver scaling_governor"
for dir in "$from/$cpu"/cpu[0-9]*; do
	[ -d "$dir" ] || continue
	n=${dir##*/cpu}
	case $n in *[!0-9]*) continue ;; esac
	mkdir -p "$out/$cpu/cpu$n"
	take_quiet "$cpu/cpu$n/cpu_capacity"
	take_quiet "$cpu/cpu$n/online"
	if [ -L "$dir/cpufreq" ]; then
		# cpuN/cpufreq -> ../cpufreq/policyK: the same link, and policyK's files
		target=$(readlink "$dir/cpufreq")
		policy=${target##*/}
		ln -s "../cpufreq/$policy" "$out/$cpu/cpu$n/cpufreq"
		note "linked $cpu/cpu$n/cpufreq -> ../cpufreq/$policy"
		if [ ! -d "$out/$cpu/cpufreq/$policy" ]; then
			mkdir -p "$out/$cpu/cpufreq/$policy"
			for f in $policy_files; do
				take_quiet "$cpu/cpufreq/$policy/$f"
			done
		fi
	elif [ -d "$dir/cpufreq" ]; then
		for f in $policy_files; do
			take_quiet "$cpu/cpu$n/cpufreq/$f"
		done
	fi
done

# ---- thermal zones and cooling devices -------------------------------------------
thermal=sys/class/thermal
if [ -d "$from/$thermal" ]; then
	mkdir -p "$out/$thermal"
	note "copied $thermal (the directory)"
	for dir in "$from/$thermal"/thermal_zone[0-9]* "$from/$thermal"/cooling_device[0-9]*; do
		[ -d "$dir" ] || continue
		name=${dir##*/}
		mkdir -p "$out/$thermal/$name"
		for f in type temp mode cur_state max_state; do
			take_quiet "$thermal/$name/$f"
		done
		for f in "$dir"/trip_point_*_type "$dir"/trip_point_*_temp "$dir"/trip_point_*_hyst; do
			take_quiet "$thermal/$name/${f##*/}"
		done
	done
else
	note "absent $thermal"
fi

# ---- tracefs: whether the events exist (their format only; nothing is enabled) ------
traced=
for events in sys/kernel/tracing/events sys/kernel/debug/tracing/events; do
	# an events directory that cannot be searched tells nothing (thermpress: unknown)
	[ -d "$from/$events" ] && [ -r "$from/$events" ] && [ -x "$from/$events" ] || continue
	traced=$events
	mkdir -p "$out/$events"
	note "copied $events (the directory)"
	for ev in thermal_pressure/thermal_pressure_update hw_pressure/hw_pressure_update \
		thermal_pressure/hw_pressure_update; do
		if [ -d "$from/$events/$ev" ]; then
			mkdir -p "$out/$events/$ev"
			note "copied $events/$ev (the directory)"
			take_quiet "$events/$ev/format"
		fi
	done
	break
done
[ -n "$traced" ] || note "absent tracefs events (sys/kernel/tracing/events, sys/kernel/debug/tracing/events: not mounted or not readable)"

# git keeps no empty directory, and an empty one says something here (an events directory
# without the events thermpress looks for: "absent", not "unknown"): a committed tree keeps it
# with an empty .keep file
for d in $(cd "$out" && find . -type d | sort); do
	if [ -z "$(ls -A "$out/$d")" ]; then
		: >"$out/$d/.keep"
		note "marked ${d#./} (an empty directory) with .keep"
	fi
done

note "left out: hostname, environment, BTF, every proc/cmdline option but sched_thermal_decay_shift=, the builder in proc/version"
echo "capture-stock-tree.sh: $out: $(grep -c '^copied' "$manifest") files and directories from ${from:-/} (MANIFEST lists them)"
