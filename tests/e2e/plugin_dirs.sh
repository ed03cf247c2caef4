#!/usr/bin/env bash
# Where the binary finds its backend plugins: THERMPRESS_PLUGIN_DIR when set, else the
# build tree it runs from, else the installed directory; a failure says what was tried.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

build=$(cd "$(dirname "$TP")/.." && pwd)	# the binary is build/cmd/thermpress

run env -u THERMPRESS_PLUGIN_DIR "$TP" --sim show backends
assert_rc 0 "from its build tree, without THERMPRESS_PLUGIN_DIR"
assert_contains "$out" "decay" "from its build tree: the built plugins"

run env THERMPRESS_PLUGIN_DIR="$tmp/none" "$TP" --sim show
assert_rc 1 "THERMPRESS_PLUGIN_DIR naming nothing"
assert_contains "$err" "$tmp/none" "THERMPRESS_PLUGIN_DIR: the directory named"
assert_contains "$err" "(from THERMPRESS_PLUGIN_DIR)" "THERMPRESS_PLUGIN_DIR: says where it came from"

# A copy of the binary in another build tree (meson-private/ marks one) loads that
# tree's plugins: here only pelt.  Its library comes from the real tree.
mkdir -p "$tmp/tree/cmd" "$tmp/tree/meson-private" "$tmp/tree/plugins"
cp "$TP" "$tmp/tree/cmd/thermpress"
cp "$build/plugins/pelt.so" "$tmp/tree/plugins/"
copy() { env -u THERMPRESS_PLUGIN_DIR LD_LIBRARY_PATH="$build/core" "$tmp/tree/cmd/thermpress" "$@"; }
run copy --sim show backends
assert_rc 0 "another build tree"
assert_contains "$out" "pelt" "another build tree: its plugin"
assert_not_contains "$out" "decay" "another build tree: not the plugins it was built beside"

rm "$tmp/tree/plugins/pelt.so"
run copy --sim show
assert_rc 1 "a build tree without plugins"
assert_contains "$err" "$tmp/tree/plugins (build tree: no usable plugin)" "no plugins: the build tree's directory tried"
assert_match "$err" '/thermpress/plugins \(installed: [^)]+\); set THERMPRESS_PLUGIN_DIR to their directory' \
	"no plugins: the installed directory tried, the variable named"
assert_eq "$(printf '%s\n' "$err" | wc -l)" 1 "no plugins: one line"

# Not in a build tree at all: only the installed directory (absent here, or not).
rm -r "$tmp/tree/meson-private"
run copy --sim show
if [ "$rc" -ne 0 ]; then
	assert_not_contains "$err" "build tree" "outside a build tree: no build tree tried"
	assert_contains "$err" "installed:" "outside a build tree: the installed directory tried"
else
	pass "outside a build tree: the installed plugins were found"
fi

finish
