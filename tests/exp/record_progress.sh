#!/usr/bin/env bash
# record's progress line on a terminal (issue 28 §5): with --duration it gives the total
# and the time left; with a COMMAND (no known total) the time and samples only; an
# interrupted recording's one line counts in the word the progress line uses.
E2E_DEFAULT_SIGNALS=1
source "$(dirname "$0")/../e2e/lib.sh"
cd "$tmp"
# on_pty SECONDS ARGS...: thermpress ARGS on a pseudo-terminal; SIGINT after SECONDS
# (0: none); its output (CR and erase-line as newlines), then "exit N"
on_pty() {
	python3 - "$TP" "$@" <<'PY'
import os, pty, select, signal, sys, time
exe, after, args = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(exe, [exe] + args)
out, end, sent = b"", time.time() + 30, False
while time.time() < end:
    if after and not sent and time.time() > end - 30 + after:
        os.kill(pid, signal.SIGINT)
        sent = True
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
_, st = os.waitpid(pid, 0)
text = out.decode(errors="replace").replace("\x1b[K", "\n").replace("\r", "\n")
print("\n".join(l for l in text.split("\n") if l))
print("exit %d" % (128 + os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st)))
PY
}

# a known duration: the total and the time left (the virtual clock: no waiting)
out=$(on_pty 0 --sim --virtual-clock record --duration 3s -o v.csv)
assert_lines_match "$out" '^recording: 1\.000 s of 3\.000 s, [0-9]+ samples, 2\.000 s left$' \
	"record --duration 3s: progress with the total and the time left"
assert_lines_match "$out" '^recording: 3\.000 s of 3\.000 s, [0-9]+ samples, 0\.000 s left$' \
	"record --duration 3s: the last progress line, nothing left"
assert_lines_match "$out" '^exit 0$' "record --duration 3s on a terminal: exit 0"

# interrupted on the real clock: progress and the summary use one word
out=$(on_pty 1.5 --sim record --duration 60s --interval 100ms -o i.csv)
assert_lines_match "$out" '^recording: [0-9.]+ s of 60\.000 s, [0-9]+ samples?, [0-9.]+ s left$' \
	"record --duration 60s: progress with the total and the time left"
assert_lines_match "$out" '^thermpress: record interrupted: [0-9]+ samples? over [0-9.]+ s kept in i\.csv$' \
	"record interrupted: the summary line"
pword=$(grep -E '^recording: ' <<<"$out" | tail -1 | sed -E 's/.*, [0-9]+ ([a-z]+)(,.*)?$/\1/')
iword=$(grep -E 'record interrupted: ' <<<"$out" | sed -E 's/.*interrupted: [0-9]+ ([a-z]+) over.*/\1/')
assert_eq "${pword%s}" "${iword%s}" "the progress line and the interrupted line count the same thing"
assert_lines_match "$out" '^exit 130$' "record interrupted: exit 130"

# while a command runs there is no known total
out=$(on_pty 0 --sim record --interval 100ms -o c.csv -- sleep 0.5)
assert_lines_match "$out" '^recording: [0-9.]+ s, [0-9]+ samples?$' \
	"record -- COMMAND: progress with the time and samples only"
assert_lines_match "$out" '^exit 0$' "record -- COMMAND on a terminal: exit 0"
finish
