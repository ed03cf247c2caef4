// SPDX-License-Identifier: MIT
/*
 * pelt: the kernel's update_thermal_load_avg() (kernel/sched/pelt.c), bit for bit.
 * The decay parameter is the half-life 32 << shift ms; the clock fed to PELT is
 * now >> shift, exactly as the kernel's sched_thermal_decay_shift does.
 */
#include <errno.h>
#include <stdalign.h>

#include <thermpress/backend.h>
#include <thermpress/backend_params.h>

#define LOAD_AVG_PERIOD 32
#define LOAD_AVG_MAX 47742
#define PELT_MIN_DIVIDER (LOAD_AVG_MAX - 1024)
#define PELT_MAX_SHIFT 10
#define PELT_MIN_MS ((uint32_t)TP_PELT_MIN_MS)
#define PELT_MAX_MS ((uint32_t)TP_PELT_MAX_MS)
_Static_assert(TP_PELT_MAX_MS == 32 << PELT_MAX_SHIFT, "the largest half-life is 32 << PELT_MAX_SHIFT");

/* floor((2^32 - 1) * y^n), y^32 = 0.5: the kernel's runnable_avg_yN_inv. */
static const uint32_t yN_inv[LOAD_AVG_PERIOD] = {
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
	0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
	0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
	0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
};

struct pelt_state {
	uint64_t last_update_time;	/* on the shifted clock */
	uint64_t load_sum;
	uint64_t load_avg;
	uint32_t period_contrib;
	uint32_t shift;
};

/* val * y^n; the product needs 96 bits, as in the kernel's mul_u64_u32_shr(). */
static uint64_t decay_load(uint64_t val, uint64_t n)
{
	if (n > LOAD_AVG_PERIOD * 63)
		return 0;
	val >>= n / LOAD_AVG_PERIOD;
	n %= LOAD_AVG_PERIOD;
	return (uint64_t)(((unsigned __int128)val * yN_inv[n]) >> 32);
}

static uint32_t accumulate_segments(uint64_t periods, uint32_t d1, uint32_t d3)
{
	/* u32 as in the kernel: each term is below LOAD_AVG_MAX */
	uint32_t c1 = (uint32_t)decay_load(d1, periods);
	uint32_t c2 = LOAD_AVG_MAX - (uint32_t)decay_load(LOAD_AVG_MAX, periods) - 1024;

	return c1 + c2 + d3;
}

/* ___update_load_sum() + ___update_load_avg() with load = runnable = running = pressure. */
static uint64_t pelt_update(void *state, uint64_t now_ns, uint64_t pressure)
{
	struct pelt_state *s = state;
	uint64_t now = now_ns >> s->shift;
	uint64_t delta = now - s->last_update_time;
	uint64_t periods;
	uint32_t contrib;

	if ((int64_t)delta < 0) {
		/* time went backwards: resynchronise, keep the sums */
		s->last_update_time = now;
		return s->load_avg;
	}
	delta >>= 10;
	if (!delta)
		return s->load_avg;
	s->last_update_time += delta << 10;

	contrib = (uint32_t)delta;	/* only used when periods == 0, then delta < 1024 */
	delta += s->period_contrib;
	periods = delta / 1024;
	if (periods) {
		s->load_sum = decay_load(s->load_sum, periods);
		delta %= 1024;
		if (pressure)
			contrib = accumulate_segments(periods, 1024 - s->period_contrib,
						      (uint32_t)delta);
	}
	s->period_contrib = (uint32_t)delta;
	if (pressure)
		s->load_sum += pressure * contrib;
	if (periods)
		s->load_avg = s->load_sum / (PELT_MIN_DIVIDER + s->period_contrib);
	return s->load_avg;
}

static void pelt_update_batch(void *state, size_t n, const uint64_t *now_ns,
			      const uint64_t *pressure, uint64_t *avg_out)
{
	for (size_t i = 0; i < n; i++)
		avg_out[i] = pelt_update(state, now_ns[i], pressure[i]);
}

/* The nearest half-life 32 << shift; a tie goes to the smaller one. */
static int pelt_normalize_decay(uint32_t requested_ms, uint32_t *in_force_ms)
{
	uint32_t shift = 0;

	if (requested_ms < PELT_MIN_MS || requested_ms > PELT_MAX_MS)
		return -EINVAL;
	/* between 32 << shift and 32 << (shift + 1) the midpoint is 48 << shift */
	while (shift < PELT_MAX_SHIFT && requested_ms > (48u << shift))
		shift++;
	*in_force_ms = 32u << shift;
	return 0;
}

static uint32_t shift_of(uint32_t decay_ms)
{
	uint32_t shift = 0;

	while (shift < PELT_MAX_SHIFT && (32u << shift) < decay_ms)
		shift++;
	return shift;
}

static void pelt_reset(void *state, uint32_t decay_ms, uint64_t now_ns)
{
	struct pelt_state *s = state;

	s->shift = shift_of(decay_ms);
	s->last_update_time = now_ns >> s->shift;
	s->load_sum = 0;
	s->load_avg = 0;
	s->period_contrib = 0;
}

static const struct tp_backend_ops pelt_ops = {
	.abi_version = TP_BACKEND_ABI_VERSION,
	.struct_size = sizeof(struct tp_backend_ops),
	.name = "pelt",
	.summary = "the scheduler's PELT average, half-life 32 << shift ms (mainline)",
	.flags = 0,	/* mainline updates it from the tick only */
	.decay_min_ms = PELT_MIN_MS,
	.decay_max_ms = PELT_MAX_MS,
	.decay_default_ms = 32,
	.state_size = sizeof(struct pelt_state),
	.state_align = alignof(struct pelt_state),
	.normalize_decay = pelt_normalize_decay,
	.reset = pelt_reset,
	.update = pelt_update,
	.update_batch = pelt_update_batch,
};

__attribute__((visibility("default")))
const struct tp_backend_ops *thermpress_backend_entry(uint32_t host_abi_version);

const struct tp_backend_ops *thermpress_backend_entry(uint32_t host_abi_version)
{
	return host_abi_version == TP_BACKEND_ABI_VERSION ? &pelt_ops : NULL;
}
