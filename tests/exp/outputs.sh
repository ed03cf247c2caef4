#!/usr/bin/env bash
# Output files of record and replay (docs/experiments.md, "Output files"): a failed run
# leaves every pre-existing path as it was, devices and FIFOs are written in place,
# no temporary file is left behind.
source "$(dirname "$0")/../e2e/lib.sh"
cd "$tmp"
one_line() { assert_eq "$(printf '%s\n' "$err" | wc -l)" 1 "$1: one line on stderr"; }
# no temporary file of ours anywhere under the directory
no_temps() {
	local left
	left=$(find "$1" -name '.*.tmp*' | tr '\n' ' ')
	assert_eq "$left" "" "$2: no temporary file left"
}

mkdir w
printf 'old contents\n' >w/old.csv
cp w/old.csv w/expect

# ---- a device that fails every write: not removed, exit 1 ---------------------------------
if [ "$(id -u)" = 0 ]; then
	# a private copy of /dev/full: the old code unlinked its output on a write error
	mknod w/full c 1 7
	run "$TP" --sim record --duration 100ms -o w/full
	assert_eq "$rc" 1 "record -o full device: exit 1"
	one_line "record -o full device"
	assert_lines_match "$err" "^thermpress: .*No space left on device" "record -o full device: says why"
	if [ -c w/full ]; then pass "record -o full device: still a character device"
	else fail "record -o full device: the device node is gone"; fi
	printf '%s\n' "time_ns,cpu,pressure" "0,0,0" "10000000,0,500" >w/small.csv
	run "$TP" replay w/small.csv --backends instant -o w/full
	assert_eq "$rc" 1 "replay -o full device: exit 1"
	one_line "replay -o full device"
	if [ -c w/full ]; then pass "replay -o full device: still a character device"
	else fail "replay -o full device: the device node is gone"; fi
	run "$TP" replay w/small.csv --backends instant --plot w/full
	assert_eq "$rc" 1 "replay --plot full device: exit 1"
	if [ -c w/full ]; then pass "replay --plot full device: still a character device"
	else fail "replay --plot full device: the device node is gone"; fi
	rm -f w/full w/small.csv
else
	echo "# skipped the device tests: not root"
fi

# ---- a regular file keeps its old contents when the run fails after output started -------
run "$TP" --sim record -o w/old.csv -- /nonexistent/command
assert_eq "$rc" 1 "record with a command that cannot run: exit 1"
assert_eq "$(cat w/old.csv 2>&1)" "old contents" "record failing after output started: the old file is intact"

run "$TP" --sim record --duration 200ms -o w/t.csv
assert_eq "$rc" 0 "record a trace: exit 0"
run "$TP" replay w/t.csv --backends instant -o w/old.csv --plot w/nodir/plot.svg
assert_eq "$rc" 1 "replay with a plot that cannot be written: exit 1"
assert_eq "$(cat w/old.csv)" "old contents" "replay -o failing after output started: the old file is intact"
no_temps w "failed runs"

# ---- success replaces the file, keeps its permissions and a symbolic link ----------------
chmod 640 w/old.csv
run "$TP" replay w/t.csv --backends instant -o w/old.csv
assert_eq "$rc" 0 "replay -o over an existing file: exit 0"
assert_eq "$(head -1 w/old.csv)" "time_ns,cpu,backend,decay_ms,pressure,avg_pressure" "replay -o: replaced"
assert_eq "$(stat -c %a w/old.csv)" 640 "replay -o: the file keeps its permissions"
ln -s old.csv w/link.csv
run "$TP" --sim record --duration 100ms -o w/link.csv
assert_eq "$rc" 0 "record -o through a symbolic link: exit 0"
if [ -L w/link.csv ]; then pass "record -o: the symbolic link stays a link"
else fail "record -o: the symbolic link was replaced"; fi
assert_eq "$(head -1 w/old.csv)" "# thermpress trace 2" "record -o: the link's target has the trace"
ln -s missing.csv w/dangling.csv
run "$TP" --sim record --duration 100ms -o w/dangling.csv
assert_eq "$rc" 1 "record -o a link to nothing: exit 1"
assert_eq "$err" "thermpress: cannot write w/dangling.csv: a symbolic link to nothing" "record -o a link to nothing: message"
if [ -e w/missing.csv ]; then fail "record -o a link to nothing: created its target"
else pass "record -o a link to nothing: creates nothing"; fi
run "$TP" --sim record --duration 100ms -o w
assert_eq "$rc" 1 "record -o a directory: exit 1"
assert_eq "$err" "thermpress: cannot write w: it is a directory" "record -o a directory: message"
no_temps w "successful runs"

# ---- a FIFO is written in place ------------------------------------------------------------
mkfifo w/fifo
timeout 60 cat w/fifo >fifo.out &
reader=$!
run "$TP" --sim record --duration 100ms --format jsonl -o w/fifo
wait $reader || true
assert_eq "$rc" 0 "record -o FIFO: exit 0"
assert_lines_match "$(head -1 fifo.out)" '^\{"thermpress_trace":2,' "record -o FIFO: the reader got the trace"
if [ -p w/fifo ]; then pass "record -o FIFO: still a FIFO"; else fail "record -o FIFO: replaced"; fi
timeout 60 cat w/fifo >fifo2.out &
reader=$!
run "$TP" replay w/t.csv --backends instant -o w/fifo
wait $reader || true
assert_eq "$rc" 0 "replay -o FIFO: exit 0"
assert_eq "$(head -1 fifo2.out)" "time_ns,cpu,backend,decay_ms,pressure,avg_pressure" "replay -o FIFO: the reader got the rows"
# /dev/stdout is written in place too
assert_eq "$("$TP" replay w/t.csv --backends instant -o /dev/stdout | sed -n 1p)" \
	"time_ns,cpu,backend,decay_ms,pressure,avg_pressure" "replay -o /dev/stdout (a pipe): rows on standard output"
no_temps w "FIFO runs"

finish
