// SPDX-License-Identifier: MIT
/*
 * The BTF facts kernel_inputs.c needs, kept for the rest of the boot.  The file is
 * one line, "thermpress-btf-ids 1 BOOT_ID BTF_SIZE RUNQUEUES CPUFREQ_PRESSURE
 * RQ_CPU_CAPACITY RQ_AVG_HW SCHED_AVG_LOAD_AVG" (docs/state.md): a kernel's BTF does
 * not change while it runs, and a new boot has a new boot_id.  It lives in the state
 * directory, trusted as the state file's is (ours, not writable by others, no link),
 * and is only a hint: ids that do not load are forgotten and found again.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf_ids.h"

#define MAGIC "thermpress-btf-ids 1"
#define BOOT_ID "/proc/sys/kernel/random/boot_id"
#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

int stock_btf_key(struct btf_key *key)
{
	int fd = open(BOOT_ID, O_RDONLY | O_CLOEXEC);
	struct stat st;
	ssize_t r;

	memset(key, 0, sizeof(*key));
	if (fd < 0)
		return -errno;
	r = read(fd, key->boot_id, sizeof(key->boot_id) - 1);
	close(fd);
	if (r < 36)
		return -EPROTO;
	key->boot_id[36] = '\0';	/* a UUID, then a newline */
	for (int i = 0; i < 36; i++)
		if (!strchr("0123456789abcdef-", key->boot_id[i]))
			return -EPROTO;
	if (stat(VMLINUX_BTF, &st) < 0)
		return -errno;
	key->size = (uint64_t)st.st_size;
	return 0;
}

size_t stock_btf_ids_format(const struct btf_key *key, const struct btf_facts *f, char *buf,
			    size_t n)
{
	int len = snprintf(buf, n, MAGIC " %s %" PRIu64 " %" PRIu32 " %" PRIu32 " %" PRIu32
			   " %" PRIu32 " %" PRIu32 "\n", key->boot_id, key->size, f->runqueues,
			   f->cpufreq_pressure, f->rq_cap_off, f->rq_avg_off, f->sa_load_off);

	return len < 0 ? 0 : (size_t)len < n ? (size_t)len : n - 1;
}

/* One unsigned decimal of at most 10 digits ending at a space or newline. */
static const char *number(const char *p, const char *end, uint64_t *v)
{
	const char *start = p;

	*v = 0;
	while (p < end && *p >= '0' && *p <= '9' && p - start < 20)
		*v = *v * 10 + (uint64_t)(*p++ - '0');
	if (p == start || p - start > 19 || (start[0] == '0' && p - start > 1))
		return NULL;
	return p;
}

int stock_btf_ids_parse(const char *text, size_t n, const struct btf_key *key,
			struct btf_facts *f)
{
	const char *p = text, *end = text + n;
	size_t ml = strlen(MAGIC), bl = strlen(key->boot_id);
	uint64_t v[6];
	bool same_boot;

	memset(f, 0, sizeof(*f));
	if (n < ml + 1 + 36 || memcmp(p, MAGIC " ", ml + 1) != 0)
		return -EINVAL;
	p += ml + 1;
	for (int i = 0; i < 36; i++)
		if (!strchr("0123456789abcdef-", p[i]))
			return -EINVAL;
	same_boot = bl == 36 && memcmp(p, key->boot_id, 36) == 0;
	p += 36;
	for (int i = 0; i < 6; i++) {
		if (p >= end || *p != ' ')
			return -EINVAL;
		p = number(p + 1, end, &v[i]);
		if (!p || (i > 0 && v[i] > UINT32_MAX))
			return -EINVAL;
	}
	if (p + 1 != end || *p != '\n')
		return -EINVAL;
	if (!v[1] || !v[2])
		return -EINVAL;		/* BTF id 0 is void */
	if (!same_boot || v[0] != key->size)
		return -ESTALE;
	f->runqueues = (uint32_t)v[1];
	f->cpufreq_pressure = (uint32_t)v[2];
	f->rq_cap_off = (uint32_t)v[3];
	f->rq_avg_off = (uint32_t)v[4];
	f->sa_load_off = (uint32_t)v[5];
	f->rq = f->sa = true;
	return 0;
}

/* The directory, when it is ours and nobody else can write it; -errno. */
static int trusted_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int stock_btf_ids_load(const char *dir, const struct btf_key *key, struct btf_facts *f)
{
	int dfd = trusted_dir(dir), fd;
	char text[BTF_IDS_TEXT_MAX];
	struct stat st;
	ssize_t r;

	if (dfd < 0)
		return dfd;
	fd = openat(dfd, BTF_IDS_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size >= (off_t)sizeof(text)) {
		close(fd);
		return -EPERM;
	}
	r = read(fd, text, sizeof(text));
	close(fd);
	if (r < 0)
		return -errno;
	return stock_btf_ids_parse(text, (size_t)r, key, f);
}

/* DIR 0700, its missing parents 0755 (as the state file's directory is made) */
static int make_dir(const char *dir)
{
	char buf[4096];

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int stock_btf_ids_store(const char *dir, const struct btf_key *key, const struct btf_facts *f)
{
	char text[BTF_IDS_TEXT_MAX], tmp[64];
	size_t len = stock_btf_ids_format(key, f, text, sizeof(text));
	int dfd, fd, rc = 0;

	rc = make_dir(dir);
	if (rc < 0)
		return rc;
	dfd = trusted_dir(dir);
	if (dfd < 0)
		return dfd;
	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", BTF_IDS_FILE, (long)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		close(dfd);
		return rc;
	}
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		rc = errno ? -errno : -EIO;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && renameat(dfd, tmp, dfd, BTF_IDS_FILE) < 0)
		rc = -errno;
	if (rc)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	return rc;
}

void stock_btf_ids_forget(const char *dir)
{
	int dfd = trusted_dir(dir);

	if (dfd < 0)
		return;
	unlinkat(dfd, BTF_IDS_FILE, 0);
	close(dfd);
}
