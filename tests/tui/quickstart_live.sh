#!/bin/bash
# The README's promise: on a terminal, scripts/quickstart.sh opens the live view after its
# tables (with the built binary: THERMPRESS, no install, no build), and q ends it.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

start_shell 120 40
t send-keys "THERMPRESS=$TP bash $SRC/scripts/quickstart.sh; echo EXITED=\$?" Enter
check "the tables, then the announcement of the live view" wait_for "Press Enter to open it" 20
check "the last table's caption is on screen" grep -q "^== The cap cleared" "$TMPD/last"
t send-keys Enter
check "the live view opens" wait_for "little cpus 0-3" 20
check "the live view runs the heat scenario" grep -q "simulator hikey960 (real clock, scenario heat)" "$TMPD/last"
t send-keys q
check "q ends it, and the script with status 0" wait_for "EXITED=0" 10
finish
