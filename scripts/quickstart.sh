#!/usr/bin/env bash
# Installs the dependencies, builds thermpress, and runs its main job on the built-in
# simulator: the per-CPU pressure of a hikey960 while its big cluster is capped, as
# each averaging backend sees it.  On a terminal it then opens the live view.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
tp=build/cmd/thermpress
export THERMPRESS_PLUGIN_DIR="$PWD/build/plugins"
"$tp" --sim --virtual-clock -f examples/quickstart.tp
