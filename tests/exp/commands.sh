#!/usr/bin/env bash
# End-to-end tests of record, replay, cap play and bench against the simulator.
source "$(dirname "$0")/../e2e/lib.sh"
cd "$tmp"
# run_script TEXT GLOBAL-OPTIONS...: a script on standard input
run_script() {
	local text=$1; shift
	run_stdin "$text"$'\n' "$TP" "$@" -f /dev/stdin
}
valid_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"; }

# ---- record on a virtual clock, replay bit for bit ----------------------------------------
for cfg in "decay 125 csv" "pelt 128 jsonl" "instant - csv"; do
	set -- $cfg
	be=$1 dec=$2 fmt=$3
	setup="backend set $be"
	[ "$dec" != - ] && setup="$setup decay $dec"
	run_script "$setup
cap set big 1.2GHz
sim advance 37ms
cap set 0-1 60%
record --duration 3s --format $fmt -o t-$be.$fmt" --sim --virtual-clock
	assert_eq "$rc" 0 "record $be ($fmt): exit 0"
	assert_eq "$err" "" "record $be: nothing on stderr (not a terminal)"
	label=$be; [ "$dec" != - ] && label=$be:$dec
	run "$TP" replay "t-$be.$fmt" --backends "instant,$label,pelt:32"
	assert_eq "$rc" 0 "replay $be: exit 0"
	assert_lines_match "$out" "^$label +.* yes$" "replay $be: the recorded backend is reproduced exactly"
	assert_lines_match "$out" "^trace t-$be.$fmt: [0-9]+ rows, 3.000 s at 250 Hz" "replay $be: header"
done
run "$TP" replay t-decay.csv --backends decay:250
assert_lines_match "$out" "^decay:250 .* -$" "replay: another decay period is not compared"

# Perfetto: valid JSON with counter tracks per CPU and signal
run_script "cap set 4 50%
record --duration 200ms --format perfetto -o t.json" --sim --virtual-clock
assert_eq "$rc" 0 "record perfetto: exit 0"
if valid_json t.json; then pass "perfetto: valid JSON"; else fail "perfetto: invalid JSON"; fi
assert_lines_match "$(cat t.json)" '"name":"cpu4 pressure","ph":"C"' "perfetto: a counter track for cpu4 pressure"
assert_lines_match "$(cat t.json)" '"name":"cpu7 avg_pressure"' "perfetto: a counter track for cpu7 avg_pressure"

# record while a command runs (real clock)
run "$TP" --sim record --interval 5ms -o cmd.csv -- sleep 0.2
assert_eq "$rc" 0 "record -- COMMAND: exit 0"
rows=$(grep -c '^[0-9]' cmd.csv)
if [ "$rows" -ge 40 ]; then pass "record -- COMMAND: $rows rows"; else fail "record -- COMMAND: only $rows rows"; fi

# record: usage errors write nothing
run "$TP" --sim record --duration 1s
assert_eq "$rc" 2 "record without -o: exit 2"
assert_eq "$err" "thermpress: record: missing -o FILE (usage: record [--interval DURATION] [--duration DURATION] [--format csv|jsonl|perfetto] [--reset|--no-reset] -o FILE [-- COMMAND ...])" "record without -o: message"
run "$TP" --sim record --format xml -o bad.csv
assert_eq "$rc" 2 "record --format xml: exit 2"
assert_eq "$err" "thermpress: record: unknown trace format 'xml' (csv, jsonl or perfetto) (usage: record [--interval DURATION] [--duration DURATION] [--format csv|jsonl|perfetto] [--reset|--no-reset] -o FILE [-- COMMAND ...])" "record --format xml: message"
run "$TP" --sim record --interval 0 -o bad.csv
assert_eq "$rc" 2 "record --interval 0: exit 2"
run "$TP" --sim record --duration 1s -o bad.csv -- true
assert_eq "$rc" 2 "record --duration and COMMAND: exit 2"
if [ -e bad.csv ]; then fail "record: a usage error created the file"; else pass "record: usage errors create no file"; fi

# ---- record interrupted: the trace kept, one line said, 128 + SIGINT ---------------------
"$TP" --sim --scenario heat record --duration 60s --interval 2ms -o intr.csv 2>intr.all &
rec_pid=$!
# the first buffer of rows reaches the temporary file only from the sampling loop, after the
# signal handlers are in place
for _ in $(seq 200); do
	[ -n "$(find . -maxdepth 1 -name '.intr.csv.tmp*' -size +0 2>/dev/null)" ] && break
	sleep 0.05
done
kill -INT $rec_pid
set +e; wait $rec_pid; rc=$?; set -e
assert_eq "$rc" 130 "record, SIGINT: exit 128 + 2"
# besides warnings (a trace without pressure says so), exactly one line: the summary
grep -v '^thermpress: warning: ' intr.all >intr.err || true
assert_lines_match "$(cat intr.err)" '^thermpress: record interrupted: [0-9]+ samples over [0-9.]+ s kept in intr\.csv$' \
	"record, SIGINT: a one-line summary on stderr"
assert_eq "$(wc -l <intr.err)" 1 "record, SIGINT: one line only"
rows=$(grep -c '^[0-9]' intr.csv || true)
assert_eq "$(( rows / 8 ))" "$(sed -E 's/.*: ([0-9]+) samples.*/\1/' intr.err)" \
	"record, SIGINT: the summary counts the samples in the file (8 rows each)"
assert_eq "$(find . -maxdepth 1 -name '.intr.csv.tmp*' | wc -l)" 0 "record, SIGINT: no temporary file left"
run "$TP" replay intr.csv --backends instant
assert_eq "$rc" 0 "record, SIGINT: the kept trace replays (complete and valid)"

# ---- replay: output, plot, json, bad input ----------------------------------------------
run "$TP" replay t-decay.csv --backends instant,decay:125 -o out.csv --plot plot.svg
assert_eq "$rc" 0 "replay -o --plot: exit 0"
assert_eq "$(head -1 out.csv)" "time_ns,cpu,backend,decay_ms,pressure,avg_pressure" "replay -o: header"
assert_lines_match "$(sed -n 2p out.csv)" '^1[0-9]{10},[0-9]+,instant,0,[0-9]+,[0-9]+$' "replay -o: a row"
assert_lines_match "$(head -2 plot.svg | tail -1)" '^<svg xmlns="http://www.w3.org/2000/svg"' "replay --plot: an svg"
assert_lines_match "$(cat plot.svg)" 'decay:125' "replay --plot: a curve per backend"
if python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' plot.svg; then
	pass "replay --plot: well-formed XML"; else fail "replay --plot: not well-formed XML"; fi
# round ticks on both axes (a 1-2-5 step from 0), the pressure drawn last (on top of instant,
# which follows it exactly), one legend entry per curve with its label
plot_check='import math, sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"; r = E.parse(sys.argv[1]).getroot()
def round_steps(cls):
	v = [float(t.text) for t in r.iter(ns + "text") if t.get("class") == cls]
	st = v[1] - v[0]; m = st / 10 ** math.floor(math.log10(st) + 1e-9)
	return v[0] == 0 and len(v) >= 3 and any(abs(m - k) < 1e-6 for k in (1, 2, 5)) and \
		all(abs(b - a - st) < 1e-9 for a, b in zip(v, v[1:]))
paths = [p.get("data-series") for p in r.iter(ns + "path") if p.get("class") == "series"]
legend = ["".join(g.find(ns + "text").itertext()) for g in r.iter(ns + "g") if g.get("class") == "legend"]
print(round_steps("xtick"), round_steps("ytick"), paths[-1], sorted(paths) == [str(i) for i in range(len(legend))], legend)'
assert_eq "$(python3 -c "$plot_check" plot.svg)" "True True 0 True ['pressure', 'instant', 'decay:125']" \
	"replay --plot: round ticks, the pressure on top, a complete legend"

run "$TP" replay t-decay.csv --backends pelt:32,decay:125 --json
assert_eq "$rc" 0 "replay --json: exit 0"
printf '%s\n' "$out" >r.json
if valid_json r.json; then pass "replay --json: valid JSON"; else fail "replay --json: invalid JSON"; fi
assert_eq "$(python3 -c 'import json; d=json.load(open("r.json")); print(d["schema_version"], [(b["label"], b["exact"]) for b in d["backends"]])')" \
	"1 [('pelt:32', None), ('decay:125', True)]" "replay --json: labels and exactness"
# the source is the shared object (docs/json.md), kind and description as the trace recorded
# them (trace version 2), the same as show --json gives for the source that recorded it
run "$TP" --sim --virtual-clock --json show
sim_source=$(printf '%s\n' "$out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["source"])')
assert_eq "$(head -3 t-decay.csv)" "# thermpress trace 2
# source.kind sim
# source.description simulator hikey960 (virtual clock)" "record csv: version 2, the source's kind and description"
assert_eq "$(python3 -c 'import json; d=json.load(open("r.json")); print(d["source"])')" \
	"$sim_source" "replay --json (csv trace): the recorded source with its kind, as show --json has it"
run "$TP" replay t-pelt.jsonl --backends pelt:128 --json
assert_eq "$(printf '%s\n' "$out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["source"])')" \
	"$sim_source" "replay --json (jsonl trace): the recorded source with its kind"
# a version 1 trace (thermpress before the source object) still replays: description only,
# kind null, the same replay
sed -e '1s/ 2$/ 1/' -e '/^# source\.kind /d' -e 's/^# source\.description /# source /' t-decay.csv >v1.csv
assert_eq "$(head -2 v1.csv)" "# thermpress trace 1
# source simulator hikey960 (virtual clock)" "a version 1 trace (old shape)"
run "$TP" replay v1.csv --backends pelt:32,decay:125 --json
assert_eq "$rc" 0 "replay --json (version 1 trace): exit 0"
assert_eq "$(printf '%s\n' "$out" | python3 -c 'import json, sys; d=json.load(sys.stdin); print(d["source"], [(b["label"], b["exact"]) for b in d["backends"]])')" \
	"{'kind': None, 'description': 'simulator hikey960 (virtual clock)'} [('pelt:32', None), ('decay:125', True)]" \
	"replay --json (version 1 trace): kind null, the description, the same exactness"
python3 - <<'PY'
import json
lines = open("t-pelt.jsonl").read().splitlines()
meta = json.loads(lines[0])
meta["thermpress_trace"] = 1
meta["source"] = meta["source"]["description"]
open("v1.jsonl", "w").write("\n".join([json.dumps(meta)] + lines[1:]) + "\n")
PY
run "$TP" replay v1.jsonl --backends pelt:128 --json
assert_eq "$(printf '%s\n' "$out" | python3 -c 'import json, sys; d=json.load(sys.stdin); print(d["source"], [b["exact"] for b in d["backends"]])')" \
	"{'kind': None, 'description': 'simulator hikey960 (virtual clock)'} [True]" \
	"replay --json (version 1 jsonl trace): kind null, the description, exact"
# a later version is refused: one line naming the file, the line and the versions known
sed '1s/ 2$/ 3/' t-decay.csv >v3.csv
run "$TP" replay v3.csv -o never-v3.csv
assert_eq "$rc" 2 "replay of a version 3 trace: exit 2"
assert_eq "$err" "thermpress: v3.csv:1: trace version 3 is not supported (this thermpress reads versions 1 and 2)" \
	"replay of a version 3 trace: message"
if [ -e never-v3.csv ]; then fail "replay of a version 3 trace: wrote the output"
else pass "replay of a version 3 trace: nothing written"; fi

printf '%s\n' "time_ns,cpu,max_capacity,max_freq_khz,capped_freq_khz,pressure,avg_pressure,backend,decay_ms" \
	"10,0,462,1844000,1844000,0,0,pelt,32" "20,0,462,1844000,922000,abc,0,pelt,32" >bad.csv
run "$TP" replay bad.csv -o never.csv
assert_eq "$rc" 2 "replay malformed trace: exit 2"
assert_eq "$err" "thermpress: bad.csv:3: pressure 'abc' is not a number" "replay malformed trace: names the line"
if [ -e never.csv ]; then fail "replay: bad input created the output"; else pass "replay: bad input writes nothing"; fi

printf '%s\n' "time_ns,cpu,pressure" "20,0,5" "30,1,0" "10,0,5" >unsorted.csv
run "$TP" replay unsorted.csv
assert_eq "$rc" 2 "replay unsorted trace: exit 2"
assert_eq "$err" "thermpress: unsorted.csv:4: time 10 of cpu 0 is before 20 on line 2: the rows of a cpu must not go back in time" "replay unsorted trace: message"

printf '%s\n' "# thermpress trace 1" "time_ns,cpu,pressure" >empty.csv
run "$TP" replay empty.csv
assert_eq "$rc" 2 "replay empty trace: exit 2"
assert_eq "$err" "thermpress: empty.csv: the trace has no samples to replay" "replay empty trace: message"

run "$TP" replay t-decay.csv --backends pelt:32,turbo
assert_eq "$rc" 2 "replay unknown backend: exit 2"
assert_eq "$err" "thermpress: unknown backend 'turbo' in 'pelt:32,turbo' (available: instant, pelt, decay, none)" "replay unknown backend: message"
# none: accepted alone, refused with a decay period (as instant), nothing written
run "$TP" replay t-decay.csv --backends none,instant --json
assert_eq "$rc" 0 "replay --backends none: exit 0"
printf '%s\n' "$out" >rn.json
assert_eq "$(python3 -c 'import json; d=json.load(open("rn.json")); b=d["backends"][0]; print(b["label"], b["decay_ms"], b["capacity_s_lost"], d["backends"][1]["capacity_s_lost"] > 0)')" \
	"none None 0.0 True" "replay none: no decay period (null), no capacity lost"
for b in none instant; do
	run "$TP" replay t-decay.csv --backends "pelt:32,$b:32" -o refused.csv
	assert_eq "$rc" 2 "replay $b:32: exit 2"
	assert_eq "$err" "thermpress: backend $b has no decay period ('$b:32')" "replay $b:32: one line"
	if [ -e refused.csv ]; then fail "replay $b:32: wrote refused.csv"; else pass "replay $b:32: nothing written"; fi
	run "$TP" --sim bench --runs 1 --backends "$b:32" -- true
	assert_eq "$rc" 2 "bench $b:32: exit 2"
	assert_eq "$err" "thermpress: backend $b has no decay period ('$b:32')" "bench $b:32: one line"
done
run "$TP" replay missing.csv
assert_eq "$rc" 1 "replay missing file: exit 1"
assert_lines_match "$err" "^thermpress: cannot open missing.csv: No such file or directory$" "replay missing file: message"

# ---- cap profiles: replay and play agree; bad profiles apply nothing ---------------------
printf '%s\n' "# a step up, a partial release, the little cluster, all clear" "0, big, 50%" \
	"200ms, big, cap=700" "452ms, 0-3, 1GHz" "1s, all, clear" >prof.txt
run "$TP" --sim replay prof.txt --backends decay:250,pelt:32 -o prof-out.csv
assert_eq "$rc" 0 "replay a profile: exit 0"
assert_lines_match "$out" "^profile prof.txt: [0-9]+ rows, 2.000 s at 250 Hz" "replay a profile: header"
run "$TP" --sim replay prof.txt --backends pelt:32 --json
assert_eq "$(printf '%s\n' "$out" | python3 -c 'import json, sys; d=json.load(sys.stdin); print(d["kind"], d["source"])')" \
	"profile None" "replay --json of a profile: no source"
run_script "backend set decay decay 250
cap play prof.txt
show" --sim --virtual-clock
assert_eq "$rc" 0 "cap play on a virtual clock: exit 0"
assert_lines_match "$out" "time: 11.000 s" "cap play: the virtual clock advanced to the last step"
assert_eq "$(printf '%s\n' "$out" | awk '$1 ~ /^[0-9]+$/ {print $6}' | sort -u | tr '\n' ' ')" "1844/1844 2362/2362 " \
	"cap play: every cap restored"
played=$(printf '%s\n' "$out" | awk '$1 == 4 {print $NF}')
replayed=$(awk -F, '$1 == 11000000000 && $2 == 4 && $3 == "decay" {v = $6} END {print v}' prof-out.csv)
assert_eq "$played" "$replayed" "cap play and replay of the profile give the same average on cpu 4"
played=$(printf '%s\n' "$out" | awk '$1 == 0 {print $NF}')
replayed=$(awk -F, '$1 == 11000000000 && $2 == 0 && $3 == "decay" {v = $6} END {print v}' prof-out.csv)
assert_eq "$played" "$replayed" "cap play and replay of the profile give the same average on cpu 0"

printf '%s\n' "0, big, 50%" "1s, big, turbo" >badprof.txt
run_script "cap play badprof.txt" --sim --virtual-clock
assert_eq "$rc" 2 "cap play bad profile: exit 2"
assert_lines_match "$err" "^thermpress: /dev/stdin:1: badprof.txt:2: .*turbo" "cap play bad profile: names the line"
run "$TP" --sim cap play badprof.txt
assert_eq "$rc" 2 "cap play bad profile one-shot: exit 2"
assert_lines_match "$err" "^thermpress: badprof.txt:2: " "cap play bad profile one-shot: message"
printf '%s\n' "0, 9, 50%" >badcpu.txt
run "$TP" --sim cap play badcpu.txt
assert_eq "$rc" 2 "cap play unknown cpu: exit 2"
assert_lines_match "$err" "^thermpress: badcpu.txt:1: " "cap play unknown cpu: names the line"

# cap play restores on SIGTERM (real clock, served simulator not needed: one process)
printf '%s\n' "0, big, 50%" "30s, big, clear" >long.txt
set +e
"$TP" --sim cap play long.txt 2>"$tmp/.err" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
set -e
assert_eq "$rc" 143 "cap play interrupted: ends as SIGTERM would (128 + 15)"
assert_eq "$(cat "$tmp/.err")" "thermpress: cap play: interrupted; every cap was restored" "cap play interrupted: message"

# ---- bench against the simulator ---------------------------------------------------------
run "$TP" --sim bench --runs 2 --backends instant,pelt,decay --decay 125,250 -- true
assert_eq "$rc" 0 "bench: exit 0"
assert_eq "$(printf '%s\n' "$out" | awk 'NR > 1 {print $1, $2}' | tr '\n' ' ')" \
	"instant 2 pelt:128 2 pelt:256 2 decay:125 2 decay:250 2 " "bench: one line per configuration"
assert_lines_match "$(printf '%s\n' "$out" | head -1)" '^CONFIGURATION +RUNS +MEAN \(s\) +STDDEV \(% of mean\) +95% CI \(s\) +BIG % +MIGRATIONS$' "bench: header"
# the simulator's CPUs are not the host's: no placement share, said once on stderr
assert_lines_match "$(printf '%s\n' "$out" | sed -n 2p)" '^instant +2 +[0-9]+\.[0-9]{4} +[0-9]+\.[0-9]{2}% +±[0-9]+\.[0-9]{4} +- +([0-9]+\.[0-9]|-)$' "bench: mean, stddev, interval, no placement"
# (where perf events are unavailable a second line says why migrations are not counted)
assert_eq "$(grep -v 'bench: migrations not counted: ' <<<"$err")" "thermpress: warning: bench: placement not measured: simulator hikey960 (real clock): its cpus are simulated, not the ones /proc/stat counts" \
	"bench: one line says why placement is not measured"
run "$TP" --sim bench --runs 1 --backends instant -- true
assert_lines_match "$(printf '%s\n' "$out" | sed -n 2p)" '^instant +1 +[0-9]+\.[0-9]{4} +0\.00% +- +- +' "bench --runs 1: no interval"
run "$TP" --sim bench --runs 2 --backends decay:500 --profile prof.txt --json -- sh -c 'echo noise; sleep 0.05'
assert_eq "$rc" 0 "bench --profile --json: exit 0"
printf '%s\n' "$out" >b.json
if valid_json b.json; then pass "bench --json: valid JSON"; else fail "bench --json: invalid JSON"; fi
assert_eq "$(python3 -c 'import json; d=json.load(open("b.json")); c=d["configurations"]; print(len(c), c[0]["label"], len(c[0]["times_s"]), c[0]["mean_s"] > 0.04)')" \
	"1 decay:500 2 True" "bench --json: configurations and times"
json_check "$out" 'd["placement_domain"] is None and "simulated" in d["placement_note"] and all(c["placement"] is None and c["ci95_s"] > 0 for c in d["configurations"])' \
	"bench --json on the simulator: placement null, the note says why, an interval"
# the source is the object every document shares (docs/json.md), as in show --json
run "$TP" --sim show --json
printf '%s\n' "$out" >s.json
assert_eq "$(python3 -c 'import json; b=json.load(open("b.json")); s=json.load(open("s.json")); print(b["schema_version"], b["source"] == s["source"], sorted(b["source"]))')" \
	"2 True ['description', 'kind']" "bench --json: source is the shared object"
# on a virtual clock the profile runs at its virtual times: two runs move the clock by 2 x 1 s,
# the caps are restored, and the averages are those of playing the profile twice
bench_vc=$(printf '%s\n' "backend set decay decay 250" \
	"bench --backends decay:250 --runs 2 --profile prof.txt -- true" "show --json")
run_script "$bench_vc" --sim --virtual-clock
assert_eq "$rc" 0 "bench --profile on a virtual clock: exit 0"
printf '%s\n' "$out" | sed -n '/^{/,$p' >bvc.json
summ='import json,sys; d=json.load(open(sys.argv[1])); print(d["time_ns"], *sorted({c["capped_freq_khz"] == c["max_freq_khz"] for c in d["cpus"]}), *[c["avg_pressure"] for c in d["cpus"]])'
assert_eq "$(python3 -c "$summ" bvc.json | cut -d' ' -f1-2)" "12000000000 True" \
	"bench --profile on a virtual clock: the clock advanced by the profile each run, caps restored"
run_script "backend set decay decay 250
cap play prof.txt
cap play prof.txt
show --json" --sim --virtual-clock
printf '%s\n' "$out" >pvc.json
assert_eq "$(python3 -c "$summ" bvc.json)" "$(python3 -c "$summ" pvc.json)" \
	"bench --profile on a virtual clock: the averages of playing the profile once per run"
run "$TP" --sim bench --runs 2 --backends none,instant --decay 125,250 -- true
assert_eq "$rc" 0 "bench none: exit 0"
assert_eq "$(printf '%s\n' "$out" | awk 'NR > 1 {print $1, $2}' | tr '\n' ' ')" \
	"none 2 instant 2 " "bench none: one configuration, no decay period to cross"
run_script "backend set none
bench --runs 1 --backends pelt:64,decay:125 -- true
show --json" --sim
printf '%s\n' "$out" | sed -n '/^{/,$p' >bn.json
assert_eq "$(python3 -c 'import json; d=json.load(open("bn.json")); print(d["backend"], d["decay_ms"])')" \
	"none 0" "bench: none in force before is put back"
run "$TP" --sim bench --runs 2 -- false
assert_eq "$rc" 1 "bench failing workload: exit 1"
assert_eq "$err" "thermpress: bench: false exited with status 1" "bench failing workload: message"
run "$TP" --sim bench --runs 0 -- true
assert_eq "$rc" 2 "bench --runs 0: exit 2"
run "$TP" --sim bench --runs 2
assert_eq "$rc" 2 "bench without COMMAND: exit 2"
assert_lines_match "$err" "^thermpress: bench: missing -- COMMAND" "bench without COMMAND: message"

finish
