#!/bin/bash
# thermpress top fills the terminal at every size (issue 28 §3): at 80x24, 120x40, 200x50 and
# 250x70, with 8, 256 and 4096 CPUs, no row is left blank between the parts (the plot takes
# the rows the list leaves), no line is cut mid-token (fields are dropped whole, and no text
# reaches the last column, the scroll marks' and the one where a cut shows), and the wide
# rows' bars widen with the width.
. "$(dirname "$0")/lib.sh"

SIZES="80x24 120x40 200x50 250x70"

# audit W H: blank rows and cut tokens of the last capture, one line each on stdout
audit() {
	python3 - "$1" "$2" "$TMPD/last" <<'EOF'
import sys
w, h, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lines = open(path, encoding="utf-8", errors="replace").read().split("\n")[:h]
lines += [""] * (h - len(lines))
for y, line in enumerate(lines):
    line = line.rstrip()
    if not line.strip():
        print(f"blank row {y + 1}")
        continue
    if len(line) >= w:
        last, before = line[w - 1], line[w - 2]
        # a scroll mark after a space or a cell is not text; anything else in the last
        # column is text that reached the edge, cut or about to be
        if last in "v^" and (before == " " or ord(before) > 127):
            continue
        if ord(last) < 128:
            print(f"cut token at row {y + 1}: ...{line[-24:]}")
EOF
}

run_top() {	# run_top ARGS...: start top in the pane's shell
	t send-keys "clear; \"$TP\" $* ; echo EXITED=\$?" Enter
}

start_shell 80 24
for preset in hikey960 smp:256 smp:4096 heat; do
	# heat: hikey960 under the heat scenario, caps and the thermal rows in the header
	if [ "$preset" = heat ]; then
		run_top --sim --virtual-clock top --scenario heat --interval 200ms
	else
		run_top --sim="$preset" --virtual-clock top --interval 200ms
	fi
	wait_for "clock 1" 20 >/dev/null
	for size in $SIZES; do
		W=${size%x*} H=${size#*x}
		t resize-window -x "$W" -y "$H"
		# the frame after the resize: the legend under the plot, a sample later
		wait_re "avg pelt 32 ms" 10 >/dev/null
		sleep 0.5
		capture >/dev/null
		audit "$W" "$H" >"$TMPD/audit"
		check "$preset at $size: no blank rows" bash -c '! grep -q "^blank" "$1"' _ "$TMPD/audit"
		check "$preset at $size: no cut tokens" bash -c '! grep -q "^cut" "$1"' _ "$TMPD/audit"
		if [ -s "$TMPD/audit" ]; then sed 's/^/#   /' "$TMPD/audit"; fi
	done
	# the wide rows' numbers end one column short of the edge at every width
	if [ "$preset" = hikey960 ]; then
		for size in 120x40 250x70; do
			W=${size%x*} H=${size#*x}
			t resize-window -x "$W" -y "$H"
			sleep 0.5
			capture >/dev/null
			len=$(row 4 | python3 -c 'import sys; print(len(sys.stdin.read().rstrip("\n")))')
			check "hikey960 at $size: cpu 4's bar widens to the width ($len of $W)" \
				test "$len" -eq $((W - 1))
		done
	fi
	t send-keys q
	wait_for "EXITED=0" 5 >/dev/null
	t resize-window -x 80 -y 24
done

finish
