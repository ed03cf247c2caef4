#!/bin/bash
# show and top --once write the same facts the same way (fmt/, docs/values.md): each script
# below runs show and then top --once on one state, and every CPU's capacity, MHz,
# pressure and average, the decay period and the clock must read identically in both.
. "$(dirname "$0")/lib.sh"

DIR=$(dirname "$0")

# split FILE: FILE.show and FILE.top, "CPU CAP MHZ MIN PRES AVG" per CPU row of each.
split() {
	awk -v show="$1.show" -v top="$1.top" '
		/^thermpress top - / { in_top = 1 }
		!in_top && $1 ~ /^[0-9]+$/ && NF == 9 { print $1, $4, $6, $7, $8, $9 >show }
		in_top && $1 ~ /^[0-9]+$/ { print $1, $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF >top }
	' "$1"
}

# same_rows NAME FILE: both front ends list the same CPUs with the same numbers.
same_rows() {
	split "$2"
	{ echo "show:"; cat "$2.show"; echo "top:"; cat "$2.top"; } >"$TMPD/last"
	check "$1" bash -c '[ -s "$1.show" ] && cmp -s "$1.show" "$1.top"' _ "$2"
}

# field FILE REGEX: the first match of REGEX (grep -o) in FILE.
field() { grep -oE -- "$2" "$1" | head -1; }

# ---- capped CPUs on the simulator: cpu 0 at cap=300 (1197.403 MHz), 4-7 at 1.18GHz
{ grep -v '^top' "$DIR/capped.tp"; echo show; echo 'top --once'; } >"$TMPD/capped.tp"
env LC_ALL=C COLUMNS=120 "$TP" --sim --virtual-clock -f "$TMPD/capped.tp" >"$TMPD/capped" 2>&1
same_rows "capped simulator: every CPU reads the same" "$TMPD/capped"
check "capped cpu 0: 1197.403/1844 MHz in show" grep -qE '^0 301 1197\.403/1844 533 162 161$' "$TMPD/capped.show"
check "capped cpu 0: 1197.403/1844 MHz in top" grep -qE '^0 301 1197\.403/1844 533 162 161$' "$TMPD/capped.top"
cp "$TMPD/capped" "$TMPD/last"
check "the clock reads the same" \
	test "$(field "$TMPD/capped" 'time: [0-9.]+ s' | cut -d' ' -f2-)" = \
	     "$(field "$TMPD/capped" 'clock [0-9.]+ s' | cut -d' ' -f2-)"

# ---- instant: no decay period, which is not a missing value
printf 'backend set instant\nshow\ntop --once\n' >"$TMPD/instant.tp"
env LC_ALL=C COLUMNS=120 "$TP" --sim --virtual-clock -f "$TMPD/instant.tp" >"$TMPD/instant" 2>&1
cp "$TMPD/instant" "$TMPD/last"
check "instant: decay none in show" grep -q 'backend: instant  decay: none  ' "$TMPD/instant"
check "instant: decay none in top" grep -qE '^backend instant decay none ' "$TMPD/instant"

# ---- none with caps in force: the pressure shown, avg 0, every capacity the maximum
{ grep -v '^top' "$DIR/capped.tp"; printf 'backend set none\nsim advance 100ms\nshow\ntop --once\n'; } >"$TMPD/none.tp"
env LC_ALL=C COLUMNS=120 "$TP" --sim --virtual-clock -f "$TMPD/none.tp" >"$TMPD/none" 2>&1
same_rows "none: every CPU reads the same" "$TMPD/none"
check "none: decay none in show" grep -q 'backend: none  decay: none  ' "$TMPD/none"
check "none: decay none in top" grep -qE '^backend none +decay none ' "$TMPD/none"
check "none: cpu 0 capped, pressure kept, avg 0, capacity 462" grep -qE '^0 462 1197\.403/1844 533 162 0$' "$TMPD/none.top"
check "none: cpu 4 capped, pressure kept, avg 0, capacity 1024" grep -qE '^4 1024 1180/2362 903 513 0$' "$TMPD/none.top"

# ---- missing values and an offline CPU (a patched-kernel tree)
(cd "$DIR" && printf 'show\ntop --once\n' | LC_ALL=C COLUMNS=120 "$TP" --root fixture -f -) \
	>"$TMPD/fixture" 2>&1
same_rows "missing values and an offline cpu read the same" "$TMPD/fixture"
check "cpu 3: every value missing, one mark each" grep -qxF '3 - - - - -' "$TMPD/fixture.top"

# ---- estimates: a stock kernel does not report the average, thermpress computes it
STOCK=$DIR/../fixtures/stock/arm64-biglittle-6.1
printf 'show\ntop --once\n' | LC_ALL=C COLUMNS=120 "$TP" --root "$STOCK" -f - >"$TMPD/stock" 2>&1
same_rows "stock kernel: estimated averages read the same" "$TMPD/stock"
check "estimates marked ~ in top" grep -qE '^4 [0-9]+ [0-9./]+ [0-9.]+ [0-9]+ ~[0-9]+$' "$TMPD/stock.top"
cp "$TMPD/stock" "$TMPD/last"
check "one estimate legend, in both" \
	test "$(grep -c '^~ estimated: the source does not report it, thermpress computed it$' "$TMPD/stock")" -eq 2

finish
