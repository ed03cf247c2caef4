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
assert_match "$out" $'\n   4  big +yes +777 +1024 +1181/2362 +903 +512 +247\n' "quickstart: the capped table"
assert_not_contains "$out" "live view" "quickstart: not a terminal, no live view"


# the first command installs what building and running needs, the test command the rest
# (scripts/deps.sh, THERMPRESS_DEPS_LIST=1 changes nothing)
run_set=$(THERMPRESS_DEPS_RUN=1 THERMPRESS_DEPS_LIST=1 bash "$SRC/scripts/deps.sh")
full_set=$(THERMPRESS_DEPS_LIST=1 bash "$SRC/scripts/deps.sh")
assert_match "$(grep -c '' <<<"$run_set")" '^[0-9]+$' "deps: the run set lists packages"
for p in qemu-system-x86 qemu-system-arm prometheus zsh fish clang gcc-aarch64-linux-gnu tmux; do
	assert_eq "$(grep -cx "$p" <<<"$run_set" || true)" 0 "deps: the run set leaves out $p"
	assert_eq "$(grep -cx "$p" <<<"$full_set" || true)" 1 "deps: the test set has $p"
done
assert_eq "$(grep -c 'linux-source' <<<"$run_set" || true)" 0 "deps: the run set leaves out the kernel sources"
assert_eq "$(grep -c ':arm64$' <<<"$run_set" || true)" 0 "deps: the run set has no arm64 packages"
# what meson.build needs (dependency() calls) is in the run set
for p in meson ninja-build pkg-config libcli-dev libjson-c-dev libfuse3-dev libncurses-dev libcmocka-dev libmicrohttpd-dev; do
	assert_eq "$(grep -cx "$p" <<<"$run_set")" 1 "deps: the run set has $p"
done
assert_eq "$(grep -c 'THERMPRESS_DEPS_RUN=1 bash scripts/deps.sh' "$SRC/scripts/quickstart.sh")" 1 \
	"quickstart: installs the run set only"

finish
