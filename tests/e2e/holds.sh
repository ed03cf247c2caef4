#!/usr/bin/env bash
# Holds on a served simulator (sim serve MOUNT, then --root MOUNT: the patched interface),
# issue 24 §2:
# - holds nest: two and three cap holds on one CPU from separate processes, ending in
#   any order, and kill -9 then cap restore: while holders remain the CPU carries the cap
#   of the most recent live one; after the last, what it had before the first;
# - a holder whose state directory is swapped for a symbolic link while it holds still
#   puts its cap back (it keeps the directory it opened at the start);
# - bench whose workload ignores SIGTERM: killed after the grace, everything put back;
# - cap hold --for with standard output a full pipe ends on time.
# Exit 77 (skip) only when FUSE cannot be used here.
E2E_DEFAULT_SIGNALS=1
source "$(dirname "$0")/lib.sh"
require_fuse

serve_sim

# cap CPU: the capped frequency of one CPU, 0 when uncapped (read from the served stats)
cap() { awk -v c="$1" '$1 == c && NF >= 6 { print ($6 == $5 ? 0 : $6) }' "$abi/stats"; }
cap_is() { [ "$(cap "$1")" = "$2" ]; }
khz() {	# CPU PERCENT: the frequency cap set CPU PERCENT% gives
	"$TP" cap set "$1" "$2%"
	cap "$1"
	"$TP" cap clear "$1"
}

# full_fifo PATH FD: a FIFO at PATH, held open on FD for reading and writing (so that no
# open of it waits for the other end) and filled until a write would block: a command
# writing to it blocks at its first write, as on a terminal nobody reads
full_fifo() {
	mkfifo "$1"
	eval "exec $2<>\"\$1\""
	python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
try:
    while True:
        os.write(fd, b"x" * 4096)
except BlockingIOError:
    pass' "$1"
}

"$TP" cap clear all
# CPU 4 (big): what each hold gives it, and a cap set before the first hold
k30=$(khz 4 30); k60=$(khz 4 60); k80=$(khz 4 80); k50=$(khz 4 50)
"$TP" cap set 4 50%

# hold NAME PERCENT: a cap hold of CPU 4 (and a neighbour) in the background, pid in $NAME
hold() {
	"$TP" cap hold "$3" "$2%" >/dev/null 2>"$tmp/$1.err" &
	eval "$1=$!"
	wait_until cap_is 4 "$(eval echo \$k$2)" || fail "hold $1 at $2% never applied"
}
end() {	# NAME SIG: end that holder with SIG, check it ended as the signal would
	local pid
	pid=$(eval echo \$$1)
	kill -"$2" "$pid"
	set +e
	reap "$pid"
	local rc=$?
	set -e
	assert_eq "$rc" "$((128 + $(kill -l "$2")))" "holder $1 ends on SIG$2 with 128 + signal"
}

# two holders: A 30%, then B 60%
hold A 30 4; hold B 60 4-5
end A INT
assert_eq "$(cap 4)" "$k60" "A ends first: CPU 4 keeps B's cap (the most recent live holder)"
end B TERM
assert_eq "$(cap 4)" "$k50" "B ends last: CPU 4 carries what it had before the first hold"
assert_eq "$(cap 5)" 0 "B ends last: CPU 5 carries what it had before B"
run "$TP" cap restore
assert_eq "$out" "nothing to restore" "two holds ended: nothing left to restore"

# the other order
hold A 30 4; hold B 60 4-5
end B INT
assert_eq "$(cap 4)" "$k30" "B ends first: CPU 4 goes back to A's cap"
end A HUP
assert_eq "$(cap 4)" "$k50" "A ends last: CPU 4 carries what it had before the first hold"

# three holders, the middle one ends first, then the last, then the first
hold A 30 4; hold B 60 3-4; hold C 80 4-7
end B TERM
assert_eq "$(cap 4)" "$k80" "three holds, the middle ends: C's cap stays"
end C INT
assert_eq "$(cap 4)" "$k30" "three holds, the last ends: back to A's cap"
end A INT
assert_eq "$(cap 4)" "$k50" "three holds all ended: what CPU 4 had before"
assert_eq "$(cap 3),$(cap 7)" "0,0" "three holds all ended: their other CPUs uncapped"

# kill -9 of a holder while another holds, cap restore, then the other ends
hold A 30 4; hold B 60 4
kill -9 "$A"; wait "$A" 2>/dev/null || true
assert_eq "$(cap 4)" "$k60" "A killed: B's cap stays"
run "$TP" cap restore
assert_rc 0 "cap restore while B holds"
assert_eq "$(cap 4)" "$k60" "cap restore leaves the cap of the live holder B"
end B INT
assert_eq "$(cap 4)" "$k50" "B ends after A was killed: what CPU 4 had before the first hold"
# the last holder killed: cap restore puts back what was before the first
hold A 30 4; hold B 60 4
end B INT
kill -9 "$A"; wait "$A" 2>/dev/null || true
assert_eq "$(cap 4)" "$k30" "A killed last: its cap stays until cap restore"
run "$TP" cap restore
assert_eq "$(cap 4)" "$k50" "cap restore after the last holder was killed: what CPU 4 had before"

# the state directory swapped for a symbolic link while a holder holds: the holder keeps
# the directory it opened at its start and puts its cap back through it
"$TP" cap set 4 50%
hold A 30 4
mkdir -m 700 "$tmp/elsewhere"
mv "$tmp/state" "$tmp/state.moved"
ln -s "$tmp/elsewhere" "$tmp/state"
end A INT
assert_eq "$(cat "$tmp/A.err")" "" "state directory swapped for a link: the holder says nothing"
assert_eq "$(cap 4)" "$k50" "state directory swapped for a link: the holder still put its cap back"
rm "$tmp/state"
mv "$tmp/state.moved" "$tmp/state"
run "$TP" cap restore
assert_eq "$out" "nothing to restore" "state directory swapped for a link: its ledger is clean"

# a holder whose state directory is removed while it holds: without the ledger it puts
# back what the CPU carried before it, and says so in one line
hold A 30 4
rm -rf "$tmp/state"
end A INT
assert_eq "$(cap 4)" "$k50" "state directory removed while holding: the cap from before is back"
assert_contains "$(cat "$tmp/A.err")" "put back the caps from before this hold without the state file" \
	"state directory removed while holding: says so"
assert_eq "$(wc -l <"$tmp/A.err")" 1 "state directory removed while holding: in one line"

# bench whose workload ignores SIGTERM: SIGKILL after the grace, everything put back
"$TP" backend set decay decay 250
before=$(sim_state)
"$TP" bench --backends pelt:128 --runs 1 -- sh -c "echo \$\$ >'$tmp/work.pid'; trap '' TERM; exec sleep 301" \
	>/dev/null 2>"$tmp/bench.err" &
pid=$!
wait_until grep -q '\[pelt\]' "$abi/backend" || fail "bench never switched to pelt"
sleep 0.3	# the workload started
kill -INT $pid || true; sleep 0.3; kill -INT $pid || true; kill -TERM $pid || true
set +e
reap $pid
rc=$?
set -e
assert_eq "$rc" 130 "bench, workload ignoring SIGTERM: ends within 10 s of SIGINT, as SIGINT would"
[ "$rc" = 130 ] || cat "$tmp/bench.err"
assert_eq "$(sim_state)" "$before" "bench, workload ignoring SIGTERM: backend, decay and caps put back"
work=$(cat "$tmp/work.pid")
if kill -0 "$work" 2>/dev/null; then fail "bench left its workload running"; kill -9 "$work"
else pass "bench, workload ignoring SIGTERM: the workload was killed"; fi

# cap hold --for 1s with standard output a full pipe: the hold ends on time
full_fifo "$tmp/fifo" 5
"$TP" cap hold 4 30% --for 1s >"$tmp/fifo" 2>"$tmp/full.err" &
pid=$!
t0=$(date +%s.%N)
wait_until cap_is 4 "$k30" || { fail "hold with a full output pipe never applied"; echo "  after $(echo "$(date +%s.%N) - $t0" | bc) s: cap $(cap 4), k30 $k30; $(cat "$tmp/full.err")"; }
sleep 2.5
assert_eq "$(cap 4)" "$k50" "cap hold --for 1s, output a full pipe: the cap ended on time"
set +e
reap $pid
rc=$?
set -e
assert_eq "$rc" 1 "cap hold --for 1s, output a full pipe: ends, exit 1 (its lines were not written)"
assert_contains "$(cat "$tmp/full.err")" "2 lines of the hold left out" "cap hold, full output pipe: says what was left out"
exec 5<&-
"$TP" cap restore >/dev/null
"$TP" cap clear all

# the same with standard error a full pipe and a warning to say when the cap is set
# (1MHz: below a tenth of the maximum): the warning waits, the hold ends on time, and
# the warning comes once standard error takes it
full_fifo "$tmp/fifo2" 6
"$TP" cap hold 4 1MHz --for 1s >"$tmp/full2.out" 2>"$tmp/fifo2" &
pid=$!
wait_until cap_is 4 1000 || fail "hold with a full error pipe never applied"
sleep 2.5
assert_eq "$(cap 4)" 0 "cap hold --for 1s, standard error a full pipe: the cap ended on time"
timeout 5 cat <&6 >"$tmp/full2.err" &
drain=$!
set +e
reap $pid
rc=$?
set -e
assert_eq "$rc" 0 "cap hold, full error pipe: exit 0 once it drains"
sleep 0.3
kill $drain 2>/dev/null || true
assert_contains "$(tr -d x <"$tmp/full2.err")" "1000 kHz is below a tenth" "cap hold, full error pipe: the warning is said after"
exec 6<&-
"$TP" cap clear all

finish
