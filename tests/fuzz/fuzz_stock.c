// SPDX-License-Identifier: MIT
/*
 * The stock-kernel readers (core/stock/): what they make of the text of sysfs and
 * proc files.  The target builds a small arm64 fixture root once (in /dev/shm when
 * there is one), and each input replaces one or more of its files, then runs the
 * real reader on the root: stock_read_text, the cpu-list, frequency-list and integer
 * parsers, the kernel facts (osrelease, /proc/cmdline, config HZ), thermal zones,
 * and a whole tp_source snapshot.  Nothing is written outside that directory.
 *
 * Input: byte 0 picks the file(s), the rest up to a NUL is their text (file contents
 * separated by '|' where there are several).  Properties, besides the sanitizers:
 * - related_cpus: an ascending list without duplicates of CPUs below TP_MAX_CPUS,
 *   equal to a reference parser of the documented "0-3,6" / "0 1 2 3" forms, and
 *   tp_cpuset_format of it parses back to the same list;
 * - scaling_available_frequencies: strictly descending, all > 0, the same set as a
 *   reference;
 * - proc/cmdline: sched_thermal_decay_shift in 0..10, equal to the kernel's rule
 *   (the last valid kstrtoint value before "--", clamped);
 * - osrelease: the version agrees with a strict MAJOR.MINOR reference, and the
 *   model with the version;
 * - config HZ (boot/config-RELEASE, proc/config.gz): the first CONFIG_HZ= line's
 *   value when it is 1..100000, else none;
 * - thermal zone temperatures: a strict signed decimal or TP_NONE;
 * - a snapshot of the root: every value in its range (capacities 1..1024,
 *   pressures 0..max_capacity, capped <= max frequency), cpu_capacity as written,
 *   online as the `online` list says; the policy of a cooling device as its type
 *   (cpufreq-cpuN, thermal-cpufreq-K) names it.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thermpress/stock.h>
#include <thermpress/thermpress.h>

#include "stock/stock.h"
#include "fuzz_common.h"

static char root[256];

/* The fixture's files and their text; an input changes a few, restore() puts them back. */
struct file {
	char rel[96];
	const char *text;	/* NULL: absent */
	bool dirty;
};
static struct file files[64];
static size_t nr_files;

static struct file *file_of(const char *rel)
{
	for (size_t i = 0; i < nr_files; i++)
		if (!strcmp(files[i].rel, rel))
			return &files[i];
	FUZZ_CHECK(nr_files < sizeof(files) / sizeof(files[0]), "too many fixture files");
	snprintf(files[nr_files].rel, sizeof(files[0].rel), "%s", rel);
	return &files[nr_files++];
}

static void write_file(const char *rel, const char *text, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT) {
		for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	FUZZ_CHECK(fd >= 0, "cannot write %s", path);
	FUZZ_CHECK(write(fd, text, len) == (ssize_t)len, "short write of %s", path);
	close(fd);
}

static void drop(const char *rel)
{
	char path[512];

	file_of(rel)->dirty = true;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
}

/* An input's content for rel. */
static void put(const char *rel, const char *text, size_t len)
{
	file_of(rel)->dirty = true;
	write_file(rel, text, len);
}

/* The fixture's content for rel. */
static void puts_file(const char *rel, const char *text)
{
	struct file *f = file_of(rel);

	f->text = text;
	write_file(rel, text, strlen(text));
}

static void restore(void)
{
	char path[512];

	for (size_t i = 0; i < nr_files; i++) {
		if (!files[i].dirty)
			continue;
		files[i].dirty = false;
		if (files[i].text) {
			write_file(files[i].rel, files[i].text, strlen(files[i].text));
		} else {
			snprintf(path, sizeof(path), "%s/%s", root, files[i].rel);
			unlink(path);
		}
	}
}

#define CPU "sys/devices/system/cpu/"

/* hikey-like: cpus 0-1 a little policy with a cooling device, 2-3 a big one. */
static void fixture(void)
{
	static const char *const caps[4] = { "462", "462", "1024", "1024" };
	static char rel[4][6][96];

	puts_file(CPU "possible", "0-3\n");
	puts_file(CPU "online", "0-3\n");
	for (int c = 0; c < 4; c++) {
		bool big = c >= 2;

		snprintf(rel[c][0], 96, CPU "cpu%d/cpu_capacity", c);
		puts_file(rel[c][0], caps[c]);
		snprintf(rel[c][1], 96, CPU "cpu%d/cpufreq/cpuinfo_max_freq", c);
		puts_file(rel[c][1], big ? "2362000\n" : "1844000\n");
		snprintf(rel[c][2], 96, CPU "cpu%d/cpufreq/cpuinfo_min_freq", c);
		puts_file(rel[c][2], big ? "903000\n" : "533000\n");
		snprintf(rel[c][3], 96, CPU "cpu%d/cpufreq/scaling_max_freq", c);
		puts_file(rel[c][3], big ? "2362000\n" : "1844000\n");
		snprintf(rel[c][4], 96, CPU "cpu%d/cpufreq/related_cpus", c);
		puts_file(rel[c][4], big ? "2 3\n" : "0 1\n");
		snprintf(rel[c][5], 96, CPU "cpu%d/cpufreq/scaling_available_frequencies", c);
		puts_file(rel[c][5], big ? "903000 1421000 1805000 2112000 2362000 \n" :
			  "533000 999000 1402000 1709000 1844000 \n");
	}
	puts_file("sys/class/thermal/cooling_device0/type", "thermal-cpufreq-0\n");
	puts_file("sys/class/thermal/cooling_device0/max_state", "4\n");
	puts_file("sys/class/thermal/cooling_device0/cur_state", "0\n");
	puts_file("sys/class/thermal/thermal_zone0/type", "soc-thermal\n");
	puts_file("sys/class/thermal/thermal_zone0/temp", "45000\n");
	puts_file("sys/class/thermal/thermal_zone0/trip_point_0_type", "passive\n");
	puts_file("sys/class/thermal/thermal_zone0/trip_point_0_temp", "75000\n");
	puts_file("sys/class/thermal/thermal_zone0/trip_point_0_hyst", "2000\n");
	puts_file("proc/sys/kernel/osrelease", "6.1.0-18-arm64\n");
	puts_file("proc/sys/kernel/arch", "aarch64\n");
	puts_file("proc/cmdline", "console=ttyS0 root=/dev/vda rw\n");
	puts_file("boot/config-6.1.0-18-arm64", "CONFIG_ARM64=y\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n");
	file_of("proc/config.gz")->text = NULL;
}

static void remove_tree(const char *dir)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_stock: could not remove %s\n", dir);
}

/* A run that found something ended in abort(), not atexit: remove what such runs left. */
static void remove_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	char path[512];
	int pid;

	while (d && (e = readdir(d)) != NULL) {
		if (sscanf(e->d_name, "thermpress-fuzz-stock-%d-", &pid) != 1 || pid <= 0 ||
		    kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
		remove_tree(path);
	}
	if (d)
		closedir(d);
}

static void make_root(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");

	base = base ? base : "/tmp";
	remove_stale(base);
	snprintf(root, sizeof(root), "%s/thermpress-fuzz-stock-%d-XXXXXX", base, (int)getpid());
	FUZZ_CHECK(mkdtemp(root) != NULL, "cannot make %s", root);
	fixture();
}

/* A struct stock on the fixture root, as tp_source_stock_open starts one. */
static struct stock *stock_on_root(void)
{
	struct stock *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	snprintf(s->root, sizeof(s->root), "%s", root);
	return s;
}

/* What stock_read_text gives for a file of this content: trailing newlines and spaces off. */
static char *as_read(const char *text, size_t max)
{
	size_t n = strlen(text);
	char *s;

	if (n > max - 1)
		n = max - 1;
	s = strndup(text, n);
	if (!s)
		abort();
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

/* ---- references ------------------------------------------------------------------ */

/* [+-]DIGITS in int64 range, the whole text (stock_parse_i64's documented grammar). */
static bool ref_i64(const char *s, int64_t *out)
{
	bool neg = *s == '-';
	uint64_t v = 0, lim;

	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (lim - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static bool is_sep(char c)
{
	return c == ' ' || c == ',' || c == '\n' || c == '\t';
}

/* "0-3,6" or "0 1 2 3": items N or N-M (N <= M < TP_MAX_CPUS) between separators. */
static bool ref_cpus(const char *s, struct tp_cpuset *set)
{
	tp_cpuset_zero(set);
	for (;;) {
		uint64_t a = 0, b;

		while (is_sep(*s))
			s++;
		if (!*s)
			return true;
		if (!isdigit((unsigned char)*s))
			return false;
		for (; isdigit((unsigned char)*s); s++)
			if ((a = a * 10 + (uint64_t)(*s - '0')) >= TP_MAX_CPUS)
				return false;
		b = a;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return false;
			for (b = 0; isdigit((unsigned char)*s); s++)
				if ((b = b * 10 + (uint64_t)(*s - '0')) >= TP_MAX_CPUS)
					return false;
			if (b < a)
				return false;
		}
		if (*s && !is_sep(*s))
			return false;
		for (uint64_t c = a; c <= b; c++)
			tp_cpuset_add(set, (int)c);
	}
}

/* ---- the readers -------------------------------------------------------------------- */

static void check_cpu_array(const int *cpus, size_t n, const struct tp_cpuset *want, const char *text)
{
	struct tp_cpuset got;

	tp_cpuset_zero(&got);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(cpus[i] >= 0 && cpus[i] < TP_MAX_CPUS && (i == 0 || cpus[i] > cpus[i - 1]),
			   "'%s': cpu %d at %zu not ascending or out of range", text, cpus[i], i);
		tp_cpuset_add(&got, cpus[i]);
	}
	FUZZ_CHECK(memcmp(&got, want, sizeof(got)) == 0, "'%s': another set than the reference", text);
}

static void check_related(const char *text)
{
	struct stock *s = stock_on_root();
	struct tp_cpuset want;
	int *cpus = NULL, *again = NULL;
	size_t n = 0, n2 = 0;
	char *read = as_read(text, 16384), list[65536];
	bool ok = ref_cpus(read, &want) && tp_cpuset_count(&want) > 0;
	int rc;

	put(CPU "cpu0/cpufreq/related_cpus", text, strlen(text));
	rc = stock_freq_related(s, 0, &cpus, &n);
	FUZZ_CHECK((rc == 0) == ok, "related_cpus '%s': reader %d, reference %s", read, rc,
		   ok ? "accepts" : "refuses");
	if (ok) {
		check_cpu_array(cpus, n, &want, read);
		/* the kernel's own format of that set reads back the same */
		FUZZ_CHECK(tp_cpuset_format(&want, list, sizeof(list)) < sizeof(list), "list too long");
		FUZZ_CHECK(stock_parse_cpus(list, &again, &n2) == 0 && n2 == n &&
			   memcmp(again, cpus, n * sizeof(*cpus)) == 0, "'%s' does not read back", list);
		free(again);
		free(cpus);
	}
	free(read);
	free(s);
	restore();
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

static void check_freqs(const char *text)
{
	struct stock *s = stock_on_root();
	char *read = as_read(text, 65536), *save = NULL;
	uint64_t *freqs = NULL, *want = malloc((strlen(read) / 2 + 1) * sizeof(*want));
	size_t n = 0, nwant = 0, w = 0;
	bool ok = true;
	int rc;

	if (!want)
		abort();
	for (char *t = strtok_r(read, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		int64_t f;

		if (!ref_i64(t, &f) || f <= 0) {
			ok = false;
			break;
		}
		want[nwant++] = (uint64_t)f;
	}
	ok = ok && nwant > 0;
	qsort(want, nwant, sizeof(*want), cmp_u64_desc);
	for (size_t i = 0; i < nwant; i++)
		if (w == 0 || want[w - 1] != want[i])
			want[w++] = want[i];
	put(CPU "cpu0/cpufreq/scaling_available_frequencies", text, strlen(text));
	rc = stock_freq_available(s, 0, &freqs, &n);
	FUZZ_CHECK((rc == 0) == ok, "scaling_available_frequencies '%s': reader %d, reference %s",
		   text, rc, ok ? "accepts" : "refuses");
	if (ok) {
		FUZZ_CHECK(n == w, "'%s': %zu frequencies, reference %zu", text, n, w);
		for (size_t i = 0; i < n; i++) {
			FUZZ_CHECK(freqs[i] > 0 && (i == 0 || freqs[i] < freqs[i - 1]),
				   "'%s': frequency %zu not descending", text, i);
			FUZZ_CHECK(freqs[i] == want[i], "'%s': frequency %zu differs", text, i);
		}
	}
	free(freqs);
	free(want);
	free(read);
	free(s);
	restore();
}

/* The kernel's kstrtoint(s, 0): [+-], 0x hex, 0 octal, else decimal; int range. */
static bool ref_kstrtoint(const char *s, int *out)
{
	bool neg = false;
	unsigned base = 10;
	uint64_t v = 0;
	const char *start;

	if (*s == '-') {
		neg = true;
		s++;
	} else if (*s == '+') {
		s++;
	}
	if (s[0] == '0' && tolower((unsigned char)s[1]) == 'x' && isxdigit((unsigned char)s[2])) {
		base = 16;
		s += 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	for (start = s; *s; s++) {
		int d = isdigit((unsigned char)*s) ? *s - '0' :
			isxdigit((unsigned char)*s) ? tolower((unsigned char)*s) - 'a' + 10 : 99;

		if (d >= (int)base)
			return false;
		v = v * base + (uint64_t)d;
		if (v > (uint64_t)INT_MAX + 1)
			return false;
	}
	if (s == start || (!neg && v > INT_MAX))
		return false;
	*out = neg ? (int)(0 - (int64_t)v) : (int)v;
	return true;
}

static void check_cmdline(const char *text)
{
	static const char key[] = "sched_thermal_decay_shift=";
	struct stock *s = stock_on_root();
	char *read = as_read(text, 8192), *save = NULL;
	int want = 0, v;
	bool from = false;

	put("proc/cmdline", text, strlen(text));
	stock_read_kernel(s);
	FUZZ_CHECK(s->kernel.shift >= 0 && s->kernel.shift <= 10, "shift %d", s->kernel.shift);
	if (!strchr(read, '"')) {	/* the kernel's quoting is not modelled */
		for (char *t = strtok_r(read, " \t\n\v\f\r", &save); t; t = strtok_r(NULL, " \t\n\v\f\r", &save)) {
			if (!strcmp(t, "--"))
				break;
			if (strncmp(t, key, sizeof(key) - 1) || !ref_kstrtoint(t + sizeof(key) - 1, &v))
				continue;
			want = v < 0 ? 0 : v > 10 ? 10 : v;
			from = true;
		}
		FUZZ_CHECK(s->kernel.shift == want && s->kernel.shift_from_cmdline == from,
			   "cmdline '%s': shift %d (%s), the kernel's rule gives %d (%s)", text,
			   s->kernel.shift, s->kernel.shift_from_cmdline ? "set" : "default", want,
			   from ? "set" : "default");
	}
	free(read);
	free(s);
	restore();
}

/* MAJOR.MINOR at the start, both decimal within int. */
static bool ref_release(const char *s, int *major, int *minor)
{
	int64_t v[2] = { 0, 0 };

	for (int i = 0; i < 2; i++) {
		if (!isdigit((unsigned char)*s))
			return false;
		for (; isdigit((unsigned char)*s); s++)
			if ((v[i] = v[i] * 10 + (*s - '0')) > INT_MAX)
				return false;
		if (i == 0 && *s++ != '.')
			return false;
	}
	*major = (int)v[0];
	*minor = (int)v[1];
	return true;
}

static void check_release(const char *text)
{
	struct stock *s = stock_on_root();
	char *read = as_read(text, 65);
	int major = TP_NONE, minor = TP_NONE;
	bool ok = ref_release(read, &major, &minor);
	const struct stock_kernel *k = &s->kernel;
	enum tp_stock_model model = TP_STOCK_MODEL_NONE;

	put("proc/sys/kernel/osrelease", text, strlen(text));
	stock_read_kernel(s);
	FUZZ_CHECK(!strcmp(k->release, read), "release '%s' read as '%s'", read, k->release);
	FUZZ_CHECK(k->major == (ok ? major : TP_NONE) && k->minor == (ok ? minor : TP_NONE),
		   "release '%s': %d.%d, reference %d.%d", read, k->major, k->minor,
		   ok ? major : TP_NONE, ok ? minor : TP_NONE);
	if (ok && (major > 5 || (major == 5 && minor >= 7)))
		model = major > 6 || (major == 6 && minor >= 10) ? TP_STOCK_MODEL_CPUFREQ_HW :
			TP_STOCK_MODEL_THERMAL_PELT;
	FUZZ_CHECK(k->model == model, "release '%s': model %d, expected %d", read, k->model, model);
	free(read);
	free(s);
	restore();
}

/* The first line starting CONFIG_HZ= decides: its value if 1..100000, else none. */
static int ref_config_hz(const char *text)
{
	for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line + 10;
		int64_t v = 0;

		if (strncmp(line, "CONFIG_HZ=", 10))
			continue;
		if (!isdigit((unsigned char)*p))
			return TP_NONE;
		for (; isdigit((unsigned char)*p); p++)
			if ((v = v * 10 + (*p - '0')) > 100000)
				return TP_NONE;
		return (*p == '\n' || !*p) && v >= 1 ? (int)v : TP_NONE;
	}
	return TP_NONE;
}

static void check_config(const char *text, bool gz)
{
	struct stock *s = stock_on_root();
	int want = ref_config_hz(text);

	if (gz) {	/* gzread reads a file that is not gzip as it is */
		drop("boot/config-6.1.0-18-arm64");
		put("proc/config.gz", text, strlen(text));
	} else {
		put("boot/config-6.1.0-18-arm64", text, strlen(text));
	}
	stock_read_kernel(s);
	FUZZ_CHECK(s->kernel.hz == TP_NONE || (s->kernel.hz >= 1 && s->kernel.hz <= 100000), "hz %d",
		   s->kernel.hz);
	FUZZ_CHECK(s->kernel.hz == want, "%s '%s': hz %d, reference %d", gz ? "config.gz" : "config",
		   text, s->kernel.hz, want);
	free(s);
	restore();
}

static void check_zone(const char *text)
{
	struct stock *s = stock_on_root();
	struct tp_thermal_zone *zones = NULL;
	char *read = as_read(text, 64);
	int64_t want = TP_NONE;
	size_t n = 0;

	if (!ref_i64(read, &want))
		want = TP_NONE;
	put("sys/class/thermal/thermal_zone0/trip_point_0_temp", text, strlen(text));
	put("sys/class/thermal/thermal_zone0/temp", text, strlen(text));
	FUZZ_CHECK(stock_read_zones(s, &zones, &n) == 0 && n == 1 && zones[0].nr_trips == 1,
		   "zones not read");
	FUZZ_CHECK(zones[0].temp_mc == want && zones[0].trips[0].temp_mc == want,
		   "temperature '%s': %lld, reference %lld", read, (long long)zones[0].temp_mc,
		   (long long)want);
	free(zones);
	free(read);
	free(s);
	restore();
}

/* The policy a cooling device type names: cpufreq-cpuN (a CPU of it) or thermal-cpufreq-K. */
static int ref_cooling_domain(const char *type)
{
	static const int policy_of_cpu[4] = { 0, 0, 2, 2 }, policy_ids[2] = { 0, 2 };
	const char *p = NULL;
	uint64_t v = 0;
	bool by_cpu = false;

	if (!strncmp(type, "cpufreq-cpu", 11)) {
		p = type + 11;
		by_cpu = true;
	} else if (!strncmp(type, "thermal-cpufreq-", 16)) {
		p = type + 16;
	}
	if (!p || !*p)
		return TP_NONE;
	for (; *p; p++)
		if (*p < '0' || *p > '9' || (v = v * 10 + (uint64_t)(*p - '0')) > 1000)
			return TP_NONE;
	if (by_cpu)
		return v < 4 ? policy_of_cpu[v] : TP_NONE;
	return v < 2 ? policy_ids[v] : TP_NONE;
}

/*
 * cpu_capacity|cpuinfo_max_freq|scaling_max_freq|cur_state|osrelease|online|cooling type,
 * the files of cpu 0, its policy and its cooling device (fields left out stay as they are).
 */
static void check_snapshot(const char *text)
{
	static const char *const files[] = {
		CPU "cpu0/cpu_capacity", CPU "cpu0/cpufreq/cpuinfo_max_freq",
		CPU "cpu0/cpufreq/scaling_max_freq", "sys/class/thermal/cooling_device0/cur_state",
		"proc/sys/kernel/osrelease", CPU "online", "sys/class/thermal/cooling_device0/type",
	};
	struct tp_cpuset online;
	bool have_online = true;
	char *cooling_type = strdup("thermal-cpufreq-0");
	struct tp_stock_info info;
	struct tp_thermal th;
	size_t fields = 1;
	struct tp_open_options opts = { .kind = TP_SOURCE_STOCK, .root = root,
					.plugin_dir = "/nonexistent" };
	struct tp_snapshot snap;
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };
	const char *p = text;
	int64_t cap0 = 1024;
	char *read;

	for (const char *q = text; *q; q++)
		fields += *q == '|';
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && p; i++) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		put(files[i], p, n);
		if (i == 0) {
			char *field = strndup(p, n);

			if (!field)
				abort();
			read = as_read(field, 64);
			if (!ref_i64(read, &cap0) || cap0 < 1 || cap0 > 1024)
				cap0 = 1024;
			free(read);
			free(field);
		} else if (i == 5) {
			char *field = strndup(p, n);

			if (!field)
				abort();
			read = as_read(field, 16384);
			have_online = ref_cpus(read, &online);
			free(read);
			free(field);
		} else if (i == 6) {
			char *field = strndup(p, n);

			if (!field)
				abort();
			free(cooling_type);
			cooling_type = as_read(field, TP_NAME_MAX);
			free(field);
		}
		p = bar ? bar + 1 : NULL;
	}
	if (!cooling_type)
		abort();
	if (fields < 6) {
		/* no online field: the fixture's 0-3 */
		tp_cpuset_zero(&online);
		for (int c = 0; c < 4; c++)
			tp_cpuset_add(&online, c);
	}
	tp_snapshot_init(&snap);
	FUZZ_CHECK(tp_source_open(&opts, &src, &err) == 0, "open: %s", err.msg);
	FUZZ_CHECK(tp_snapshot_take(src, &snap, &err) == 0, "snapshot: %s", err.msg);
	FUZZ_CHECK(snap.nr_cpus == 4, "%zu cpus", snap.nr_cpus);
	FUZZ_CHECK(snap.cpus[0].max_capacity == cap0, "cpu_capacity: %lld, written %lld",
		   (long long)snap.cpus[0].max_capacity, (long long)cap0);
	for (size_t i = 0; i < snap.nr_cpus; i++) {
		const struct tp_cpu *c = &snap.cpus[i];

		FUZZ_CHECK(c->max_capacity >= 1 && c->max_capacity <= 1024, "max_capacity %lld",
			   (long long)c->max_capacity);
		FUZZ_CHECK(c->max_freq_khz == TP_NONE || c->max_freq_khz >= 1, "max_freq_khz %lld",
			   (long long)c->max_freq_khz);
		FUZZ_CHECK(c->capped_freq_khz == TP_NONE ||
			   (c->capped_freq_khz >= 1 && c->capped_freq_khz <= c->max_freq_khz),
			   "capped_freq_khz %lld of %lld", (long long)c->capped_freq_khz,
			   (long long)c->max_freq_khz);
		FUZZ_CHECK(c->pressure == TP_NONE || (c->pressure >= 0 && c->pressure <= c->max_capacity),
			   "pressure %lld of %lld", (long long)c->pressure, (long long)c->max_capacity);
		FUZZ_CHECK(c->avg_pressure == TP_NONE ||
			   (c->avg_pressure >= 0 && c->avg_pressure <= c->max_capacity),
			   "avg_pressure %lld", (long long)c->avg_pressure);
		FUZZ_CHECK(c->capacity == TP_NONE || (c->capacity >= 1 && c->capacity <= c->max_capacity),
			   "capacity %lld of %lld", (long long)c->capacity, (long long)c->max_capacity);
		FUZZ_CHECK(c->domain >= 0 && (size_t)c->domain < snap.nr_domains, "domain %d", c->domain);
		FUZZ_CHECK(c->online == (have_online ? tp_cpuset_has(&online, c->cpu) : TP_NONE),
			   "cpu %d online %d", c->cpu, c->online);
	}
	FUZZ_CHECK(tp_stock_describe(src, &info, &err) == 0, "describe: %s", err.msg);
	tp_stock_info_release(&info);
	FUZZ_CHECK(tp_thermal_read(src, &th, &err) == 0, "thermal: %s", err.msg);
	FUZZ_CHECK(th.nr_cooling == 1 && th.cooling[0].domain == ref_cooling_domain(cooling_type),
		   "cooling type '%s': domain %d, reference %d", cooling_type,
		   th.nr_cooling ? th.cooling[0].domain : -2, ref_cooling_domain(cooling_type));
	tp_thermal_release(&th);
	free(cooling_type);
	tp_snapshot_release(&snap);
	tp_source_close(src);
	restore();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void remove_root(void)
{
	remove_tree(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	make_root();
	atexit(remove_root);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1 || size > 4096)
		return 0;
	text = fuzz_cstring(data + 1, size - 1);
	switch (data[0] % 8) {
	case 0:
		check_related(text);
		break;
	case 1:
		check_freqs(text);
		break;
	case 2:
		check_cmdline(text);
		break;
	case 3:
		check_release(text);
		break;
	case 4:
		check_config(text, false);
		break;
	case 5:
		check_config(text, true);
		break;
	case 6:
		check_zone(text);
		break;
	default:
		check_snapshot(text);
		break;
	}
	free(text);
	return 0;
}
