/* SPDX-License-Identifier: MIT */
/* The experiment commands' pace (record, replay, cap play, cap hold, bench, top): whether
 * the source's clock is virtual or real, and whether progress lines are shown. */
#ifndef THERMPRESS_CMD_EXP_CLOCK_H
#define THERMPRESS_CMD_EXP_CLOCK_H

#include <stdbool.h>
#include <stdio.h>

#include "commands.h"
#include "signals.h"

/* The simulator on a virtual clock: time moves by advancing it, not by sleeping. */
bool exp_virtual_clock(struct cmd_ctx *ctx);
/* That, or a served simulator (through --root or $THERMPRESS_ROOT) on a virtual clock. */
bool exp_any_virtual_clock(struct cmd_ctx *ctx);
/* Progress lines go to a terminal only (one-shot mode). */
bool exp_progress_enabled(struct cmd_ctx *ctx);

#endif
