#!/usr/bin/env bash
# ? and TAB after a command's arguments, on a real terminal (tmux): the shell shows the
# argument that comes next with its kind's examples (cap set big ?: VALUE: 1800MHz, ...),
# and bash's completion, in a clean `bash --norc` with only thermpress's script sourced
# (no bash-completion), completes --sim=<TAB> and the next argument's examples; then the
# same with bash-completion loaded, when it is installed.
. "${TUI_TEST_DIR:-$(dirname "$0")}/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
bindir=$(cd "$(dirname "$TP")" && pwd)

# send KEYS...: after clearing the screen and the line
send() { t send-keys C-u C-l; sleep 0.2; t send-keys "$@"; }
# the pane's lines, trailing blanks dropped
screen() { capture | sed 's/ *$//'; }

start_shell 120 40
t send-keys "PS1='$ '; PATH=$bindir:\$PATH; unset HISTFILE" Enter
t send-keys "thermpress --sim shell" Enter
check "the shell starts" wait_for "thermpress>"

value='VALUE: 1800MHz, 2.36GHz, cap=600, 60%'
send "cap set big ?"
check "shell: cap set big ? shows VALUE with its examples" wait_for "  $value"
check "shell: cap set big ? keeps the line" wait_re '^thermpress> cap set big *$'
send "cap set big " Tab
check "shell: cap set big TAB shows VALUE with its examples" wait_for "  $value"
check "shell: cap set big TAB offers no --via" eval '! screen | grep -q -- --via'
send "cap set big 6" Tab
check "shell: cap set big 6 TAB: still VALUE" wait_for "  $value"
send "cap set ?"
check "shell: cap set ? keeps the synopsis" wait_for "<CPULIST VALUE [--via scaling_max_freq|cooling]>"
check "shell: cap set ? shows CPULIST with its examples" wait_for "  CPULIST: 0-3, 0,2,4-7, big, all"
send "cap set " Tab
check "shell: cap set TAB shows CPULIST with its examples" wait_for "  CPULIST: 0-3, 0,2,4-7, big, all"
check "shell: cap set TAB lists the domains" wait_re '^all +little +big$'
send "show cpu ?"
check "shell: show cpu ? shows CPULIST" wait_for "  CPULIST: 0-3, 0,2,4-7, big, all"
send "cap clear ?"
check "shell: cap clear ? shows CPULIST" wait_for "  CPULIST: 0-3, 0,2,4-7, big, all"
send "sim advance ?"
check "shell: sim advance ? shows DURATION" wait_for "  DURATION: 500ms, 2s, 1.5s, 250us"
send "decay set " Tab
check "shell: decay set TAB shows the decay period" wait_for "  VALUE: 250ms, 1s, 128"
send "backend set pelt decay ?"
check "shell: backend set NAME decay ? shows its VALUE" wait_for "  decay VALUE: 250ms, 1s, 128"
send "backend set ?"
check "shell: backend set ? shows the backends" wait_for "  NAME: instant, pelt, decay, none"
# what libcli answers stays its own
send "show ?"
check "shell: show ? lists the subcommands" wait_re '^  status +show the source'
send "help ?"
check "shell: help ? keeps [COMMAND] and <cr>" wait_for "  <cr>"
# the line goes on after a ?
send "cap set big ?"
wait_for "  $value" >/dev/null
t send-keys "50%" Enter
sleep 0.5
send "show status" Enter
check "shell: the line typed after ? runs" wait_re 'capped cpus: +4-7'
t send-keys C-u "quit" Enter
check "the shell ends" wait_re '^\$ *$'

# bash_checks WHAT: bash's completion in the pane (thermpress's script sourced).
bash_checks() {
	send "thermpress --sim=" Tab Tab
	check "bash ($1): --sim=<TAB><TAB> lists the presets" wait_re '^db410c +hikey960 +smp:$'
	send "thermpress --sim=hi" Tab
	check "bash ($1): --sim=hi<TAB> completes hikey960" wait_re '^\$ thermpress --sim=hikey960 *$'
	send "thermpress --sim=sm" Tab
	check "bash ($1): --sim=sm<TAB> completes smp: without a space" wait_re '^\$ thermpress --sim=smp:$'
	send "thermpress --sim=hikey960 cap set bi" Tab
	check "bash ($1): after --sim=PRESET, the preset's domains" \
		wait_re '^\$ thermpress --sim=hikey960 cap set big *$'
	send "thermpress --sim cap set big " Tab Tab
	check "bash ($1): cap set big <TAB><TAB> lists VALUE's examples" \
		wait_re '^1800MHz +2.36GHz +60% +cap=600$'
	check "bash ($1): cap set big <TAB><TAB>: not --via" eval '! screen | grep -q -- --via'
	send "thermpress --sim cap set big cap=" Tab
	check "bash ($1): cap=<TAB> completes cap=600" wait_re '^\$ thermpress --sim cap set big cap=600 *$'
	send "thermpress sim advance " Tab Tab
	check "bash ($1): sim advance <TAB><TAB> lists DURATION's examples" \
		wait_re '^1.5s +250us +2s +500ms$'
	send "thermpress --sim cap set " Tab Tab
	check "bash ($1): cap set <TAB><TAB> lists all and the domains" wait_re '^all +big +little$'
	send "thermpress --sim show c" Tab
	check "bash ($1): show c<TAB> completes cpu" wait_re '^\$ thermpress --sim show cpu *$'
}

t send-keys "source $root/completions/thermpress.bash" Enter
t send-keys "declare -F _init_completion >/dev/null || echo no-bash-completion" Enter
check "bash --norc: no bash-completion loaded" wait_for "no-bash-completion"
bash_checks "no bash-completion"

bc=/usr/share/bash-completion/bash_completion
if [ -f "$bc" ]; then
	t send-keys C-u "source $bc; source $root/completions/thermpress.bash" Enter
	t send-keys "declare -F _init_completion >/dev/null && echo with-bash-completion" Enter
	check "bash-completion loaded" wait_for "with-bash-completion"
	bash_checks "bash-completion"
else
	echo "# bash-completion is not installed ($bc): its part is left out"
fi

finish
