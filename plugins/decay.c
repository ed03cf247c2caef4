// SPDX-License-Identifier: MIT
/*
 * decay: thermpress's definition of the V2 series' windowed average
 * (docs/algorithms.md).  Every finished window of D ns halves the weight of the
 * past; inside a window the carried value is blended with the time-weighted
 * pressure seen so far.
 *
 * Overflow bounds, for the documented ranges (pressure <= 1024, D <= 10000 ms =
 * 1e10 ns, times below 2^63 ns):
 *   acc <= 1024 * D <= 1.03e13, because acc only covers the current window;
 *   old <= max pressure <= 1024, because (old * D + acc) / (2 * D) <= 1024;
 *   old * D + acc <= 2.05e13, and the divisors 2 * D and D + (now - win_start)
 *   stay below 2e10: everything fits u64 (1.8e19) with a margin of 10^5.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdbool.h>

#include <thermpress/backend.h>
#include <thermpress/backend_params.h>

#define DECAY_MIN_MS ((uint32_t)TP_DECAY_MIN_MS)
#define DECAY_MAX_MS ((uint32_t)TP_DECAY_MAX_MS)
#define DECAY_DEFAULT_MS 250u
#define NS_PER_MS 1000000ull

struct decay_state {
	uint64_t period_ns;	/* D */
	uint64_t old;		/* average carried from finished windows */
	uint64_t acc;		/* sum of pressure * dt in the current window */
	uint64_t win_start;
	uint64_t last;
	uint64_t raw;		/* pressure in force since last */
	bool started;		/* false: the next update sets the initial state */
};

static void advance(struct decay_state *s, uint64_t t)
{
	s->acc += s->raw * (t - s->last);
	s->last = t;
}

static uint64_t decay_update(void *state, uint64_t now, uint64_t pressure)
{
	struct decay_state *s = state;
	const uint64_t d = s->period_ns;

	if (!s->started) {
		s->win_start = s->last = now;
		s->old = s->acc = s->raw = 0;
		s->started = true;
	}
	/* time going backwards: no time passes, the pressure still changes */
	if (now < s->last)
		now = s->last;

	while (now - s->win_start >= d) {
		/*
		 * A window that starts with nothing accumulated maps old to a value
		 * that depends only on old and raw; once that is old itself, every
		 * later whole window changes nothing but win_start.  |old - raw|
		 * halves per window, so this loop runs at most ~65 times however
		 * long the gap.
		 */
		bool whole = s->acc == 0 && s->last == s->win_start;
		uint64_t before = s->old;

		advance(s, s->win_start + d);
		s->old = (s->old * d + s->acc) / (2 * d);
		s->acc = 0;
		s->win_start += d;
		if (whole && s->old == before) {
			s->win_start += (now - s->win_start) / d * d;
			s->last = s->win_start;
			break;
		}
	}
	advance(s, now);
	s->raw = pressure;
	return (s->old * d + s->acc) / (d + (now - s->win_start));
}

static void decay_update_batch(void *state, size_t n, const uint64_t *now_ns,
			       const uint64_t *pressure, uint64_t *avg_out)
{
	for (size_t i = 0; i < n; i++)
		avg_out[i] = decay_update(state, now_ns[i], pressure[i]);
}

static int decay_normalize_decay(uint32_t requested_ms, uint32_t *in_force_ms)
{
	if (requested_ms < DECAY_MIN_MS || requested_ms > DECAY_MAX_MS)
		return -EINVAL;
	*in_force_ms = requested_ms;
	return 0;
}

static void decay_reset(void *state, uint32_t decay_ms, uint64_t now_ns)
{
	struct decay_state *s = state;

	/* the initial state is set by the next update, at its time */
	*s = (struct decay_state){ .period_ns = decay_ms * NS_PER_MS };
}

static const struct tp_backend_ops decay_ops = {
	.abi_version = TP_BACKEND_ABI_VERSION,
	.struct_size = sizeof(struct tp_backend_ops),
	.name = "decay",
	.summary = "windowed average halving every decay period (V2 series)",
	.flags = TP_BACKEND_UPDATE_ON_CHANGE,
	.decay_min_ms = DECAY_MIN_MS,
	.decay_max_ms = DECAY_MAX_MS,
	.decay_default_ms = DECAY_DEFAULT_MS,
	.state_size = sizeof(struct decay_state),
	.state_align = alignof(struct decay_state),
	.normalize_decay = decay_normalize_decay,
	.reset = decay_reset,
	.update = decay_update,
	.update_batch = decay_update_batch,
};

__attribute__((visibility("default")))
const struct tp_backend_ops *thermpress_backend_entry(uint32_t host_abi_version);

const struct tp_backend_ops *thermpress_backend_entry(uint32_t host_abi_version)
{
	return host_abi_version == TP_BACKEND_ABI_VERSION ? &decay_ops : NULL;
}
