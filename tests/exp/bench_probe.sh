#!/usr/bin/env bash
# bench's placement share and migration count end to end (docs/experiments.md, "Bench"):
# against a patched-kernel tree whose proc/stat the workload itself rewrites with known
# per-CPU times, so each run's share is exact; and the workload's CPU migrations.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/../support/patched_tree.sh"
cd "$tmp"
export THERMPRESS_STATE_DIR=$tmp/state

# The tree: CPUs 0-1 in domain 0 "little" (capacity 462), CPUs 2-3 in domain 1 "big" (1024).
R=$tmp/root
patched_tree "$R" little
mkdir -p "$R/proc"
# stat0 -> stat1: busy +20 +20 on little, +30 +30 on big (share 0.6); stat1 -> stat2: +10 +10,
# +40 +40 (0.8).  Idle, iowait and guest change too and must not count (guest is inside user).
stat() {	# the busy ticks of cpu0..3 (user system irq softirq steal nice split), an idle offset
	printf 'cpu  0 0 0 0 0 0 0 0 0 0\n'
	local i=0 b
	for b in $1; do
		# user nice system idle iowait irq softirq steal guest guest_nice
		printf 'cpu%d %d 1 %d %d %d 1 1 %d %d 0\n' $i $((b - 10)) 3 $((1000 + $2)) $(($2 / 2)) 4 $((5 * $2))
		i=$((i + 1))
	done
	printf 'intr 1 2 3\nctxt 4\nbtime 5\nprocesses 6\nprocs_running 1\nprocs_blocked 0\n'
}
# the tree's control files are plain files, which a write does not truncate (a kernel's
# take one value per write): each bench starts from fresh ones
fresh() {
	patched_tree "$R" little
	echo 0 >"$tmp/count"
	stat "100 100 100 100" 0 >"$R/proc/stat"
}
stat "120 120 130 130" 500 >stat1
stat "130 130 170 170" 900 >stat2
fresh
# run N copies statN into the root: the bench reads proc/stat before and after each run
cat >work.sh <<EOS
n=\$((\$(cat $tmp/count) + 1)); echo \$n >$tmp/count; cp $tmp/stat\$n $R/proc/stat
EOS

run "$TP" --root "$R" bench --runs 2 --backends pelt:128 -- sh work.sh
assert_rc 0 "bench on a patched tree"
assert_lines_match "$(head -1 <<<"$out")" '^CONFIGURATION +RUNS +MEAN \(s\) +STDDEV \(% of mean\) +95% CI \(s\) +BIG % +MIGRATIONS$' \
	"header: the big column named after the domain"
# shares 0.6 and 0.8: mean 70%, half-width t(0.975, 1) * sd / sqrt 2 = 12.706 * 0.1
assert_lines_match "$(sed -n 2p <<<"$out")" '^pelt:128 +2 +[0-9.]+ +[0-9.]+% +±[0-9.]+ +70\.0 ± 127\.1 +([0-9]+\.[0-9]|-)$' \
	"table: big share mean and interval"
assert_not_contains "$err" "placement not measured" "no placement note when it is measured"

fresh
run "$TP" --root "$R" --json bench --runs 2 --backends pelt:128 -- sh work.sh
assert_rc 0 "bench --json on a patched tree"
json_check "$out" 'd["placement_domain"] == {"id": 1, "name": "big"} and d["placement_note"] is None' \
	"json: the table's domain"
json_check "$out" '[(p["domain_id"], p["name"]) for p in d["configurations"][0]["placement"]] == [(0, "little"), (1, "big")]' \
	"json: one placement entry per domain"
json_check "$out" 'all(abs(a - b) < 1e-12 for a, b in zip(d["configurations"][0]["placement"][1]["shares"], [0.6, 0.8]))' \
	"json: big's per-run shares exact"
json_check "$out" 'all(abs(a - b) < 1e-12 for a, b in zip(d["configurations"][0]["placement"][0]["shares"], [0.4, 0.2]))' \
	"json: little's per-run shares exact"
json_check "$out" 'abs(d["configurations"][0]["placement"][1]["share"] - 0.7) < 1e-12 and abs(d["configurations"][0]["placement"][1]["share_ci95"] - 1.2706) < 1e-9' \
	"json: big's mean share and interval"
json_check "$out" 'd["configurations"][0]["ci95_s"] > 0' "json: the time's interval"

# the column is the domain of largest capacity, whatever the names: domain 0 (462) named
# "big", domain 1 (1024) "prime"
fresh
sed -i 's/^domain 0 little$/domain 0 big/; s/^domain 1 big$/domain 1 prime/' "$R/sys/kernel/debug/sched/thermal_pressure/stats"
run "$TP" --root "$R" --json bench --runs 2 --backends pelt:128 -- sh work.sh
json_check "$out" 'd["placement_domain"] == {"id": 1, "name": "prime"} and abs(d["configurations"][0]["placement"][1]["share"] - 0.7) < 1e-12' \
	"the table's domain is the one of largest capacity, not the one named big"
fresh
sed -i 's/^domain 0 little$/domain 0 big/; s/^domain 1 big$/domain 1 prime/' "$R/sys/kernel/debug/sched/thermal_pressure/stats"
run "$TP" --root "$R" bench --runs 2 --backends pelt:128 -- sh work.sh
assert_lines_match "$(head -1 <<<"$out")" ' PRIME % +MIGRATIONS$' "header: named after that domain"
assert_lines_match "$(sed -n 2p <<<"$out")" ' 70\.0 ± 127\.1 +([0-9]+\.[0-9]|-)$' "table: that domain's share"

# a run that changes no tick has no share (null), and the mean is over the others
fresh
cp stat1 stat2	# the second run copies what is already there
run "$TP" --root "$R" --json bench --runs 2 --backends pelt:128 -- sh work.sh
json_check "$out" 'd["configurations"][0]["placement"][1]["shares"][1] is None and abs(d["configurations"][0]["placement"][1]["share"] - 0.6) < 1e-12 and d["configurations"][0]["placement"][1]["share_ci95"] is None' \
	"json: a run without ticks is null, one run gives no interval"

# a proc/stat that cannot be parsed: no placement, one line says why, the bench goes on
fresh
printf 'cpu0 1 2\n' >"$R/proc/stat"
run "$TP" --root "$R" bench --runs 1 --backends pelt:128 -- true
assert_rc 0 "bench with a malformed proc/stat"
assert_lines_match "$(sed -n 2p <<<"$out")" '^pelt:128 +1 .* - +- +([0-9]+\.[0-9]|-)$' "malformed proc/stat: placement -"
assert_eq "$(grep -c 'placement not measured' <<<"$err")" 1 "malformed proc/stat: said once"
assert_contains "$err" "$R/proc/stat: line 1 (cpu0): 2 fields" "malformed proc/stat: the reason names the file"

# ---- migrations: a perf software counter inherited by the workload's children -----------
# A grandchild that moves itself to another CPU migrates at least once per run.
cat >move.sh <<'EOS'
sh -c 'taskset -pc 0 $$ >/dev/null; taskset -pc 1 $$ >/dev/null; taskset -pc 0 $$ >/dev/null'
EOS
run "$TP" --sim --json bench --runs 3 --backends instant -- sh move.sh
assert_rc 0 "bench counting migrations"
if grep -q 'migrations not counted' <<<"$err"; then
	json_check "$out" 'd["migrations_note"] and d["configurations"][0]["migrations"] is None' \
		"no perf events here: migrations null, the note says why"
	assert_eq "$(grep -c 'migrations not counted: perf_event_open: ' <<<"$err")" 1 "no perf events: said once"
elif [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	json_check "$out" 'd["migrations_note"] is None and len(d["configurations"][0]["migrations"]["runs"]) == 3 and all(m >= 2 for m in d["configurations"][0]["migrations"]["runs"])' \
		"a grandchild's migrations are counted (at least 2 per run)"
	json_check "$out" 'abs(d["configurations"][0]["migrations"]["mean"] - sum(d["configurations"][0]["migrations"]["runs"]) / 3) < 1e-9' \
		"migrations: the mean of the runs"
else
	echo "skip: one CPU or no taskset: migrations not forced"
fi
# a command that does not exist is still refused as before
run "$TP" --sim bench --runs 1 --backends instant -- /nonexistent/cmd
assert_rc 1 "bench with a missing command"
assert_eq "$err" "thermpress: bench: cannot run /nonexistent/cmd: No such file or directory" \
	"bench with a missing command: message"
finish
