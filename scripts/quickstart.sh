#!/usr/bin/env bash
# Installs the dependencies, builds thermpress, and runs its main job on the built-in
# simulator: the per-CPU pressure of a hikey960 while its big cluster is capped, as
# each averaging backend sees it, each table under a caption saying what it shows (the
# comment before it in examples/quickstart.tp).  On a terminal it then opens the live
# view (q quits).
# THERMPRESS=BINARY uses that built thermpress instead of installing and building (the
# tests run the script so).
set -euo pipefail
cd "$(dirname "$0")/.."
tp=${THERMPRESS:-}
if [ -z "$tp" ]; then
	# what building and running needs; scripts/test.sh installs the rest
	THERMPRESS_DEPS_RUN=1 bash scripts/deps.sh
	[ -d build ] || meson setup build >/dev/null
	ninja -C build >/dev/null
	tp=build/cmd/thermpress
	export THERMPRESS_PLUGIN_DIR="$PWD/build/plugins"
fi
script=examples/quickstart.tp

# The captions: the comment lines since the previous show, one caption per show (lines
# joined by \036); the file's first block, ended by a blank line, is about the file.
captions=$(awk '/^#/ { sub(/^# ?/, ""); c = c (c != "" ? "\036" : "") $0; next }
	/^$/ { c = ""; next }
	$1 == "show" { print c; c = "" }' "$script")
# Every table starts with its "source:" line: its caption goes just before it.
"$tp" --sim --virtual-clock -f "$script" |
	awk -v caps="$captions" 'BEGIN { split(caps, cap, "\n") }
	/^source: / {
		if (k++) print ""
		n = split(cap[k], line, "\036")
		for (i = 1; i <= n; i++)
			print (i == 1 ? "== " : "   ") line[i]
	}
	{ print }'

# The live view takes the whole screen: opened when the reader has read the tables.
if [ -t 0 ] && [ -t 1 ]; then
	echo
	echo "== Next, the live view (thermpress --sim top --scenario heat): the simulated chip heats"
	echo "   up under load, and a thermal governor caps the big cluster above 70 C.  q quits it."
	read -rp "Press Enter to open it (Ctrl-C: stop here) " _
	exec "$tp" --sim top --scenario heat
fi
