#!/usr/bin/env bash
# The man page and the documents: the man page describes the stock-kernel fallback and
# every environment variable the code reads, and names the directory meson installs docs/
# into (every document is installed there); README.md and docs/ link nowhere outside the
# repository.  $1: the build directory (for meson introspect).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

SRC=$(cd "$E2E_DIR/../.." && pwd)
BUILD=$1
man=$("$TP" __man)
section() { awk -v s=".SH $1" '/^\.SH/ { on = ($0 == s) } on' <<<"$man"; }

# every getenv of the programs (not the tests), by name or through a #define
envs=$(cd "$SRC" && grep -rhoE 'getenv\(("[A-Za-z_]+"|[A-Z_]+)\)' cmd core tui fmt export util plugins |
	sed -E 's/getenv\(("?)([A-Za-z_]+)"?\)/\1\2/' | sort -u |
	while read -r v; do
		case $v in
		\"*) echo "${v#\"}" ;;
		*) grep -rhE "^#define $v \"" cmd core tui fmt export util plugins | awk '{print $3}' | tr -d '"' ;;
		esac
	done | sort -u)
[ "$(wc -w <<<"$envs")" -ge 8 ] && pass "found the environment variables read ($(wc -w <<<"$envs"))" ||
	fail "too few getenv calls found: $envs"
env_section=$(section ENVIRONMENT)
for v in $envs LC_ALL LC_CTYPE LANG; do	# the locale: setlocale(LC_ALL, "") in top
	assert_contains "$env_section" "$v" "man ENVIRONMENT: $v"
done

# the stock-kernel fallback, as core/stock/README.md describes it
sources=$(section SOURCES | tr '\n' ' ')
for phrase in "reads the stock kernel instead" "On x86 and before Linux 5.7" \
	"there is no average" "averaged by PELT" "From 6.10" "with BPF" "Otherwise it estimates it" \
	"marked ~" "kernel average:" "cannot be changed"; do
	assert_contains "$sources" "$phrase" "man SOURCES: the stock fallback says \"$phrase\""
done

# the installed documents: where the man page says, every one of docs/*.md and README.md
docdir=$(section "SEE ALSO" | sed -nE 's/.*installed in \\fI([^\\]+)\\fR.*/\1/p')
assert_match "$docdir" '^/.+/doc/thermpress$' "man SEE ALSO: names the doc directory ($docdir)"
installed=$(meson introspect "$BUILD" --installed)
for f in "$SRC"/docs/*.md "$SRC"/README.md; do
	name=$(basename "$f")
	got=$(python3 -c 'import json, os, sys
d = json.load(sys.stdin)
print(*[v for k, v in d.items() if os.path.realpath(k) == os.path.realpath(sys.argv[1])])' "$f" <<<"$installed")
	assert_eq "$got" "$docdir/$name" "meson installs $name into the doc directory"
	[ "$name" = README.md ] && continue
	assert_contains "$(section "SEE ALSO")" "$name" "man SEE ALSO: names $name"
done

# no link outside the repository: no URL but the exporter's own loopback address
links=$(cd "$SRC" && grep -nE '[a-z]+://' README.md docs/*.md |
	grep -vE '://(127\.0\.0\.1|localhost)[:/]' || true)
assert_eq "$links" "" "README.md and docs/ link nowhere outside the repository"

finish
