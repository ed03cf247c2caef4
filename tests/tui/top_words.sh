#!/bin/bash
# One word per concept (docs/values.md): top's column header calls the scheduler's capacity
# `capacity` (never `cap`, which is capping: `c`, `cap=600`), and the `c` prompt and the help
# call `cap=600` a capped capacity.
. "$(dirname "$0")/lib.sh"

LC_ALL=C COLUMNS=120 "$TP" --sim --virtual-clock top --once >"$TMPD/once" 2>&1
sed -n 3p "$TMPD/once" >"$TMPD/last"
check "--once header: capacity, MHz capped/max, min MHz, pres, avg" \
	grep -qE ' capacity +MHz capped/max +min MHz +pres +avg$' "$TMPD/last"
check "--once header: no bare 'cap' column" bash -c "! grep -qwE 'cap' '$TMPD/last'"
LC_ALL=C COLUMNS=80 "$TP" --sim=db410c --virtual-clock top --once >"$TMPD/once80" 2>&1
sed -n 3p "$TMPD/once80" >"$TMPD/last"
check "--once header at 80 columns: capacity" \
	grep -qE ' capacity +MHz capped/max +min MHz +pres +avg$' "$TMPD/last"

start_shell 120 40
t send-keys "clear; \"$TP\" --sim --virtual-clock top ; echo EXITED=\$?" Enter
check "top starts" wait_for "clock " 10
t send-keys Down c
check "c prompt: cap=600 is a capped capacity" wait_for "capped capacity cap=600" 5
t send-keys Escape
check "prompt closes" wait_gone "capped capacity cap=600" 5
t send-keys '?'
check "help: cap=600 is a capped capacity" wait_for "a capped capacity (cap=600)" 5
t send-keys q
t send-keys q
wait_for "EXITED=0" 5 >/dev/null || true

finish
