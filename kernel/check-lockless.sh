#!/bin/bash
# The series' lockless pairs, checked in the source: every field (or variable) that
# kernel/sched/thermal.c reads with READ_ONCE() must be written with WRITE_ONCE()
# everywhere in that file.  A plain write racing a READ_ONCE() reader is a data race
# (KCSAN's strict mode reports it), but KCSAN is blind to this file in practice: it
# samples accesses, and the tick's write of a given field is watched too seldom to
# meet a reader in a run of minutes.  This check sees every write.
#
# Writes to an object before it is published (rcu_assign_pointer()) have no reader
# yet; they are listed in ALLOWED below, each with its reason.
#
#   bash kernel/check-lockless.sh FILE...        one line per plain write; exit 1 if any
#   bash kernel/check-lockless.sh --selftest FILE
#       plants the two plain writes review found (log->nr at every logged tick, tp->avg
#       of the decay backend) in a copy of FILE and fails unless both are reported
#   bash kernel/check-lockless.sh --feeds FILE:FUNCTION...
#       the feeds take no lock: one line per lock taken in the body of FUNCTION in FILE
#       (spin, raw spin, rq, mutex, rw locks; the 6.1 series' feed took the rq lock of
#       every capped CPU, which deadlocks a caller holding one); exit 1 if any, 2 if a
#       function is not found
#
# Exit status: 0 no plain write; 1 plain writes found (or the self test missed one);
# 2 usage error.
set -euo pipefail
me=check-lockless.sh

# "field: line pattern: why" -- a plain write of FIELD on a line matching PATTERN is fine
ALLOWED=(
	"active:log->active = true;:the new log is not yet published (rcu_assign_pointer() follows)"
	"active:kept->active = false;:the log kept at log_cpu -1 is not yet published"
	"nr:kept->nr = log->nr;:the log kept at log_cpu -1 is not yet published"
	"tp_backend:tp_backend = backend;:set by the boot parameter, before other CPUs run"
)

# feed_locks FILE FUNCTION: "FILE:LINE: FUNCTION takes a lock: TEXT" for each lock taken in
# FUNCTION's body (from its definition line to the closing brace in column 0); status 2
# when FILE has no definition of FUNCTION
feed_locks() {
	awk -v file="$1" -v fn="$2" '
	$0 ~ "^[a-z].*[ *]" fn "\\(" && $0 !~ /;[ \t]*$/ { body = 1; found = 1 }
	body && /(spin_lock|_lock_irq|rq_lock|mutex_lock|read_lock|write_lock|down_read|down_write)[a-z_]*\(/ {
		x = $0; sub(/^[ \t]+/, "", x)
		printf "%s:%d: %s takes a lock: %s\n", file, NR, fn, x
	}
	body && /^}/ { body = 0 }
	END { if (!found) exit 2 }' "$1"
}

# plain_writes FILE: "FILE:LINE: plain write of FIELD: TEXT" for each offending line
plain_writes() {
	awk -v file="$1" -v allowed="$(printf '%s\n' "${ALLOWED[@]}")" '
	BEGIN { na = split(allowed, al, "\n") }
	{ line[NR] = $0 }
	END {
		# the fields read with READ_ONCE(): the last identifier of its argument
		for (i = 1; i <= NR; i++) {
			s = line[i]
			while ((p = index(s, "READ_ONCE(")) > 0) {
				s = substr(s, p + 10)
				depth = 1; arg = ""
				for (k = 1; k <= length(s) && depth > 0; k++) {
					c = substr(s, k, 1)
					if (c == "(") depth++
					else if (c == ")") depth--
					if (depth > 0) arg = arg c
				}
				# ->f or .f: a member, written as ->f or .f; else a variable
				if (match(arg, /(->|\.)[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)) {
					f = substr(arg, RSTART, RLENGTH); sub(/^(->|\.)[ \t]*/, "", f)
					sub(/[ \t]+$/, "", f)
					read_once[f] = "member"
				} else if (match(arg, /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)) {
					f = arg; gsub(/[ \t]/, "", f)
					if (!(f in read_once)) read_once[f] = "variable"
				}
			}
		}
		for (f in read_once) {
			# an assignment or increment of ->f, .f or the variable f, outside WRITE_ONCE()
			if (read_once[f] == "member") pre = "(->|\\.)[ \t]*"
			else pre = "([^A-Za-z0-9_>.]|^)"
			re = pre f "[ \t]*(=[^=]|[-+*/|&^]=|\\+\\+|--)"
			re2 = "(\\+\\+|--)[ \t]*[A-Za-z0-9_>.-]*(->|\\.)" f "([^A-Za-z0-9_]|$)"
			for (i = 1; i <= NR; i++) {
				t = line[i]
				if (t ~ /WRITE_ONCE\(/ || t ~ /^[ \t]*(\*|\/\*|\/\/)/) continue
				if (t ~ /^(static|extern)?[ \t]*(const[ \t]+)?(unsigned[ \t]+)?(bool|int|long|u32|u64|size_t|struct[ \t]+[a-z_]+)[ \t*]+[A-Za-z_]/ && t !~ /^[ \t]/) continue
				if (t !~ re && t !~ re2) continue
				ok = 0
				for (a = 1; a <= na; a++) {
					split(al[a], parts, ":")
					if (parts[1] == f && index(t, parts[2]) > 0) ok = 1
				}
				if (!ok) {
					x = t; sub(/^[ \t]+/, "", x)
					printf "%s:%d: plain write of %s, read with READ_ONCE(): %s\n", file, i, f, x
				}
			}
		}
	}' "$1" | sort -t: -k2,2n
}

if [ "${1:-}" = --selftest ]; then
	[ $# = 2 ] || { echo "usage: bash kernel/$me --selftest FILE" >&2; exit 2; }
	[ -f "$2" ] || { echo "$me: no such file: $2" >&2; exit 2; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	status=0
	for plant in 's/WRITE_ONCE(log->nr, log->nr + 1);/log->nr = log->nr + 1;/' \
		's/WRITE_ONCE(tp->avg, avg);/tp->avg = avg;/'; do
		sed "$plant" "$2" >"$tmp/thermal.c"
		if cmp -s "$2" "$tmp/thermal.c"; then
			echo "  FAIL lockless self test: '$plant' changes nothing in $2"
			status=1
		elif planted=${plant#*;/} && planted=${planted%/} &&
			out=$(plain_writes "$tmp/thermal.c" | grep -F -- "$planted") && [ -n "$out" ]; then
			echo "  ok lockless self test: '$planted' reported (${out#*: })"
		else
			echo "  FAIL lockless self test: '$plant' not reported"
			status=1
		fi
	done
	exit $status
fi

if [ "${1:-}" = --feeds ]; then
	shift
	[ $# -gt 0 ] || { echo "usage: bash kernel/$me --feeds FILE:FUNCTION..." >&2; exit 2; }
	status=0
	for ff in "$@"; do
		f=${ff%:*} fn=${ff##*:}
		[ -f "$f" ] || { echo "$me: no such file: $f" >&2; exit 2; }
		out=$(feed_locks "$f" "$fn") || { echo "$me: no function $fn in $f" >&2; exit 2; }
		if [ -n "$out" ]; then echo "$out"; status=1; fi
	done
	exit $status
fi

[ $# -gt 0 ] || { echo "usage: bash kernel/$me FILE... | --selftest FILE | --feeds FILE:FUNCTION..." >&2; exit 2; }
status=0
for f in "$@"; do
	[ -f "$f" ] || { echo "$me: no such file: $f" >&2; exit 2; }
	out=$(plain_writes "$f")
	if [ -n "$out" ]; then
		echo "$out"
		status=1
	fi
done
exit $status
