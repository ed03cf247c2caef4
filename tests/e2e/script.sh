#!/usr/bin/env bash
# Scripts: -f FILE and standard input, comments, state within one process, the first
# failure stops the script and names its line.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

cat >"$tmp/ok.tp" <<'S'
# cap the big cluster to half its frequency, then let the average settle
cap set big 50%

sim advance 400ms   # 100 ticks at 250 Hz
show cpu 4
cap clear all
show status
S
run "$TP" --sim --virtual-clock -f "$tmp/ok.tp"
assert_rc 0 "-f script"
assert_match "$out" '4 +big +yes +513 +1024 +1181/2362 +903 +512 +511' "script: capped and averaged (pelt steady state P-1)"
assert_contains "$out" "time:              10.400 s" "script: the clock advanced 400 ms"
assert_contains "$out" "capped cpus:       none" "script: cap clear all"
assert_eq "$err" "" "script: nothing on stderr"

run_stdin "$(cat "$tmp/ok.tp")" "$TP" --sim --virtual-clock
assert_rc 0 "script on stdin"
assert_match "$out" '4 +big +yes +513 +1024 +1181/2362 +903 +512 +511' "stdin script: same result"
run_stdin "show status" "$TP" --sim -f -
assert_rc 0 "-f - reads stdin"

# The first failure stops the script: its line, its message, its status.
cat >"$tmp/bad.tp" <<'S'
cap set 4 1800MHz

# the next line is wrong
cap set 4-5 3GHz
show
S
run "$TP" --sim -f "$tmp/bad.tp"
assert_rc 2 "script: bad value stops with exit 2"
assert_eq "$err" "thermpress: $tmp/bad.tp:4: cap set: 3000000 kHz is above cpu 4's maximum (903000..2362000 kHz) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])" "script: FILE:LINE: message"
assert_eq "$out" "" "script: nothing after the failure ran"

run_stdin $'show status\nfrobnicate\nshow\n' "$TP" --sim
assert_rc 2 "stdin script: unknown command"
assert_eq "$err" "thermpress: <stdin>:2: unknown command 'frobnicate' (see 'thermpress help')" "stdin script: names <stdin>:2"
assert_not_contains "$out" "CAPACITY" "stdin script: stopped before line 3"

run_stdin $'replay '"$tmp"$'/no-such-trace.csv\n' "$TP" --sim
assert_rc 1 "script: runtime failure keeps its status 1"
assert_match "$err" '^thermpress: <stdin>:1: .*cannot open' "script: runtime message"

run_stdin $'show "unterminated\n' "$TP" --sim
assert_rc 2 "script: unterminated quote"
assert_eq "$err" "thermpress: <stdin>:1: unterminated double quote" "script: quote message"

run "$TP" --sim -f "$tmp/missing.tp"
assert_rc 1 "missing script file"
assert_eq "$err" "thermpress: cannot open script '$tmp/missing.tp': no such file or directory" "missing script: message"

run "$TP" --sim -f "$tmp/ok.tp" show
assert_rc 2 "-f with a command"

run "$TP" --sim -f "$tmp/ok.tp"
run_stdin $'shell\n' "$TP" --sim
assert_rc 2 "shell inside a script is refused"

finish
