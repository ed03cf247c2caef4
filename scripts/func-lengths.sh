#!/usr/bin/env bash
# The longest C functions under the given directories (default cmd/), longest first:
# LINES FUNCTION FILE:LINE, lines counted from the definition's first line to its
# closing brace (Universal Ctags' end field).  With --max N, exits 1 when any function
# has N lines or more (tests/e2e/meson.build runs it over cmd/ with --max 80).
set -euo pipefail
max=0 top=10
while [ $# -gt 0 ]; do
	case $1 in
	--max) max=$2; shift 2 ;;
	--top) top=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- cmd
command -v ctags-universal >/dev/null && ctags=ctags-universal || ctags=ctags
command -v "$ctags" >/dev/null || { echo "func-lengths: ctags (universal-ctags) is missing: bash scripts/deps.sh" >&2; exit 77; }
list=$(find "$@" -name '*.c' -print0 | xargs -0 "$ctags" -x --c-kinds=f --_xformat='%N %F %n %e' |
	awk '$4 != "" { printf "%d %s %s:%d\n", $4 - $3 + 1, $1, $2, $3 }' | sort -k1,1nr -k2)
[ -n "$list" ] || { echo "func-lengths: no functions found in $*" >&2; exit 1; }
head -n "$top" <<<"$list"	# no pipe: head quitting early must not SIGPIPE printf (pipefail)
if [ "$max" -gt 0 ]; then
	over=$(printf '%s\n' "$list" | awk -v m="$max" '$1 >= m')
	if [ -n "$over" ]; then
		echo "func-lengths: functions of $max lines or more (split them into named steps):" >&2
		printf '%s\n' "$over" >&2
		exit 1
	fi
fi
