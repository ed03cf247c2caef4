# Test fixtures in shell, sourced by tests only (tests/e2e, tests/tui).

# patched_tree ROOT DOMAIN: a patched-kernel tree under ROOT (docs/abi.md): the control
# files and a stats file of 4 CPUs in 2 domains, domain 0 named DOMAIN (any bytes; the
# tests give it ill-formed UTF-8 and C1 controls), CPUs 2-3 capped to half.  Prints
# nothing; the files are in ROOT/sys/kernel/debug/sched/thermal_pressure.
patched_tree() {
	local pd=$1/sys/kernel/debug/sched/thermal_pressure
	mkdir -p "$pd"
	echo 1 >"$pd/version"
	echo 'instant [pelt] decay' >"$pd/backend"
	echo 32 >"$pd/decay_ms"
	echo 250 >"$pd/hz"
	: >"$pd/inject"
	{
		printf 'version 1\ntime_ns 10004000000\nbackend pelt\ndecay_ms 32\nhz 250\nnr_cpus 4\n'
		printf 'domain 0 %s\ndomain 1 big\n' "$2"
		printf 'cpu online domain max_capacity max_freq_khz capped_freq_khz pressure avg_pressure capacity\n'
		printf '0 1 0 462 1844000 1844000 0 0 462\n1 1 0 462 1844000 1844000 0 0 462\n'
		printf '2 1 1 1024 2362000 1181000 512 247 777\n3 1 1 1024 2362000 1181000 512 247 777\n'
	} >"$pd/stats"
}
