// SPDX-License-Identifier: MIT
/*
 * The scheduler's inputs of each CPU's capacity on Linux 6.10+, read in place with
 * BPF: rq->avg_hw.load_avg, rq->cpu_capacity and the per-CPU cpufreq_pressure,
 * the facts get_actual_cpu_capacity() combines (kernel_avg.c's first choice).
 *
 * One BPF program, never attached: run through BPF_PROG_TEST_RUN at each snapshot
 * on the calling CPU, so reading puts nothing on any other CPU.  It is written
 * here instruction by instruction, for the running kernel, with plain bpf(2) calls
 * and no libbpf object, because on a board under emulation the load was what a
 * command paid for:
 *   - libbpf parses the whole vmlinux BTF (5 MB, 125000 types) for typed ksyms and
 *     CO-RE, about a second under TCG: here one pass looks at the names of the few
 *     kinds wanted (VAR, STRUCT) and skips the rest;
 *   - libbpf's feature probes are programs, and on arm64 each program the kernel
 *     JIT-compiles sends every CPU IPIs (kick_all_cpus_sync() after the icache
 *     flush): here exactly one program is loaded;
 *   - a loop over the CPUs is unrolled for the number of possible CPUs, so the
 *     verifier walks each instruction once (a 512-iteration loop took it seconds).
 * For each CPU, with ksyms as typed BTF ids (BPF_PSEUDO_BTF_ID, which needs the
 * symbols in kallsyms: CONFIG_KALLSYMS_ALL):
 *   r0 = bpf_per_cpu_ptr(&runqueues, cpu), r6 = r0 (exit 1 when NULL)
 *   r0 = bpf_per_cpu_ptr(&cpufreq_pressure, cpu), r7 = r0 (exit 1 when NULL)
 *   value[cpu] = { r6->avg_hw.load_avg, *r7, r6->cpu_capacity, now }
 * into one array entry of nr * struct kernel_inputs, looked up once (r8).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/btf.h>

#include "bpf/kernel_avg.h"
#include "btf_ids.h"
#include "kernel_inputs.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"
#define MAX_CPUS 1000		/* store offsets cpu * 32 + 24 fit a 16-bit insn offset */

struct stock_kernel_inputs {
	int map_fd, prog_fd, nr_cpus;
	struct kernel_inputs *last;	/* every CPU at the last run */
};

static int sys_bpf(enum bpf_cmd cmd, union bpf_attr *attr)
{
	long rc = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return rc < 0 ? -errno : (int)rc;
}

/*
 * The running kernel's BTF, without copying it through sysfs where that can be
 * avoided: sysfs hands a reader 4 KB per read(), 1300 system calls for 5 MB, which
 * under emulation cost a start most of its time (6.12: a show took 1.9 x the
 * estimate's wall time).  In order:
 *   - mapped (the kernel's BTF file supports mmap since 6.16): no copy at all;
 *   - copied in one bpf(2) call from the vmlinux BTF object (BPF_OBJ_GET_INFO_BY_FD),
 *     into memory populated in one go rather than faulted in page by page;
 *   - read, as a last resort.
 * NULL with errno; *how says which, for release().
 */
enum btf_how { BTF_MAPPED, BTF_OBJECT, BTF_READ };

static char *btf_mapped(size_t *len)
{
	int fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (buf == MAP_FAILED)
			buf = NULL;
		else
			*len = (size_t)st.st_size;
	}
	close(fd);
	return buf;
}

/* One object's info; for the vmlinux BTF with data, its bytes are copied too. */
static int btf_info(int fd, struct bpf_btf_info *bi, char *name, size_t name_len, void *data,
		    size_t size)
{
	union bpf_attr a;

	memset(bi, 0, sizeof(*bi));
	bi->name = (uint64_t)(uintptr_t)name;
	bi->name_len = (uint32_t)name_len;
	bi->btf = (uint64_t)(uintptr_t)data;
	bi->btf_size = (uint32_t)size;
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(*bi);
	a.info.info = (uint64_t)(uintptr_t)bi;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

static char *btf_object(size_t *len)
{
	union bpf_attr a;
	uint32_t id = 0;

	/* vmlinux is the first BTF object the kernel registers; modules' follow */
	for (int tries = 0; tries < 4096; tries++) {
		struct bpf_btf_info bi;
		char name[16] = "";
		char *buf;
		int fd, rc;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(BPF_BTF_GET_NEXT_ID, &a) < 0)
			return NULL;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.btf_id = id;
		fd = sys_bpf(BPF_BTF_GET_FD_BY_ID, &a);
		if (fd == -EPERM || fd == -EACCES)
			return errno = -fd, NULL;
		if (fd < 0)
			continue;	/* a module's, gone since */
		rc = btf_info(fd, &bi, name, sizeof(name), NULL, 0);
		if (rc < 0 || !bi.kernel_btf || strcmp(name, "vmlinux") != 0 || !bi.btf_size) {
			close(fd);
			continue;
		}
		*len = bi.btf_size;
		buf = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
			   -1, 0);
		rc = buf == MAP_FAILED ? -ENOMEM : btf_info(fd, &bi, name, sizeof(name), buf, *len);
		close(fd);
		if (rc == 0 && bi.btf_size == *len)
			return buf;
		if (buf != MAP_FAILED)
			munmap(buf, *len);
		return errno = rc < 0 ? -rc : EAGAIN, NULL;
	}
	return errno = ENOENT, NULL;
}

static char *btf_read(size_t *len)
{
	int fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t cap, n = 0;
	char *buf;
	ssize_t r;

	if (fd < 0)
		return NULL;
	cap = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size + 1 : 1 << 22;
	buf = malloc(cap);
	while (buf && (r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			char *more = realloc(buf, cap * 2);

			if (!more) {
				free(buf);
				errno = ENOMEM;
			}
			buf = more;
			cap *= 2;
		}
	}
	close(fd);
	*len = n;
	return buf;
}

static char *btf_get(size_t *len, enum btf_how *how)
{
	char *buf;

	*how = BTF_MAPPED;
	if ((buf = btf_mapped(len)))
		return buf;
	*how = BTF_OBJECT;
	if ((buf = btf_object(len)))
		return buf;
	*how = BTF_READ;
	return btf_read(len);
}

static void btf_release(char *buf, size_t len, enum btf_how how)
{
	if (how == BTF_READ)
		free(buf);
	else
		munmap(buf, len);
}

/* Bytes that follow a btf_type of this kind and vlen; -1 for a kind not known. */
static long btf_extra(unsigned kind, unsigned vlen)
{
	switch (kind) {
	case BTF_KIND_INT: case BTF_KIND_VAR: case 17 /* DECL_TAG */:
		return 4;
	case BTF_KIND_ARRAY:
		return 12;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_DATASEC: case 19 /* ENUM64 */:
		return 12L * vlen;
	case BTF_KIND_ENUM: case BTF_KIND_FUNC_PROTO:
		return 8L * vlen;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case 16 /* FLOAT */:
	case 18 /* TYPE_TAG */:
		return 0;
	default:
		return -1;
	}
}

/* The byte offset of member name in struct t; false if none. */
static bool member_of(const struct btf_type *t, const char *strs, size_t slen, const char *name,
		      uint32_t *off)
{
	const struct btf_member *m = (const void *)(t + 1);
	unsigned vlen = BTF_INFO_VLEN(t->info);

	for (unsigned i = 0; i < vlen; i++) {
		if (m[i].name_off >= slen || strcmp(strs + m[i].name_off, name) != 0)
			continue;
		*off = (BTF_INFO_KFLAG(t->info) ? m[i].offset & 0xffffff : m[i].offset) / 8;
		return true;
	}
	return false;
}

/* One type: note it when it is one of those wanted. */
static void btf_note(struct btf_facts *f, const struct btf_type *t, uint32_t id,
		     const char *strs, size_t slen)
{
	const char *name = t->name_off < slen ? strs + t->name_off : "";
	unsigned kind = BTF_INFO_KIND(t->info);

	if (kind == BTF_KIND_VAR && strcmp(name, "runqueues") == 0)
		f->runqueues = id;
	else if (kind == BTF_KIND_VAR && strcmp(name, "cpufreq_pressure") == 0)
		f->cpufreq_pressure = id;
	else if (kind == BTF_KIND_STRUCT && !f->rq && strcmp(name, "rq") == 0)
		f->rq = member_of(t, strs, slen, "cpu_capacity", &f->rq_cap_off) &&
			member_of(t, strs, slen, "avg_hw", &f->rq_avg_off);
	else if (kind == BTF_KIND_STRUCT && !f->sa && strcmp(name, "sched_avg") == 0)
		f->sa = member_of(t, strs, slen, "load_avg", &f->sa_load_off);
}

/* One pass over the running kernel's BTF.  0, or -errno with why. */
static int btf_scan(struct btf_facts *f, char *why, size_t n)
{
	size_t len = 0, pos, end;
	enum btf_how how;
	char *buf = btf_get(&len, &how);
	const struct btf_header *h = (const void *)buf;
	const char *strs;
	uint32_t id = 1;
	int rc = 0;

	memset(f, 0, sizeof(*f));
	if (!buf)
		return snprintf(why, n, "%s: %s", VMLINUX_BTF, strerror(errno)), -errno;
	if (len < sizeof(*h) || h->magic != BTF_MAGIC || (size_t)h->hdr_len + h->type_off + h->type_len > len ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > len) {
		snprintf(why, n, "%s: not BTF this reader knows", VMLINUX_BTF);
		rc = -EPROTO;
		goto out;
	}
	strs = buf + h->hdr_len + h->str_off;
	pos = h->hdr_len + h->type_off;
	end = pos + h->type_len;
	while (pos + sizeof(struct btf_type) <= end) {
		const struct btf_type *t = (const void *)(buf + pos);
		long extra = btf_extra(BTF_INFO_KIND(t->info), BTF_INFO_VLEN(t->info));

		if (extra < 0 || pos + sizeof(*t) + (size_t)extra > end)
			break;	/* a kind newer than this reader: what was found stands */
		btf_note(f, t, id++, strs, h->str_len);
		pos += sizeof(*t) + (size_t)extra;
	}
	if (!f->runqueues || !f->cpufreq_pressure || !f->rq || !f->sa) {
		snprintf(why, n, "the kernel's BTF has no %s", !f->runqueues ? "runqueues" :
			 !f->cpufreq_pressure ? "cpufreq_pressure" : !f->rq ? "rq->avg_hw" : "sched_avg");
		rc = -ENOENT;
	}
out:
	btf_release(buf, len, how);
	return rc;
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
						.off = (o), .imm = (i) })
#define CALL(fn)	INSN(BPF_JMP | BPF_CALL, 0, 0, 0, (fn))
#define MOV_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, (d), 0, 0, (i))
#define MOV_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, (d), (s), 0, 0)
#define LDX_DW(d, s, o)	INSN(BPF_LDX | BPF_MEM | BPF_DW, (d), (s), (o), 0)
#define STX_DW(d, s, o)	INSN(BPF_STX | BPF_MEM | BPF_DW, (d), (s), (o), 0)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* r1 = the 64-bit immediate of a pseudo source (a map fd, a BTF id) */
static struct bpf_insn *ld_pseudo(struct bpf_insn *p, int src, int imm)
{
	*p++ = INSN(BPF_LD | BPF_IMM | BPF_DW, 1, src, 0, imm);
	*p++ = INSN(0, 0, 0, 0, 0);
	return p;
}

/* r0 = ptr, exit 1 when it is NULL (past nr_cpu_ids), then rd = r0 */
static struct bpf_insn *per_cpu_ptr(struct bpf_insn *p, uint32_t var, int cpu, int rd)
{
	p = ld_pseudo(p, BPF_PSEUDO_BTF_ID, (int)var);
	*p++ = MOV_IMM(2, cpu);
	*p++ = CALL(BPF_FUNC_per_cpu_ptr);
	*p++ = INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 2, 0);
	*p++ = MOV_IMM(0, 1);
	*p++ = EXIT();
	*p++ = MOV_REG(rd, 0);
	return p;
}

#define INSNS_PER_CPU 23
#define INSNS_FIXED 14

/* The program for nr CPUs into p (INSNS_FIXED + nr * INSNS_PER_CPU); the count. */
static size_t emit(struct bpf_insn *p0, const struct btf_facts *f, int map_fd, int nr)
{
	struct bpf_insn *p = p0;
	const int v = (int)sizeof(struct kernel_inputs);

	*p++ = CALL(BPF_FUNC_ktime_get_ns);
	*p++ = MOV_REG(9, 0);					/* r9 = now */
	*p++ = INSN(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, 0);	/* key 0 */
	*p++ = MOV_REG(2, 10);
	*p++ = INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4);
	p = ld_pseudo(p, BPF_PSEUDO_MAP_FD, map_fd);
	*p++ = CALL(BPF_FUNC_map_lookup_elem);
	*p++ = INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 2, 0);
	*p++ = MOV_IMM(0, 1);
	*p++ = EXIT();
	*p++ = MOV_REG(8, 0);					/* r8 = the values */
	for (int cpu = 0; cpu < nr; cpu++) {
		short o = (short)(cpu * v);

		p = per_cpu_ptr(p, f->runqueues, cpu, 6);
		p = per_cpu_ptr(p, f->cpufreq_pressure, cpu, 7);
		*p++ = LDX_DW(1, 6, (short)(f->rq_avg_off + f->sa_load_off));
		*p++ = STX_DW(8, 1, o + (short)offsetof(struct kernel_inputs, avg_hw));
		*p++ = LDX_DW(1, 7, 0);
		*p++ = STX_DW(8, 1, o + (short)offsetof(struct kernel_inputs, cpufreq_pressure));
		*p++ = LDX_DW(1, 6, (short)f->rq_cap_off);
		*p++ = STX_DW(8, 1, o + (short)offsetof(struct kernel_inputs, cpu_capacity));
		*p++ = STX_DW(8, 9, o + (short)offsetof(struct kernel_inputs, time_ns));
	}
	*p++ = MOV_IMM(0, 0);
	*p++ = EXIT();
	return (size_t)(p - p0);
}

/* The verifier's last words on a program that did not load, into why. */
static void verifier_why(union bpf_attr *attr, char *why, size_t n)
{
	size_t cap = 65536;
	char *log = calloc(1, cap), *line, *last = NULL;

	if (!log)
		return;
	attr->log_buf = (uint64_t)(uintptr_t)log;
	attr->log_size = (uint32_t)cap;
	attr->log_level = 1;
	sys_bpf(BPF_PROG_LOAD, attr);	/* fails again, this time with its log */
	for (line = strtok(log, "\n"); line; line = strtok(NULL, "\n"))
		if (strncmp(line, "processed ", 10) != 0)
			last = line;
	if (last)
		snprintf(why, n, "the verifier: %s", last);
	free(log);
}

static int load_prog(struct stock_kernel_inputs *in, const struct btf_facts *f, char *why, size_t n)
{
	size_t cnt = INSNS_FIXED + (size_t)in->nr_cpus * INSNS_PER_CPU;
	struct bpf_insn *insns = calloc(cnt, sizeof(*insns));
	union bpf_attr attr;
	char license[] = "GPL";	/* the kernel's BTF is for GPL programs */
	int fd;

	if (!insns)
		return -ENOMEM;
	cnt = emit(insns, f, in->map_fd, in->nr_cpus);
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = (uint32_t)cnt;
	attr.license = (uint64_t)(uintptr_t)license;
	snprintf(attr.prog_name, sizeof(attr.prog_name), "tp_inputs");
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		snprintf(why, n, "%s", strerror(-fd));
		if (fd != -EPERM && fd != -EACCES)
			verifier_why(&attr, why, n);
	}
	free(insns);
	in->prog_fd = fd;
	return fd < 0 ? fd : 0;
}

/* The array and the program for f, run once; 0 or -errno with why. */
static int load_with(struct stock_kernel_inputs *in, const struct btf_facts *f, char *why, size_t n)
{
	union bpf_attr attr;
	int rc;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(uint32_t);
	attr.value_size = (uint32_t)(in->nr_cpus * (int)sizeof(struct kernel_inputs));
	attr.max_entries = 1;
	in->map_fd = sys_bpf(BPF_MAP_CREATE, &attr);
	rc = in->map_fd < 0 ? in->map_fd : load_prog(in, f, why, n);
	if (in->map_fd < 0)
		snprintf(why, n, "the array: %s", strerror(-rc));
	if (rc == 0)
		rc = stock_kernel_inputs_run(in);
	if (rc == -ENODATA)
		snprintf(why, n, "a per-CPU variable was not there");
	return rc;
}

/* The values of a run look like the fields named: every CPU read has a capacity on the
 * scheduler's scale and an average and a pressure within it.  Kept ids that point at
 * other fields of the right types would load and read something else. */
static bool plausible(const struct stock_kernel_inputs *in)
{
	for (int c = 0; c < in->nr_cpus; c++) {
		const struct kernel_inputs *v = &in->last[c];

		if (v->time_ns && (v->cpu_capacity < 1 || v->cpu_capacity > 1024 ||
				   v->avg_hw > 1024 || v->cpufreq_pressure > 1024))
			return false;
	}
	return true;
}

static void unload(struct stock_kernel_inputs *in)
{
	if (in->prog_fd >= 0)
		close(in->prog_fd);
	if (in->map_fd >= 0)
		close(in->map_fd);
	in->prog_fd = in->map_fd = -1;
}

int stock_kernel_inputs_load(int nr_cpus, const char *keep_dir, struct stock_kernel_inputs **out,
			     char *why, size_t n)
{
	struct stock_kernel_inputs *in;
	struct btf_facts f;
	struct btf_key key;
	bool kept = false;
	int rc;

	*out = NULL;
	if (nr_cpus < 1 || nr_cpus > MAX_CPUS)
		return snprintf(why, n, "%d possible CPUs", nr_cpus), -E2BIG;
	in = calloc(1, sizeof(*in));
	if (!in || !(in->last = calloc((size_t)nr_cpus, sizeof(*in->last)))) {
		free(in);
		return -ENOMEM;
	}
	in->nr_cpus = nr_cpus;
	in->prog_fd = in->map_fd = -1;
	/* the facts kept since this boot's first start, else found in the BTF and kept */
	if (keep_dir && stock_btf_key(&key) == 0 && stock_btf_ids_load(keep_dir, &key, &f) == 0) {
		kept = true;
		rc = load_with(in, &f, why, n);
		if (rc == 0 && plausible(in)) {
			*out = in;
			return 0;
		}
		unload(in);
		stock_btf_ids_forget(keep_dir);
	}
	rc = btf_scan(&f, why, n);
	if (rc == 0)
		rc = load_with(in, &f, why, n);
	if (rc < 0) {
		stock_kernel_inputs_free(in);
		return rc;
	}
	if (keep_dir && (kept || stock_btf_key(&key) == 0))
		(void)stock_btf_ids_store(keep_dir, &key, &f);	/* a hint: a failure costs time only */
	*out = in;
	return 0;
}

int stock_kernel_inputs_run(struct stock_kernel_inputs *in)
{
	union bpf_attr attr;
	uint32_t key = 0;
	int rc;

	/* a failed run leaves nothing to read: the snapshot estimates, never shows stale values */
	memset(in->last, 0, (size_t)in->nr_cpus * sizeof(*in->last));
	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = (uint32_t)in->prog_fd;
	rc = sys_bpf(BPF_PROG_TEST_RUN, &attr);
	if (rc < 0)
		return rc;
	if (attr.test.retval != 0)
		return -ENODATA;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)in->map_fd;
	attr.key = (uint64_t)(uintptr_t)&key;
	attr.value = (uint64_t)(uintptr_t)in->last;
	rc = sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
	return rc < 0 ? rc : 0;
}

int stock_kernel_inputs_get(const struct stock_kernel_inputs *in, int cpu, struct kernel_inputs *v)
{
	if (!in || cpu < 0 || cpu >= in->nr_cpus || !in->last[cpu].time_ns)
		return -ENODATA;
	*v = in->last[cpu];
	return 0;
}

void stock_kernel_inputs_free(struct stock_kernel_inputs *in)
{
	if (!in)
		return;
	unload(in);
	free(in->last);
	free(in);
}
