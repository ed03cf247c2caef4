#!/usr/bin/env bash
# sim serve ends on SIGINT, SIGTERM, SIGHUP and SIGQUIT by unmounting its tree, exits with
# 128 + the signal, and survives SIGPIPE (a closed stderr among them).  Each signal lands
# once while serving and once at start-up (before or during the mount).  Exit 77 (skip) only
# when FUSE cannot be used here.
# The signals sent below must reach thermpress as from a terminal (lib.sh).
E2E_DEFAULT_SIGNALS=1
source "$(dirname "$0")/lib.sh"
require_fuse

# mounted DIR: DIR is a mount point in /proc/self/mounts (octal escapes as the kernel writes them)
mounted() {
	python3 - "$1" <<'P'
import os, sys
want = os.path.realpath(sys.argv[1])
with open("/proc/self/mounts") as f:
    for line in f:
        mnt = line.split()[1].encode().decode("unicode_escape")
        if mnt == want:
            sys.exit(0)
sys.exit(1)
P
}

server=
mnt=
cleanup_hooks+=('[ -n "$server" ] && kill -KILL $server 2>/dev/null; for m in "$tmp"/mnt*; do if mounted "$m"; then fusermount3 -u -z "$m" || umount -l "$m"; fi; done')

# start_server DIR [stderr redirection target]: serve a real-clock simulator at DIR.  A
# background job of a script without job control starts with SIGINT and SIGQUIT ignored;
# with it (set -m) they keep their default action, so that one landing before sim serve's
# handlers still ends it.
start_server() {
	mnt=$1
	mkdir -p "$mnt"
	set -m
	"$TP" sim serve --preset smp:4 "$mnt" 2>"${2:-$tmp/serve.err}" &
	server=$!
	set +m
}

wait_mounted() {
	for _ in $(seq 100); do
		[ -e "$mnt/sys/kernel/debug/sched/thermal_pressure/version" ] && return 0
		kill -0 "$server" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# stop_and_check SIG WHEN: signal the server, wait for it and check the end.
stop_and_check() {
	local sig=$1 when=$2 num
	num=$(kill -l "$sig")
	kill -s "$sig" "$server"
	for _ in $(seq 200); do
		kill -0 "$server" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$server" 2>/dev/null; then
		fail "SIG$sig $when: sim serve still runs 10 s later"
		kill -KILL "$server"
	fi
	set +e
	wait "$server"
	rc=$?
	set -e
	assert_rc $((128 + num)) "SIG$sig $when: sim serve exits with 128 + $num"
	if kill -0 "$server" 2>/dev/null; then fail "SIG$sig $when: sim serve still runs"
	else pass "SIG$sig $when: the process is gone"; fi
	if mounted "$mnt"; then fail "SIG$sig $when: $mnt is still mounted"
	else pass "SIG$sig $when: unmounted"; fi
	server=
}

n=0
for sig in INT TERM HUP QUIT; do
	# while serving, after a read through the mount
	n=$((n + 1))
	start_server "$tmp/mnt$n"
	if ! wait_mounted; then
		fail "sim serve did not mount: $(cat "$tmp/serve.err")"
		finish
	fi
	run cat "$mnt/sys/kernel/debug/sched/thermal_pressure/version"
	assert_eq "$out" "1" "SIG$sig: the served tree answers before the signal"
	stop_and_check "$sig" "while serving"

	# at start-up: the signal comes at once, before or while mounting
	n=$((n + 1))
	start_server "$tmp/mnt$n"
	sleep 0.0$((RANDOM % 3))
	stop_and_check "$sig" "at start-up"
done

# SIGPIPE, sent or from a closed stderr, does not end it: the tree stays served.
n=$((n + 1))
mkfifo "$tmp/errpipe"
start_server "$tmp/mnt$n" "$tmp/errpipe"
exec 4<"$tmp/errpipe"
exec 4<&-	# the reader is gone before sim serve writes its first line
if wait_mounted; then pass "sim serve mounts with its stderr a closed pipe"
else fail "sim serve died with its stderr a closed pipe"; fi
kill -s PIPE "$server"
sleep 0.2
if kill -0 "$server" 2>/dev/null && mounted "$mnt"; then pass "SIGPIPE: still serving"
else fail "SIGPIPE: sim serve ended or unmounted"; fi
run cat "$mnt/sys/kernel/debug/sched/thermal_pressure/version"
assert_eq "$out" "1" "SIGPIPE: the served tree still answers"
stop_and_check TERM "after SIGPIPE"

finish
