# scripts/capture-stock-tree.sh: a capture of each stock fixture tree (as the "system",
# through --from) shows in thermpress what the original shows; the command line and
# proc/version keep nothing private; it runs under busybox sh and dash, not only bash.
source "$(dirname "$0")/lib.sh"

FIX=$(cd "$E2E_DIR/../fixtures/stock" && pwd)
CAPTURE=$(cd "$E2E_DIR/../../scripts" && pwd)/capture-stock-tree.sh

# every POSIX shell at hand runs it (busybox sh is what a VM's initramfs has)
shells=()
command -v busybox >/dev/null && shells+=("busybox sh")
command -v dash >/dev/null && shells+=(dash)
shells+=(bash)

# show and show status of root, with the root's name and the time taken out
view() {
	local root=$1
	shift
	"$TP" --root "$root" "$@" 2>&1 | sed -e "s#$root#ROOT#g" -e 's/time: *[0-9.]* s//' -e 's/"time_ns": [0-9]*/"time_ns": T/'
}

i=0
for fx in arm64-biglittle-6.1 x86-laptop-6.5 arm64-board-6.1 arm64-board-6.12 arm64-board-7.3 x86-qemu-6.1 x86-qemu-6.12 x86-qemu-7.3; do
	sh=${shells[$((i % ${#shells[@]}))]}
	i=$((i + 1))
	run $sh "$CAPTURE" --from "$FIX/$fx" "$tmp/$fx"
	assert_rc 0 "$fx: captured with $sh"
	assert_contains "$out" "$tmp/$fx:" "$fx: one line says where"
	[ -s "$tmp/$fx/MANIFEST" ] && pass "$fx: MANIFEST written" || fail "$fx: no MANIFEST"
	for cmd in show "show status" "--json show status"; do
		# shellcheck disable=SC2086
		assert_eq "$(view "$tmp/$fx" $cmd)" "$(view "$FIX/$fx" $cmd)" \
			"$fx: thermpress $cmd on the capture is the original's"
	done
done

# the command line keeps only what thermpress reads
assert_eq "$(cat "$tmp/x86-laptop-6.5/proc/cmdline")" "" "x86: root=UUID and the rest left out"
assert_eq "$(cat "$tmp/arm64-biglittle-6.1/proc/cmdline")" "sched_thermal_decay_shift=2" \
	"big.LITTLE: sched_thermal_decay_shift= kept"
assert_contains "$(cat "$tmp/arm64-biglittle-6.1/MANIFEST")" "kept 1 of 5 options" \
	"MANIFEST: how much of the command line was kept"
# cpuN/cpufreq stays a link to its policy, as in sysfs
assert_eq "$(readlink "$tmp/arm64-biglittle-6.1/sys/devices/system/cpu/cpu5/cpufreq")" \
	"../cpufreq/policy4" "cpu5/cpufreq links to policy4"

# a Debian 6.1 kernel: proc/version gives the sublevel, its builder stays behind
cp -a "$FIX/arm64-biglittle-6.1" "$tmp/deb"
printf '%s\n' 'Linux version 6.1.0-18-arm64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP Debian 6.1.76-1 (2024-02-01)' \
	>"$tmp/deb/proc/version"
printf '%s\n' 'root=UUID=4f1c cryptkey=secret sched_thermal_decay_shift=1 -- sched_thermal_decay_shift=5' \
	>"$tmp/deb/proc/cmdline"
run ${shells[0]} "$CAPTURE" --from "$tmp/deb" "$tmp/deb-capture"
assert_rc 0 "Debian tree captured"
assert_not_contains "$(cat "$tmp/deb-capture/proc/version")" "debian-kernel@" "proc/version: the builder removed"
assert_contains "$(cat "$tmp/deb-capture/proc/version")" "Debian 6.1.76-1" "proc/version: Debian's version kept"
assert_eq "$(cat "$tmp/deb-capture/proc/cmdline")" "sched_thermal_decay_shift=1" \
	"proc/cmdline: no secret, nothing after --"
assert_eq "$(view "$tmp/deb-capture" --json show status)" "$(view "$tmp/deb" --json show status)" \
	"Debian tree: the same status"

# an events directory without the events thermpress looks for survives a commit (git keeps no
# empty directory): marked with .keep, so the tree still says "absent", not "unknown"
mkdir -p "$tmp/noev/proc/sys/kernel" "$tmp/noev/sys/kernel/tracing/events"
cp -a "$FIX/arm64-biglittle-6.1/sys/devices" "$tmp/noev/sys/"
cp "$FIX/arm64-biglittle-6.1/proc/sys/kernel/osrelease" "$tmp/noev/proc/sys/kernel/"
run ${shells[0]} "$CAPTURE" --from "$tmp/noev" "$tmp/noev-capture"
assert_rc 0 "a tree with an empty events directory captured"
[ -f "$tmp/noev-capture/sys/kernel/tracing/events/.keep" ] && pass "the empty events directory keeps a .keep" ||
	fail "no .keep in the empty events directory"
assert_contains "$(cat "$tmp/noev-capture/MANIFEST")" "marked sys/kernel/tracing/events (an empty directory) with .keep" \
	"MANIFEST: says it marked it"
assert_contains "$(view "$tmp/noev-capture" show status)" "thermal_pressure_update absent" \
	"the marked events directory: the event is absent, not unknown"

# a directory in use is refused, and so is a missing root
run bash "$CAPTURE" --from "$FIX/arm64-board-6.12" "$tmp/deb"
assert_rc 2 "a non-empty OUTDIR is refused"
assert_contains "$err" "is not empty" "non-empty OUTDIR: why"
run bash "$CAPTURE" --from "$tmp/nowhere" "$tmp/new"
assert_rc 2 "a missing root is refused"

finish
