#!/usr/bin/env bash
# One word per concept (docs/values.md, "One word per concept"): show's header has one awk
# field per column, as many as each row, and names the columns with the chosen words.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

want="CPU DOMAIN ONLINE CAPACITY MAX_CAPACITY MHZ_CAPPED/MAX MIN_MHZ PRESSURE AVG_PRESSURE"

fields_agree() {	# fields_agree NAME: the header (line 2) and every CPU row have as many fields
	local name=$1 hdr bad
	hdr=$(printf '%s\n' "$out" | awk 'NR == 2 { print NF }')
	bad=$(printf '%s\n' "$out" | awk -v n="$hdr" 'NR > 2 && $1 ~ /^[0-9]+$/ && NF != n' | wc -l)
	assert_eq "$hdr/$bad" "9/0" "$name: header and rows have 9 awk fields"
	assert_eq "$(printf '%s\n' "$out" | awk 'NR == 2 { $1 = $1; print }')" "$want" "$name: column names"
}

run "$TP" --sim show
assert_rc 0 "show"
fields_agree "show"

run_stdin $'cap set big 1.18GHz\nsim advance 100ms\nshow cpu 4-5\n' "$TP" --sim --virtual-clock
assert_rc 0 "show cpu 4-5, capped"
fields_agree "show cpu 4-5, capped"

run "$TP" --sim=db410c show
assert_rc 0 "db410c show"
fields_agree "db410c show"

# awk finds a column by its name in the header and reads it from the rows
col=$(printf '%s\n' "$out" | awk 'NR == 2 { for (i = 1; i <= NF; i++) if ($i == "MHZ_CAPPED/MAX") c = i }
	NR > 2 && $1 == 0 { print $c }')
assert_match "$col" '^[0-9.]+/[0-9.]+$' "awk reads MHZ_CAPPED/MAX by its header"

finish
