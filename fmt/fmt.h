/* SPDX-License-Identifier: MIT */
/*
 * How thermpress writes a value for people: one form per fact, shared by `show` and the
 * other commands (cmd/) and by `top` (tui/), so a fact reads the same everywhere
 * (docs/values.md).  Pure formatting into the caller's buffer: nothing here prints,
 * allocates or reads state.
 *
 * Every function writes a NUL-terminated string into buf and returns buf.  When the
 * whole text does not fit in len bytes, buf gets the empty string instead: a number cut
 * short would be a wrong number.  len 0 writes nothing.
 *
 * A value that does not exist is TP_NONE (thermpress.h) and reads FMT_NONE; any other
 * value, even a negative one, is written as it is, never hidden.
 */
#ifndef THERMPRESS_FMT_H
#define THERMPRESS_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A value that does not exist (TP_NONE). */
#define FMT_NONE "-"
/* Before a value thermpress computed because the source does not report it. */
#define FMT_ESTIMATE "~"
#define FMT_ESTIMATE_WHY "estimated: the source does not report it, thermpress computed it"
/* The legend line under a table or a frame that shows FMT_ESTIMATE. */
#define FMT_ESTIMATE_NOTE FMT_ESTIMATE " " FMT_ESTIMATE_WHY

/* A count or a capacity, pressure or tick rate: "462", FMT_NONE. */
const char *fmt_value(char *buf, size_t len, int64_t v);
/* A value, marked when estimated: "161", "~161", FMT_NONE (a missing value is never marked). */
const char *fmt_estimated(char *buf, size_t len, int64_t v, bool estimated);
/* A frequency given in kHz, in MHz to the kHz, trailing zeros dropped: "1844", "1209.6", "1197.403". */
const char *fmt_mhz(char *buf, size_t len, int64_t khz);
/* The capped and the top frequency: "1197.403/1844"; FMT_NONE when both are missing. */
const char *fmt_mhz_pair(char *buf, size_t len, int64_t capped_khz, int64_t max_khz);
/* A decay period: "32 ms"; "none" for 0 (the backend has none, as instant); FMT_NONE. */
const char *fmt_decay(char *buf, size_t len, int64_t decay_ms);
/* A reading of a clock, or a span of one, in seconds to the millisecond (truncated): "10.400 s". */
const char *fmt_time(char *buf, size_t len, uint64_t ns);
/* A duration, exactly, in the largest unit that divides it: "1 s", "200 ms", "1500 ms", "250 us", "7 ns". */
const char *fmt_duration(char *buf, size_t len, uint64_t ns);
/* A span of time for people, rounded to the unit that reads best: "350 ms", "1.4 s", "70 s",
 * "8.5 min", "42 min" (ms below 1 s, tenths of a second below 10 s, seconds below 2 min). */
const char *fmt_span(char *buf, size_t len, uint64_t ns);
/* A temperature given in millidegrees Celsius, to 0.1 (truncated): "45.0 C", "-5.5 C", FMT_NONE. */
const char *fmt_temp(char *buf, size_t len, int64_t mc);

#endif
