#!/bin/bash
# SPDX-License-Identifier: MIT
# The library boundary: libthermpress exports exactly the functions and data its public
# headers declare (core/include/thermpress/), every one with the tp_ prefix, and its
# pkg-config file asks consumers for nothing beyond the library itself.
# Usage: exports.sh LIBTHERMPRESS_SO INCLUDE_DIR PC_FILE
set -u
so=$1 inc=$2 pc=$3
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }

exported=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort)
count=$(printf '%s\n' "$exported" | grep -c .)
[ "$count" -gt 0 ] && ok "$count symbols exported" || bad "no symbols exported from $so"

unprefixed=$(printf '%s\n' "$exported" | grep -v '^tp_' | tr '\n' ' ')
[ -z "$unprefixed" ] && ok "every exported symbol has the tp_ prefix" \
	|| bad "exported without the tp_ prefix: $unprefixed"

undeclared=
for sym in $exported; do
	grep -qw -- "$sym" "$inc"/thermpress/*.h || undeclared="$undeclared $sym"
done
[ -z "$undeclared" ] && ok "every exported symbol is declared in a public header" \
	|| bad "exported but in no public header:$undeclared"

# internal names the library used to export (tpsim_*, stock_*, exp_*) stay inside
leaked=$(printf '%s\n' "$exported" | grep -E '^(tpsim_|stock_|exp_)' | tr '\n' ' ')
[ -z "$leaked" ] && ok "no internal helper exported" || bad "internal helpers exported: $leaked"

private=$(grep -E '^(Requires|Requires\.private|Libs\.private):' "$pc" | tr '\n' ' ')
[ -z "$private" ] && ok "the pkg-config file needs nothing but the library" \
	|| bad "the pkg-config file pulls in: $private"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
