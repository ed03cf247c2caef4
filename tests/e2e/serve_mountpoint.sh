#!/usr/bin/env bash
# sim serve creates a missing mountpoint (and removes it at the end), says clearly when
# it cannot, and prints one line: where it serves, how to use it, how to stop it.
# The FUSE part exits 77 (skip) when FUSE cannot be used here.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

run "$TP" --sim sim serve "$tmp/no/such/mnt"
assert_rc 1 "a mountpoint whose parent is missing"
assert_eq "$err" "thermpress: cannot create the mountpoint $tmp/no/such/mnt: No such file or directory (its parent directory does not exist)" \
	"a missing parent: said, nothing served"
: >"$tmp/file"
run "$TP" --sim sim serve "$tmp/file"
assert_rc 1 "a mountpoint that is a file"
assert_eq "$err" "thermpress: mountpoint $tmp/file is not a directory" "a file: said, nothing served"

require_fuse

# serve DIR in the background until the interface is there; $server, $mnt set
serve() {
	mnt=$1
	"$TP" --sim sim serve "$mnt" 2>"$tmp/serve.err" &
	server=$!
	cleanup_hooks+=("kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; if mountpoint -q '$mnt'; then fusermount3 -u '$mnt' || umount -l '$mnt'; fi")
	for _ in $(seq 100); do
		[ -e "$mnt/sys/kernel/debug/sched/thermal_pressure/version" ] && return 0
		kill -0 $server 2>/dev/null || break
		sleep 0.1
	done
	return 1
}
stop() {
	kill -INT $server
	set +e; wait $server; rc=$?; set -e
}

if ! serve "$tmp/new"; then
	fail "sim serve did not mount at a missing mountpoint: $(cat "$tmp/serve.err")"
	finish
fi
pass "a missing mountpoint: created and served"
assert_eq "$(cat "$tmp/serve.err")" \
	"thermpress: serving simulator hikey960 (real clock) at $tmp/new (use it with thermpress --root $tmp/new); Ctrl-C or kill -INT $server stops it" \
	"one line: where, how to use it, how to stop it"
run "$TP" --root "$tmp/new" show
assert_rc 0 "--root on the served tree"
stop
assert_eq "$rc" 130 "SIGINT stops it (128 + 2)"
assert_eq "$([ -e "$tmp/new" ] && echo there || echo gone)" gone "the created mountpoint removed at the end"

mkdir "$tmp/old"
if serve "$tmp/old"; then
	# a second server on the same mountpoint would mount on top, and leave a dead mount
	# ("Transport endpoint is not connected") over the live one when it stops
	RUN_TIMEOUT=10 run "$TP" --sim sim serve "$tmp/old"
	assert_rc 1 "a mountpoint already served is refused"
	assert_contains "$err" "is already a FUSE mount" "a second sim serve says why"
	run "$TP" --root "$tmp/old" show
	assert_rc 0 "the first server still answers"
	# a state record the interface refuses (cpu 4 at 999999999 kHz): reported once as
	# damaged, the rest restored, and gone afterwards (it used to fail with exit 2 forever)
	export THERMPRESS_STATE_DIR=$tmp/state
	"$TP" --root "$tmp/old" cap hold 0 50% --for 30s >/dev/null 2>&1 &
	holder=$!
	for _ in $(seq 50); do ls "$tmp/state/"*.state >/dev/null 2>&1 && break; sleep 0.1; done
	kill -9 $holder; wait $holder 2>/dev/null || true
	sf=$(ls "$tmp/state/"*.state)
	echo 'cap 4 999999999 5' >>"$sf"
	run "$TP" --root "$tmp/old" cap restore
	assert_rc 0 "cap restore with a record the interface refuses"
	assert_contains "$err" "was refused and left out: the kernel refused '4 999999999' in" \
		"the refused record is named once, without a raw newline"
	run "$TP" --root "$tmp/old" cap restore
	assert_eq "$out$rc" "nothing to restore0" "the refused record is gone"
	unset THERMPRESS_STATE_DIR
	stop
	assert_eq "$([ -d "$tmp/old" ] && echo there || echo gone)" there "an existing mountpoint stays"
else
	fail "sim serve did not mount at an existing mountpoint: $(cat "$tmp/serve.err")"
fi

finish
