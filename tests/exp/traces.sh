#!/usr/bin/env bash
# Trace reading end to end (docs/experiments.md, "Columns", "Reading rules"): every value
# in its range or FILE:LINE, exit 2 and nothing written; strings survive record -> replay.
source "$(dirname "$0")/../e2e/lib.sh"
RUN_TIMEOUT=60	# a trace that replays forever fails instead of hanging
cd "$tmp"

HDR=time_ns,cpu,max_capacity,max_freq_khz,capped_freq_khz,pressure,avg_pressure,backend,decay_ms
# out of range: exit 2, FILE:LINE, no output file (a CPU of -1 overflowed a buffer, a time of
# -1 replayed forever, a pressure of -1 gave exit 0)
bad_row() { # NAME ROW MESSAGE
	printf '%s\n' "$HDR" "0,0,462,1844000,1844000,0,0,pelt,32" "$2" >"$1.csv"
	run "$TP" replay "$1.csv" --backends instant,pelt:32 -o "$1-out.csv"
	assert_eq "$rc" 2 "$1: exit 2"
	assert_eq "$err" "thermpress: $1.csv:3: $3" "$1: message"
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
assert_eq "$rc" 0 "record jsonl: exit 0"
# the same trace with every string character escaped (\u0064 is d): decoded, the recorded
# backend is recognised and reproduced exactly
python3 - <<'PY'
import json
out = open("esc.jsonl", "w")
for i, line in enumerate(open("t.jsonl")):
    o = json.loads(line)
    if i == 0:
        o["source"]["description"] = 'a "root", with\nnew lines \u00e9 \U0001F600 \x01'
    text = json.dumps(o, ensure_ascii=True)
    b = o.get("backend")
    if b:
        text = text.replace(json.dumps(b), '"' + "".join("\\u%04x" % ord(c) for c in b) + '"')
    out.write(text + "\n")
PY
run "$TP" replay t.jsonl --backends pelt:32,decay:125 --json
plain=$out
run "$TP" replay esc.jsonl --backends pelt:32,decay:125 --json
assert_eq "$rc" 0 "replay escaped jsonl: exit 0"
assert_eq "$(printf '%s\n' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([b["exact"] for b in d["backends"]])')" \
	"$(printf '%s\n' "$plain" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([b["exact"] for b in d["backends"]])')" \
	"replay escaped jsonl: the same exactness as the plain trace"
assert_eq "$(printf '%s\n' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([b["exact"] for b in d["backends"]].count(True))')" \
	1 "replay escaped jsonl: the recorded backend reproduced exactly"
assert_eq "$(printf '%s\n' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(ascii(d["source"]))')" \
	"{'kind': 'sim', 'description': 'a \"root\", with\\nnew lines \\xe9 \\U0001f600 \\x01'}" \
	"replay escaped jsonl: the source object's escapes decoded"
# CSV: quoted fields (RFC 4180) for a backend of an unknown name with commas and quotes
python3 - <<'PY'
import csv
w = csv.writer(open("q.csv", "w", newline=""), lineterminator="\n")
w.writerow("time_ns cpu pressure backend avg_pressure".split())
w.writerow([0, 0, 0, 'my,"odd"\nbackend', 0])
w.writerow([20000000, 0, 512, 'my,"odd"\nbackend', 10])
w.writerow([40000000, 0, 512, "-", 10])
PY
# ... is not a backend name: refused (docs/experiments.md, the backend column), since the
# JSON lines writer could not write it back the same
run "$TP" replay q.csv --backends instant
assert_eq "$rc" 2 "replay quoted CSV: a backend that is not a name is refused"
assert_contains "$err" "q.csv:2: backend 'my," "replay quoted CSV: the bad backend named"
# a backend name quoted (RFC 4180 allows any field quoted) is read as the name
printf '%s\n' time_ns,cpu,pressure,backend,avg_pressure '0,0,0,"pelt",0' \
	'20000000,0,512,"pe""lt",10' '40000000,0,512,-,10' >q.csv
run "$TP" replay q.csv --backends instant
assert_eq "$rc" 2 "replay quoted CSV: a quoted quote is no part of a backend name"
printf '%s\n' time_ns,cpu,pressure,backend,avg_pressure '0,0,0,"pelt",0' \
	'20000000,0,512,"pelt",10' '40000000,0,512,-,10' >q.csv
run "$TP" replay q.csv --backends instant
assert_eq "$rc" 0 "replay quoted CSV: exit 0"
assert_eq "$(printf '%s\n' "$out" | head -1)" "trace q.csv: 3 rows, 0.040 s at 250 Hz; pressure 10.240 capacity-s" \
	"replay quoted CSV: every row read"

# ---- streaming: memory does not grow with the trace; a span over the limit is refused ---------
# 8 CPUs x 10 ms, 1 M rows (about 20 MB): the whole-file reader took over 120 MB here
awk 'BEGIN { print "time_ns,cpu,pressure"
	for (i = 0; i < 125000; i++) for (c = 0; c < 8; c++)
		printf "%.0f,%d,%d\n", 10000000000 + i * 10000000, c, (int(i / 100) * 37 + c * 101) % 1025 }' >big.csv
# small_rss DESCRIPTION ARGS...: thermpress ARGS exits 0 with a peak RSS of at most 64 MB
small_rss() {
	local desc=$1 kb
	shift
	set +e
	/usr/bin/time -f %M -o rss.txt "$TP" "$@" >/dev/null 2>&1
	rc=$?
	set -e
	assert_eq "$rc" 0 "$desc: exit 0"
	kb=$(tail -1 rss.txt)
	if [ "$kb" -le 65536 ]; then pass "$desc: peak RSS $kb kB <= 64 MB"
	else fail "$desc: peak RSS $kb kB > 64 MB"; fi
}
if [ -x /usr/bin/time ]; then
	small_rss "replay a 1 M row trace" replay big.csv --backends instant,pelt:32,decay:250
	head -240001 big.csv >mid.csv
	small_rss "replay -o of 240 000 rows" replay mid.csv --backends instant,pelt:32,decay:250 \
		-o mid-out.csv
	# the rows in order: backend by backend, CPU by CPU, in time
	assert_eq "$(awk -F, 'NR > 1 { k = $3 ":" $4 " " $2; if (k != last) { print k; last = k } }' mid-out.csv | tr '\n' ' ')" \
		"instant:0 0 instant:0 1 instant:0 2 instant:0 3 instant:0 4 instant:0 5 instant:0 6 instant:0 7 pelt:32 0 pelt:32 1 pelt:32 2 pelt:32 3 pelt:32 4 pelt:32 5 pelt:32 6 pelt:32 7 decay:250 0 decay:250 1 decay:250 2 decay:250 3 decay:250 4 decay:250 5 decay:250 6 decay:250 7 " \
		"replay -o: rows grouped by backend, then CPU"
else
	echo "# skipped the memory checks: no /usr/bin/time (bash scripts/deps.sh)"
fi
# standard input replays like the file
assert_eq "$(head -2001 big.csv | "$TP" replay - --backends pelt:32 -o - | md5sum)" \
	"$(head -2001 big.csv >small.csv; "$TP" replay small.csv --backends pelt:32 -o - | md5sum)" \
	"replay - (a pipe): the same rows as the file"

printf '%s\n' "time_ns,cpu,pressure" "0,0,5" "9000000000000000000,0,6" >long.csv
run "$TP" replay long.csv --backends instant -o never.csv
assert_eq "$rc" 2 "replay a span over the tick limit: exit 2"
assert_eq "$err" "thermpress: long.csv: the trace spans at least 9000000000.000 s from its first tick, more than the limit of 100000000 ticks per CPU at 250 Hz" \
	"replay a span over the tick limit: names the span and the limit"
if [ -e never.csv ]; then fail "replay a span over the limit: wrote the output"; else pass "replay a span over the limit: nothing written"; fi
run "$TP" replay long.csv --backends instant --plot never.svg
assert_eq "$rc" 2 "replay --plot a span over the tick limit: exit 2 before replaying"
assert_eq "$err" "thermpress: long.csv: the trace spans 9000000000.000 s, 2250000000001 ticks per CPU at 250 Hz: more than the limit of 100000000" \
	"replay --plot a span over the tick limit: names the span and the limit"
# a row earlier than the first (another CPU) and no state start: the state starts at the earliest
printf '%s\n' "time_ns,cpu,pressure" "20000000,1,5" "10000000,0,0" "30000000,1,500" "45000000,0,800" >early.csv
run "$TP" replay early.csv --backends pelt:32 --json
assert_eq "$(printf '%s\n' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"], d["backends"][0]["ticks"])')" \
	"4 18" "replay: a row earlier than the first moves the state start (ticks from 12 ms to 44 ms on both CPUs)"

finish
