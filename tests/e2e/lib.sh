# Helpers for the end-to-end tests: sourced by every script (bash -euo pipefail).
# Each check prints one line; finish prints the count and fails if any check failed.
set -euo pipefail

# E2E_DEFAULT_SIGNALS=1 before sourcing: the script runs again with HUP, INT, QUIT and
# TERM at their default dispositions, so that the signals it sends reach thermpress as
# they would from a terminal, whatever it inherited (nohup ignores SIGHUP, a background
# job SIGINT and SIGQUIT).
if [ -n "${E2E_DEFAULT_SIGNALS:-}" ] && [ -z "${THERMPRESS_SIGNALS_DEFAULT:-}" ]; then
	THERMPRESS_SIGNALS_DEFAULT=1 exec env --default-signal=HUP,INT,QUIT,TERM bash "$0" "$@"
fi

: "${THERMPRESS:?THERMPRESS must name the built thermpress binary}"
TP=$THERMPRESS
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
checks=0
failures=0
tmp=$(mktemp -d)
cleanup_hooks=()
_cleanup() {
	local h
	for h in "${cleanup_hooks[@]}"; do eval "$h" || true; done
	rm -rf "$tmp"
}
trap _cleanup EXIT

pass() { checks=$((checks + 1)); echo "ok $checks - $*"; }
fail() {
	checks=$((checks + 1)); failures=$((failures + 1))
	echo "not ok $checks - $*"
}

# run CMD...: sets $out (stdout), $err (stderr) and $rc; never fails itself.  Both stay
# in the files $tmp/out and $tmp/err.  With RUN_TIMEOUT=SECONDS, CMD is killed after that.
run() {
	set +e
	${RUN_TIMEOUT:+timeout "$RUN_TIMEOUT"} "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	set -e
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# run_stdin TEXT CMD...: like run, with TEXT on standard input.
run_stdin() {
	local text=$1; shift
	set +e
	printf '%s' "$text" | "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

assert_eq() {	# actual expected description
	if [ "$1" == "$2" ]; then pass "$3"
	else fail "$3"; printf '  expected: %q\n  actual:   %q\n' "$2" "$1"; fi
}

assert_rc() {	# expected description
	if [ "$rc" -eq "$1" ]; then pass "$2 (exit $1)"
	else fail "$2: exit $rc, expected $1"; echo "  stderr: $err"; fi
}

assert_contains() {	# haystack needle description
	if [[ "$1" == *"$2"* ]]; then pass "$3"
	else fail "$3"; printf '  missing: %q\n  in: %s\n' "$2" "$1"; fi
}

assert_not_contains() {	# haystack needle description
	if [[ "$1" != *"$2"* ]]; then pass "$3"
	else fail "$3"; printf '  unexpected: %q\n' "$2"; fi
}

assert_match() {	# text regex description
	if [[ "$1" =~ $2 ]]; then pass "$3"
	else fail "$3"; printf '  no match for: %s\n  in: %s\n' "$2" "$1"; fi
}

assert_lines_match() {	# text ERE description: a line of text matches (grep -E)
	# no pipe: grep -q quitting early must not fail the check
	if grep -Eq -- "$2" <<<"$1"; then pass "$3"
	else fail "$3"; printf '  no line matches: %s\n  in: %s\n' "$2" "$1"; fi
}

# json_check JSON PYTHON-EXPR description: the expression sees the document as d.
json_check() {
	if printf '%s' "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
ok = eval(sys.argv[1])
sys.exit(0 if ok else 1)' "$2" 2>"$tmp/pyerr"; then
		pass "$3"
	else
		fail "$3"; echo "  expression: $2"; sed 's/^/  /' "$tmp/pyerr"
	fi
}

# shell_session ARGS... : run `thermpress ARGS shell` in a pseudo-terminal, feeding the
# lines of stdin one by one; prints a transcript (see pty_shell.py).
shell_session() { python3 "$E2E_DIR/pty_shell.py" "$TP" "$@"; }

# wait_until CMD...: 0 once CMD succeeds, 1 when it has not within 10 s
wait_until() {
	local _
	for _ in $(seq 100); do
		if "$@"; then return 0; fi
		sleep 0.1
	done
	return 1
}

# reap PID: its exit status; one that does not end within 10 s is killed (255), so that a
# command that ignores its stop signal fails its check instead of hanging the test
reap() {
	local _
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"
		wait "$1" 2>/dev/null || true
		return 255
	fi
	wait "$1"
}

# serve_sim [OPTION...]: `sim serve [OPTION...] $tmp/mnt` (the patched interface, served
# over FUSE) in the background, stopped and unmounted on exit; sets $mnt, $abi (its
# thermal_pressure directory) and $server, and exports THERMPRESS_ROOT (every later
# command runs on it) and THERMPRESS_STATE_DIR (its caps' ledger in $tmp, never the
# machine's).  A server that has not mounted within 10 s fails the script: every check
# after it would read an empty directory.
serve_sim() {
	local _
	export THERMPRESS_STATE_DIR="$tmp/state"
	mnt="$tmp/mnt"
	abi="$mnt/sys/kernel/debug/sched/thermal_pressure"
	mkdir -p "$mnt"
	"$TP" sim serve "$@" "$mnt" 2>>"$tmp/serve.err" &
	server=$!
	cleanup_hooks+=("kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; if mountpoint -q '$mnt'; then fusermount3 -u '$mnt' || umount -l '$mnt'; fi")
	for _ in $(seq 100); do
		# the root once served: the server itself never reads its own mount
		[ -e "$abi/version" ] && { export THERMPRESS_ROOT="$mnt"; return 0; }
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	fail "sim serve did not mount: $(cat "$tmp/serve.err")"
	finish || true
	exit 1
}

# sim_state: what a holding command may change on the served simulator, in one line: the
# backend, its decay period and every CPU's capped frequency (cheap enough to poll)
sim_state() {
	echo "$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$abi/backend") $(cat "$abi/decay_ms")" \
		"$(awk '$1 ~ /^[0-9]+$/ && NF >= 6 { printf "%s,", $6 }' "$abi/stats")"
}

# require_fuse: exit 77 (skip) when FUSE cannot be used here.
require_fuse() {
	if ! [ -c /dev/fuse ] || ! { exec 3<>/dev/fuse; } 2>/dev/null; then
		echo "skip: /dev/fuse is not usable"
		exit 77
	fi
	exec 3>&-
}

finish() {
	echo "# $checks checks, $failures failed"
	[ "$failures" -eq 0 ]
}
