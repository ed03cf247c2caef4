// SPDX-License-Identifier: MIT
/* Fixed-size CPU bitmaps: TP_MAX_CPUS bits, no allocation. */
#include <stdio.h>
#include <string.h>

#include <thermpress/thermpress.h>

void tp_cpuset_zero(struct tp_cpuset *set)
{
	memset(set, 0, sizeof(*set));
}

void tp_cpuset_add(struct tp_cpuset *set, int cpu)
{
	if (cpu >= 0 && cpu < TP_MAX_CPUS)
		set->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

bool tp_cpuset_has(const struct tp_cpuset *set, int cpu)
{
	if (cpu < 0 || cpu >= TP_MAX_CPUS)
		return false;
	return set->bits[cpu / 64] >> (cpu % 64) & 1;
}

int tp_cpuset_count(const struct tp_cpuset *set)
{
	int n = 0;

	for (size_t i = 0; i < TP_MAX_CPUS / 64; i++)
		n += __builtin_popcountll(set->bits[i]);
	return n;
}

int tp_cpuset_next(const struct tp_cpuset *set, int from)
{
	if (from < 0)
		from = 0;
	for (int w = from / 64; w < TP_MAX_CPUS / 64; w++) {
		uint64_t bits = set->bits[w];

		if (w == from / 64)
			bits &= ~UINT64_C(0) << (from % 64);
		if (bits)
			return w * 64 + __builtin_ctzll(bits);
	}
	return -1;
}

size_t tp_cpuset_format(const struct tp_cpuset *set, char *buf, size_t len)
{
	size_t need = 0;
	int cpu = tp_cpuset_next(set, 0);

	if (len)
		buf[0] = '\0';
	while (cpu >= 0) {
		int last = cpu;
		char part[32];
		int n;

		while (tp_cpuset_has(set, last + 1))
			last++;
		if (last == cpu)
			n = snprintf(part, sizeof(part), "%s%d", need ? "," : "", cpu);
		else
			n = snprintf(part, sizeof(part), "%s%d-%d", need ? "," : "", cpu, last);
		if (need + n < len)
			memcpy(buf + need, part, n + 1);
		need += n;
		cpu = tp_cpuset_next(set, last + 1);
	}
	return need;
}
