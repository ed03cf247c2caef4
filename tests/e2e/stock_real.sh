# The stock fixtures captured from real kernels (kernel/README.md, "Fixtures from real
# kernels": scripts/capture-stock-tree.sh in the VMs): Debian's arm64 6.1, 6.12 and 7.3 on
# the big.LITTLE board, Debian's amd64 6.1, 6.12 and 7.3 in a qemu guest.  thermpress must take
# each kernel's model from docs/kernels.md, find its config where that release puts it,
# and compute a scaling_max_freq cap's pressure as that kernel does (none on 6.1).
source "$(dirname "$0")/lib.sh"

FIX=$(cd "$E2E_DIR/../fixtures/stock" && pwd)

# jget KEY: the first value of "KEY": in $out (JSON, one member per line)
jget() { sed -n "s/^ *\"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" <<<"$out" | head -1; }
# jcpu CPU KEY: KEY of one CPU's object in $out
jcpu() { awk -v c="\"cpu\": $1," -v k="\"$2\": " 'index($0, c) { on = 1 }
	on && index($0, k) { v = $0; sub(/.*: /, "", v); sub(/,$/, "", v); print v; exit }' <<<"$out"; }

# fixture MODEL CONFIG: checks of one captured tree (copied: caps write into it)
check_tree() {
	local fx=$1 model=$2 config=$3 root="$tmp/$1"
	[ -d "$FIX/$fx" ] || { fail "$fx: no such fixture in tests/fixtures/stock"; return; }
	cp -a "$FIX/$fx" "$root"
	run "$TP" --root "$root" --json show status
	assert_rc 0 "$fx: show status"
	assert_eq "$(jget model)" "$model" "$fx: model $model (docs/kernels.md)"
	assert_eq "$(jget config_file)" "$root/$config" "$fx: the config at $config"
	assert_eq "$(jget hz)" 250 "$fx: hz 250 from it"
}

for l in 6.1 6.12 7.3; do
	fx=arm64-board-$l
	rel=$(cat "$FIX/$fx/proc/sys/kernel/osrelease" 2>/dev/null)
	case $l in
	6.1) check_tree "$fx" thermal_pelt "boot/config-$rel"; cap_pressure=0 ;;
	6.12) check_tree "$fx" cpufreq_hw "boot/config-$rel"; cap_pressure=410 ;;
	7.3) check_tree "$fx" cpufreq_hw "usr/lib/modules/$rel/config"; cap_pressure=410 ;;
	esac
	run "$TP" --root "$tmp/$fx" show --json
	assert_eq "$(jcpu 0 max_capacity) $(jcpu 4 max_capacity)" "462 1024" "$fx: capacities of the board"
	assert_eq "$(jcpu 0 domain) $(jcpu 4 domain)" '"little" "big"' "$fx: its two clusters"
	# 60% of 2362000 kHz is 1417200 (a file takes it as written; the kernel would round it to
	# an OPP): 1024 - 1024 * 1417200 / 2362000 = 410 where scaling_max_freq feeds pressure
	run "$TP" --root "$tmp/$fx" cap set big 60%
	assert_rc 0 "$fx: cap set big 60%"
	run "$TP" --root "$tmp/$fx" show --json
	assert_eq "$(jcpu 4 capped_freq_khz) $(jcpu 4 pressure) $(jcpu 7 pressure)" "1417200 $cap_pressure $cap_pressure" \
		"$fx: a scaling_max_freq cap's pressure ($cap_pressure)"
	run "$TP" --root "$tmp/$fx" cap clear all
	assert_rc 0 "$fx: cap clear all"
done

for l in 6.1 6.12 7.3; do
	fx=x86-qemu-$l
	rel=$(cat "$FIX/$fx/proc/sys/kernel/osrelease" 2>/dev/null)
	case $l in
	6.1) check_tree "$fx" none "boot/config-$rel" ;;
	6.12) check_tree "$fx" cpufreq "boot/config-$rel" ;;
	7.3) check_tree "$fx" none "usr/lib/modules/$rel/config" ;;
	esac
	assert_eq "$(jget has_cpufreq)" false "$fx: no cpufreq in a qemu guest"
	run "$TP" --root "$tmp/$fx" cap set 0 50%
	assert_rc 1 "$fx: cap set refused"
	assert_eq "$(wc -l <<<"$err")" 1 "$fx: with one line"
done

finish
