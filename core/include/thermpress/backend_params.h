/* SPDX-License-Identifier: MIT */
/*
 * The decay parameter ranges of the built-in backends, one definition for the plugins
 * (plugins/pelt.c, plugins/decay.c: what they accept and report to `show backends`)
 * and the words of the command's help (`help decay set`), so that both give the same
 * range.  Plain decimal literals: the *_TEXT forms are made from them.  Not installed.
 */
#ifndef THERMPRESS_BACKEND_PARAMS_H
#define THERMPRESS_BACKEND_PARAMS_H

#define TP_PARAM_STR_(x) #x
#define TP_PARAM_STR(x) TP_PARAM_STR_(x)

/* pelt: a request of 1..32768 ms is rounded to the nearest half-life 32 << shift, shift 0..10 */
#define TP_PELT_MIN_MS 1
#define TP_PELT_MAX_MS 32768
/* decay: the decay period D, 1..10000 ms */
#define TP_DECAY_MIN_MS 1
#define TP_DECAY_MAX_MS 10000

/* A range as `show backends` writes it: "1-32768 ms". */
#define TP_PARAM_RANGE_TEXT(lo, hi) TP_PARAM_STR(lo) "-" TP_PARAM_STR(hi) " ms"
#define TP_PELT_RANGE_TEXT TP_PARAM_RANGE_TEXT(TP_PELT_MIN_MS, TP_PELT_MAX_MS)
#define TP_DECAY_RANGE_TEXT TP_PARAM_RANGE_TEXT(TP_DECAY_MIN_MS, TP_DECAY_MAX_MS)

#endif
