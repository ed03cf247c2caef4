# Helpers for the tmux-driven tests of `thermpress top` (sourced).
# Each test runs its own tmux server on a unique socket (-L) and kills it on exit.
set -u

TP=${THERMPRESS:-}
if [ -z "$TP" ] || [ ! -x "$TP" ]; then
	echo "skip: THERMPRESS does not name the built thermpress"
	exit 77
fi
if ! "$TP" help top >/dev/null 2>&1; then
	echo "skip: this thermpress has no top command (cmd/table.c does not list it yet)"
	exit 77
fi
command -v tmux >/dev/null || { echo "skip: no tmux"; exit 77; }

SOCK="tptui-$$-${0##*/}"
TMPD=$(mktemp -d)
fails=0
passes=0
cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

t() { tmux -L "$SOCK" "$@"; }

pass() { passes=$((passes + 1)); echo "ok - $1"; }
fail() {
	fails=$((fails + 1))
	echo "not ok - $1"
	if [ -f "$TMPD/last" ]; then sed 's/^/#   /' "$TMPD/last"; fi
}

# A pane running an interactive bash without rc files, in a 120x40 window.
start_shell() {
	t new-session -d -x "${1:-120}" -y "${2:-40}" \
		"env -i PATH=$PATH HOME=$TMPD TERM=screen-256color LANG=${TUI_LANG:-C.UTF-8} \
		 THERMPRESS_PLUGIN_DIR=$THERMPRESS_PLUGIN_DIR ${TUI_ENV:-} bash --norc --noprofile"
	t set-option -g status off
	sleep 0.2
}

capture() { t capture-pane -p >"$TMPD/last"; cat "$TMPD/last"; }

# wait_for TEXT [SECONDS]: until the pane shows TEXT (fixed string).
wait_for() {
	local deadline=$(($(date +%s) + ${2:-10}))
	while [ "$(date +%s)" -le "$deadline" ]; do
		if capture | grep -qF -- "$1"; then return 0; fi
		sleep 0.1
	done
	return 1
}

# wait_re REGEX [SECONDS]: until a line of the pane matches REGEX (extended)
wait_re() {
	local deadline=$(($(date +%s) + ${2:-10}))
	while [ "$(date +%s)" -le "$deadline" ]; do
		if capture | grep -qE -- "$1"; then return 0; fi
		sleep 0.1
	done
	return 1
}

# wait_gone TEXT [SECONDS]
wait_gone() {
	local deadline=$(($(date +%s) + ${2:-10}))
	while [ "$(date +%s)" -le "$deadline" ]; do
		if ! capture | grep -qF -- "$1"; then return 0; fi
		sleep 0.1
	done
	return 1
}

check() {	# check NAME COMMAND...
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

# The row of CPU N in the last capture.
SEL=$(printf '\342\226\266')
row() { sed "s/^$SEL/ /; s/^>/ /" "$TMPD/last" | grep -E "^ +$1 " | head -1; }

finish() {
	echo "$passes passed, $fails failed"
	[ "$fails" -eq 0 ]
}
