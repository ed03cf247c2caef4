/* SPDX-License-Identifier: MIT */
/*
 * Opening files under a --root without ever leaving it.  Private to core/.
 *
 * A fixture tree, a copy of /sys or a mounted simulator may contain symlinks, and
 * one that points outside the root (or a parent directory replaced by such a link)
 * must not let a write land on a file of the real system.  Every file thermpress
 * writes under a root other than "/" is opened through here: relative symlinks that
 * stay inside the root are followed, anything that would leave it fails with -EXDEV.
 */
#ifndef TP_CORE_ROOTFS_H
#define TP_CORE_ROOTFS_H

#include <sys/types.h>

/*
 * Open rel (relative to the directory rootfd, no leading '/') without resolving
 * outside rootfd: openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) where the
 * kernel has it, else tp_open_beneath_walk().  flags and mode as for openat(2)
 * (O_CLOEXEC is added).  A file descriptor, or -errno (-EXDEV: it would leave).
 */
int tp_open_beneath(int rootfd, const char *rel, int flags, mode_t mode);

/*
 * The fallback: resolve rel one component at a time with O_NOFOLLOW, reading each
 * symlink and resolving its target the same way (an absolute target or a ".." above
 * rootfd is -EXDEV; at most 40 links, else -ELOOP).  Exposed for the tests.
 */
int tp_open_beneath_walk(int rootfd, const char *rel, int flags, mode_t mode);

/*
 * Open root + "/" + rel where root is a prefix without a trailing slash ("" is
 * "/"): on "/" a plain openat() (the real system's own links are trusted), under
 * any other root tp_open_beneath() of rel against an O_PATH descriptor of root.
 */
int tp_root_open(const char *root, const char *rel, int flags, mode_t mode);

/*
 * tp_root_open() of a file thermpress reads or writes as the kernel's: opened with
 * O_NONBLOCK | O_NOCTTY (a FIFO or device planted there blocks nothing) and then
 * checked to be a regular file (as sysfs, debugfs, proc and the simulator's files
 * are): a descriptor in blocking mode, or -errno, -ENOTREG (readin.h) when it is not.
 */
int tp_root_open_file(const char *root, const char *rel, int flags);

/*
 * Write value to fd in one write() (a sysfs or simulator file takes one value per
 * write), then close fd.  0, or -errno of the write or the close, or -EIO when the
 * write took only part of it.
 */
int tp_write_value_fd(int fd, const char *value);

/* tp_root_open_file(root, rel, flags) and tp_write_value_fd(): 0 or -errno. */
int tp_root_write_value(const char *root, const char *rel, int flags, const char *value);

#endif
