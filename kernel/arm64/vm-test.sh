#!/bin/sh
# In-VM checks on the arm64 board of kernel/arm64/run.sh (Debian's stock kernel),
# run by /init under busybox sh.  Protocol: kernel/lib/vm-checks.sh.
. /vm-checks.sh
C=/sys/devices/system/cpu
TR=/sys/kernel/tracing
info "kernel $(uname -r) ($TP_KERNEL)"
for m in $TP_MODULES; do
	if insmod /lib/modules/$m 2>/tmp/err; then ok "insmod $m"; else bad "insmod $m: $(cat /tmp/err)"; fi
done
sleep 1
ls $C/cpufreq /sys/class/thermal
for f in $C/cpu*/cpu_capacity; do echo "$f $(cat $f)"; done
grep . $C/cpufreq/policy*/* 2>/dev/null
grep . /sys/class/thermal/*/type /sys/class/thermal/*/cur_state /sys/class/thermal/*/max_state /sys/class/thermal/thermal_zone*/* 2>/dev/null
thermpress show
thermpress show status
done_checks
