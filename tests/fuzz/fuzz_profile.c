// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: cap profiles (`TIME, CPULIST, VALUE` lines, core/exp/profile.c) on a
 * fixed two-cluster topology.  Beyond the sanitizers: an accepted profile has steps
 * sorted by time (file order among equal times), its end is the last step's time, every
 * step names existing CPUs and a value each of them can take; its pressure timeline
 * (tp_profile_to_trace) has every row in the trace ranges, rows of a CPU in time order,
 * and survives a CSV write/read round trip.  Limits: a line past 4096 bytes or with a
 * NUL byte after an accepted profile is refused at its line; an allocation failure
 * while reading is an error, never fewer steps.  (There is no profile writer to round-trip
 * the profile text itself.)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thermpress/experiment.h>

#include "readin.h"

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_profile: %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	abort(); } } while (0)

/* hikey960-like: cpus 0-3 "little" (462 at 1.844 GHz), 4-7 "big" (1024 at 2.362 GHz) */
static struct tp_cpu cpus[8];
static struct tp_domain domains[2] = { { 0, "little" }, { 4, "big" } };
static struct tp_snapshot topo = {
	.source = "sim", .backend = "pelt", .decay_ms = 32, .hz = 250, .nr_cpus = 8, .cpus = cpus,
	.nr_domains = 2, .domains = domains,
};

static void topo_init(void)
{
	for (int i = 0; i < 8; i++) {
		bool big = i >= 4;

		cpus[i] = (struct tp_cpu){
			.cpu = i, .online = 1, .domain = big, .max_capacity = big ? 1024 : 462,
			.max_freq_khz = big ? 2362000 : 1844000,
			.capped_freq_khz = big ? 2362000 : 1844000,
			.capped_capacity = big ? 1024 : 462, .pressure = 0, .avg_pressure = 0,
			.capacity = big ? 1024 : 462,
		};
	}
}

static unsigned count_lines(const uint8_t *data, size_t size)
{
	unsigned n = 1;

	for (size_t i = 0; i + 1 < size; i++)
		n += data[i] == '\n';
	return n;
}

static void check_timeline(const struct tp_profile *p)
{
	struct tp_error err = { 0 };
	struct tp_trace t, back;
	uint64_t last[8] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	struct tp_trace_writer *w;
	uint64_t start = 10000000000ull, tail = 1000000000ull;

	/* a step time so large that the timeline leaves the trace's range is refused */
	if (tp_profile_to_trace(p, &topo, start, tail, &t, &err)) {
		CHECK(p->end_ns > (uint64_t)INT64_MAX - start - tail);
		return;
	}
	CHECK(p->end_ns <= (uint64_t)INT64_MAX - start - tail);
	for (size_t i = 0; i < t.nr_rows; i++) {
		const struct tp_trace_row *r = &t.rows[i];

		CHECK(r->cpu >= 0 && r->cpu < 8);
		CHECK(r->pressure >= 0 && r->pressure <= r->max_capacity);
		CHECK(r->capped_freq_khz > 0 && r->capped_freq_khz <= r->max_freq_khz);
		CHECK(r->time_ns >= start && r->time_ns <= start + p->end_ns + tail);
		CHECK(r->time_ns >= last[r->cpu]);
		last[r->cpu] = r->time_ns;
	}
	fp = open_memstream(&buf, &len);
	CHECK(fp);
	CHECK(!tp_trace_writer_open(fp, TP_TRACE_CSV, &t.meta, &w, &err));
	for (size_t i = 0; i < t.nr_rows; i++)
		CHECK(!tp_trace_write_row(w, &t.rows[i], &err));
	CHECK(!tp_trace_writer_close(w, &err));
	fclose(fp);
	fp = fmemopen(buf, len, "r");
	CHECK(fp);
	if (tp_trace_read(fp, "timeline", &back, &err)) {
		fprintf(stderr, "fuzz_profile: the timeline does not read back: %s\n", err.msg);
		abort();
	}
	CHECK(back.nr_rows == t.nr_rows);
	for (size_t i = 0; i < t.nr_rows; i++)
		CHECK(back.rows[i].time_ns == t.rows[i].time_ns &&
		      back.rows[i].cpu == t.rows[i].cpu &&
		      back.rows[i].pressure == t.rows[i].pressure &&
		      back.rows[i].capped_freq_khz == t.rows[i].capped_freq_khz);
	fclose(fp);
	free(buf);
	tp_trace_free(&back);
	tp_trace_free(&t);
}

/* tp_profile_read() of buf[0..len): its return value (the profile freed). */
static int read_buf(const char *buf, size_t len, size_t *steps, struct tp_error *err)
{
	FILE *fp = fmemopen((void *)buf, len, "r");
	struct tp_profile p;
	int rc;

	if (!fp)
		abort();
	rc = tp_profile_read(fp, "fuzz", &topo, &p, err);
	fclose(fp);
	*steps = rc ? 0 : p.nr_steps;
	if (!rc)
		tp_profile_free(&p);
	return rc;
}

/*
 * Limits (util/readin.h): the accepted profile followed by a line past 4096 bytes or a
 * line with a NUL byte is refused at that line (exit 2: -EINVAL); an allocation failure
 * while reading it is an error (-ENOMEM), never fewer steps.
 */
static void limits(const uint8_t *data, size_t size, size_t steps)
{
	size_t len = size + 1 + 4098, got;
	char *buf = malloc(len), want[64];
	struct tp_error err = { 0 };
	unsigned lines = 2;	/* the added line's number: the input's newlines + 2 */

	if (!buf)
		abort();
	memcpy(buf, data, size);
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	buf[size] = '\n';
	memset(buf + size + 1, '#', 4097);
	buf[len - 1] = '\n';
	CHECK(read_buf(buf, len, &got, &err) == -EINVAL);
	snprintf(want, sizeof(want), "fuzz:%u: a line longer than 4096 bytes", lines);
	CHECK(strstr(err.msg, want));
	memcpy(buf + size + 1, "#\0x\n", 4);
	CHECK(read_buf(buf, size + 5, &got, &err) == -EINVAL);
	snprintf(want, sizeof(want), "fuzz:%u: a NUL byte in the line", lines);
	CHECK(strstr(err.msg, want));
	free(buf);
	for (unsigned long n = 1; n <= 3; n++) {
		int rc;

		readin_fail_alloc = n;
		rc = read_buf((const char *)data, size, &got, &err);
		readin_fail_alloc = 0;
		CHECK(rc == -ENOMEM || (rc == 0 && got == steps));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_error err = { 0 };
	struct tp_profile p;
	unsigned lines;
	FILE *fp;

	if (!size || size > 1 << 14)
		return 0;
	if (!cpus[0].max_capacity)
		topo_init();
	fp = fmemopen((void *)data, size, "r");
	if (!fp)
		return 0;
	if (tp_profile_read(fp, "fuzz", &topo, &p, &err)) {
		CHECK(!strncmp(err.msg, "fuzz", 4));
		fclose(fp);
		return 0;
	}
	fclose(fp);
	limits(data, size, p.nr_steps);
	lines = count_lines(data, size);
	CHECK(p.nr_steps > 0);
	CHECK(p.end_ns == p.steps[p.nr_steps - 1].time_ns);
	for (size_t i = 0; i < p.nr_steps; i++) {
		const struct tp_profile_step *st = &p.steps[i];
		int n = 0;

		CHECK(st->line >= 1 && st->line <= lines);
		if (i)
			CHECK(st->time_ns > p.steps[i - 1].time_ns ||
			      (st->time_ns == p.steps[i - 1].time_ns && st->line > p.steps[i - 1].line));
		for (int c = tp_cpuset_next(st->cpus, 0); c >= 0; c = tp_cpuset_next(st->cpus, c + 1)) {
			uint64_t khz;

			CHECK(c < 8);
			n++;
			if (!st->clear) {
				CHECK(!tp_cap_resolve_khz(&st->value, &cpus[c], &khz, &err));
				CHECK(khz > 0 && khz <= (uint64_t)cpus[c].max_freq_khz);
			}
		}
		CHECK(n > 0);
	}
	check_timeline(&p);
	tp_profile_free(&p);
	return 0;
}
