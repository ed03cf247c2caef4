#!/usr/bin/env bash
# Validate once (issue 27 §2): cap set and cap clear read the kernel's stats once — one
# snapshot per command, against which the CPU list, the value's text and the value are
# checked and from which the caps are applied — counted with strace on a served
# simulator (the patched interface).  A refused command reads it once too, and caps
# nothing.  Exit 77 (skip) when FUSE cannot be used here or strace is missing.
source "$(dirname "$0")/lib.sh"
require_fuse
command -v strace >/dev/null || { echo "strace not installed: skipped"; exit 77; }
strace -qq -e trace=none true 2>/dev/null || { echo "strace cannot trace here (ptrace refused): skipped"; exit 77; }

serve_sim
stats="$abi/stats"

# reads COMMAND...: how many times the command opened stats in $n, its exit status in $rc
# (LeakSanitizer cannot run under ptrace: off for these runs in an ASan build)
reads() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat -o "$tmp/trace" "$TP" --root "$mnt" "$@" >/dev/null 2>"$tmp/err" && rc=0 || rc=$?
	n=$(grep -c "\"$stats\"" "$tmp/trace" || true)
}
capped() { awk '$1 ~ /^[0-9]+$/ && NF >= 6 && $6 != $5 { printf "%s,", $1 }' "$stats"; }

reads cap set 2 60%; assert_eq "$n" 1 "cap set 2 60%: stats read once"
assert_eq "$rc" 0 "cap set 2 60%: exit 0"
assert_eq "$(capped)" "2," "cap set 2 60%: cpu 2 capped"
reads cap set big cap=600; assert_eq "$n" 1 "cap set big cap=600: stats read once"
reads cap clear 2; assert_eq "$n" 1 "cap clear 2: stats read once"
reads cap clear big; assert_eq "$n" 1 "cap clear big: stats read once"
assert_eq "$(capped)" "" "cap clear: nothing capped"
reads cap set 0-3,99 50%; assert_eq "$n" 1 "cap set 0-3,99: stats read once"
assert_eq "$rc" 2 "cap set 0-3,99: usage error"
assert_eq "$(capped)" "" "cap set 0-3,99: nothing capped"
reads cap set 2 9GHz; assert_eq "$n" 1 "cap set 2 9GHz: stats read once"
assert_eq "$rc" 2 "cap set 2 9GHz: usage error"
assert_eq "$(capped)" "" "cap set 2 9GHz: nothing capped"

finish
