/* SPDX-License-Identifier: MIT */
/*
 * The text formats of docs/abi.md, written and read in one place: the simulator's
 * FUSE server formats with these, the patched-kernel source parses with them.
 * Private to core/.
 */
#ifndef TP_CORE_ABI_TEXT_H
#define TP_CORE_ABI_TEXT_H

/* The most thermpress reads of one interface file (docs/abi.md): 4096 CPUs of stats fit well. */
#define TP_ABI_MAX_FILE (16 << 20)

#include <thermpress/thermpress.h>

/* A backend name as docs/abi.md has them: 1 to TP_NAME_MAX - 1 characters of [a-z0-9_]. */
bool tp_abi_backend_name_ok(const char *s);

/* The `stats` file for snap, into a malloc'ed, NUL-terminated buffer. */
int tp_abi_format_stats(const struct tp_snapshot *snap, char **text, size_t *len);
/* Parse a `stats` file into snap (buffers reused); strict, -EPROTO with a message. */
int tp_abi_parse_stats(const char *text, size_t len, struct tp_snapshot *snap,
		       struct tp_error *err);

/* `instant [pelt] decay\n` into buf; returns the length needed (snprintf style). */
size_t tp_abi_format_backends(char names[][TP_NAME_MAX], size_t count, int active,
			      char *buf, size_t len);
int tp_abi_parse_backends(const char *text, size_t len, char names[][TP_NAME_MAX],
			  size_t max, size_t *count, int *active, struct tp_error *err);

/*
 * One written value: the bytes of a write() with at most one trailing newline.
 * Gives the value without the newline; -EINVAL when it is empty or has another
 * newline or a NUL.
 */
int tp_abi_write_value(const char *buf, size_t len, char *out, size_t out_len);
/* A decimal u64 with no sign, no spaces, no leading '+': -EINVAL otherwise. */
int tp_abi_parse_u64(const char *text, uint64_t *value);
/*
 * An `inject` write (without its newline): "CPULIST KHZ" or "CPULIST clear" in the
 * kernel's cpulist format, every CPU below nr_cpus.  *khz is 0 for clear.  Range
 * checks against each CPU's max frequency are the caller's.
 */
int tp_abi_parse_inject(const char *text, int nr_cpus, struct tp_cpuset *cpus,
			uint64_t *khz);

#endif
