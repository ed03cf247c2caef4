#!/bin/sh
# In-VM checks of kernel/x86-stock/run.sh, run by /init under busybox sh: Debian's stock
# amd64 kernel in a qemu guest, where no cpufreq driver binds (no frequency limits to
# read or cap).  thermpress must name the kernel's model, say why it sees no cpufreq,
# show every CPU without inventing a frequency or a pressure, and refuse caps with the
# reason, changing nothing.  Protocol: kernel/lib/vm-checks.sh.
. /vm-checks.sh
C=/sys/devices/system/cpu
info "kernel $(uname -r) ($TP_KERNEL), config $(ls /boot/config-* /usr/lib/modules/*/config 2>/dev/null)"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up

tp() {	# NAME ARGS...: thermpress ARGS into /tmp/tpo, /tmp/tpe; ok when it exits 0
	name=$1
	shift
	if thermpress "$@" >/tmp/tpo 2>/tmp/tpe; then ok "thermpress $name"
	else bad "thermpress $name: exit $?: $(head -3 /tmp/tpe | tr '\n' ' ')"; fi
}
# jstr KEY FILE: the first string or scalar value of "KEY": in FILE
jval() { sed -n "s/.*\"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\}[,}]\{0,1\}.*/\1/p" "$2" | head -1; }

eq "2 cpus online" "$(cat $C/online)" 0-1
eq "no cpufreq policy in the guest" "$(ls -d $C/cpufreq/policy* 2>/dev/null | wc -l)" 0

kv=$(uname -r)
kline=$(echo "$kv" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
# the files thermpress reads, captured on this kernel (tests/fixtures/stock/x86-qemu-LINE)
capture_check "x86-qemu-$kline"

tp "show status" show status
sed 's/^/TPT: INFO status: /' /tmp/tpo
cp /tmp/tpo /tmp/status
if grep -qi 'cpufreq' /tmp/status; then ok "show status says what it found of cpufreq ($(grep -i cpufreq /tmp/status | head -1))"
else bad "show status never mentions cpufreq"; fi
tp "show --json" show --json
cp /tmp/tpo /tmp/show.json
eq "show --json: stock.release" "$(jval release /tmp/show.json)" "$(uname -r)"
eq "show --json: stock.has_cpufreq" "$(jval has_cpufreq /tmp/show.json)" false
# docs/kernels.md: x86 gets no thermal pressure on 6.1 (only arch_topology's users feed
# it), cpufreq pressure on 6.12.101 and later 6.12 (Debian's backport of the
# cpuinfo.max_freq fallback), none on 7.3 (narrowed to intel_pstate's hybrid CPUs)
case "$kline" in
6.12) want_model=cpufreq ;;
*) want_model=none ;;
esac
eq "show --json: stock.model of x86 $kline" "$(jval model /tmp/show.json)" "$want_model"
info "show --json: stock.model_text: $(jval model_text /tmp/show.json)"
eq "show --json: no CPU has a frequency (null, not 0)" \
	"$(grep -c '"max_freq_khz": null' /tmp/show.json)" 2
eq "show --json: no CPU has a pressure (null, not 0)" "$(grep -c '"pressure": null' /tmp/show.json)" 2

tp "show" show
sed 's/^/TPT: INFO show: /' /tmp/tpo
if awk '$1 == 0 || $1 == 1 { n++; if ($0 !~ / - /) bad = 1 } END { exit !(n == 2 && !bad) }' /tmp/tpo
then ok "show: a row for cpus 0 and 1, missing values as -"; else bad "show: rows for cpus 0-1 with - where nothing is known"; fi

# caps: refused with the reason, exit 1, and nothing written
if thermpress cap set 0 50% >/tmp/tpo 2>/tmp/tpe; then bad "cap set 0 50% succeeded without cpufreq"
else
	rc=$?
	eq "cap set 0 50%: exit 1 (runtime failure)" "$rc" 1
	eq "cap set 0 50%: one line on stderr" "$(wc -l </tmp/tpe)" 1
	info "cap set 0 50% said: $(cat /tmp/tpe)"
fi
eq "cap set refused: no state file left" "$(ls /run/thermpress 2>/dev/null | wc -l)" 0

tp "top --once" top --once
tp "version" version
thermpress export --listen 127.0.0.1:9465 >/tmp/exp.out 2>&1 &
ep=$!
if wait_for 10 sh -c 'wget -qO /tmp/metrics http://127.0.0.1:9465/metrics 2>/dev/null'; then
	eq "export: thermpress_up 1" "$(grep -c '^thermpress_up 1' /tmp/metrics)" 1
	eq "export: no frequency series for CPUs without cpufreq" \
		"$(grep -c '^thermpress_cpu_max_frequency_hertz{' /tmp/metrics)" 0
else
	bad "export: no answer on 127.0.0.1:9465: $(cat /tmp/exp.out)"
fi
kill $ep 2>/dev/null
wait $ep 2>/dev/null

done_checks
