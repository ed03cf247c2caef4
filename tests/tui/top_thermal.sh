#!/bin/bash
# thermpress top: the thermal zones' temperatures, trip points and cooling states where the
# source has them (the simulator's heat model in tmux, a stock kernel's tree with --once),
# and no thermal rows where it has none.
. "$(dirname "$0")/lib.sh"

DIR=$(dirname "$0")
STOCK=$DIR/../fixtures/stock/arm64-biglittle-6.1

run_top() {	# run_top ARGS...: start top in the pane's shell
	t send-keys "clear; \"$TP\" $* ; echo EXITED=\$?" Enter
}

start_shell 120 40
run_top --sim --virtual-clock top --scenario heat -d 20
check "heat: zones row" wait_re "^thermal  little-thermal [0-9.]+ C  big-thermal [0-9.]+ C \(passive 70.0 C\)" 10
check "heat: cooling row, uncapped" wait_for "cooling  cpufreq-cpu4 0/4 (big)" 5
check "heat: the governor's cooling state rises" wait_re "cooling  cpufreq-cpu4 [1-4]/4 \(big\)" 20
check "heat: big above its trip" wait_re "big-thermal (7[0-9]|[89][0-9])\.[0-9] C" 5
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

run_top --sim --virtual-clock top
check "no scenario: top starts" wait_for "clock 1" 10
check "no scenario: no thermal rows" bash -c "! grep -qE '^(thermal|cooling)  ' '$TMPD/last'"
t send-keys q
wait_for "EXITED=0" 5 >/dev/null

LC_ALL=C COLUMNS=160 "$TP" --root "$STOCK" top --once >"$TMPD/stock" 2>"$TMPD/err"
cp "$TMPD/stock" "$TMPD/last"
check "stock: zone, temperature and trips" grep -q "^thermal  cpu-thermal 71.2 C (passive 70.0 C, passive 85.0 C, critical 115.0 C)  gpu-thermal 43.3 C" "$TMPD/stock"
check "stock: cooling states by domain" grep -q "^cooling  cpufreq-cpu0 0/5 (little)  cpufreq-cpu4 2/7 (big)$" "$TMPD/stock"
check "stock: the rows follow" grep -qE "^ little cpus 0-3 " "$TMPD/stock"

LC_ALL=C COLUMNS=100 "$TP" --root "$DIR/fixture" top --once >"$TMPD/patched" 2>&1
cp "$TMPD/patched" "$TMPD/last"
check "patched interface: no thermal rows" bash -c "! grep -qE '^(thermal|cooling)  ' '$TMPD/patched'"

finish
