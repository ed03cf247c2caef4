/* SPDX-License-Identifier: MIT */
/*
 * The interactive shell's history, kept across sessions as bash and psql keep theirs
 * (docs/state.md, "The shell's history"): the file DIR/shell_history, DIR being
 * $XDG_STATE_HOME/thermpress (an absolute XDG_STATE_HOME only, as the XDG spec says) or
 * ~/.local/state/thermpress.
 *
 *   thermpress-history 1
 *   COMMAND LINE            one a line, oldest first, at most TP_HISTORY_MAX_ENTRIES
 *
 * A command line is 1..TP_HISTORY_LINE_MAX bytes, none of them a control character
 * (below 0x20, or 0x7f).  A file that is anything else -- no magic line, a line that is
 * not a command line, too many lines, a last line without its newline, more than
 * TP_HISTORY_MAX_BYTES, not a regular file of the user, a symbolic link -- is damaged:
 * it is refused as a whole and never written over (the caller keeps no history for the
 * session).  An accepted file is exactly what tp_history_format() writes for it.
 *
 * The directory is trusted as the state file's is and more, since it is found by name:
 * every directory on the way to it is owned by root or the user and writable by nobody
 * else (unless sticky), every symbolic link on the way is owned by root or the user (a
 * link planted by another user is never followed), and the directory itself is the
 * user's and writable by nobody else.  Missing directories are made 0700 (the XDG spec).
 * The file is replaced atomically: a temporary file of its own name in the directory,
 * fsync, rename, fsync of the directory.  Like the rest of the library this never
 * prints: 0 or -errno with a message.
 */
#ifndef THERMPRESS_HISTORY_H
#define THERMPRESS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include <thermpress/thermpress.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the public API: exported from libthermpress, built with hidden visibility */
#pragma GCC visibility push(default)

#define TP_HISTORY_MAGIC "thermpress-history 1"
#define TP_HISTORY_FILE "shell_history"
#define TP_HISTORY_MAX_ENTRIES 256	/* libcli's MAX_HISTORY */
#define TP_HISTORY_LINE_MAX 4095	/* libcli's longest line (CLI_MAX_LINE_LENGTH - 1) */
#define TP_HISTORY_MAX_BYTES \
	(sizeof(TP_HISTORY_MAGIC) + TP_HISTORY_MAX_ENTRIES * (TP_HISTORY_LINE_MAX + 1))

struct tp_history {
	char **v;	/* the command lines, oldest first */
	size_t n;
};

/* Whether line (NUL-terminated) is a command line the file can keep. */
bool tp_history_line_valid(const char *line);
/* Append a copy of line (one that is not valid is left out); the oldest goes past the
 * limit.  0 or -ENOMEM. */
int tp_history_add(struct tp_history *h, const char *line);
void tp_history_free(struct tp_history *h);

/*
 * Parse text (len bytes, need not be NUL-terminated) into h (emptied first).  -EPROTO
 * with err naming path and the line when the text is damaged (h then empty), -ENOMEM.
 */
int tp_history_parse(const char *text, size_t len, const char *path, struct tp_history *h,
		     struct tp_error *err);
/* The file's text for h (malloc'ed, NUL-terminated, *len bytes): the magic line, then
 * the last TP_HISTORY_MAX_ENTRIES valid lines of h.  NULL when out of memory. */
char *tp_history_format(const struct tp_history *h, size_t *len);

/* The history directory (see above); -ENOENT with a message when neither an absolute
 * XDG_STATE_HOME nor an absolute HOME is set. */
int tp_history_dir(char *buf, size_t len, struct tp_error *err);
/*
 * Read DIR/shell_history into h.  0 (h empty when there is no directory or file yet), or
 * -errno with err saying why: a directory that is not trusted, a damaged or oversize
 * file (-EPROTO), a read error.  Nothing is created.
 */
int tp_history_load(const char *dir, struct tp_history *h, struct tp_error *err);
/* Replace DIR/shell_history with h's text, atomically; the directory is made when missing. */
int tp_history_save(const char *dir, const struct tp_history *h, struct tp_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
