#!/usr/bin/env bash
# Every usage error: exit 2, one exact line on stderr, nothing on stdout, and nothing
# applied (checked afterwards in the same process, through the shell).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# ARGS (as shell words) TAB the exact message after "thermpress: "
cases=$(cat <<'C'
--sim frobnicate	unknown command 'frobnicate' (see 'thermpress help')
--sim s	ambiguous command 's' (could be: show, sim, shell)
--sim cap	'cap' needs a subcommand (set, clear, hold, restore, play)
--sim cap frob	unknown command 'cap frob' (see 'thermpress help cap')
--sim cap set 1	cap set: missing argument (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])
--sim cap clear all 5	cap clear: unexpected argument '5' (usage: cap clear CPULIST [--via scaling_max_freq|cooling])
--sim show foo	unknown command 'show foo' (see 'thermpress help show')
--sim show --jsonx	show: unexpected argument '--jsonx' (usage: show [--json])
--sim cap set 0-3,99 50%	cpu 99 does not exist (online: 0-7)
--sim cap set 3-1 50%	invalid cpu range '3-1' (the first cpu is above the last)
--sim cap set x 50%	invalid cpu list token 'x' (valid: numbers and ranges like 0-3,6, all, little, big)
--sim cap set 0 abc	invalid cap value 'abc' (a frequency: 1800000, 1800MHz, 2.36GHz; a capacity: cap=600; or a percentage: 60%)
--sim cap set 0 150%	invalid percentage '150%' (1% to 100%)
--sim cap set 0 0%	invalid percentage '0%' (1% to 100%)
--sim cap set 0 cap=2000	invalid capacity 'cap=2000' (cap=N with N in 1..1024)
--sim cap set 4-7 3GHz	3000000 kHz is above cpu 4's maximum (1..2362000 kHz)
--sim cap clear 8	cpu 8 does not exist (online: 0-7)
--sim backend set foo	unknown backend 'foo' (available: instant, pelt, decay)
--sim backend set decay decay	backend set: missing decay value (usage: backend set NAME [decay VALUE])
--sim backend set decay foo 5	backend set: unexpected argument 'foo' (usage: backend set NAME [decay VALUE])
--sim backend set decay decay 20000	decay period 20000 ms is out of range for decay (1..10000 ms)
--sim backend set instant decay 100	backend instant has no decay period
--sim decay set 0	invalid decay period '0' (a positive number of ms: 250, 250ms, 1s)
--sim decay set abc	invalid decay period 'abc' (a positive number of ms: 250, 250ms, 1s)
--sim decay set 1.5ms	decay period '1.5ms' is not a whole number of ms
--sim sim advance -1	invalid duration '-1' (a positive number with a unit: 400ms, 1.5s, 250us)
--sim sim advance 0	invalid duration '0' (a positive number with a unit: 400ms, 1.5s, 250us)
--sim sim advance 1x	invalid duration '1x' (a positive number with a unit: 400ms, 1.5s, 250us)
--sim show cpu 9	cpu 9 does not exist (online: 0-7)
--sim show cpu ''	empty cpu list (valid: numbers and ranges like 0-3,6, all, little, big)
--frob show	unknown option '--frob' (see 'thermpress --help')
--sim --hz 300 show	invalid tick rate '300' (expected 100, 250 or 1000)
--root	option --root needs a value (see 'thermpress --help')
--sim --root /x show	--root and --sim exclude each other
--sim=nope show	unknown simulator preset 'nope' (hikey960, db410c, smp:N)
sim serve	sim serve: missing argument (usage: sim serve [--preset P] [--hz N] [--virtual-clock] [--scenario S] MOUNTPOINT)
sim serve --bogus /x	sim serve: unknown option '--bogus' (usage: sim serve [--preset P] [--hz N] [--virtual-clock] [--scenario S] MOUNTPOINT)
sim serve /x /y	sim serve: unexpected argument '/y' (usage: sim serve [--preset P] [--hz N] [--virtual-clock] [--scenario S] MOUNTPOINT)
help frob	unknown command 'frob' (see 'thermpress help')
C
)

while IFS=$'\t' read -r args msg; do
	eval "set -- $args"
	run "$TP" "$@"
	assert_rc 2 "$args"
	assert_eq "$err" "thermpress: $msg" "$args: message"
	assert_eq "$out" "" "$args: nothing on stdout"
done <<<"$cases"

# Nothing applied: in one shell session, the state after every bad command that would
# change something equals the state before them.
{
	echo "show --json"
	echo "show backends --json"
	while IFS=$'\t' read -r args msg; do
		case "$args" in
		"--sim cap set"* | "--sim cap clear"* | "--sim backend set"* | "--sim decay set"* | "--sim sim advance"*)
			echo "${args#--sim }" ;;
		esac
	done <<<"$cases"
	echo "show --json"
	echo "show backends --json"
} >"$tmp/session.in"
shell_session --sim --virtual-clock <"$tmp/session.in" >"$tmp/session.out"
python3 - "$tmp/session.out" >"$tmp/docs" <<'P'
import sys
blocks, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith(">>> "):
        cur = [] if "--json" in line else None
        blocks.append(cur)
    elif cur is not None and not line.startswith("thermpress> ") and line.strip() and not line.startswith(("show ", "exit ")):
        cur.append(line)
docs = ["".join(b) for b in blocks if b is not None]
print(len(docs))
for d in docs:
    print(d.replace("\n", " "))
P
assert_eq "$(sed -n 1p "$tmp/docs")" 4 "session: four JSON documents"
assert_contains "$(sed -n 2p "$tmp/docs")" "\"schema_version\": 1" "session: the JSON was captured"
assert_eq "$(sed -n 4p "$tmp/docs")" "$(sed -n 2p "$tmp/docs")" "nothing applied: show --json unchanged"
assert_eq "$(sed -n 5p "$tmp/docs")" "$(sed -n 3p "$tmp/docs")" "nothing applied: show backends --json unchanged"
n_errors=$(grep -c '^thermpress: ' "$tmp/session.out" || true)
n_sent=$(($(wc -l <"$tmp/session.in") - 4))
assert_eq "$n_errors" "$n_sent" "session: every bad command reported one error"

finish
