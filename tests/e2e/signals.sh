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

export THERMPRESS_STATE_DIR="$tmp/state"
mnt="$tmp/mnt"
mkdir "$mnt"
"$TP" sim serve "$mnt" 2>"$tmp/serve.err" &
server=$!
cleanup_hooks+=("kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; if mountpoint -q '$mnt'; then fusermount3 -u '$mnt' || umount -l '$mnt'; fi")
for _ in $(seq 100); do
	[ -e "$mnt/sys/kernel/debug/sched/thermal_pressure/version" ] && break
	sleep 0.1
done
export THERMPRESS_ROOT="$mnt"

# what matters: the backend, its decay, every CPU's capped frequency (read from the served
# files: cheap enough to poll)
abi="$mnt/sys/kernel/debug/sched/thermal_pressure"
state() {
	echo "$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$abi/backend") $(cat "$abi/decay_ms")" \
		"$(awk '$1 ~ /^[0-9]+$/ && NF >= 6 { printf "%s,", $6 }' "$abi/stats")"
}
# wait_until CMD...: at most 10 s
wait_until() {
	for _ in $(seq 100); do
		if "$@"; then return 0; fi
		sleep 0.1
	done
	return 1
}
changed() { [ "$(state)" != "$before" ]; }
# reap PID: its exit status; one that does not end within 10 s is killed (255)
reap() {
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"
		wait "$1" 2>/dev/null || true
		return 255
	fi
	wait "$1"
}
backend_is() { grep -q "\[$1\]" "$abi/backend"; }

# the state before: an earlier cap set and a decay period of our own
"$TP" backend set decay decay 250
"$TP" cap set big 1.5GHz
before=$(state)

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
		assert_eq "$(state)" "$before" "$cmd: SIG$sig puts back caps, backend and decay"
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
	assert_eq "$(state)" "$before" "$cmd: a closed output pipe puts back caps, backend and decay"
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
	assert_eq "$(state)" "$before" "$cmd: cap restore puts back caps, backend and decay"
	run "$TP" cap restore
	assert_eq "$out" "nothing to restore" "$cmd: nothing left to restore"
done

# a hold puts back the earlier cap set (it used to clear it)
run "$TP" cap hold big 1GHz --for 100ms
assert_rc 0 "timed hold over a cap set"
assert_eq "$(state)" "$before" "the earlier cap set is back after the hold"

# the in-process simulator keeps no state file: cap restore says so
run "$TP" --sim cap restore
assert_rc 1 "cap restore on the in-process simulator"
assert_contains "$err" "keeps none" "cap restore on the in-process simulator: says why"

finish
