/* SPDX-License-Identifier: MIT */
/* Helpers shared by the experiment commands (record, replay, cap play, bench). */
#ifndef THERMPRESS_CMD_EXP_UTIL_H
#define THERMPRESS_CMD_EXP_UTIL_H

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

struct tp_profile;
/* Read PROFILE against the source's topology; 0 or an exit status (reported). cmd_play.c */
int exp_load_profile(struct cmd_ctx *ctx, const char *path, struct tp_profile *prof);

#endif
