// SPDX-License-Identifier: MIT
/* What a plot draws: step series grown point by point, and the CPU shown by default. */
#include <errno.h>
#include <stdlib.h>

#include <thermpress/experiment.h>

#include "grow.h"

int tp_plot_buf_add(struct tp_plot_buf *b, uint64_t t_ns, int64_t v)
{
	if (b->n == b->alloc) {
		size_t na = array_capacity(b->alloc, b->n + 1, 1024);
		uint64_t *nt = realloc(b->t, na * sizeof(*nt));
		int64_t *nv;

		if (!nt)
			return -ENOMEM;
		b->t = nt;
		nv = realloc(b->v, na * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		b->v = nv;
		b->alloc = na;
	}
	b->t[b->n] = t_ns;
	b->v[b->n++] = v;
	return 0;
}

void tp_plot_buf_free(struct tp_plot_buf *b)
{
	free(b->t);
	free(b->v);
	*b = (struct tp_plot_buf){ 0 };
}

struct tp_plot_pick {
	bool present[TP_MAX_CPUS];
	int64_t last_p[TP_MAX_CPUS];	/* per CPU: its last row's pressure and index */
	size_t last_i[TP_MAX_CPUS];
	size_t rows;
	size_t plot_i;			/* the row of the best candidate so far, SIZE_MAX none */
	int plot_cpu, first_cpu;
};

int tp_plot_pick_new(struct tp_plot_pick **out)
{
	struct tp_plot_pick *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->plot_i = SIZE_MAX;
	p->first_cpu = -1;
	*out = p;
	return 0;
}

void tp_plot_pick_row(struct tp_plot_pick *p, const struct tp_trace_row *row)
{
	int cpu = row->cpu;

	if (cpu < 0 || cpu >= TP_MAX_CPUS)
		return;
	if (!p->rows)
		p->first_cpu = cpu;
	/* the candidate is the CPU's previous row: the earliest such row wins */
	if (p->present[cpu] && p->last_p[cpu] != row->pressure && p->last_i[cpu] < p->plot_i) {
		p->plot_i = p->last_i[cpu];
		p->plot_cpu = cpu;
	}
	p->present[cpu] = true;
	p->last_p[cpu] = row->pressure;
	p->last_i[cpu] = p->rows++;
}

int tp_plot_pick_cpu(const struct tp_plot_pick *p)
{
	return p->plot_i != SIZE_MAX ? p->plot_cpu : p->first_cpu;
}

bool tp_plot_pick_has(const struct tp_plot_pick *p, int cpu)
{
	return cpu >= 0 && cpu < TP_MAX_CPUS && p->present[cpu];
}

void tp_plot_pick_free(struct tp_plot_pick *p)
{
	free(p);
}
