#!/usr/bin/env bash
# --json on every show command: valid JSON, the documented fields and types (docs/json.md).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

INT='(lambda v: isinstance(v, int) and not isinstance(v, bool))'
INTN='(lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)))'

run "$TP" --sim --json show
assert_rc 0 "--json show"
printf '%s' "$out" | python3 -m json.tool >/dev/null && pass "show: json.tool accepts it" || fail "show: json.tool rejects it"
json_check "$out" 'd["schema_version"] == 1' "show: schema_version 1"
json_check "$out" 'set(d) == {"schema_version","source","backend","decay_ms","hz","time_ns","domains","cpus"}' "show: top-level fields"
json_check "$out" 'd["source"] == {"kind": "sim", "description": "simulator hikey960 (real clock)"}' "show: source"
json_check "$out" 'd["backend"] == "pelt" and d["decay_ms"] == 32 and d["hz"] == 250' "show: backend, decay, hz"
json_check "$out" "$INT(d['time_ns']) and d['time_ns'] >= 10**10" "show: time_ns an integer"
json_check "$out" 'd["domains"] == [{"id": 0, "name": "little"}, {"id": 4, "name": "big"}]' "show: domains"
json_check "$out" 'len(d["cpus"]) == 8 and [c["cpu"] for c in d["cpus"]] == list(range(8))' "show: 8 CPUs in order"
json_check "$out" 'all(set(c) == {"cpu","online","domain","domain_id","max_capacity","capacity","max_freq_khz","min_freq_khz","capped_freq_khz","capped","capped_capacity","pressure","avg_pressure","avg_estimated"} for c in d["cpus"])' "show: CPU fields"
json_check "$out" "all($INTN(c[k]) for c in d['cpus'] for k in ('max_capacity','capacity','max_freq_khz','min_freq_khz','capped_freq_khz','capped_capacity','pressure','avg_pressure'))" "show: numbers are integers or null"
json_check "$out" 'all(type(c["avg_estimated"]) is bool and type(c["online"]) is bool and type(c["capped"]) is bool for c in d["cpus"])' "show: booleans"
json_check "$out" 'all(c["max_capacity"] == 462 and c["max_freq_khz"] == 1844000 and c["domain"] == "little" and c["domain_id"] == 0 for c in d["cpus"][:4])' "show: little cluster"
json_check "$out" 'all(c["max_capacity"] == 1024 and c["max_freq_khz"] == 2362000 and c["domain"] == "big" and c["domain_id"] == 4 for c in d["cpus"][4:])' "show: big cluster"
json_check "$out" 'all(c["capped"] is False and c["pressure"] == 0 and c["avg_pressure"] == 0 and c["avg_estimated"] is False for c in d["cpus"])' "show: nothing capped"

# The same document after a cap, through a script.
run_stdin $'cap set big cap=600\nsim advance 400ms\nshow cpu 4-5 --json\n' "$TP" --sim --virtual-clock
assert_rc 0 "show cpu --json in a script"
json_check "$out" '[c["cpu"] for c in d["cpus"]] == [4, 5]' "show cpu: only the listed CPUs"
json_check "$out" 'd["time_ns"] == 10400000000' "show cpu: virtual clock at 10.4 s"
json_check "$out" 'all(c["capped"] and c["capped_capacity"] >= 600 and c["pressure"] == 1024 - c["capped_capacity"] and c["capacity"] == 1024 - c["avg_pressure"] for c in d["cpus"])' "show cpu: capped capacity, pressure, capacity"

# none: the pressure is shown, the average is 0 and the capacity is not reduced.
run_stdin $'cap set big cap=600\nsim advance 400ms\nbackend set none\nsim advance 400ms\nshow --json\n' "$TP" --sim --virtual-clock
assert_rc 0 "backend set none, then show --json"
json_check "$out" 'd["backend"] == "none" and d["decay_ms"] == 0 and all(c["capped"] and c["pressure"] == 1024 - c["capped_capacity"] > 0 and c["avg_pressure"] == 0 and c["capacity"] == 1024 for c in d["cpus"][4:]) and all(c["capacity"] == 462 for c in d["cpus"][:4])' \
	"none: pressure kept, avg 0, capacity the maximum"
run_stdin $'backend set none\nshow backends --json\n' "$TP" --sim
json_check "$out" '[b["active"] for b in d["backends"]] == [False, False, False, True] and d["backends"][3]["decay_ms"] is None' "none: active, no decay period (null)"

run "$TP" --sim --json show backends
assert_rc 0 "--json show backends"
json_check "$out" 'd["schema_version"] == 1 and [b["name"] for b in d["backends"]] == ["instant", "pelt", "decay", "none"]' "backends: names"
json_check "$out" 'all(set(b) == {"name","active","has_plugin","summary","decay_ms","decay_min_ms","decay_max_ms","decay_default_ms"} for b in d["backends"])' "backends: fields"
json_check "$out" '[b["active"] for b in d["backends"]] == [False, True, False, False]' "backends: pelt active"
json_check "$out" 'd["backends"][0]["decay_ms"] is None and d["backends"][0]["decay_min_ms"] is None and d["backends"][0]["decay_max_ms"] is None' "backends: instant has no decay (null, not 0)"
json_check "$out" 'd["backends"][3]["decay_ms"] is None and d["backends"][3]["decay_min_ms"] is None and d["backends"][3]["decay_max_ms"] is None and d["backends"][3]["decay_default_ms"] is None' "backends: none has no decay (null, not 0)"
json_check "$out" 'd["backends"][1]["decay_ms"] == 32 and d["backends"][1]["decay_min_ms"] == 1 and d["backends"][1]["decay_max_ms"] == 32768' "backends: pelt's decay and range"
json_check "$out" 'd["backends"][2]["decay_max_ms"] == 10000 and all(type(b["has_plugin"]) is bool and (b["summary"] is None or type(b["summary"]) is str) for b in d["backends"])' "backends: decay's range, types"

run "$TP" --sim show status --json
assert_rc 0 "show status --json"
json_check "$out" 'set(d) == {"schema_version","source","backend","decay_ms","hz","time_ns","interface_version","nr_cpus","online_cpus","capped_cpus","plugin_warnings"}' "status: fields"
json_check "$out" 'd["interface_version"] == 1 and d["nr_cpus"] == 8 and d["online_cpus"] == list(range(8)) and d["capped_cpus"] == [] and d["plugin_warnings"] == []' "status: values"
run_stdin $'cap set 1,5 60%\nbackend set decay decay 1s\nshow status --json\n' "$TP" --sim
json_check "$out" 'd["capped_cpus"] == [1, 5] and d["backend"] == "decay" and d["decay_ms"] == 1000' "status: capped CPUs, backend, decay after changes"

finish
