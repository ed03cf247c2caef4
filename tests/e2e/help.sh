#!/usr/bin/env bash
# help COMMAND, COMMAND --help, thermpress --help and the man page all come from the
# command table: for every listed command they show the same synopsis, and every option
# that help COMMAND lists is in that synopsis.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

"$TP" __commands >"$tmp/commands"
"$TP" --help >"$tmp/usage"
"$TP" __man >"$tmp/man"
n=0
while read -r line; do
	path=${line%%:*} syn=${line#*:} && syn=${syn# }
	read -ra words <<<"$path"
	full="$path${syn:+ $syn}"
	n=$((n + 1))
	run "$TP" help "${words[@]}"
	assert_rc 0 "help $path"
	assert_eq "$(head -1 <<<"$out")" "usage: thermpress [OPTIONS] $full" "help $path: the synopsis"
	help=$out
	run "$TP" --sim "${words[@]}" --help
	assert_rc 0 "$path --help"
	assert_eq "$out" "$help" "$path --help is help $path"
	assert_contains "$(cat "$tmp/usage")" "  $full" "thermpress --help lists $full"
	man_syn=$(sed 's/-/\\-/g' <<<"$syn")
	assert_contains "$(cat "$tmp/man")" "\\fB$path\\fR${syn:+ \\fI$man_syn\\fR}" "man page: $path with its synopsis"
	# every option help lists (its first name) is in the synopsis
	while read -r opt; do
		[ -n "$opt" ] || continue
		name=${opt%%[, ]*}
		assert_contains " $syn" "$name" "$path: option $name listed by help is in the synopsis"
	done < <(sed -n '/^options:$/,$p' <<<"$help" | grep -E '^  -' | sed 's/^  //')
done <"$tmp/commands"
if [ "$n" -ge 19 ]; then pass "$n commands checked"; else fail "only $n commands listed"; fi

# The synopsis is generated: the usage error of cap set quotes the same one.
run "$TP" --sim cap set
assert_eq "$err" "thermpress: cap set: missing CPULIST (usage: $(grep '^cap set:' "$tmp/commands" | sed 's/^cap set: /cap set /'))" "usage error quotes the synopsis"

# One range for each backend's decay parameter: the RANGE column of show backends and the
# words of help decay set come from one definition (issue 28: pelt's half-life once read
# 1-32768 ms in one and 32 to 32768 in the other).
run "$TP" --sim show backends
backends=$out
run "$TP" help decay set
decay_help=$(tr '\n' ' ' <<<"$out" | tr -s ' ')
for be in pelt decay; do
	range=$(grep "^$be " <<<"$backends" | grep -oE '[0-9]+-[0-9]+ ms' || true)
	assert_match "$range" '^[0-9]+-[0-9]+ ms$' "show backends: $be has a range ($range)"
	assert_contains "$decay_help" "$be takes $range" "help decay set gives $be the range of show backends ($range)"
done

finish
