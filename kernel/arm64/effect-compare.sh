#!/bin/bash
# effect-compare.sh EFFECT_TXT: the seeds' claim, tested on the tables of
# kernel/arm64/run.sh --patched --effect (thermpress bench's, one per workload): under
# thermal pressure the scheduler moves work off the throttled big cluster, so the share
# of the busy workload's CPU time on big is lower than under `none` (the scheduler sees
# no pressure).  A backend passes when its share's 95% confidence interval lies wholly
# below none's: upper end < none's lower end (never one run against another).
#   instant and pelt:32, which follow a cap within a tick or a few, must pass (ok/FAIL);
#   the decay periods, whose windows hold the pressure back for longer, and the other
#   workloads are reported (INFO) whichever way they come out.
# Times are reported, never compared: under TCG a vCPU's speed ignores its frequency.
# Output: lines "  ok ...", "  FAIL ...", "  INFO ...", then "N passed, N failed".
set -euo pipefail
[ $# = 1 ] && [ -f "$1" ] || { echo "usage: effect-compare.sh EFFECT_TXT" >&2; exit 2; }
awk '
	/^== / { w = $2; next }
	$1 == "CONFIGURATION" { next }
	NF >= 9 && $7 == "±" {
		share[w, $1] = $6; ci[w, $1] = $8; mean[w, $1] = $3
		order[w] = order[w] " " $1; seen[w] = 1
	}
	END {
		pass = fail = 0
		for (w in seen) {
			if (!((w, "none") in share)) {
				print "  FAIL effect " w ": no none row"; fail++; continue
			}
			lo = share[w, "none"] - ci[w, "none"]
			n = split(order[w], cfg, " ")
			for (i = 1; i <= n; i++) {
				c = cfg[i]
				if (c == "none")
					continue
				hi = share[w, c] + ci[w, c]
				what = sprintf("%s: %s %.1f ± %.1f%% on big vs none %.1f ± %.1f%% (upper end %.1f, none'"'"'s lower end %.1f); mean times %.2f s vs %.2f s",
					w, c, share[w, c], ci[w, c], share[w, "none"], ci[w, "none"], hi, lo,
					mean[w, c], mean[w, "none"])
				below = hi < lo
				if (w == "busy" && (c == "instant" || c ~ /^pelt/)) {
					if (below) { print "  ok effect " what; pass++ }
					else { print "  FAIL effect " what ": not below"; fail++ }
				} else
					print "  INFO effect " what ": " (below ? "below" : "not below")
			}
		}
		if (!seen["busy"]) { print "  FAIL effect: no busy table"; fail++ }
		printf "%d passed, %d failed\n", pass, fail
		exit fail > 0
	}' "$1"
