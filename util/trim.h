/* SPDX-License-Identifier: MIT */
/* Blanks around a field of a text line (util/README.md). */
#ifndef THERMPRESS_UTIL_TRIM_H
#define THERMPRESS_UTIL_TRIM_H

/*
 * s without its leading spaces and tabs (the return value, inside s) and without its
 * trailing spaces, tabs, CRs and LFs (cut off in place with NULs).
 */
char *trim(char *s);

#endif
