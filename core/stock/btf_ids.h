/* SPDX-License-Identifier: MIT */
/*
 * btf_ids.c: where kernel_inputs.c's program reads, found in the running kernel's BTF,
 * and kept for the rest of the boot in the state directory, so that only the first
 * start after a boot pays for reading the BTF (Linux 6.12 cannot map it: 1300 reads).
 * Every call returns 0 or -errno.
 */
#ifndef TP_STOCK_BTF_IDS_H
#define TP_STOCK_BTF_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* BTF ids of the two per-CPU variables and offsets of the fields.  All are unsigned
 * long, read as 8 bytes: on a 32-bit kernel the verifier refuses the load. */
struct btf_facts {
	uint32_t runqueues, cpufreq_pressure;		/* VAR ids */
	uint32_t rq_cap_off, rq_avg_off, sa_load_off;	/* byte offsets */
	bool rq, sa;
};

/* What identifies the BTF the facts were found in: this boot and the file's size. */
struct btf_key {
	char boot_id[40];
	uint64_t size;
};

#define BTF_IDS_FILE "btf-ids"
#define BTF_IDS_TEXT_MAX 200

/* The running kernel's key; -errno when /proc or the BTF cannot be read. */
int stock_btf_key(struct btf_key *key);
/* One line of text for key and f into buf (n >= BTF_IDS_TEXT_MAX); its length. */
size_t stock_btf_ids_format(const struct btf_key *key, const struct btf_facts *f, char *buf,
			    size_t n);
/* The facts in text when it is a line of this format for key: 0, -ESTALE for another
 * key, -EINVAL when it is not such a line. */
int stock_btf_ids_parse(const char *text, size_t n, const struct btf_key *key,
			struct btf_facts *f);
/* The facts kept in DIR/btf-ids for key: 0, or -errno (-ENOENT: none kept; -EPERM: the
 * directory or the file is not one this process may trust). */
int stock_btf_ids_load(const char *dir, const struct btf_key *key, struct btf_facts *f);
/* Keep them, replacing the file atomically; DIR (not its parents) is made 0700. */
int stock_btf_ids_store(const char *dir, const struct btf_key *key, const struct btf_facts *f);
/* Forget them (after they did not load). */
void stock_btf_ids_forget(const char *dir);

#endif
