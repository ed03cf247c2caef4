/* SPDX-License-Identifier: MIT */
/*
 * The averaging backend plugin interface, version 1.
 *
 * A backend plugin is a shared module (plugins/NAME.so) that exports exactly one
 * symbol, TP_BACKEND_ENTRY_SYMBOL, of type tp_backend_entry_fn.  The host calls it
 * with the ABI version it speaks; the plugin returns its ops table, or NULL when it
 * cannot serve that version.
 *
 * The host owns all memory: it allocates state_size bytes aligned to state_align
 * for each averaging instance (one per CPU, per shadow curve, per replay) and passes
 * that pointer to every call.  Plugins keep no global mutable state, never print,
 * never allocate, and never fail once their decay parameter has been normalised.
 *
 * The arithmetic of each backend is defined bit for bit in docs/algorithms.md; the
 * patched kernel implements the same definitions, and the two must agree exactly.
 */
#ifndef THERMPRESS_BACKEND_H
#define THERMPRESS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the public API: exported from libthermpress, built with hidden visibility */
#pragma GCC visibility push(default)

#define TP_BACKEND_ABI_VERSION 1u
#define TP_BACKEND_ENTRY_SYMBOL "thermpress_backend_entry"

/* The backend must also be updated when the cap changes, not only at the tick. */
#define TP_BACKEND_UPDATE_ON_CHANGE (1u << 0)

struct tp_backend_ops {
	uint32_t abi_version;	/* TP_BACKEND_ABI_VERSION the plugin was built for */
	uint32_t struct_size;	/* sizeof(struct tp_backend_ops) the plugin was built with */
	const char *name;	/* [a-z0-9_]+, at most 15 characters: "pelt" */
	const char *summary;	/* one line for `show backends` */
	uint32_t flags;		/* TP_BACKEND_* */

	/* Decay parameter in ms; all three 0 when the backend has none. */
	uint32_t decay_min_ms;
	uint32_t decay_max_ms;
	uint32_t decay_default_ms;

	size_t state_size;
	size_t state_align;	/* a power of two, at most 64 */

	/*
	 * Validate a requested decay period and give the value that will be in force
	 * (pelt rounds to 32 << shift).  Returns 0 or -EINVAL; never touches state.
	 * For a backend without a parameter, only 0 is accepted.
	 */
	int (*normalize_decay)(uint32_t requested_ms, uint32_t *in_force_ms);

	/*
	 * Put state into the documented starting state at time now_ns, with a decay
	 * period that normalize_decay accepted (the value in force).
	 */
	void (*reset)(void *state, uint32_t decay_ms, uint64_t now_ns);

	/* One update, as the kernel tick does: returns the averaged pressure. */
	uint64_t (*update)(void *state, uint64_t now_ns, uint64_t pressure);

	/* n updates in a row, avg_out[i] = update(now_ns[i], pressure[i]). */
	void (*update_batch)(void *state, size_t n, const uint64_t *now_ns,
			     const uint64_t *pressure, uint64_t *avg_out);
};

typedef const struct tp_backend_ops *(*tp_backend_entry_fn)(uint32_t host_abi_version);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
