#!/usr/bin/env bash
# Issue 28 §2: a misspelled command or option gets a suggestion, as git does
# (Damerau-Levenshtein over the command tree: cmd/suggest.c), in one line, usage status 2,
# one-shot, in a script and in the shell; a word too far from any gets none.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

check() {	# expected-suggestion args...
	local want=$1; shift
	run "$TP" "$@"
	assert_rc 2 "$*"
	assert_contains "$err" "did you mean $want?" "$*: did you mean $want?"
	assert_eq "$(wc -l <<<"$err")" "1" "$*: one line"
	assert_eq "$out" "" "$*: nothing on stdout"
}
check "'show'" --sim shwo
check "'show'" --sim shw
check "'cap set'" --sim cap sett big 50%
check "'sim advance'" --sim --virtual-clock sim advnce 1s
check "'replay'" rplay x.csv
check "'--interval'" --sim record --interva 1s -o "$tmp/r.csv"
check "'--interval'" --sim record --interva=1s -o "$tmp/r.csv"
check "'--once'" --sim top --onc
check "'--for'" --sim cap hold big 60% --fr 1s
check "'--sim'" --shim show
check "'show status'" --sim show stauts
[ ! -e "$tmp/r.csv" ] && pass "nothing recorded" || fail "nothing recorded"
run "$TP" --sim shwo
assert_eq "$err" "thermpress: unknown command 'shwo': did you mean 'show'? (see 'thermpress help')" \
	"the whole line"

# too far from anything: no guess
run "$TP" --sim frobnicate
assert_rc 2 "frobnicate"
assert_not_contains "$err" "did you mean" "frobnicate: no suggestion"
run "$TP" --sim record --zzzzzz -o "$tmp/r.csv"
assert_not_contains "$err" "did you mean" "--zzzzzz: no suggestion"

# a script names its line, and suggests the same
printf '%s\n' "show" "cap sett big 50%" >"$tmp/s.tp"
run "$TP" --sim -f "$tmp/s.tp"
assert_rc 2 "script with cap sett"
assert_contains "$err" "s.tp:2: unknown command 'cap sett': did you mean 'cap set'?" "script: the same suggestion"

# the shell: its own help words
printf '%s\n' 'shwo' 'cap sett big 50%' '\d' | shell_session --sim >"$tmp/t"
assert_contains "$(cat "$tmp/t")" "unknown command 'shwo': did you mean 'show'? (? lists the commands)" \
	"shell: shwo"
assert_contains "$(cat "$tmp/t")" "unknown command 'cap sett': did you mean 'cap set'? (cap ? lists the commands)" \
	"shell: cap sett"
finish
