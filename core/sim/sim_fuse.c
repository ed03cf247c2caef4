/* SPDX-License-Identifier: MIT */
/*
 * `thermpress sim serve`: the simulator's docs/abi.md files over FUSE, at
 * MOUNTPOINT/sys/kernel/debug/sched/thermal_pressure/.  Single-threaded: our own loop
 * around the session so that *stop is checked between requests.  Nothing is printed:
 * libfuse's messages are captured into the error.
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <fuse.h>
#include <fuse_lowlevel.h>

#include "sim/sim.h"

/* The directories down to the interface directory, "" being the root. */
static const char *const dirs[] = {
	"", "/sys", "/sys/kernel", "/sys/kernel/debug", "/sys/kernel/debug/sched",
	"/" TP_ABI_DIR,
};
#define NR_DIRS (sizeof(dirs) / sizeof(dirs[0]))

struct open_file;

struct serve_ctx {
	struct tp_sim *sim;
	uid_t uid;
	gid_t gid;
	struct timespec mounted;
	struct tp_error last;		/* the last refused write, for debugging */
	struct open_file *files;	/* still open: freed at the end if never released */
};

/* One open file: its text is generated at the first read, then every read continues it. */
struct open_file {
	struct open_file *prev, *next;
	const struct tpsim_file *file;
	bool generated;
	int error;
	char *text;
	size_t len;
};

static __thread char fuse_msg[256];

static void capture_log(enum fuse_log_level level, const char *fmt, va_list ap)
{
	size_t n;

	if (level > FUSE_LOG_ERR && fuse_msg[0])
		return;
	vsnprintf(fuse_msg, sizeof(fuse_msg), fmt, ap);
	n = strlen(fuse_msg);
	while (n && (fuse_msg[n - 1] == '\n' || fuse_msg[n - 1] == '.'))
		fuse_msg[--n] = '\0';
}

static struct serve_ctx *ctx(void)
{
	return fuse_get_context()->private_data;
}

/* A directory index, or -1; *file set for a file of the interface directory. */
static int lookup(const char *path, const struct tpsim_file **file)
{
	size_t dlen = strlen("/" TP_ABI_DIR);

	*file = NULL;
	if (!strcmp(path, "/"))
		return 0;
	for (size_t i = 1; i < NR_DIRS; i++)
		if (!strcmp(path, dirs[i]))
			return (int)i;
	if (!strncmp(path, "/" TP_ABI_DIR, dlen) && path[dlen] == '/')
		*file = tpsim_file_find(path + dlen + 1);
	return -1;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->direct_io = 1;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	return fuse_get_context()->private_data;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	const struct tpsim_file *file;
	int dir = lookup(path, &file);
	struct serve_ctx *c = ctx();

	memset(st, 0, sizeof(*st));
	st->st_uid = c->uid;
	st->st_gid = c->gid;
	st->st_atim = st->st_mtim = st->st_ctim = c->mounted;
	if (dir >= 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (!file)
		return -ENOENT;
	st->st_mode = S_IFREG | file->mode;
	st->st_nlink = 1;
	st->st_size = 0;	/* direct_io: readers read until 0 */
	return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	const struct tpsim_file *file;
	int dir = lookup(path, &file);

	if (dir < 0)
		return file ? -ENOTDIR : -ENOENT;
	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	if ((size_t)dir + 1 < NR_DIRS) {
		filler(buf, strrchr(dirs[dir + 1], '/') + 1, NULL, 0, 0);
		return 0;
	}
	for (const struct tpsim_file *f = tpsim_files; f->name; f++)
		filler(buf, f->name, NULL, 0, 0);
	return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	const struct tpsim_file *file;
	struct open_file *of;

	if (lookup(path, &file) >= 0)
		return -EISDIR;
	if (!file)
		return -ENOENT;
	of = calloc(1, sizeof(*of));
	if (!of)
		return -ENOMEM;
	of->file = file;
	of->next = ctx()->files;
	if (of->next)
		of->next->prev = of;
	ctx()->files = of;
	fi->fh = (uintptr_t)of;
	fi->direct_io = 1;
	return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct open_file *of = (struct open_file *)(uintptr_t)fi->fh;

	if (!of->generated) {
		of->generated = true;
		of->error = tpsim_file_read(ctx()->sim, of->file, &of->text, &of->len);
	}
	if (of->error)
		return of->error;
	if (off < 0)
		return -EINVAL;
	if ((size_t)off >= of->len)
		return 0;
	if (size > of->len - (size_t)off)
		size = of->len - (size_t)off;
	memcpy(buf, of->text + off, size);
	return (int)size;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct open_file *of = (struct open_file *)(uintptr_t)fi->fh;
	struct serve_ctx *c = ctx();
	int r = tpsim_file_write(c->sim, of->file, buf, size, off < 0 ? UINT64_MAX : (uint64_t)off,
				 &c->last);

	return r ? r : (int)size;
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	const struct tpsim_file *file;

	if (lookup(path, &file) >= 0)
		return -EISDIR;
	return file ? 0 : -ENOENT;	/* `echo 1 > file` truncates first: nothing to do */
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
	struct open_file *of = (struct open_file *)(uintptr_t)fi->fh;

	if (of->prev)
		of->prev->next = of->next;
	else
		ctx()->files = of->next;
	if (of->next)
		of->next->prev = of->prev;
	free(of->text);
	free(of);
	return 0;
}

static const struct fuse_operations fs_ops = {
	.init = fs_init,
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.read = fs_read,
	.write = fs_write,
	.truncate = fs_truncate,
	.release = fs_release,
};

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path)
		path = "/usr/bin:/bin:/usr/sbin:/sbin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

#define FUSE_SUPER_MAGIC 0x65735546

/*
 * Whether a FUSE file system is mounted on dir itself (st: its stat): mounting over it
 * would hide the live server, and stopping ours would leave a dead mount over it.
 */
static bool fuse_mounted_at(const char *dir, const struct stat *st)
{
	char parent[4200];
	struct stat pst;
	struct statfs fs;

	if (statfs(dir, &fs) || fs.f_type != FUSE_SUPER_MAGIC)
		return false;
	if ((size_t)snprintf(parent, sizeof(parent), "%s/..", dir) >= sizeof(parent))
		return true;
	/* the root of a mount, not a directory inside a FUSE file system (sshfs) */
	return stat(parent, &pst) || pst.st_dev != st->st_dev || pst.st_ino == st->st_ino;
}

static int check_usable(const char *mountpoint, struct tp_error *err)
{
	struct stat st;

	if (access("/dev/fuse", R_OK | W_OK))
		return tp_error_set(err, -ENOTSUP, "cannot serve with FUSE: /dev/fuse: %s",
				    strerror(errno));
	if (geteuid() != 0 && !in_path("fusermount3"))
		return tp_error_set(err, -ENOTSUP,
				    "cannot serve with FUSE: fusermount3 is missing and not "
				    "running as root (install the fuse3 package)");
	if (stat(mountpoint, &st))
		return tp_error_set(err, -errno, "mountpoint %s: %s", mountpoint, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return tp_error_set(err, -ENOTDIR, "mountpoint %s is not a directory", mountpoint);
	if (fuse_mounted_at(mountpoint, &st))
		return tp_error_set(err, -EBUSY, "mountpoint %s is already a FUSE mount (another "
				    "sim serve?): stop that one, or fusermount3 -u %s", mountpoint,
				    mountpoint);
	return 0;
}

static int mount_error(const char *mountpoint, struct tp_error *err)
{
	int code = strstr(fuse_msg, "ermission") || strstr(fuse_msg, "not permitted") ? -EPERM
										      : -ENOTSUP;

	return tp_error_set(err, code, "cannot mount the simulator at %s: %s", mountpoint,
			    fuse_msg[0] ? fuse_msg : "the mount was refused");
}

static int serve_loop(struct fuse_session *se, volatile sig_atomic_t *stop, struct tp_error *err)
{
	struct fuse_buf fbuf;
	int fd = fuse_session_fd(se), r = 0;

	memset(&fbuf, 0, sizeof(fbuf));
	while (!*stop && !fuse_session_exited(se)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int n = poll(&p, 1, 100);

		if (n < 0 && errno != EINTR) {
			r = tp_error_set(err, -errno, "serving the simulator: poll: %s",
					 strerror(errno));
			break;
		}
		if (n <= 0)
			continue;
		n = fuse_session_receive_buf(se, &fbuf);
		if (n == -EINTR || n == -EAGAIN)
			continue;
		if (n <= 0) {
			/* 0 or -ENODEV: unmounted from outside, a normal end */
			if (n < 0 && n != -ENODEV)
				r = tp_error_set(err, n, "serving the simulator: %s", strerror(-n));
			break;
		}
		fuse_session_process_buf(se, &fbuf);
	}
	free(fbuf.mem);
	return r;
}

int tpsim_fuse_serve(struct tp_sim *sim, const char *mountpoint, volatile sig_atomic_t *stop,
		     struct tp_error *err)
{
	static const char *const argv[] = { "thermpress", "-o",
					    "fsname=thermpress-sim,subtype=thermpress" };
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct serve_ctx c;
	struct fuse *f;
	int r;

	r = check_usable(mountpoint, err);
	if (r)
		return r;
	memset(&c, 0, sizeof(c));
	c.sim = sim;
	c.uid = getuid();
	c.gid = getgid();
	clock_gettime(CLOCK_REALTIME, &c.mounted);

	fuse_msg[0] = '\0';
	fuse_set_log_func(capture_log);
	for (size_t i = 0; i < sizeof(argv) / sizeof(argv[0]); i++)
		if (fuse_opt_add_arg(&args, argv[i])) {
			fuse_opt_free_args(&args);
			return tp_error_set(err, -ENOMEM, "out of memory for the fuse arguments");
		}
	f = fuse_new(&args, &fs_ops, sizeof(fs_ops), &c);
	fuse_opt_free_args(&args);
	if (!f)
		return tp_error_set(err, -ENOTSUP, "cannot start fuse: %s",
				    fuse_msg[0] ? fuse_msg : "fuse_new failed");
	if (fuse_mount(f, mountpoint)) {
		r = mount_error(mountpoint, err);
		fuse_destroy(f);
		return r;
	}
	r = serve_loop(fuse_get_session(f), stop, err);
	fuse_session_exit(fuse_get_session(f));
	fuse_unmount(f);
	fuse_destroy(f);
	/* releases still queued when the loop stopped never arrive */
	while (c.files) {
		struct open_file *next = c.files->next;

		free(c.files->text);
		free(c.files);
		c.files = next;
	}
	return r;
}
