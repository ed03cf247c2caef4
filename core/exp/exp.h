/* SPDX-License-Identifier: MIT */
/* Helpers shared by the experiment files (private to core/exp). */
#ifndef TP_CORE_EXP_H
#define TP_CORE_EXP_H

#include <stdbool.h>
#include <stdint.h>

#include <thermpress/experiment.h>

/* A decimal integer ("-" / "null" / "" give TP_NONE when dash_ok). */
int exp_parse_i64(const char *s, int64_t *out, bool dash_ok);
int exp_trace_push(struct tp_trace *t, const struct tp_trace_row *r);

#endif
