// SPDX-License-Identifier: MIT
/*
 * The line that keeps a boot's BTF facts (core/stock/btf_ids.c), parsed against a
 * fixed key.  Properties, besides the sanitizers:
 * - an accepted line is the canonical one: formatting what it gave, under the same
 *   key, gives back the input byte for byte;
 * - the facts are usable: both BTF ids non-zero;
 * - the same line under another boot or another BTF size is stale, never accepted;
 * - any facts made of the input's bytes format to a line that parses back to them.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "stock/btf_ids.h"

static const struct btf_key key = { "881edf14-8455-4886-9d95-133fa009b1f4", 5481434 };

static uint32_t word(const uint8_t *d, size_t n, size_t at)
{
	uint32_t v = 0;

	for (size_t i = 0; i < 4; i++)
		v = v << 8 | (at + i < n ? d[at + i] : 0);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct btf_facts f, g;
	struct btf_key other = key;
	char text[BTF_IDS_TEXT_MAX];
	size_t n;
	int rc = stock_btf_ids_parse((const char *)data, size, &key, &f);

	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ESTALE, "rc %d", rc);
	if (rc == 0) {
		FUZZ_CHECK(f.runqueues && f.cpufreq_pressure, "a void BTF id accepted");
		n = stock_btf_ids_format(&key, &f, text, sizeof(text));
		FUZZ_CHECK(n == size && memcmp(text, data, n) == 0, "not canonical: %.*s", (int)n, text);
		other.size++;
		FUZZ_CHECK(stock_btf_ids_parse((const char *)data, size, &other, &g) == -ESTALE,
			   "another BTF size accepted");
		other = key;
		other.boot_id[35] = other.boot_id[35] == '0' ? '1' : '0';
		FUZZ_CHECK(stock_btf_ids_parse((const char *)data, size, &other, &g) == -ESTALE,
			   "another boot accepted");
	}
	/* facts from the input's bytes: format, parse, the same facts */
	memset(&f, 0, sizeof(f));
	f.runqueues = word(data, size, 0) | 1;
	f.cpufreq_pressure = word(data, size, 4) | 1;
	f.rq_cap_off = word(data, size, 8);
	f.rq_avg_off = word(data, size, 12);
	f.sa_load_off = word(data, size, 16);
	n = stock_btf_ids_format(&key, &f, text, sizeof(text));
	FUZZ_CHECK(stock_btf_ids_parse(text, n, &key, &g) == 0, "own line refused: %.*s", (int)n, text);
	FUZZ_CHECK(g.runqueues == f.runqueues && g.cpufreq_pressure == f.cpufreq_pressure &&
		   g.rq_cap_off == f.rq_cap_off && g.rq_avg_off == f.rq_avg_off &&
		   g.sa_load_off == f.sa_load_off, "round trip changed the facts");
	return 0;
}
