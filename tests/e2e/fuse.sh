#!/usr/bin/env bash
# One command sequence against the in-process simulator (--sim --virtual-clock) and
# against the same simulator served over FUSE (sim serve --virtual-clock MOUNT, then
# --root MOUNT): the show --json results must be identical.  Exit 77 (skip) only when
# FUSE cannot be used here.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_fuse

cat >"$tmp/seq.tp" <<'S'
cap set big 60%
sim advance 100ms
backend set decay decay 250ms
sim advance 300ms
cap set 0-1 cap=300
decay set 125
sim advance 1s
cap clear 4
sim advance 52ms
show --json
show backends --json
S
# Everything but the source, which names itself differently.
strip() { python3 -c '
import json, sys
for doc in sys.stdin.read().split("\n}\n"):
    if doc.strip():
        d = json.loads(doc + "\n}")
        d.pop("source", None)
        # the patched interface does not give the lowest frequency: null when served
        for c in d.get("cpus", []):
            c.pop("min_freq_khz", None)
        print(json.dumps(d, sort_keys=True))'; }

run "$TP" --sim --virtual-clock -f "$tmp/seq.tp"
assert_rc 0 "sequence on --sim --virtual-clock"
printf '%s\n' "$out" | strip >"$tmp/sim.json"

mnt="$tmp/mnt"
mkdir "$mnt"
"$TP" sim serve --virtual-clock "$mnt" 2>"$tmp/serve.err" &
server=$!
cleanup_hooks+=("kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; if mountpoint -q '$mnt'; then fusermount3 -u '$mnt' || umount -l '$mnt'; fi")
dir="$mnt/sys/kernel/debug/sched/thermal_pressure"
for _ in $(seq 100); do
	[ -e "$dir/version" ] && break
	kill -0 $server 2>/dev/null || break
	sleep 0.1
done
if ! [ -e "$dir/version" ]; then
	fail "sim serve did not mount: $(cat "$tmp/serve.err")"
	finish
fi
pass "sim serve mounted the interface"
assert_eq "$(cat "$dir/version")" "1" "the served version file"

run "$TP" --root "$mnt" -f "$tmp/seq.tp"
assert_rc 0 "sequence on --root MOUNT"
printf '%s\n' "$out" | strip >"$tmp/served.json"
assert_eq "$(wc -l <"$tmp/sim.json")" 2 "two documents from each run"
assert_eq "$(sed -n 1p "$tmp/served.json")" "$(sed -n 1p "$tmp/sim.json")" "identical show --json"
assert_eq "$(sed -n 2p "$tmp/served.json")" "$(sed -n 2p "$tmp/sim.json")" "identical show backends --json"

# The served simulator persists between processes.
run "$TP" --root "$mnt" --json show status
assert_rc 0 "one-shot show status on the served tree"
json_check "$out" 'd["source"]["kind"] == "patched" and d["capped_cpus"] == [0, 1, 5, 6, 7] and d["backend"] == "decay" and d["decay_ms"] == 125' "state persists in the served simulator"
run "$TP" --root "$mnt" cap set 9 50%
assert_rc 2 "bad cpu through FUSE"
assert_eq "$err" "thermpress: cap set: cpu 9 does not exist (online: 0-7) (usage: cap set CPULIST VALUE [--via scaling_max_freq|cooling])" "bad cpu through FUSE: message"

# bench --profile on the served virtual clock: the clock moves by the profile (500 ms) per run and
# configuration, and the caps in force before are back afterwards.
printf '%s\n' "0, big, 50%" "500ms, all, 1GHz" >"$tmp/prof.txt"
run "$TP" --root "$mnt" --json show
t0=$(printf '%s\n' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["time_ns"])')
caps0=$(printf '%s\n' "$out" | python3 -c 'import json,sys; print([c["capped_freq_khz"] for c in json.load(sys.stdin)["cpus"]])')
run "$TP" --root "$mnt" bench --backends instant,decay:250 --runs 2 --profile "$tmp/prof.txt" -- true
assert_rc 0 "bench --profile on the served virtual clock"
run "$TP" --root "$mnt" --json show
json_check "$out" "d['time_ns'] == $t0 + 4 * 500000000 and [c['capped_freq_khz'] for c in d['cpus']] == $caps0" \
	"bench --profile: the served clock advanced by the profile per run, caps restored"

kill -TERM $server
set +e
wait $server
rc=$?
set -e
assert_rc 143 "sim serve stops on SIGTERM (128 + 15)"
if mountpoint -q "$mnt"; then fail "still mounted after SIGTERM"; else pass "unmounted after SIGTERM"; fi

finish
