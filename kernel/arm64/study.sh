#!/bin/bash
# The seeds' claim on throughput, tested on the slowing board (kernel/arm64/study/PLAN.md,
# committed before the runs; kernel/README.md has the method and the results).
#
# Each vCPU of the arm64 board is slowed to capacity x f / f_max by the host
# (board/board-speed.py), so a capped big CPU really does less work per second.  Every
# boot calibrates the board (each CPU at each OPP against that model) and then runs its
# schedule: every workload x configuration REPS times, in an order drawn at random
# (seeded: SEED x 100 + BOOT) and interleaved.  The raw lines go to OUT/boot-N.txt, the
# board's quota log to OUT/board-speed-N.log, the schedules to OUT/schedule-N.txt, and
# the pre-registered analysis (board/study-analyze.py) to OUT/results.md.  First
# board/selftest.sh checks the host side against a stand-in for qemu (OUT/selftest.log).
#
# Not in CI: about 9 minutes a boot (8.3 to 9.1 in the registered run) on a 2-core
# host, which must be otherwise idle (the board's quotas add up to 1.45 host cores when
# all eight CPUs are busy).  The host's CFS bandwidth slice is set to 1 ms while a boot
# runs (board/board-speed.py puts it back).
#
# usage: bash kernel/arm64/study.sh [--boots N] [--reps N] [--seed N] [--out DIR]
#                                   [--configs LIST] [--cal-ms MS] [--thermpress-build DIR]
# Needs: bash kernel/run.sh --series 6.12 --source-only (the 6.12 source tree), an arm64
# build of thermpress (build-arm64), root (the host's cgroup v1 cpu controller).
set -euo pipefail
me=arm64/study.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
boots=3 reps=3 seed=20261208 out="$here/study/data-6.12" cal_ms=1280
configs="instant,none,pelt:32,decay:125,decay:250,decay:500"
workloads="busy hackbench"
tpbuild="${THERMPRESS_ARM64_BUILD:-$top/build-arm64}"
while [ $# -gt 0 ]; do
	case "$1" in
	--boots) boots=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--configs) configs=$2; shift 2 ;;
	--cal-ms) cal_ms=$2; shift 2 ;;
	--thermpress-build) tpbuild=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "$me: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
for v in "$boots" "$reps" "$seed" "$cal_ms"; do
	case "$v" in ''|*[!0-9]*) echo "$me: '$v' is not a non-negative integer" >&2; exit 2 ;; esac
done
[ "$boots" -ge 1 ] && [ "$reps" -ge 1 ] || { echo "$me: --boots and --reps must be at least 1" >&2; exit 2; }
# The workload sizes and the board's settings (study/PLAN.md): each run lasts 7-9 s
export TP_BUSY_UNITS=${TP_BUSY_UNITS:-150000} TP_HACKBENCH_ARGS=${TP_HACKBENCH_ARGS:--g 1 -f 5 -l 40}
export TP_BOARD_PERIOD_US=${TP_BOARD_PERIOD_US:-32000} TP_BOARD_FULL=${TP_BOARD_FULL:-0.25}
export TP_BOARD_OFFSET_US=${TP_BOARD_OFFSET_US:-200}
mkdir -p "$out"
# the board's throttle, against a stand-in for qemu, before any boot
bash "$here/board/selftest.sh" >"$out/selftest.log" 2>&1 ||
	{ cat "$out/selftest.log" >&2; echo "$me: board/selftest.sh failed" >&2; exit 1; }
{
	echo "# $(date -u +%FT%TZ) $me --boots $boots --reps $reps --seed $seed --configs $configs --cal-ms $cal_ms"
	echo "# TP_BUSY_UNITS=$TP_BUSY_UNITS TP_HACKBENCH_ARGS='$TP_HACKBENCH_ARGS' TP_BOARD_PERIOD_US=$TP_BOARD_PERIOD_US TP_BOARD_FULL=$TP_BOARD_FULL TP_BOARD_OFFSET_US=$TP_BOARD_OFFSET_US"
	echo "# host: $(uname -r), $(nproc) CPUs, $(git -C "$top" rev-parse --short HEAD)"
} >"$out/run-info.txt"
for b in $(seq 1 "$boots"); do
	python3 - "$seed" "$b" "$reps" "$configs" "$workloads" >"$out/schedule-$b.txt" <<'EOF2'
import random, sys
seed, boot, reps, configs, works = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(","), sys.argv[5].split()
runs = [(w, c) for w in works for c in configs for _ in range(reps)]
random.Random(seed * 100 + boot).shuffle(runs)
for i, (w, c) in enumerate(runs, 1):
    print(i, w, c)
EOF2
	echo "$me: boot $b of $boots: $(wc -l <"$out/schedule-$b.txt") runs ($(date -u +%T))"
	t=$(date +%s)
	rc=0
	rm -f "$top/build-arm64-study-6.12/study.txt" "$top/build-arm64-study-6.12/board-speed.log"
	TP_BOOT=$b TP_CAL_MS=$cal_ms bash "$here/run.sh" --patched --series 6.12 \
		--study "$out/schedule-$b.txt" --thermpress-build "$tpbuild" \
		>"$out/run-$b.log" 2>&1 || rc=$?
	cp "$top/build-arm64-study-6.12/study.txt" "$out/boot-$b.txt" 2>/dev/null || : >"$out/boot-$b.txt"
	cp "$top/build-arm64-study-6.12/board-speed.log" "$out/board-speed-$b.log" 2>/dev/null || true
	echo "$me: boot $b: run.sh exit $rc, $(grep -c '^TPSTUDY ' "$out/boot-$b.txt" || true) runs, $(($(date +%s) - t)) s"
	[ "$rc" = 0 ] || tail -5 "$out/run-$b.log"
done
python3 "$here/board/study-analyze.py" "$out" >"$out/results.md" && arc=0 || arc=$?
echo "$me: analysis in $out/results.md (exit $arc)"
exit "$arc"
