# Issue 24, reliability: nothing is silently lost while reading (long lines, NUL bytes,
# huge files refused with FILE:LINE and exit 2), nothing blocks on a file that is not a
# file (FIFOs and devices under --root, a FIFO as the textfile), output replacement never
# replaces what is not a regular file, and the kernel's protected_symlinks rule holds.
# Devices and foreign-owned links need root: those checks are skipped otherwise.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../support/patched_tree.sh"

FIX=$(cd "$E2E_DIR/../fixtures/stock" && pwd)
export THERMPRESS_STATE_DIR=$tmp/state
is_root=0
[ "$(id -u)" = 0 ] && is_root=1
RUN_TIMEOUT=20

# ---- §1: lines --------------------------------------------------------------------
"$TP" --sim --virtual-clock record --duration 100ms -o "$tmp/t.csv" 2>/dev/null
hdr=$(grep -n '^time_ns' "$tmp/t.csv" | cut -d: -f1)

# A line far past the limit, then valid rows: refused at that line, not read whole.
{ head -n "$((hdr + 1))" "$tmp/t.csv"; head -c 300000 /dev/zero | tr '\0' x; echo
  tail -n 2 "$tmp/t.csv"; } >"$tmp/long.csv"
run "$TP" replay "$tmp/long.csv"
assert_rc 2 "replay: an over-long trace line is a usage error"
assert_contains "$err" "long.csv:$((hdr + 2)): a line longer than 65536 bytes" "replay: FILE:LINE and the limit"

# A sparse trace: a header, one row, then NUL bytes without a newline (GNU time: bounded RSS).
head -n "$((hdr + 1))" "$tmp/t.csv" >"$tmp/sparse.csv"
truncate -s +300M "$tmp/sparse.csv"
run /usr/bin/env time -f '%M' -o "$tmp/rss" "$TP" replay "$tmp/sparse.csv"
assert_rc 2 "replay: a sparse trace of NULs is refused"
assert_match "$err" "sparse.csv:$((hdr + 2)): " "replay of a sparse trace: FILE:LINE"
if [ -s "$tmp/rss" ] && [ "$(tail -n1 "$tmp/rss")" -lt 65536 ]; then pass "replay of a sparse trace stays under 64 MB"
else fail "replay of a sparse trace: max RSS $(tail -n1 "$tmp/rss" 2>/dev/null) KB"; fi

# A backend column that is not a backend name (bytes that are not UTF-8) is refused, so
# that nothing is read which the JSON lines writer would write back differently.
{ head -n "$hdr" "$tmp/t.csv"; head -n "$((hdr + 1))" "$tmp/t.csv" | tail -n1 | sed "s/,pelt,/,pel$(printf '\xff')t,/"; } >"$tmp/badbe.csv"
run "$TP" replay "$tmp/badbe.csv"
assert_rc 2 "replay: a backend column with a byte that is not UTF-8"
assert_contains "$err" "badbe.csv:$((hdr + 1)): backend 'pel" "replay: the bad backend is named with FILE:LINE"
printf '{"thermpress_trace":2,"source":{"kind":"sim","description":"x\xc3"}}\n' >"$tmp/bad.jsonl"
run "$TP" replay "$tmp/bad.jsonl"
assert_rc 2 "replay: JSON lines with ill-formed UTF-8 in a string (RFC 8259)"
assert_contains "$err" "bad.jsonl:1: a string is not valid UTF-8" "replay: the ill-formed string is named"

# A NUL byte in a script line stops the script before it runs anything of that line.
printf 'cap set 0 50%%\0; cap set 1 40%%\nshow\n' >"$tmp/nul.tp"
run "$TP" --sim -f "$tmp/nul.tp"
assert_rc 2 "-f: a NUL byte in a script line"
assert_contains "$err" "nul.tp:1: a NUL byte in the line" "-f: the NUL is named with FILE:LINE"
assert_eq "$out" "" "-f: nothing of the script ran"

# A script line past the limit.
{ printf 'show # '; head -c 70000 /dev/zero | tr '\0' x; echo; } >"$tmp/long.tp"
run "$TP" --sim -f "$tmp/long.tp"
assert_rc 2 "-f: an over-long script line"
assert_contains "$err" "long.tp:1: a line longer than 65536 bytes" "-f: the long line is named"

# A NUL byte in a cap profile line: the same message, nothing played.
printf '0s, 0, 50%%\0 garbage\n1s, 0, clear\n' >"$tmp/nul.prof"
run "$TP" --sim --virtual-clock cap play "$tmp/nul.prof"
assert_rc 2 "cap play: a NUL byte in a profile line"
assert_contains "$err" "nul.prof:1: a NUL byte in the line" "cap play: the NUL is named with FILE:LINE"

# ---- §3: files that are not files --------------------------------------------------
PT=$tmp/patched
PD=$PT/sys/kernel/debug/sched/thermal_pressure
patched_tree "$PT" little
for f in stats version; do
	mv "$PD/$f" "$PD/$f.real"
	mkfifo "$PD/$f"
	run "$TP" --root "$PT" show
	assert_rc 1 "a FIFO as $f does not block"
	assert_contains "$err" "$f: not a regular file" "a FIFO as $f is named"
	rm "$PD/$f"
	mv "$PD/$f.real" "$PD/$f"
done

# inject as a FIFO that has a reader: opening it succeeds, writing a cap to it must not.
rm "$PD/inject"
mkfifo "$PD/inject"
exec 7<>"$PD/inject"
run "$TP" --root "$PT" cap set 0 50%
assert_rc 1 "a FIFO as inject is refused"
assert_contains "$err" "not a regular file" "a FIFO as inject is named"
exec 7>&-
rm "$PD/inject"
: >"$PD/inject"

# sim_clock as a FIFO: sim advance neither blocks nor writes to it.
mkfifo "$PD/sim_clock"
exec 7<>"$PD/sim_clock"
run "$TP" --root "$PT" sim advance 1s
assert_rc 1 "a FIFO as sim_clock is refused"
assert_contains "$err" "not a regular file" "a FIFO as sim_clock is named"
exec 7>&-
rm "$PD/sim_clock"

# A stock cpu_capacity that is a FIFO: show finishes.
cp -a "$FIX/arm64-biglittle-6.1" "$tmp/stock"
CAP0=$tmp/stock/sys/devices/system/cpu/cpu0/cpu_capacity
mv "$CAP0" "$CAP0.real"
mkfifo "$CAP0"
run "$TP" --root "$tmp/stock" show
if [ "$rc" -ne 124 ]; then pass "a FIFO as a stock cpu_capacity does not block (exit $rc)"
else fail "a FIFO as a stock cpu_capacity blocks"; fi
rm "$CAP0"
mv "$CAP0.real" "$CAP0"

if [ "$is_root" = 1 ]; then
	# /dev/zero as stats: refused at once, not read for a gigabyte.
	mv "$PD/stats" "$PD/stats.real"
	mknod "$PD/stats" c 1 5
	run /usr/bin/env time -f '%M' -o "$tmp/rss" "$TP" --root "$PT" show
	assert_rc 1 "a character device as stats"
	assert_contains "$err" "stats: not a regular file" "a character device as stats is named"
	rm "$PD/stats"
	mv "$PD/stats.real" "$PD/stats"
	# /dev/zero as the stock kernel's boot/config-*: not read (bounded memory).
	CFG=$(ls "$tmp/stock/boot/"config-*)
	mv "$CFG" "$tmp/config.real"
	mknod "$CFG" c 1 5
	run /usr/bin/env time -f '%M' -o "$tmp/rss" "$TP" --root "$tmp/stock" show
	if [ "$rc" -ne 124 ] && [ "$(tail -n1 "$tmp/rss")" -lt 65536 ]; then
		pass "a character device as boot/config-* is not read (max RSS $(tail -n1 "$tmp/rss") KB)"
	else fail "a character device as boot/config-*: exit $rc, max RSS $(tail -n1 "$tmp/rss") KB"; fi
	rm "$CFG"
	mv "$tmp/config.real" "$CFG"
fi

# A device named as the input: refused before reading (it was read as text up to a limit).
run "$TP" replay /dev/zero
assert_rc 1 "replay /dev/zero is refused"
assert_contains "$err" "cannot open /dev/zero: not a regular file" "replay: the device is named"
run "$TP" --sim --virtual-clock cap play /dev/zero
assert_rc 1 "cap play /dev/zero is refused"
assert_contains "$err" "cannot open /dev/zero: not a regular file" "cap play: the device is named"
run "$TP" --sim -f /dev/zero
assert_rc 1 "-f /dev/zero is refused"
assert_contains "$err" "not a regular file" "-f: the device is named"

# export --textfile DIR where DIR/thermpress.prom is a FIFO: an error at once, no block.
mkdir "$tmp/tf"
mkfifo "$tmp/tf/thermpress.prom"
set +e	# by hand: a process blocked in open() ignores SIGTERM, so timeout -k
timeout -k 2 10 "$TP" --sim export --textfile "$tmp/tf" --interval 1s >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
set -e
err=$(cat "$tmp/err")
assert_rc 1 "export --textfile: a FIFO as thermpress.prom does not block"
assert_contains "$err" "thermpress.prom is not a regular file" "export --textfile: the FIFO is named"

# ---- §3: output replacement ----------------------------------------------------------
if [ "$is_root" = 1 ]; then
	# A device node appears at the -o path during the run: it stays, the run fails.
	rm -f "$tmp/race.csv"
	"$TP" --sim record --duration 1500ms -o "$tmp/race.csv" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	sleep 0.5
	mknod "$tmp/race.csv" c 1 3
	set +e; wait "$pid"; rc=$?; set -e
	err=$(cat "$tmp/err")
	assert_rc 1 "record -o: a device node that appeared meanwhile is not replaced"
	if [ -c "$tmp/race.csv" ]; then pass "the device node is still there"
	else fail "the device node was replaced"; fi
	assert_contains "$err" "not a regular file" "record -o race: the reason is named"
	rm -f "$tmp/race.csv"

	# A regular file replaced by a device node during the run: the same.
	echo old >"$tmp/race2.csv"
	"$TP" --sim record --duration 1500ms -o "$tmp/race2.csv" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	sleep 0.5
	rm "$tmp/race2.csv"
	mknod "$tmp/race2.csv" c 1 3
	set +e; wait "$pid"; rc=$?; set -e
	assert_rc 1 "record -o: a file replaced by a device node meanwhile is not replaced"
	if [ -c "$tmp/race2.csv" ]; then pass "that device node is still there"
	else fail "that device node was replaced"; fi
	if ls -a "$tmp" | grep -q '^\.race'; then fail "a temporary file was left behind"
	else pass "no temporary file left behind"; fi
	rm -f "$tmp/race2.csv"

	# A symbolic link planted by another user in a sticky, world-writable directory.
	mkdir -m 1777 "$tmp/sticky"
	echo victim >"$tmp/victim"
	ln -s "$tmp/victim" "$tmp/sticky/trace.csv"
	chown -h nobody "$tmp/sticky/trace.csv"
	run "$TP" --sim --virtual-clock record --duration 100ms -o "$tmp/sticky/trace.csv"
	assert_rc 1 "-o: a foreign link in a sticky directory is refused"
	assert_contains "$err" "fs.protected_symlinks" "-o: the kernel's rule is named"
	assert_eq "$(cat "$tmp/victim")" "victim" "-o: the link's target is untouched"
	# the same link owned by the directory's owner is followed, as the kernel would
	chown -h root "$tmp/sticky/trace.csv"
	run "$TP" --sim --virtual-clock record --duration 100ms -o "$tmp/sticky/trace.csv"
	assert_rc 0 "-o: a link owned by the directory's owner is followed"
fi

# ---- §1: show status and damaged state records ---------------------------------------
cp -a "$FIX/arm64-biglittle-6.1" "$tmp/stock2"
mkdir -p "$tmp/stock2/run/thermpress"
chmod 700 "$tmp/stock2/run/thermpress"
printf 'thermpress-caps 2\nroot %s\nscaling_max_freq 0 notanumber 5\n' "$(realpath "$tmp/stock2")" \
	>"$tmp/stock2/run/thermpress/caps.state"
run env -u THERMPRESS_STATE_DIR "$TP" --root "$tmp/stock2" show status
assert_rc 0 "show status with a damaged state record"
assert_contains "$out" "pending:           1 damaged record was left out: the caps it held are unknown" \
	"show status: a damaged record is counted, never 'none'"

# ---- §5 -----------------------------------------------------------------------------
# a stock state record the kernel would refuse (a cooling state above max_state): reported
# once as damaged and dropped, and cap restore puts back the rest
cp -a "$FIX/arm64-biglittle-6.1" "$tmp/stock3"
mkdir -p "$tmp/stock3/run/thermpress"
chmod 700 "$tmp/stock3/run/thermpress"
echo 500000 >"$tmp/stock3/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq"
cur0=$(cat "$tmp/stock3/sys/class/thermal/cooling_device0/cur_state")
printf 'thermpress-caps 2\nroot %s\ncur_state 0 999999 1\nscaling_max_freq 4 1000000 500000\n' \
	"$(realpath "$tmp/stock3")" >"$tmp/stock3/run/thermpress/caps.state"
run env -u THERMPRESS_STATE_DIR "$TP" --root "$tmp/stock3" cap restore
assert_rc 0 "stock cap restore with a refused record: the rest is restored"
assert_contains "$err" "a record was refused and left out: cooling_device0's state 999999 is above its max_state" \
	"stock cap restore: the refused record is said"
assert_eq "$(cat "$tmp/stock3/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq")" 1000000 \
	"stock cap restore: the intact record is put back"
assert_eq "$(cat "$tmp/stock3/sys/class/thermal/cooling_device0/cur_state")" "$cur0" \
	"stock cap restore: the refused state is not written"
run env -u THERMPRESS_STATE_DIR "$TP" --root "$tmp/stock3" cap restore
assert_rc 0 "stock cap restore again: the refused record is gone"
assert_eq "$out$err" "nothing to restore" "stock cap restore again: nothing left, no warning"

run "$TP" --sim --virtual-clock sim advance 18446744073709551615ns
assert_rc 2 "sim advance past the limit is a usage error"
assert_contains "$err" "1 ns to 1 day" "sim advance: the valid range is named"

finish
