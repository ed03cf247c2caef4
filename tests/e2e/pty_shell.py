#!/usr/bin/env python3
"""Drive `thermpress ARGS shell` through a pseudo-terminal.

Usage: pty_shell.py THERMPRESS [ARGS...] < commands

Every stdin line is typed as is, with these escapes: \\t (TAB), \\? (? without a
newline), \\up (the up arrow), and \\r is appended unless the line ends with one of
the first three (such a partial line is then cleared with ^U).  A line ending with \\c
(^C) or \\l (^L) is typed with that key instead of \\r; one ending with \\r\\c is
entered, and ^C is typed once the command has started (its echoed newline seen, then a
pause for it to get going).  A line \\d types ^D and ends the session.  After each line
the output up to the next prompt is printed as

    >>> LINE
    output lines (CR removed)

and at the end `exit N` with the shell's exit status.
"""
import atexit
import os
import pty
import select
import shutil
import sys
import tempfile
import time

PROMPT = b"thermpress> "


def read_until(fd, pattern, timeout=10.0):
    buf = b""
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if not r:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        buf += data
        if pattern is not None and buf.endswith(pattern):
            return buf, True
    return buf, False


def main():
    exe, args = sys.argv[1], sys.argv[2:]
    # each session starts without history of its own (the shell keeps it under
    # XDG_STATE_HOME); the directory goes away with the session
    state = tempfile.mkdtemp(prefix="pty-shell-state.")
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["XDG_STATE_HOME"] = state
        os.execv(exe, [exe] + args + ["shell"])
    atexit.register(shutil.rmtree, state, True)
    banner, ok = read_until(fd, PROMPT)
    if not ok:
        sys.stdout.write(banner.decode(errors="replace"))
        print("\nno prompt")
        sys.exit(1)
    sys.stdout.write(banner.decode(errors="replace").replace("\r", ""))
    print()
    ended = False
    for line in sys.stdin.read().splitlines():
        data = line.encode()
        print(">>> " + line)
        if data == b"\\d":
            os.write(fd, b"\x04")
            out, _ = read_until(fd, None, 5.0)
            sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
            ended = True
            break
        if data.endswith(b"\\r\\c"):
            os.write(fd, data[:-4] + b"\r")
            out, _ = read_until(fd, b"\r\n")
            time.sleep(0.5)
            os.write(fd, b"\x03")
            more, _ = read_until(fd, PROMPT, 30.0)
            sys.stdout.write((out + more).decode(errors="replace").replace("\r", "") + "\n")
            continue
        if data.endswith(b"\\c") or data.endswith(b"\\l"):
            key = b"\x03" if data.endswith(b"\\c") else b"\x0c"
            out = b""
            if data[:-2]:  # the key once the line typed is on the screen
                os.write(fd, data[:-2])
                out, _ = read_until(fd, data[:-2])
            os.write(fd, key)
            # ^L: libcli redraws the prompt, then the line (written apart)
            more, _ = read_until(fd, PROMPT + data[:-2] if key == b"\x0c" else PROMPT)
            out += more
            sys.stdout.write(out.decode(errors="replace").replace("\r", "") + "\n")
            continue
        partial = False
        for esc, rep in ((b"\\t", b"\t"), (b"\\?", b"?"), (b"\\up", b"\x1b[A")):
            if data.endswith(esc):
                partial = True
            data = data.replace(esc, rep)
        if not partial:
            data += b"\r"
        os.write(fd, data)
        # After a partial line libcli redraws the prompt and the line; wait a moment.
        out, _ = read_until(fd, None if partial else PROMPT, 0.5 if partial else 10.0)
        if partial:
            os.write(fd, b"\x15")  # ^U: libcli clears the line typed so far
            more, _ = read_until(fd, None, 0.3)
            out += more
        text = out.decode(errors="replace").replace("\r", "")
        sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))
    if not ended:
        os.write(fd, b"quit\r")
        read_until(fd, None, 2.0)
    _, status = os.waitpid(pid, 0)
    print("exit %d" % (os.waitstatus_to_exitcode(status)))


main()
