#!/usr/bin/env bash
# scripts/quickstart.sh, the README's first command, with the built binary (THERMPRESS: no
# install, no build): every table under a caption, the comment before it in
# examples/quickstart.tp; not on a terminal, no live view.  (tests/tui/quickstart_live.sh:
# on a terminal it opens the live view.)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

SRC=$(cd "$E2E_DIR/../.." && pwd)
out=$(THERMPRESS=$TP bash "$SRC/scripts/quickstart.sh" </dev/null 2>"$tmp/err") && rc=0 || rc=$?
assert_eq "$rc" 0 "quickstart: exit 0"
assert_eq "$(cat "$tmp/err")" "" "quickstart: nothing on stderr"
shows=$(grep -c '^show$' "$SRC/examples/quickstart.tp")
assert_eq "$(grep -c '^source: ' <<<"$out")" "$shows" "quickstart: one table per show"
assert_eq "$(grep -c '^== ' <<<"$out")" "$shows" "quickstart: one caption per table"
# the caption's lines come right before the table's first line
assert_eq "$(awk '/^source: / && prev !~ /^(== |   )/ { bad++ } { prev = $0 } END { print bad + 0 }' <<<"$out")" 0 \
	"quickstart: every table right under its caption"
# the captions are the script's comments before each show, in order (the header block aside)
want=$(awk '/^#/ { sub(/^# ?/, ""); c = c (c != "" ? " " : "") $0; next } /^$/ { c = ""; next }
	$1 == "show" { print c; c = "" }' "$SRC/examples/quickstart.tp")
got=$(awk '/^== / { if (c != "") print c; c = substr($0, 4); next }
	/^   [^ 0-9]/ && c != "" { c = c " " substr($0, 4); next }
	/^source: / { print c; c = "" }' <<<"$out")
assert_eq "$got" "$want" "quickstart: the captions are examples/quickstart.tp's comments"
assert_contains "$out" "== The big cluster capped at half its top frequency" "quickstart: the cap's caption"
# the second table is the capped one: the caption says PRESSURE is 512
assert_match "$out" $'\n   4  big +yes +777 +1024 +1181/2362 +512 +247\n' "quickstart: the capped table"
assert_not_contains "$out" "live view" "quickstart: not a terminal, no live view"

finish
