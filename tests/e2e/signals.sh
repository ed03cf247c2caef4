#!/usr/bin/env bash
# Nothing a holding command changed survives a signal or a crash, on a served
# simulator (sim serve MOUNT, then --root MOUNT: the patched interface):
# - cap hold, cap play and bench put back caps, backend and decay on SIGINT, SIGTERM,
#   SIGHUP, SIGQUIT and a closed output pipe, then end with 128 + signal;
# - after kill -9, cap restore undoes what they applied (caps, backend, decay);
# - cap hold puts back an earlier cap set.
# Exit 77 (skip) only when FUSE cannot be used here.
# The signals sent below must reach thermpress as from a terminal (lib.sh).
E2E_DEFAULT_SIGNALS=1
source "$(dirname "$0")/lib.sh"
require_fuse

serve_sim

changed() { [ "$(sim_state)" != "$before" ]; }
backend_is() { grep -q "\[$1\]" "$abi/backend"; }

# the state before: an earlier cap set and a decay period of our own
"$TP" backend set decay decay 250
"$TP" cap set big 1.5GHz
before=$(sim_state)

printf '%s\n' "0, all, 1GHz" "30s, all, clear" >"$tmp/long.prof"
printf '%s\n' "0, little, 1GHz" >"$tmp/short.prof"

start() {	# NAME: start that holding command in the background, wait until it changed something
	case $1 in
	hold)	"$TP" cap hold all 60% >/dev/null 2>"$tmp/cmd.err" & ;;
	play)	"$TP" cap play "$tmp/long.prof" 2>"$tmp/cmd.err" & ;;
	bench)	"$TP" bench --backends pelt:128 --runs 1 --profile "$tmp/short.prof" -- sleep 30 \
			>/dev/null 2>"$tmp/cmd.err" & ;;
	esac
	pid=$!
	if [ "$1" = bench ]; then
		wait_until backend_is pelt || true
		wait_until changed || true
	else
		wait_until changed || true
	fi
}

for cmd in hold play bench; do
	for sig in INT TERM HUP QUIT; do
		start $cmd
		if changed; then pass "$cmd: changed something before SIG$sig"; else fail "$cmd: changed nothing"; fi
		kill -$sig $pid
		set +e
		reap $pid
		rc=$?
		set -e
		assert_eq "$rc" "$((128 + $(kill -l $sig)))" "$cmd: SIG$sig ends with 128 + signal"
		assert_eq "$(sim_state)" "$before" "$cmd: SIG$sig puts back caps, backend and decay"
	done
done

# a closed output pipe: the reader goes away while the command is holding
for cmd in hold play bench; do
	rm -f "$tmp/rc"
	case $cmd in
	hold)	( set +e; "$TP" cap hold all 60% --for 12s; echo $? >"$tmp/rc" ) | head -c1 >/dev/null & ;;
	play)	( set +e; "$TP" cap play "$tmp/long.prof"; echo $? >"$tmp/rc" ) | (sleep 1) & ;;
	bench)	( set +e; "$TP" bench --backends pelt:128 --runs 1 --profile "$tmp/short.prof" -- sleep 12
		  echo $? >"$tmp/rc" ) | (sleep 1) & ;;
	esac
	pipeline=$!
	if wait_until test -s "$tmp/rc"; then pass "$cmd: ends within 10 s of a closed pipe"
	else fail "$cmd: still running 10 s after its output pipe closed"; fi
	wait $pipeline || true
	wait_until test -s "$tmp/rc" || true
	assert_eq "$(cat "$tmp/rc" 2>/dev/null)" 141 "$cmd: a closed output pipe ends it as SIGPIPE would"
	assert_eq "$(sim_state)" "$before" "$cmd: a closed output pipe puts back caps, backend and decay"
done

# kill -9: the state file lets cap restore undo it
for cmd in hold play bench; do
	start $cmd
	kill -9 $pid
	set +e
	wait $pid 2>/dev/null
	set -e
	pkill -P $$ -x sleep 2>/dev/null || true	# bench's orphaned workload
	if changed; then pass "$cmd: kill -9 leaves its changes"; else fail "$cmd: kill -9 left nothing to restore"; fi
	run "$TP" cap restore
	assert_rc 0 "$cmd: cap restore after kill -9"
	assert_match "$out" "^restored [0-9]+ changes?$" "$cmd: cap restore says what it did"
	assert_eq "$(sim_state)" "$before" "$cmd: cap restore puts back caps, backend and decay"
	run "$TP" cap restore
	assert_eq "$out" "nothing to restore" "$cmd: nothing left to restore"
done

# a hold puts back the earlier cap set (it used to clear it)
run "$TP" cap hold big 1GHz --for 100ms
assert_rc 0 "timed hold over a cap set"
assert_eq "$(sim_state)" "$before" "the earlier cap set is back after the hold"

# the in-process simulator keeps no state file: cap restore says so
run "$TP" --sim cap restore
assert_rc 1 "cap restore on the in-process simulator"
assert_contains "$err" "keeps none" "cap restore on the in-process simulator: says why"

finish
