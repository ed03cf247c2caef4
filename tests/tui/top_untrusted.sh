#!/bin/bash
# thermpress top in tmux on a patched-kernel tree whose stats file names a domain with
# ill-formed UTF-8 and C1 controls (an 8-bit OSC title sequence ended by ST, C1 CSI; C0
# controls are refused by the stats parser, docs/abi.md): the row shows U+FFFD for each
# of them (as top --once does), the pane title stays, and none of those bytes reaches
# the terminal (tmux pipe-pane records what top writes).
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/../support/patched_tree.sh"
patched_tree "$TMPD/root" "$(printf 'lit\xfftle\xc2\x9d2;PWNED\xc2\x9c\xc2\x9b\x80')"
FFFD=$(printf '\357\277\275')

start_shell 120 30
t select-pane -T "before top"
t pipe-pane -o "cat >>'$TMPD/raw'"
t send-keys "\"$TP\" --root \"$TMPD/root\" top --interval 200ms; echo EXITED=\$?" Enter
check "top starts" wait_for "cpus 2-3" 10
check "the domain row shows U+FFFD for each bad byte and control" \
	grep -qF " lit${FFFD}tle${FFFD}2;PWNED${FFFD}${FFFD}${FFFD} cpus 0-1 " "$TMPD/last"
check "the pane title is unchanged" test "$(t display -p '#{pane_title}')" = "before top"
t send-keys q
check "q exits with 0" wait_for "EXITED=0" 5
t pipe-pane
check "top wrote no OSC, BEL, C1 or 0xff from the domain name" python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
sys.exit(b"PWNED" not in b or any(x in b for x in (b"\xc2\x9d", b"\xc2\x9c", b"\xc2\x9b", b"\xc2\x80", b"\xff")))
' "$TMPD/raw"

finish
