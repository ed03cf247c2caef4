#!/usr/bin/env bash
# The man page's EXAMPLES run as printed: rendered by groff, each command line (a line
# ending in | joined to the next) run by bash with the built binary.  The scripted
# example caps the big cluster at 60% (1417.2 of 2362 MHz), not at 60 kHz.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

command -v groff >/dev/null || { echo "skip: groff is not installed"; exit 77; }
"$TP" __man | groff -man -Tascii -P-cbou 2>/dev/null >"$tmp/man.txt"
sed -n '/^EXAMPLES/,/^SEE ALSO/p' "$tmp/man.txt" | sed '1d;$d' | sed 's/^ *//;/^$/d' \
	| awk '/\|$/ { line = line $0 " "; next } { print line $0; line = "" }' >"$tmp/examples"
assert_lines_match "$(cat "$tmp/examples")" "^printf .*cap set big 60%.* \| +thermpress " \
	"EXAMPLES: the scripted example, found"

example=$(grep -m1 'cap set big 60%' "$tmp/examples")
run env TP="$TP" bash -c "set -o pipefail; ${example//thermpress/\"\$TP\"}"
assert_rc 0 "the scripted example runs"
assert_eq "$err" "" "the scripted example: nothing on stderr"
assert_eq "$(awk '$2 == "big" {print $6}' <<<"$out" | sort -u)" "1417.2/2362" \
	"the scripted example: big capped at 60%"

finish
