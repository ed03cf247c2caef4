// SPDX-License-Identifier: MIT
/*
 * The BTF facts kept for a boot (core/stock/btf_ids.c): the line's round trip, a key
 * of another boot or BTF refused as stale, text that is not the line refused, and the
 * file read only from a directory of ours nobody else can write, never through a link.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "stock/btf_ids.h"

static const struct btf_key key = { "881edf14-8455-4886-9d95-133fa009b1f4", 5481434 };
static const struct btf_facts facts = { 10659, 36093, 2896, 3520, 32, true, true };

static void assert_same(const struct btf_facts *a, const struct btf_facts *b)
{
	assert_int_equal(a->runqueues, b->runqueues);
	assert_int_equal(a->cpufreq_pressure, b->cpufreq_pressure);
	assert_int_equal(a->rq_cap_off, b->rq_cap_off);
	assert_int_equal(a->rq_avg_off, b->rq_avg_off);
	assert_int_equal(a->sa_load_off, b->sa_load_off);
	assert_true(b->rq && b->sa);
}

static void test_round_trip(void **state)
{
	char text[BTF_IDS_TEXT_MAX];
	size_t n = stock_btf_ids_format(&key, &facts, text, sizeof(text));
	struct btf_facts f;

	(void)state;
	assert_string_equal(text, "thermpress-btf-ids 1 881edf14-8455-4886-9d95-133fa009b1f4 5481434 10659 36093 2896 3520 32\n");
	assert_int_equal(stock_btf_ids_parse(text, n, &key, &f), 0);
	assert_same(&facts, &f);
}

static void test_stale_and_bad(void **state)
{
	struct btf_key other = key;
	char text[BTF_IDS_TEXT_MAX];
	size_t n = stock_btf_ids_format(&key, &facts, text, sizeof(text));
	struct btf_facts f;
	static const char *const bad[] = {
		"",
		"thermpress-btf-ids 2 881edf14-8455-4886-9d95-133fa009b1f4 5481434 1 2 3 4 5\n",
		"thermpress-btf-ids 1 881edf14-8455-4886-9d95-133fa009b1f4 5481434 1 2 3 4\n",
		"thermpress-btf-ids 1 881edf14-8455-4886-9d95-133fa009b1f4 5481434 1 2 3 4 5",
		"thermpress-btf-ids 1 881edf14-8455-4886-9d95-133fa009b1f4 5481434 0 2 3 4 5\n",
		"thermpress-btf-ids 1 881edf14-8455-4886-9d95-133fa009b1f4 5481434 1 2 3 4 4294967296\n",
		"thermpress-btf-ids 1 881edf14-8455-4886-9d95-133fa009b1f4 5481434 01 2 3 4 5\n",
		"thermpress-btf-ids 1 881EDF14-8455-4886-9d95-133fa009b1f4 5481434 1 2 3 4 5\n",
		"thermpress-btf-ids 1 881edf14-8455-4886-9d95-133fa009b1f4 5481434 1 2 3 4 5\nx",
	};

	(void)state;
	other.size++;
	assert_int_equal(stock_btf_ids_parse(text, n, &other, &f), -ESTALE);
	other = key;
	other.boot_id[0] = '9';
	assert_int_equal(stock_btf_ids_parse(text, n, &other, &f), -ESTALE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (stock_btf_ids_parse(bad[i], strlen(bad[i]), &key, &f) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
}

static void test_store_load_trust(void **state)
{
	char dir[] = "/tmp/tp-btf-ids-XXXXXX", sub[64], path[128];
	struct btf_facts f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/a/state", dir);
	assert_int_equal(stock_btf_ids_load(sub, &key, &f), -ENOENT);
	assert_int_equal(stock_btf_ids_store(sub, &key, &facts), 0);	/* parents made */
	assert_int_equal(stock_btf_ids_load(sub, &key, &f), 0);
	assert_same(&facts, &f);
	/* a directory others can write is not trusted, neither for reading nor writing */
	assert_int_equal(chmod(sub, 0777), 0);
	assert_int_equal(stock_btf_ids_load(sub, &key, &f), -EPERM);
	assert_int_equal(stock_btf_ids_store(sub, &key, &facts), -EPERM);
	assert_int_equal(chmod(sub, 0700), 0);
	/* a link in the file's place is not followed */
	snprintf(path, sizeof(path), "%s/" BTF_IDS_FILE, sub);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	assert_int_equal(stock_btf_ids_load(sub, &key, &f), -ELOOP);
	/* forgetting removes it; storing replaces whatever name is there */
	stock_btf_ids_forget(sub);
	assert_int_equal(stock_btf_ids_load(sub, &key, &f), -ENOENT);
	assert_int_equal(stock_btf_ids_store(sub, &key, &facts), 0);
	assert_int_equal(stock_btf_ids_load(sub, &key, &f), 0);
	stock_btf_ids_forget(sub);
	assert_int_equal(rmdir(sub), 0);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_stale_and_bad),
		cmocka_unit_test(test_store_load_trust),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
