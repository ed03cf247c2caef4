#!/bin/bash
# The interactive shell keeps its history across sessions (issue 28 §5), as bash and psql
# do: in $XDG_STATE_HOME/thermpress/shell_history, else ~/.local/state/thermpress/ (the
# pane's HOME is $TMPD), written at the end of a session in which a line was entered,
# recalled with the up arrow in the next one.  A damaged, oversize or untrusted file is
# ignored with one warning and never written over; scripts and a shell whose standard
# input is not a terminal write nothing.
. "$(dirname "$0")/lib.sh"

DIR=$TMPD/.local/state/thermpress
HIST=$DIR/shell_history

# shell [ENV=VALUE...]: a shell session in the pane, its stderr in $TMPD/err
shell() {
	t send-keys "clear; env $* \"$TP\" --sim shell 2>$TMPD/err; echo EXITED=\$?" Enter
	wait_for "thermpress>" 10
}
type_line() { t send-keys "$1" Enter; sleep 0.3; }
quit() { type_line quit; wait_for "EXITED=0" 10; }
same_file() { cmp -s "$1" "$2"; }
one_warning() {	# one_warning REGEX: $TMPD/err is exactly one warning line matching it
	[ "$(wc -l <"$TMPD/err")" -eq 1 ] && grep -qE "^thermpress: warning: .*$1" "$TMPD/err"
}

start_shell 120 40

# ---- session 1: nothing before; its lines are saved at its end
check "session 1 starts" shell
t send-keys Up
sleep 0.3
check "session 1: no history to recall" wait_re "^thermpress>$" 2
type_line "cap set big 50%"
type_line "show status"
check "session 1 ends" quit
check "no warning" test ! -s "$TMPD/err"
check "the history file is made" test -f "$HIST"
printf '%s\n' "thermpress-history 1" "cap set big 50%" "show status" "quit" >"$TMPD/want"
check "it holds the session's lines, oldest first" same_file "$HIST" "$TMPD/want"
check "file 0600, directory 0700" test "$(stat -c %a "$HIST") $(stat -c %a "$DIR")" = "600 700"

# ---- session 2: the up arrow recalls session 1's lines
check "session 2 starts" shell
t send-keys Up
check "up: the last line of session 1" wait_re '^thermpress> quit$' 5
t send-keys Up
check "up again: the one before" wait_re '^thermpress> show status$' 5
t send-keys Up
check "up again: the first" wait_re '^thermpress> cap set big 50%$' 5
t send-keys C-u
type_line "history"
check "history lists session 1's lines" wait_re '^ +2  show status$' 5
type_line "show backends"
check "session 2 ends" quit
printf '%s\n' "show backends" "quit" >>"$TMPD/want"
check "session 2's lines are added" same_file "$HIST" "$TMPD/want"

# ---- XDG_STATE_HOME, when absolute, is where it goes
check "a session with XDG_STATE_HOME" shell "XDG_STATE_HOME=$TMPD/xdg"
type_line "show"
check "it ends" quit
check "the history is under XDG_STATE_HOME" grep -qx "show" "$TMPD/xdg/thermpress/shell_history"

# ---- a damaged file: one warning, left as it is
mkdir -p "$DIR"
printf 'not a history\nshow\n' >"$HIST"
cp "$HIST" "$TMPD/damaged"
check "a damaged file: the shell starts" shell
type_line "show status"
check "it ends" quit
check "a damaged file: one warning naming its line" one_warning "line 1 of $HIST"
check "a damaged file is left as it is" same_file "$HIST" "$TMPD/damaged"

# ---- an oversize file (more lines than are kept): one warning, left as it is
{ echo "thermpress-history 1"; for i in $(seq 300); do echo "show cpu $((i % 8))"; done; } >"$HIST"
cp "$HIST" "$TMPD/big"
check "an oversize file: the shell starts" shell
type_line "show status"
check "it ends" quit
check "an oversize file: one warning" one_warning "more than 256 command lines"
check "an oversize file is left as it is" same_file "$HIST" "$TMPD/big"

# ---- a file larger than any history: one warning, left as it is
{ echo "thermpress-history 1"; yes "show status" | head -c 2000000; } >"$HIST"
cp "$HIST" "$TMPD/huge"
check "a huge file: the shell starts" shell
type_line "show status"
check "it ends" quit
check "a huge file: one warning" one_warning "is larger than [0-9]+ bytes"
check "a huge file is left as it is" same_file "$HIST" "$TMPD/huge"

# ---- a symbolic link as the file, a directory others can write: refused, not followed
printf '%s\n' "thermpress-history 1" "show" >"$TMPD/elsewhere"
rm -f "$HIST"
ln -s "$TMPD/elsewhere" "$HIST"
cp "$TMPD/elsewhere" "$TMPD/elsewhere.want"
check "a linked file: the shell starts" shell
type_line "show status"
check "it ends" quit
check "a linked file: one warning" one_warning "is a symbolic link"
check "the link's target is left as it is" same_file "$TMPD/elsewhere" "$TMPD/elsewhere.want"
check "the link stays" test -L "$HIST"
rm -f "$HIST"
chmod 777 "$DIR"
check "a directory others can write: the shell starts" shell
type_line "show status"
check "it ends" quit
check "a directory others can write: one warning" one_warning "writable by others"
check "nothing is written there" test ! -e "$HIST"
chmod 700 "$DIR"
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	# a directory link planted by another user is never followed
	mkdir -p "$TMPD/planted/thermpress"
	mv "$DIR" "$TMPD/mine"
	ln -s "$TMPD/planted/thermpress" "$DIR"
	chown -h nobody "$DIR"
	check "another user's link: the shell starts" shell
	type_line "show status"
	check "it ends" quit
	check "another user's link: one warning" one_warning "symbolic link of uid"
	check "nothing is written through it" test ! -e "$TMPD/planted/thermpress/shell_history"
	rm "$DIR"
	mv "$TMPD/mine" "$DIR"
fi

# ---- scripts and a standard input that is not a terminal write nothing
printf '%s\n' "thermpress-history 1" "show" >"$HIST"
cp "$HIST" "$TMPD/before"
printf 'show status\n' | env HOME="$TMPD" "$TP" --sim -f /dev/stdin >/dev/null 2>&1
echo quit | env HOME="$TMPD" "$TP" --sim shell >/dev/null 2>&1
check "a script or a shell without a terminal leaves the history as it is" same_file "$HIST" "$TMPD/before"

# the pane's bash ends (and writes its own history) before $TMPD is removed
t send-keys "exit" Enter
sleep 0.5

finish
