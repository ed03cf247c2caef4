#!/bin/sh
# In-VM checks of kernel/i386/run.sh, run by /init under busybox sh on the series
# built for 32-bit x86: the pressure of a cap is max_capacity - max_capacity *
# cap / max, whose product exceeds 32 bits from about 4.2 GHz.  The VM's CPUs run at
# a nominal 5 GHz (tsc_early_khz=5000000), so caps above 4.19 GHz reach it.
# Protocol: kernel/lib/vm-checks.sh.
. /vm-checks.sh
D=/sys/kernel/debug/sched/thermal_pressure
info "kernel $(uname -r) $(uname -m)"
[ -d $D ] || { bad "interface: $D is missing"; done_checks; exit 1; }
case $(uname -m) in i?86) ok "a 32-bit kernel ($(uname -m))" ;; *) bad "not a 32-bit kernel: $(uname -m)" ;; esac
max=$(stat_field 0 5) cap=$(stat_field 0 4)
eq "cpu0 max_freq_khz from cpu_khz" "$max" 5000000
eq "cpu0 max_capacity" "$cap" 1024
echo instant >$D/backend
# the pressure wanted, computed by awk in double precision (exact at these sizes)
for khz in 1000000 4194304 4200000 4500000 4999999 5000000; do
	want=$(awk -v c=$cap -v k=$khz -v m=$max 'BEGIN { printf "%d", c - int(c * k / m) }')
	echo "0 $khz" >$D/inject
	eq "cap 0 at $khz kHz of $max: pressure $want" "$(stat_field 0 7)" $want
	eq "cap 0 at $khz kHz of $max: instant average $want" "$(stat_field 0 8)" $want
done
echo "0 clear" >$D/inject
eq "clear: pressure 0" "$(stat_field 0 7)" 0
echo pelt >$D/backend
done_checks
