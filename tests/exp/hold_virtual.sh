#!/usr/bin/env bash
# cap hold --for on the simulator's virtual clock (issue 28 §5): the hold advances the
# clock by its duration at once, as record and cap play do, instead of waiting for a
# clock that never moves; the capped CPUs' average shows the time held.
source "$(dirname "$0")/../e2e/lib.sh"
cd "$tmp"

printf '%s\n' "show status" "cap hold big 60% --for 10s" "show status" "show --json" >hold.tp
start=$(date +%s%N)
run timeout 8 "$TP" --sim --virtual-clock -f hold.tp
took=$(( ($(date +%s%N) - start) / 1000000 ))
assert_rc 0 "cap hold --for 10s on a virtual clock: exit 0 (within 8 s of real time)"
if [ "$took" -lt 5000 ]; then pass "the hold did not wait for the real clock (${took} ms)"
else fail "the hold of 10 s took ${took} ms of real time"; fi
times=$(grep '^time:' <<<"$out" | sed 's/^time: *//; s/ s$//' | tr '\n' ' ')
assert_eq "$times" "10.000 20.000 " "the virtual clock moved by the hold's 10 s"
assert_contains "$out" "holding the cap on cpus 4-7 at 60% for 10s of the virtual clock" \
	"the hold says it advances the virtual clock"
assert_contains "$out" "restored cpus 4-7" "the cap is put back at the end"
avg=$(sed -n '/^{/,$p' <<<"$out" | python3 -c 'import json,sys
d = json.load(sys.stdin)
print(" ".join(str(c["avg_pressure"]) for c in d["cpus"] if c["cpu"] in (0, 4)))' 2>/dev/null || true)
assert_match "$avg" '^0 [1-9][0-9]*$' "the capped CPUs' average grew over the held time (cpu0, cpu4: $avg)"

# on the real clock the hold waits as before
run timeout 8 "$TP" --sim cap hold big 60% --for 10ms
assert_rc 0 "cap hold --for 10ms on the real clock: exit 0"
finish
