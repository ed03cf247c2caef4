#!/bin/bash
# SPDX-License-Identifier: MIT
# The tp_ prefix belongs to the library: outside core/ nothing defines a tp_ or TP_ name
# (functions, types, macros, compiler -D flags); the command, the live view, the
# formatting layer, the plugins and the tests only call the library's.  The kernel
# harness's tests/kernel/ is built by kernel/run.sh and checked there by hand.
# Usage: prefix.sh SOURCE_ROOT
set -u
cd "$1" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }

dirs="cmd tui fmt plugins tests"
files=$(find $dirs -path tests/kernel -prune -o \( -name '*.c' -o -name '*.h' \) -print | sort)
[ -n "$files" ] && ok "$(echo "$files" | wc -l) C files outside the library" || bad "no files found under $dirs"

# a definition starts its line: a function or variable, a type, a macro
defs=$(grep -nE '^#[[:space:]]*define[[:space:]]+(tp_|TP_)|^(struct|enum|union)[[:space:]]+tp_[A-Za-z0-9_]*[[:space:]]*\{|^typedef[^;]*[[:space:]*]tp_[A-Za-z0-9_]*;|^[A-Za-z][A-Za-z0-9_ *]*[[:space:]*]tp_[A-Za-z0-9_]*[[:space:]]*\([^;]*$' $files)
[ -z "$defs" ] && ok "no tp_ or TP_ name defined outside the library" \
	|| bad "tp_ or TP_ names defined outside the library:"$'\n'"$(printf '%s\n' "$defs" | sed 's/^/#   /')"

flags=$(find $dirs -path tests/kernel -prune -o -name meson.build -print | xargs grep -nE "'-D(TP_|tp_)")
[ -z "$flags" ] && ok "no -DTP_ flag outside the library" \
	|| bad "-DTP_ flags outside the library:"$'\n'"$(printf '%s\n' "$flags" | sed 's/^/#   /')"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
