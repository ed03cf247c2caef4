#!/bin/bash
# thermpress top --once: exact frames (ASCII and UTF-8, widths, --cpus, caps), usage errors,
# no terminal, and a write error on stdout.
. "$(dirname "$0")/lib.sh"

DIR=$(dirname "$0")
EXP=$DIR/expected

same() {	# same NAME EXPECTED-FILE COMMAND...: stdout equals the file exactly
	local name=$1 exp=$2
	shift 2
	"$@" >"$TMPD/out" 2>"$TMPD/err"
	local rc=$?
	if [ $rc -eq 0 ] && cmp -s "$exp" "$TMPD/out"; then
		pass "$name"
	else
		{ echo "exit $rc"; cat "$TMPD/err"; diff -u "$exp" "$TMPD/out"; } >"$TMPD/last"
		fail "$name"
	fi
}

usage_error() {	# usage_error NAME STATUS MESSAGE COMMAND...
	local name=$1 want=$2 msg=$3
	shift 3
	"$@" >"$TMPD/out" 2>"$TMPD/err" </dev/null
	local rc=$?
	if [ $rc -eq "$want" ] && grep -qF -- "$msg" "$TMPD/err" && [ "$(wc -l <"$TMPD/err")" -eq 1 ]; then
		pass "$name"
	else
		{ echo "exit $rc (want $want)"; cat "$TMPD/err"; } >"$TMPD/last"
		fail "$name"
	fi
}

same "hikey960, ASCII, 120 columns" "$EXP/hikey960-ascii.txt" \
	env LC_ALL=C COLUMNS=120 "$TP" --sim --virtual-clock top --once
same "hikey960 capped from a script, ASCII" "$EXP/hikey960-capped-ascii.txt" \
	env LC_ALL=C COLUMNS=120 "$TP" --sim --virtual-clock -f "$DIR/capped.tp"
same "db410c --cpus 1-3, UTF-8, 80 columns" "$EXP/db410c-utf8-80.txt" \
	env LC_ALL=C.UTF-8 COLUMNS=80 "$TP" --sim=db410c --virtual-clock top --once --cpus 1-3

same "patched tree: offline cpu, unknown values, ASCII" "$EXP/fixture-offline-ascii.txt" \
	bash -c 'cd "$1" && LC_ALL=C COLUMNS=100 "$2" --root fixture top --once' _ "$DIR" "$TP"

env LC_ALL=C.UTF-8 NO_COLOR=1 "$TP" --sim top --once --cpus big >"$TMPD/big" 2>&1
check "--cpus big: only cpus 4-7" bash -c "grep -qE '^ +4 ' '$TMPD/big' && ! grep -qE '^ +[0-3] ' '$TMPD/big' && ! grep -q little '$TMPD/big'"
check "no escape sequences in --once" bash -c "! grep -q $'\\e' '$TMPD/big'"

usage_error "--interval too short" 2 "top: interval '5ms' is too short" "$TP" --sim top --interval 5ms
usage_error "--interval not a duration" 2 "invalid duration '1x'" "$TP" --sim top --interval 1x
usage_error "--interval without a value" 2 "top: option --interval needs a value" "$TP" --sim top --interval
usage_error "--interval and --delay together" 2 "top: --interval and --delay both set the interval (give one)" "$TP" --sim top --interval 1s -d 10
usage_error "--delay too short" 2 "top: delay '0.05' is too short (at least 10ms)" "$TP" --sim top -d 0.05
usage_error "unknown option" 2 "top: unknown option '--bogus'" "$TP" --sim top --bogus
usage_error "--cpus names a missing cpu" 2 "cpu 99 does not exist" "$TP" --sim top --once --cpus 99
usage_error "--scenario without --sim" 2 "top: --scenario needs the simulator" "$TP" --root "$TMPD" top --once --scenario heat
usage_error "no terminal without --once" 1 "top needs a terminal (use --once" "$TP" --sim top
# top's errors go through the command's error path: a script's FILE:LINE prefix
printf 'show status\ntop\n' >"$TMPD/top.tp"
"$TP" --sim -f "$TMPD/top.tp" >/dev/null 2>"$TMPD/err" </dev/null
rc=$?
cp "$TMPD/err" "$TMPD/last"
check "top in a script without a terminal: exit 1, FILE:LINE prefix" bash -c \
	"[ $rc -eq 1 ] && [ \$(wc -l <'$TMPD/err') -eq 1 ] && grep -qF 'thermpress: $TMPD/top.tp:2: top needs a terminal' '$TMPD/err'"
"$TP" --sim top --once >/dev/full 2>"$TMPD/err"
rc=$?
cp "$TMPD/err" "$TMPD/last"
check "write error on stdout: exit 1, one message" bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$TMPD/err') -eq 1 ]"

# a root whose path does not fit keeps the header: the path is shortened in its middle, its
# last components stay (a long checkout path once dropped the whole source description)
LONG=$TMPD/a-checkout-directory-with-a-long-name/tests/tui/../fixtures/stock
mkdir -p "$TMPD/a-checkout-directory-with-a-long-name/tests/tui" "$LONG"
cp -r "$DIR/../fixtures/stock/arm64-biglittle-6.1" "$LONG/"
LC_ALL=C COLUMNS=120 "$TP" --root "$LONG/arm64-biglittle-6.1" top --once >"$TMPD/out" 2>&1
head -1 "$TMPD/out" >"$TMPD/last"
check "a long root path: shortened in its middle, its end kept" grep -qE \
	'^thermpress top - stock kernel 6\.1\.0-18-arm64 \(aarch64\) at \.\.\.[^ ]*/stock/arm64-biglittle-6\.1$' "$TMPD/out"
check "a long root path: the header takes 120 columns at most" \
	bash -c '[ "$(head -1 "$1" | wc -L)" -le 120 ]' _ "$TMPD/out"
LC_ALL=C.UTF-8 COLUMNS=80 "$TP" --root "$LONG/arm64-biglittle-6.1" top --once >"$TMPD/out" 2>&1
head -1 "$TMPD/out" >"$TMPD/last"
check "a long root path in 80 columns: still named by its end" \
	grep -qE '^thermpress top - stock kernel .* at \.\.\.[^ ]*6\.1$' "$TMPD/out"

finish
