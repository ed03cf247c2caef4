#!/usr/bin/env bash
# thermpress __complete (the table behind the completions), the bash, zsh and fish
# completion scripts driven by the real shells, and the generated man page.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
root=$(cd "$E2E_DIR/../.." && pwd)

# the candidates, less the next argument's hint and examples (checked further down)
cands() { "$TP" __complete "$@" | cut -f1 | { grep -vx -e :hint -e :example || true; } | tr '\n' ' '; }
assert_eq "$(cands "")" "show top export cap backend decay sim record replay bench shell version help " "top-level commands"
assert_eq "$(cands s)" "show sim shell " "prefix s"
assert_eq "$(cands show "")" "cpu backends status --json " "show subcommands and --json"
assert_eq "$(cands show cpu "")" "all " "show cpu: all (no --json while CPULIST is to come)"
assert_eq "$(cands show cpu 0 "")" "--json " "show cpu CPULIST: --json"
assert_eq "$(cands cap "")" "set clear hold restore play " "cap subcommands"
assert_eq "$(cands cap set "")" "all " "cap set: a CPU list"
assert_eq "$(cands backend set "")" "instant pelt decay none " "backend set: the plugins"
assert_eq "$(cands backend set pelt "")" "decay " "backend set NAME: decay"
assert_eq "$(cands sim serve --preset "")" "hikey960 db410c smp: " "sim serve --preset: presets"
assert_eq "$(cands --sim --root /x sh)" "show shell " "global options are skipped"
assert_eq "$(cands --ro)" "--root " "global options"
assert_eq "$(cands help cap "")" "set clear hold restore play " "help completes command words"
assert_eq "$(cands __)" "" "hidden commands are not offered"

# Completion from the option data: an enum's values, file and directory directives,
# presets and the domains of the source the words name.
assert_eq "$(cands record --format "")" "csv jsonl perfetto " "record --format: the enum's values"
assert_eq "$(cands cap set 0 50% --via "")" "scaling_max_freq cooling " "cap set --via: the methods"
assert_eq "$(cands cap hold all 1GHz --via c)" "cooling " "cap hold --via c: one method"
assert_eq "$(cands record -o "")" ":files " "record -o: file names"
assert_eq "$(cands record --output=x "")" "--interval --duration --format --reset --no-reset " "record --output=FILE: the other options"
assert_eq "$(cands cap play "")" ":files " "cap play: a profile file"
assert_eq "$(cands replay "")" ":files " "replay: a file first (no options while FILE is to come)"
assert_eq "$(cands replay -)" ":files --backends --hz -o --plot --plot-cpu --json " "replay -: the options once a dash is typed"
assert_eq "$(cands replay t.csv "")" "--backends --hz -o --plot --plot-cpu --json " "replay FILE: then the options"
assert_eq "$(cands --root "")" ":dirs " "--root: directories"
assert_eq "$(cands bench -- "")" ":commands " "bench --: a command"
assert_eq "$(cands --sim cap set "")" "all little big " "--sim cap set: all and the simulator's domains"
# the machine's own kernel (here THERMPRESS_ROOT, as the library reads it), not only --root
# and --sim: its domains too, with the stock kernel's averaged pressure left unread
assert_eq "$(THERMPRESS_ROOT="$root/tests/fixtures/stock/arm64-biglittle-6.1" cands cap set "")" \
	"$(cands --root "$root/tests/fixtures/stock/arm64-biglittle-6.1" cap set "")" \
	"cap set on the live kernel: its domains as with --root"
assert_contains "$(THERMPRESS_ROOT="$root/tests/fixtures/stock/arm64-biglittle-6.1" cands cap set "")" \
	"all " "cap set on the live kernel: all"
assert_eq "$(cands --sim=)" "--sim=hikey960 --sim=db410c --sim=smp: " "--sim=: the presets"
assert_eq "$(cands replay x --hz "")" "100 250 1000 " "replay --hz: the tick rates"

# The argument that comes next, with its kind's examples (kinds.c, the one place they are
# written): a :hint line for zsh and the shell, and :example words for bash and fish when
# the kind has no candidates of its own.  Not the options while a required positional is
# to come (cap set big: VALUE, not --via).
hint() { "$TP" --sim __complete "$@" | sed -n 's/^:hint\t//p'; }
examples() { "$TP" --sim __complete "$@" | sed -n 's/^:example\t//p' | tr '\n' ' '; }
assert_eq "$(hint cap set big "")" "VALUE: 1800MHz, 2.36GHz, cap=600, 60%" "cap set big: the VALUE hint"
assert_eq "$(examples cap set big "")" "1800MHz 2.36GHz cap=600 60% " "cap set big: VALUE's examples as words"
assert_eq "$(examples cap set big 6)" "60% " "cap set big 6: the examples it starts"
assert_eq "$(cands cap set big "")" "" "cap set big: no --via before VALUE"
assert_eq "$(cands cap set big -)" "--via " "cap set big -: --via once a dash is typed"
assert_eq "$(hint cap set "")" "CPULIST: 0-3, 0,2,4-7, big, all" "cap set: the CPULIST hint"
assert_eq "$(examples cap set "")" "" "cap set: the domains, not the examples, as words"
assert_eq "$(hint show cpu "")" "CPULIST: 0-3, 0,2,4-7, big, all" "show cpu: the CPULIST hint"
assert_eq "$(hint cap clear "")" "CPULIST: 0-3, 0,2,4-7, big, all" "cap clear: the CPULIST hint"
assert_eq "$(hint sim advance "")" "DURATION: 500ms, 2s, 1.5s, 250us" "sim advance: the DURATION hint"
assert_eq "$(hint backend set "")" "NAME: instant, pelt, decay, none" "backend set: the backends"
assert_eq "$(hint backend set pelt decay "")" "decay VALUE: 250ms, 1s, 128" "backend set NAME decay: the decay period"
assert_eq "$(hint decay set "")" "VALUE: 250ms, 1s, 128" "decay set: the decay period"
assert_eq "$(examples decay set "")" "250ms 1s 128 " "decay set: its examples as words"
assert_eq "$(hint cap play "")" "PROFILE: t.csv, traces/run1.jsonl, /tmp/profile" "cap play: a file"
assert_eq "$(examples cap play "")" "" "cap play: file names, not the examples"
assert_eq "$(hint sim serve "")" "MOUNTPOINT: /mnt/tp, ./tree" "sim serve: a directory"
assert_eq "$(hint record --interval "")" "--interval DURATION: 500ms, 2s, 1.5s, 250us" "an option's value: its hint"
assert_eq "$(hint cap set big 50% --via "")" "--via: scaling_max_freq, cooling" "an enum option: its values"
for args in "cap set big" "cap set" "sim advance" "backend set" "cap play"; do
	assert_eq "$(hint $args "" | grep -c .)" 1 "$args: one hint"
done
assert_eq "$(hint cap set big 50% "")" "" "cap set CPULIST VALUE: no hint (only options left)"

# Descriptions after a tab: the commands' summaries and the options' help (first sentence).
run "$TP" __complete ""
assert_contains "$out" "show	show every CPU's capacity and thermal pressure" "__complete: a command's summary after a tab"
assert_contains "$out" "cap	cap or uncap CPUs' maximum frequency" "__complete: a group's summary"
run "$TP" __complete show ""
assert_contains "$out" "--json	print the result as JSON" "__complete: an option's help"
run "$TP" __complete --si
assert_eq "$out" "--sim	use the built-in simulator instead of the kernel: hikey960 (the default), db410c or smp:N" "__complete: the first sentence of a global option's help"

# The bash completion script, as bash would call it.
bash_reply() {
	PATH="$(dirname "$TP"):$PATH" bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_thermpress
		printf "%s " "${COMPREPLY[@]}"' _ "$root/completions/thermpress.bash" thermpress "$@"
}
assert_eq "$(bash_reply sh)" "show shell " "bash: thermpress sh<TAB>"
assert_eq "$(bash_reply show st)" "status " "bash: thermpress show st<TAB>"
assert_eq "$(bash_reply --sim cap "")" "set clear hold restore play " "bash: after --sim"
assert_eq "$(bash_reply backend set p)" "pelt " "bash: backend names"
mkdir -p "$tmp/files/dir"
touch "$tmp/files/trace.csv" "$tmp/files/prof.txt"
assert_eq "$(cd "$tmp/files" && bash_reply record -o t)" "trace.csv " "bash: record -o completes file names"
assert_eq "$(cd "$tmp/files" && bash_reply cap play p)" "prof.txt " "bash: cap play completes file names"
assert_eq "$(cd "$tmp/files" && bash_reply --root "")" "dir " "bash: --root completes directories only"
assert_eq "$(cd "$tmp/files" && bash_reply record --format j)" "jsonl " "bash: record --format completes the formats"
assert_eq "$(cd "$tmp/files" && bash_reply record --interval "")" "500ms 2s 1.5s 250us " "bash: a duration's examples, no file names"
assert_eq "$(bash_reply show "")" "cpu backends status --json " "bash: descriptions dropped"
# readline replaces what follows the '=' (COMP_WORDBREAKS): the presets alone
assert_eq "$(bash_reply --sim=)" "hikey960 db410c smp: " "bash: --sim= completes the presets"
assert_eq "$(bash_reply --sim cap set "")" "all little big " "bash: a CPU list: all and the domains"
assert_eq "$(bash_reply --sim cap set big "")" "1800MHz 2.36GHz cap=600 60% " "bash: cap set big: VALUE's examples, not --via"
assert_eq "$(bash_reply sim advance "")" "500ms 2s 1.5s 250us " "bash: sim advance: DURATION's examples"

# zsh, for real: an interactive zsh under zpty with the script in its fpath.
command -v zsh >/dev/null || { fail "zsh is not installed (scripts/deps.sh installs it)"; finish; }
zsh_reply() {	# LINE: the matches zsh offers, space-separated
	(cd "$tmp/files" && PATH="$(dirname "$TP"):$PATH" timeout 30 \
		zsh -f "$E2E_DIR/zsh_complete.zsh" "$root/completions" "$*") | grep '^W:' | cut -c3- | tr '\n' ' '
}
zsh_shown() { (cd "$tmp/files" && PATH="$(dirname "$TP"):$PATH" timeout 30 \
	zsh -f "$E2E_DIR/zsh_complete.zsh" "$root/completions" "$*") | grep '^D:' | cut -c3-; }
assert_eq "$(zsh_reply thermpress sh)" "show shell " "zsh: thermpress sh<TAB>"
assert_eq "$(zsh_reply thermpress show "")" "cpu backends status --json " "zsh: show <TAB>"
b=$(zsh_shown thermpress show "")
assert_contains "$b" "cpu      -- show the listed CPUs only" "zsh: descriptions, aligned"
assert_contains "$b" "--json   -- print the result as JSON" "zsh: an option's description"
assert_eq "$(zsh_reply thermpress --sim=)" "--sim=hikey960 --sim=db410c --sim=smp: " "zsh: --sim= completes the presets"
assert_eq "$(zsh_reply thermpress --sim cap set "")" "all little big " "zsh: a CPU list: all and the domains"
assert_eq "$(zsh_reply thermpress --sim cap set all 50% --via "")" "scaling_max_freq cooling " "zsh: --via: the methods"
assert_eq "$(zsh_reply thermpress cap play p)" "prof.txt " "zsh: cap play completes file names"
assert_eq "$(zsh_reply thermpress record -o t)" "trace.csv " "zsh: record -o completes file names"
assert_eq "$(zsh_reply thermpress --root "")" "dir " "zsh: --root completes directories only"
# the next argument with its examples: zsh's _message under the line
zsh_screen() { (cd "$tmp/files" && PATH="$(dirname "$TP"):$PATH" timeout 30 \
	zsh -f "$E2E_DIR/zsh_complete.zsh" "$root/completions" "$*") | grep '^S:' | cut -c3-; }
b=$(zsh_screen thermpress --sim cap set big "")
assert_contains "$b" "VALUE: 1800MHz, 2.36GHz, cap=600, 60%" "zsh: cap set big <TAB> shows VALUE with its examples"
assert_eq "$(zsh_reply thermpress --sim cap set big "")" "" "zsh: cap set big <TAB>: no --via, no example inserted"
assert_contains "$(zsh_screen thermpress --sim cap set "")" "CPULIST: 0-3, 0,2,4-7, big, all" "zsh: cap set <TAB> shows CPULIST with its examples"
assert_contains "$(zsh_screen thermpress sim advance "")" "DURATION: 500ms, 2s, 1.5s, 250us" "zsh: sim advance <TAB>: DURATION"
assert_contains "$(zsh_screen thermpress decay set "")" "VALUE: 250ms, 1s, 128" "zsh: decay set <TAB>: the decay period"

# fish, for real: complete -C with the script sourced.
command -v fish >/dev/null || { fail "fish is not installed (scripts/deps.sh installs it)"; finish; }
fish_complete() {	# LINE: fish's candidates, one a line (TAB, description)
	(cd "$tmp/files" && PATH="$(dirname "$TP"):$PATH" timeout 30 fish --no-config -c \
		'source $argv[1]; complete -C $argv[2]' "$root/completions/thermpress.fish" "$*")
}
fish_reply() { fish_complete "$@" | cut -f1 | tr '\n' ' '; }
assert_eq "$(fish_reply thermpress sh)" "shell show " "fish: thermpress sh<TAB>"
assert_contains "$(fish_complete thermpress show "")" "cpu	show the listed CPUs only" "fish: descriptions"
assert_eq "$(fish_reply thermpress --sim=)" "--sim=db410c --sim=hikey960 --sim=smp: " "fish: --sim= completes the presets"
assert_eq "$(fish_reply thermpress --sim cap set "")" "all big little " "fish: a CPU list: all and the domains"
assert_eq "$(fish_reply thermpress cap play p)" "prof.txt " "fish: cap play completes file names"
assert_eq "$(fish_reply thermpress record -o t)" "trace.csv " "fish: record -o completes file names"
assert_eq "$(fish_reply thermpress --root "")" "dir/ " "fish: --root completes directories only"
# fish shows no message: VALUE's examples are offered, described by the argument's name
b=$(fish_complete thermpress --sim cap set big "")
for x in 1800MHz 2.36GHz cap=600 60%; do
	assert_contains "$b" "$x	example VALUE" "fish: cap set big <TAB> offers $x as VALUE's example"
done
assert_not_contains "$b" "--via" "fish: cap set big <TAB>: not --via"
assert_contains "$(fish_complete thermpress --sim cap set "")" "big	CPULIST" "fish: the domains described as CPULIST"
assert_contains "$(fish_complete thermpress sim advance "")" "500ms	example DURATION" "fish: sim advance: DURATION's examples"
assert_eq "$(fish_reply thermpress bench -- bas)" "$(fish -c 'complete -C "bas"' | cut -f1 | tr '\n' ' ')" "fish: bench -- completes commands"

# The man page, from the same table.
run "$TP" __man
assert_rc 0 "__man"
assert_match "$out" '^\.TH THERMPRESS 1 ' "man: .TH"
for c in "show" "show cpu" "show backends" "show status" "cap set" "cap clear" "backend set" \
	"decay set" "sim advance" "sim serve" "shell" "version" "help"; do
	assert_contains "$out" ".TP
\\fB$c\\fR" "man: documents $c"
done
assert_not_contains "$out" "__complete" "man: hides __complete"
if command -v groff >/dev/null; then
	printf '%s\n' "$out" | groff -man -Tutf8 -ww -z 2>"$tmp/groff" || true
	assert_eq "$(cat "$tmp/groff")" "" "man: groff -ww has no warnings"
fi

finish
