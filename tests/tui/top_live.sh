#!/bin/bash
# thermpress top in tmux, against the simulator on its virtual clock: rows and numbers,
# a cap with c, a refused value, clear, backend and decay changes, resize, compact mode,
# and a sane terminal after q, C-c and SIGTERM.
. "$(dirname "$0")/lib.sh"

run_top() {	# run_top ARGS...: start top in the pane's shell
	t send-keys "exec_top() { \"$TP\" \"\$@\"; }; exec_top $* ; echo EXITED=\$?" Enter
}

sane_terminal() {	# the shell's terminal has icanon and echo back
	t send-keys "clear; stty -a | tr -s ' ;' '\\n\\n' | grep -E '^-?(icanon|echo)\$' | tr '\\n' ' '; echo :STTY" Enter
	# the typed line holds ":STTY" too: wait for the output line itself (a loaded
	# machine may show the command before its output)
	wait_re "^-?icanon -?echo :STTY" 5 && grep -q "^icanon echo :STTY" "$TMPD/last"
}

start_shell 120 40
run_top --sim --virtual-clock top --interval 200ms
check "top starts" wait_for "clock 1" 10

# ---- rows and numbers for hikey960
capture >/dev/null
check "little cluster row" grep -qE "^( |$SEL)little cpus 0-3 " "$TMPD/last"
check "big cluster row" grep -qE "^ ?big cpus 4-7 " "$TMPD/last"
for c in 0 1 2 3; do
	check "cpu $c: 462 1844/1844 533 0 0" bash -c "[[ \"\$1\" =~ \ 462\ +1844/1844\ +533\ +0\ +0$ ]]" _ "$(row $c)"
done
for c in 4 5 6 7; do
	check "cpu $c: 1024 2362/2362 903 0 0" bash -c "[[ \"\$1\" =~ \ 1024\ +2362/2362\ +903\ +0\ +0$ ]]" _ "$(row $c)"
done
check "header names the simulator" grep -q "simulator hikey960 (virtual clock)" "$TMPD/last"
check "header: backend and decay" grep -q "backend pelt    decay 32 ms    interval 200 ms" "$TMPD/last"
check "plot title for the first cluster (nothing pressured)" grep -q "^cluster little (cpus 0-3, mean): pressure 0, avg 0" "$TMPD/last"

# ---- the virtual clock moves by the interval each frame
clk1=$(grep -o 'clock [0-9.]* s' "$TMPD/last" | head -1)
sleep 1
capture >/dev/null
clk2=$(grep -o 'clock [0-9.]* s' "$TMPD/last" | head -1)
check "virtual clock advances ($clk1 -> $clk2)" test "$clk1" != "$clk2"

# ---- cap cpu 4 with c: visible in the next frame
t send-keys Down Down Down Down Down Down
check "cpu 4 selected" wait_for "cpu 4 (big): capacity" 5
t send-keys c
check "cap prompt" wait_for "cap cpu 4 at" 5
t send-keys "1.18GHz" Enter
check "cap applied" wait_for "capped cpu 4 at 1.18GHz" 5
capture >/dev/null
check "cpu 4 capped 1180/2362 pressure 513" bash -c "[[ \"\$1\" =~ \ 1180/2362\ +903\ +513\  ]]" _ "$(row 4)"
check "cpu 5 untouched" bash -c "[[ \"\$1\" =~ \ 1024\ +2362/2362\ +903\ +0\ +0$ ]]" _ "$(row 5)"
check "cpu 4 average converges to 512" wait_for "pressure 513, avg 512" 10

# ---- a refused value: error in the status line, nothing changed
t send-keys c "5GHz" Enter
check "refused cap: error shown" wait_for "error: " 5
check "refused cap: message names the range" grep -q "error: .*2362" "$TMPD/last"
check "refused cap: cpu 4 still 1180/2362" bash -c "[[ \"\$1\" =~ \ 1180/2362\ +903\ +513\  ]]" _ "$(row 4)"
t send-keys c "fast" Enter
check "unparsable cap: error shown" wait_for "error: " 5
check "unparsable cap: names the value" grep -q "error: .*fast" "$TMPD/last"
check "unparsable cap: cpu 4 still 1180/2362" bash -c "[[ \"\$1\" =~ \ 1180/2362\ +903\ +513\  ]]" _ "$(row 4)"
# a bare number is kHz: below the lowest operating point, refused with the hint of cap set
t send-keys c "50" Enter
check "slip cap: refused with a hint" wait_for "did you mean 50%?" 5
check "slip cap: cpu 4 still 1180/2362" bash -c "[[ \"\$1\" =~ \ 1180/2362\ +903\ +513\  ]]" _ "$(row 4)"

# ---- a cluster: select big, cap it by percent, then clear it with x
t send-keys Up
check "cluster big selected" wait_for "cluster big (cpus 4-7, mean)" 5
t send-keys c "50%" Enter
check "cluster capped" wait_for "capped cluster big at 50%" 5
capture >/dev/null
check "cpu 7 capped with the cluster" bash -c "[[ \"\$1\" =~ \ 1181/2362\ +903\ +512\  ]]" _ "$(row 7)"
t send-keys x
check "cluster cleared" wait_for "cleared the cap of cluster big" 5
capture >/dev/null
for c in 4 7; do
	check "cpu $c uncapped" bash -c "[[ \"\$1\" =~ \ 2362/2362\ +903\ +0\  ]]" _ "$(row $c)"
done

# ---- backend switching with b
t send-keys b
check "backend menu, with its digit shortcuts" wait_for "backend: 1 instant  2 [pelt]  3 decay" 5
t send-keys Right Enter
check "backend decay applied" wait_for "backend decay   decay 250 ms" 5
check "status says so" grep -q "^backend decay" "$TMPD/last"
check "plot: shadows of the others, marked as estimates" grep -qF "p ~pelt 32 ms" "$TMPD/last"

# ---- decay with + and -
t send-keys +
check "decay doubled" wait_for "decay 500 ms " 5
t send-keys - -
check "decay halved twice" wait_for "decay 125 ms " 5

# ---- a refused decay change: instant has none
t send-keys b Left Left Enter
check "backend instant" wait_for "backend instant decay none" 5
t send-keys +
check "refused decay: error" wait_for "error: backend instant has no decay period" 5
check "refused decay: nothing changed" grep -q "backend instant decay none" "$TMPD/last"

# ---- pause
t send-keys p
check "paused" wait_for "PAUSED" 5
capture >/dev/null
c1=$(grep -o 'clock [0-9.]* s' "$TMPD/last" | head -1)
sleep 0.8
capture >/dev/null
c2=$(grep -o 'clock [0-9.]* s' "$TMPD/last" | head -1)
check "clock stands still while paused" test "$c1" = "$c2"
t send-keys p
check "resumed" wait_gone "PAUSED" 5

# ---- help
t send-keys "?"
check "help shown" wait_for "double / halve the decay period" 5
check "help lists h/j/k/l" grep -qE "up/down k/j .*left/right h/l" "$TMPD/last"
check "help lists f (follow) and y (the plot's scale)" \
	bash -c 'grep -qE "^ +f +follow the most pressured" "$1" && grep -qE "^ +y +plot: y axis" "$1"' _ "$TMPD/last"
t send-keys Escape
check "help closed" wait_gone "double / halve the decay period" 5

# ---- resize: smaller, then compact, then back
t resize-window -x 80 -y 24
numbers_fit() {	# the numbers of cpu 4 are whole in the pane: the layout follows the size
	local deadline=$(($(date +%s) + 5))
	while [ "$(date +%s)" -le "$deadline" ]; do
		capture >/dev/null
		[[ "$(row 4)" =~ \ 1024\ +2362/2362\ +903\ +0\ +0$ ]] && return 0
		sleep 0.1
	done
	return 1
}
check "resized to 80x24: bars shrink, numbers whole" numbers_fit
check "rows still drawn at 80x24" grep -qE "big cpus 4-7" "$TMPD/last"
t resize-window -x 100 -y 12
check "compact mode at 100x12" wait_for "compact: 8 CPUs" 5
t resize-window -x 120 -y 40
check "wide again at 120x40" wait_for "capacity 0..1024" 5

# ---- q quits, the terminal is sane
t send-keys q
check "q exits with 0" wait_for "EXITED=0" 5
check "terminal sane after q" sane_terminal

# ---- an interface that vanishes and comes back
cp -r "$(dirname "$0")/fixture" "$TMPD/fx"
t send-keys clear Enter
run_top --root "$TMPD/fx" top --interval 100ms
check "patched tree shown" wait_for "patched kernel at $TMPD/fx" 10
# the header can be on screen before the rows are (a loaded machine): wait for cpu 1's row
check "offline cpu shown" wait_re '^.{0,2} +1 .*offline' 5
mv "$TMPD/fx/sys" "$TMPD/fx/gone"
check "vanished: message" wait_for "retrying every 100 ms" 5
check "vanished: names the file" grep -q "cannot open .*stats" "$TMPD/last"
mv "$TMPD/fx/gone" "$TMPD/fx/sys"
check "came back: message gone" wait_gone "retrying every" 5
check "came back: rows again" wait_re "   2 .* 777 +1181/2362 " 5
t send-keys q
check "q after the fixture" wait_for "EXITED=0" 5

# ---- C-c (SIGINT)
run_top --sim top
wait_for "clock 1" 10 >/dev/null
t send-keys C-c
check "C-c exits with 0" wait_for "EXITED=0" 5
check "terminal sane after C-c" sane_terminal

# ---- SIGTERM from outside
t send-keys clear Enter
run_top --sim top
wait_for "clock 1" 10 >/dev/null
shell_pid=$(t display -p '#{pane_pid}')
top_pid=$(pgrep -P "$shell_pid" | head -1)
if [ -n "$top_pid" ]; then kill -TERM "$top_pid"; fi
check "SIGTERM exits" wait_for "EXITED=0" 5
check "terminal sane after SIGTERM" sane_terminal

finish
