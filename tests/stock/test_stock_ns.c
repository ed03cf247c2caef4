// SPDX-License-Identifier: MIT
/*
 * The stock source on the real root "/", where cpufreq goes through libcpupower and
 * its hard-coded /sys paths.  The test enters a private mount namespace
 * (unshare(CLONE_NEWNS), needs root; skipped otherwise) and bind-mounts a copy of
 * the arm64 big.LITTLE fixture over /sys/devices/system/cpu and /sys/class/thermal,
 * and its kernel facts over /proc/sys/kernel/{osrelease,arch} and /proc/cmdline.
 * Nothing outside the namespace sees any of it.
 *
 * libcpupower writes without O_TRUNC (harmless on sysfs): on the fixture's regular
 * files every value written here has as many digits as the value it replaces.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

#define MESON_SKIP 77
#define SYS_LITTLE_MAX "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"
#define SYS_BIG_MAX "/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq"
#define SYS_BIG_COOLING "/sys/class/thermal/cooling_device1/cur_state"

static char *tree;		/* the fixture copy behind the bind mounts */
static char state_dir[PATH_MAX - 64];

static long long sys_num(const char *path)
{
	return read_num("", path);
}

static int bind(const char *rel, const char *target)
{
	char src[PATH_MAX];

	snprintf(src, sizeof(src), "%s/%s", tree, rel);
	if (mount(src, target, NULL, MS_BIND, NULL) != 0) {
		fprintf(stderr, "bind %s over %s: %s\n", src, target, strerror(errno));
		return -1;
	}
	return 0;
}

/* 0, MESON_SKIP, or 1. */
static int enter_namespace(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "skipped: mount namespaces need root\n");
		return MESON_SKIP;
	}
	if (unshare(CLONE_NEWNS) != 0) {
		fprintf(stderr, "skipped: unshare(CLONE_NEWNS): %s\n", strerror(errno));
		return MESON_SKIP;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		fprintf(stderr, "cannot make / private: %s\n", strerror(errno));
		return 1;
	}
	tree = copy_fixture("arm64-biglittle-6.1");
	if (!tree)
		return 1;
	if (bind("sys/devices/system/cpu", "/sys/devices/system/cpu") ||
	    bind("sys/class/thermal", "/sys/class/thermal") ||
	    bind("proc/sys/kernel/osrelease", "/proc/sys/kernel/osrelease") ||
	    bind("proc/sys/kernel/arch", "/proc/sys/kernel/arch") ||
	    bind("proc/cmdline", "/proc/cmdline"))
		return 1;
	snprintf(state_dir, sizeof(state_dir), "%s/state", tree);
	/* private, as thermpress requires of a state directory */
	if (mkdir(state_dir, 0700) != 0)
		return 1;
	setenv("THERMPRESS_STATE_DIR", state_dir, 1);
	return 0;
}

static struct tp_source *open_root(void)
{
	struct tp_source *src = NULL;
	struct tp_error err = { 0 };

	if (open_stock("/", TP_SOURCE_STOCK, &src, &err) != 0)
		fail_msg("open /: %s", err.msg);
	return src;
}

static void test_reads_through_libcpupower(void **state)
{
	struct tp_source *src = open_root();
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_stock_info info;
	struct tp_thermal th;
	struct tp_error err = { 0 };

	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_string_equal(snap.backend, "pelt");
	assert_int_equal(snap.decay_ms, 128);
	assert_int_equal(snap.nr_cpus, 6);
	assert_int_equal(snap.nr_domains, 2);	/* related_cpus via libcpupower */
	assert_int_equal(snap.domains[1].id, 4);
	assert_int_equal(snap.cpus[0].max_capacity, 446);
	assert_int_equal(snap.cpus[5].max_freq_khz, 1800000);	/* cpufreq_get_hardware_limits */
	assert_int_equal(snap.cpus[5].capped_freq_khz, 1416000);	/* cpufreq_get_policy */
	assert_int_equal(snap.cpus[5].pressure, 219);	/* available frequencies + cooling state */
	assert_true(snap.cpus[5].avg_estimated);
	assert_int_equal(tp_stock_describe(src, &info, &err), 0);
	assert_true(info.uses_libcpupower);
	assert_string_equal(info.release, "6.1.0-18-arm64");
	assert_int_equal(info.model, TP_STOCK_MODEL_THERMAL_PELT);
	assert_int_equal(tp_thermal_read(src, &th, &err), 0);
	assert_int_equal(th.nr_zones, 2);
	assert_int_equal(th.cooling[1].cap_khz, 1416000);
	tp_thermal_release(&th);
	assert_non_null(strstr(info.state_file, state_dir));
	tp_stock_info_release(&info);
	assert_string_equal(tp_source_describe(src), "stock kernel 6.1.0-18-arm64 (aarch64) at /");
	tp_snapshot_release(&snap);
	tp_source_close(src);
	(void)state;
}

static void test_cap_and_clear_through_libcpupower(void **state)
{
	struct tp_source *src = open_root();
	struct tp_cap_value v = { TP_CAP_KHZ, 1200000 };
	struct tp_error err = { 0 };
	struct tp_cpuset set;

	cpus_of(&set, 4, 5);
	if (tp_cap_set(src, &set, &v, &err) != 0)
		fail_msg("cap: %s", err.msg);
	assert_int_equal(sys_num(SYS_BIG_MAX), 1200000);
	assert_int_equal(tp_cap_clear(src, &set, &err), 0);
	assert_int_equal(sys_num(SYS_BIG_MAX), 1416000);
	tp_source_close(src);
	(void)state;
}

/* A user cannot load BPF: the kernel's average is estimated, and the line says why. */
static int bpf_refused_to_user(struct tp_source *src)
{
	struct tp_stock_info info;
	struct tp_error err = { 0 };
	int bad;

	if (!TEST_HAVE_BPF || !TEST_BPF_SYSCALL || access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return 0;
	if (tp_stock_describe(src, &info, &err) != 0)
		return -1;
	bad = info.kernel_avg_read || !strstr(info.kernel_avg,
		"Operation not permitted (loading BPF needs root, or CAP_BPF and CAP_PERFMON)); estimated");
	if (bad)
		fprintf(stderr, "kernel_avg: %s\n", info.kernel_avg);
	tp_stock_info_release(&info);
	return bad ? -1 : 0;
}

/* libcpupower says -ENODEV for a refused write; the message must say why. */
static void test_permission_through_libcpupower(void **state)
{
	struct passwd *pw = getpwnam("nobody");

	if (!pw) {
		skip();
		return;
	}
	assert_int_equal(cap_refused_as_user(pw, tree, "/", 1008000, "needs root", "",
					     bpf_refused_to_user), 0);
	assert_int_equal(sys_num(SYS_LITTLE_MAX), 1416000);
	(void)state;
}

/* Child: cap the little cluster (scaling) and the big one (cooling), then hold. */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static void capping_child(int ready_fd, bool restore_on_signal)
{
	struct tp_source *src;
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	src = child_cap_both_ways("/", 3, 1008000);
	if (write(ready_fd, "r", 1) != 1)
		_exit(5);
	while (!stop)
		pause();
	/* what `cap hold` does: the handler only sets a flag, the restore runs here */
	if (restore_on_signal && tp_stock_restore(src, NULL, NULL) != 0)
		_exit(6);
	tp_source_close(src);
	_exit(0);
}

static pid_t start_capper(bool restore_on_signal)
{
	int fds[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		capping_child(fds[1], restore_on_signal);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_int_equal(sys_num(SYS_LITTLE_MAX), 1008000);
	assert_int_equal(sys_num(SYS_BIG_COOLING), 4);	/* 1008000 is state 4 */
	return pid;
}

static void assert_all_back(void)
{
	char path[PATH_MAX];

	assert_int_equal(sys_num(SYS_LITTLE_MAX), 1416000);
	assert_int_equal(sys_num(SYS_BIG_MAX), 1416000);
	assert_int_equal(sys_num(SYS_BIG_COOLING), 2);
	snprintf(path, sizeof(path), "%s/caps.state", state_dir);
	assert_int_equal(access(path, F_OK), -1);
}

static void test_kill9_then_restore(void **state)
{
	struct tp_source *src;
	struct tp_error err = { 0 };
	size_t n = 0;
	int status;
	pid_t pid = start_capper(true);

	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(sys_num(SYS_LITTLE_MAX), 1008000);	/* left behind */
	src = open_root();
	assert_int_equal(tp_stock_restore(src, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_all_back();
	tp_source_close(src);
	(void)state;
}

static void test_sigint_restores_at_once(void **state)
{
	int sigs[] = { SIGINT, SIGTERM };

	for (size_t i = 0; i < 2; i++) {
		int status;
		pid_t pid = start_capper(true);

		assert_int_equal(kill(pid, sigs[i]), 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_all_back();
	}
	(void)state;
}

/*
 * The kernel's own average on "/": this machine's kernel is not the fixture's arm64
 * 6.1, so it is never read here, and the one line says why: with /sys/kernel/btf
 * hidden under an empty tmpfs, that there is no BTF.
 */
static void test_kernel_avg_fallback_on_root(void **state)
{
	struct tp_source *src;
	struct tp_snapshot snap = TP_SNAPSHOT_INIT;
	struct tp_stock_info info;
	struct tp_error err = { 0 };
	const char *want = TEST_HAVE_BPF ? "not read (no BTF at /sys/kernel/btf/vmlinux); estimated" :
		"not read (thermpress was built without BPF support); estimated";
	size_t n;

	src = open_root();
	assert_int_equal(tp_stock_describe(src, &info, &err), 0);
	assert_false(info.kernel_avg_read);
	n = strlen(info.kernel_avg);
	assert_true(strncmp(info.kernel_avg, "not read (", 10) == 0);
	assert_true(n > 11 && strcmp(info.kernel_avg + n - 11, "; estimated") == 0);
	tp_stock_info_release(&info);
	tp_source_close(src);

	if (mount("tmpfs", "/sys/kernel/btf", "tmpfs", 0, NULL) != 0) {
		fprintf(stderr, "cannot hide /sys/kernel/btf: %s\n", strerror(errno));
		return;	/* no btf directory to cover: the check below needs one */
	}
	src = open_root();
	assert_int_equal(tp_snapshot_take(src, &snap, &err), 0);
	assert_true(snap.cpus[5].avg_estimated);
	assert_int_equal(tp_stock_describe(src, &info, &err), 0);
	assert_false(info.kernel_avg_read);
	assert_string_equal(info.kernel_avg, want);
	tp_stock_info_release(&info);
	tp_snapshot_release(&snap);
	tp_source_close(src);
	assert_int_equal(umount("/sys/kernel/btf"), 0);
	(void)state;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_through_libcpupower),
		cmocka_unit_test(test_cap_and_clear_through_libcpupower),
		cmocka_unit_test(test_permission_through_libcpupower),
		cmocka_unit_test(test_kill9_then_restore),
		cmocka_unit_test(test_sigint_restores_at_once),
		cmocka_unit_test(test_kernel_avg_fallback_on_root),
	};
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	fixtures = argv[1];
	rc = enter_namespace();
	if (rc != 0) {
		if (tree)
			remove_tree(tree);	/* the namespace's mounts go with the process */
		return rc;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	/* leave the namespace's bind mounts before removing the tree behind them */
	umount2("/sys/devices/system/cpu", MNT_DETACH);
	umount2("/sys/class/thermal", MNT_DETACH);
	umount2("/proc/sys/kernel/osrelease", MNT_DETACH);
	umount2("/proc/sys/kernel/arch", MNT_DETACH);
	umount2("/proc/cmdline", MNT_DETACH);
	remove_tree(tree);
	return rc;
}
