#!/usr/bin/env bash
# Standard output errors: /dev/full is an error (exit 1), a closed pipe is quiet.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

for cmd in "show" "show status" "--json show" "show backends" "help" "version"; do
	set +e
	# shellcheck disable=SC2086
	"$TP" --sim $cmd >/dev/full 2>"$tmp/err"
	rc=$?
	set -e
	err=$(cat "$tmp/err")
	assert_rc 1 "$cmd > /dev/full"
	assert_eq "$err" "thermpress: write error on standard output: no space left on device" "$cmd > /dev/full: message"
done

set +e
printf 'show\nshow\n' | "$TP" --sim >/dev/full 2>"$tmp/err"
rc=$?
set -e
err=$(cat "$tmp/err")
assert_rc 1 "script > /dev/full"
assert_contains "$err" "write error on standard output" "script > /dev/full: message"

set +e
"$TP" --sim --json show 2>"$tmp/err" | head -n 1 >/dev/null
set -e
assert_eq "$(cat "$tmp/err")" "" "closed pipe: no message"

finish
