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
--sim cap set 1	cap set: missing VALUE (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])
--sim cap clear all 5	cap clear: unexpected argument '5' (usage: cap clear CPULIST [--via scaling_max_freq|cooling])
--sim show foo	unknown command 'show foo' (see 'thermpress help show')
--sim show --jsonx	show: unknown option '--jsonx': did you mean '--json'? (usage: show [--json])
--sim cap set 0-3,99 50%	cap set: cpu 99 does not exist (online: 0-7) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])
--sim cap set 3-1 50%	cap set: invalid cpu range '3-1' (the first cpu is above the last) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])
--sim cap set x 50%	cap set: invalid cpu list token 'x' (valid: numbers and ranges like 0-3,6, all, little, big) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])
--sim cap set 0 abc	cap set: invalid cap value 'abc' (a frequency: 1800000, 1800MHz, 2.36GHz; a capped capacity: cap=600; or a percentage: 60%) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])
--sim cap set 0 150%	cap set: invalid percentage '150%' (1% to 100%) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])
--sim cap set 0 0%	cap set: invalid percentage '0%' (1% to 100%) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])
--sim cap set 0 cap=2000	cap set: invalid capacity 'cap=2000' (cap=N with N in 1..1024) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])
--sim cap set 4-7 3GHz	cap set: 3000000 kHz is above cpu 4's maximum (903000..2362000 kHz) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])
--sim cap clear 8	cap clear: cpu 8 does not exist (online: 0-7) (usage: cap clear CPULIST [--via scaling_max_freq|cooling])
--sim backend set foo	backend set: unknown backend 'foo' (available: instant, pelt, decay, none) (usage: backend set NAME [decay VALUE])
--sim backend set decay decay	backend set: 'decay' needs a value (usage: backend set NAME [decay VALUE])
--sim backend set decay foo 5	backend set: unexpected argument 'foo' (usage: backend set NAME [decay VALUE])
--sim backend set decay decay 20000	backend set: decay period 20000 ms is out of range for decay (1..10000 ms) (usage: backend set NAME [decay VALUE])
--sim backend set instant decay 100	backend set: backend instant has no decay period (usage: backend set NAME [decay VALUE])
--sim backend set none decay 32	backend set: backend none has no decay period (usage: backend set NAME [decay VALUE])
--sim decay set 0	decay set: invalid decay period '0' (a positive number of ms: 250, 250ms, 1s) (usage: decay set VALUE)
--sim decay set abc	decay set: invalid decay period 'abc' (a positive number of ms: 250, 250ms, 1s) (usage: decay set VALUE)
--sim decay set 1.5ms	decay set: decay period '1.5ms' is not a whole number of ms (usage: decay set VALUE)
--sim sim advance -1	sim advance: invalid duration '-1' (a positive number with a unit: 400ms, 1.5s, 250us) (usage: sim advance DURATION)
--sim sim advance 0	sim advance: invalid duration '0' (a positive number with a unit: 400ms, 1.5s, 250us) (usage: sim advance DURATION)
--sim sim advance 1x	sim advance: invalid duration '1x' (a positive number with a unit: 400ms, 1.5s, 250us) (usage: sim advance DURATION)
--sim show cpu 9	show cpu: cpu 9 does not exist (online: 0-7) (usage: show cpu CPULIST [--json])
--sim show cpu ''	show cpu: empty cpu list (valid: numbers and ranges like 0-3,6, all, little, big) (usage: show cpu CPULIST [--json])
--frob show	unknown option '--frob' (see 'thermpress --help')
--sim --hz 300 show	invalid tick rate '300' (expected 100, 250 or 1000)
--root	option --root needs a value (see 'thermpress --help')
--sim --root /x show	--root and --sim exclude each other
--sim=nope show	unknown simulator preset 'nope' (hikey960, db410c, smp:N)
sim serve	sim serve: missing MOUNTPOINT (usage: sim serve MOUNTPOINT [--preset P] [--hz N] [--virtual-clock] [--scenario S])
sim serve --bogus /x	sim serve: unknown option '--bogus' (usage: sim serve MOUNTPOINT [--preset P] [--hz N] [--virtual-clock] [--scenario S])
sim serve /x /y	sim serve: unexpected argument '/y' (usage: sim serve MOUNTPOINT [--preset P] [--hz N] [--virtual-clock] [--scenario S])
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

# Every command the table lists: its usage errors have one shape, exit 2, nothing on
# stdout: "thermpress: COMMAND: MESSAGE (usage: COMMAND SYNOPSIS)".  An unknown option for
# every command; a missing argument for those that take one; a word too many for those
# that take none (a word under a command with subcommands names no command instead).
"$TP" __commands >"$tmp/commands"
ncommands=0
while read -r line; do
	path=${line%%:*} syn=${line#*:} && syn=${syn# }
	read -ra words <<<"$path"
	usage="(usage: $path${syn:+ $syn})"
	ncommands=$((ncommands + 1))
	run "$TP" --sim "${words[@]}" --no-such-option
	assert_rc 2 "$path --no-such-option"
	assert_eq "$err" "thermpress: $path: unknown option '--no-such-option' $usage" "$path: unknown option, the usage shape"
	assert_eq "$out" "" "$path --no-such-option: nothing on stdout"
	first=${syn%% *}
	if [[ $first =~ ^[A-Z]+$ ]]; then
		run "$TP" --sim "${words[@]}"
		assert_rc 2 "$path without $first"
		assert_eq "$err" "thermpress: $path: missing $first $usage" "$path: missing $first, the usage shape"
	elif [[ $path != help ]]; then
		run "$TP" --sim "${words[@]}" extra
		assert_rc 2 "$path extra"
		if grep -q "^$path [a-z]*:" "$tmp/commands"; then
			assert_eq "$err" "thermpress: unknown command '$path extra' (see 'thermpress help $path')" "$path extra: names no subcommand"
		else
			assert_eq "$err" "thermpress: $path: unexpected argument 'extra' $usage" "$path extra: the usage shape"
		fi
	fi
done <"$tmp/commands"
# (the man page's COMMANDS section: each command is a .TP outside .RS/.RE)
man_commands=$("$TP" __man | awk '/^\.SH/ { on = ($2 == "COMMANDS") } on && /^\.RS/ { d++ }
	on && /^\.RE/ { d-- } on && tp { n++ } { tp = on && !d && /^\.TP/ } END { print n }')
assert_eq "$ncommands" "$man_commands" "every command of the man page was tried"

# The two --via parsers are one: cap set and cap hold say the same things.
for c in set hold; do
	run "$TP" --sim cap $c 0 50% extra
	syn=$(grep "^cap $c:" "$tmp/commands" | cut -d' ' -f3-)
	assert_eq "$err" "thermpress: cap $c: unexpected argument 'extra' (usage: cap $c $syn)" "cap $c 0 50% extra"
	run "$TP" --sim cap $c 0 50% --via
	assert_eq "$err" "thermpress: cap $c: option --via needs a value (usage: cap $c $syn)" "cap $c --via without a value"
	run "$TP" --sim cap $c 0 50% --via fan
	assert_eq "$err" "thermpress: cap $c: unknown cap method 'fan' (scaling_max_freq or cooling) (usage: cap $c $syn)" "cap $c --via fan"
	run "$TP" --sim cap $c 0 50% --via cooling --via cooling
	assert_eq "$err" "thermpress: cap $c: --via given twice (usage: cap $c $syn)" "cap $c --via twice"
done

# In a script the FILE:LINE prefix comes first, then the same shape.
run_stdin $'show\ncap set 1\n' "$TP" --sim
assert_rc 2 "script: usage error"
assert_eq "$err" "thermpress: <stdin>:2: cap set: missing VALUE (usage: cap set $(grep '^cap set:' "$tmp/commands" | cut -d' ' -f3-))" "script: FILE:LINE, then the usage shape"

finish
