#!/usr/bin/env bash
# Trace reading end to end (docs/experiments.md, "Columns", "Reading rules"): every value
# in its range or FILE:LINE, exit 2 and nothing written; strings survive record -> replay.
set -euo pipefail

: "${THERMPRESS:?THERMPRESS must name the built thermpress binary}"
TP=$THERMPRESS
checks=0
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

pass() { checks=$((checks + 1)); echo "ok $checks - $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "not ok $checks - $*"; }
run() {
	set +e
	timeout 60 "$@" >"$tmp/.out" 2>"$tmp/.err" </dev/null
	rc=$?
	set -e
	out=$(cat "$tmp/.out")
	err=$(cat "$tmp/.err")
}
check() { if [ "$1" = "$2" ]; then pass "$3"; else fail "$3: got '$1', expected '$2'"; fi; }

HDR=time_ns,cpu,max_capacity,max_freq_khz,capped_freq_khz,pressure,avg_pressure,backend,decay_ms
# out of range: exit 2, FILE:LINE, no output file (a CPU of -1 overflowed a buffer, a time of
# -1 replayed forever, a pressure of -1 gave exit 0)
bad_row() { # NAME ROW MESSAGE
	printf '%s\n' "$HDR" "0,0,462,1844000,1844000,0,0,pelt,32" "$2" >"$1.csv"
	run "$TP" replay "$1.csv" --backends instant,pelt:32 -o "$1-out.csv"
	check "$rc" 2 "$1: exit 2"
	check "$err" "thermpress: $1.csv:3: $3" "$1: message"
	if [ -e "$1-out.csv" ]; then fail "$1: wrote the output"; else pass "$1: nothing written"; fi
}
bad_row cpu-minus-one "10000000,-1,462,1844000,922000,512,0,pelt,32" "cpu -1 is out of range (0..8191)"
bad_row cpu-too-big "10000000,8192,462,1844000,922000,512,0,pelt,32" "cpu 8192 is out of range (0..8191)"
bad_row time-minus-one "-1,0,462,1844000,922000,512,0,pelt,32" \
	"time_ns -1 is out of range (0..9223372036854775807)"
bad_row pressure-minus-one "10000000,0,462,1844000,922000,-1,0,pelt,32" \
	"pressure -1 is out of range (0..1024)"
bad_row avg-minus-one "10000000,0,462,1844000,922000,5,-1,pelt,32" \
	"avg_pressure -1 is out of range (0..1024, or -)"
bad_row capacity-zero "10000000,0,0,1844000,922000,5,0,pelt,32" \
	"max_capacity 0 is out of range (1..1024, or -)"

# ---- strings round trip: what record writes, replay reads back ----------------------------
run "$TP" --sim --virtual-clock record --duration 300ms --format jsonl -o t.jsonl
check "$rc" 0 "record jsonl: exit 0"
# the same trace with every string character escaped (\u0064 is d): decoded, the recorded
# backend is recognised and reproduced exactly
python3 - <<'PY'
import json
out = open("esc.jsonl", "w")
for i, line in enumerate(open("t.jsonl")):
    o = json.loads(line)
    if i == 0:
        o["source"] = 'a "root", with\nnew lines \u00e9 \U0001F600 \x01'
    text = json.dumps(o, ensure_ascii=True)
    b = o.get("backend")
    if b:
        text = text.replace(json.dumps(b), '"' + "".join("\\u%04x" % ord(c) for c in b) + '"')
    out.write(text + "\n")
PY
run "$TP" replay t.jsonl --backends pelt:32,decay:125 --json
plain=$out
run "$TP" replay esc.jsonl --backends pelt:32,decay:125 --json
check "$rc" 0 "replay escaped jsonl: exit 0"
check "$(printf '%s\n' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([b["exact"] for b in d["backends"]])')" \
	"$(printf '%s\n' "$plain" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([b["exact"] for b in d["backends"]])')" \
	"replay escaped jsonl: the same exactness as the plain trace"
check "$(printf '%s\n' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([b["exact"] for b in d["backends"]].count(True))')" \
	1 "replay escaped jsonl: the recorded backend reproduced exactly"
# CSV: quoted fields (RFC 4180) for a backend of an unknown name with commas and quotes
python3 - <<'PY'
import csv
w = csv.writer(open("q.csv", "w", newline=""), lineterminator="\n")
w.writerow("time_ns cpu pressure backend avg_pressure".split())
w.writerow([0, 0, 0, 'my,"odd"\nbackend', 0])
w.writerow([20000000, 0, 512, 'my,"odd"\nbackend', 10])
w.writerow([40000000, 0, 512, "-", 10])
PY
run "$TP" replay q.csv --backends instant
check "$rc" 0 "replay quoted CSV: exit 0"
check "$(printf '%s\n' "$out" | head -1)" "trace q.csv: 3 rows, 0.040 s at 250 Hz; pressure 10.240 capacity-s" \
	"replay quoted CSV: every row read"

echo "$((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
