/* SPDX-License-Identifier: MIT */
/*
 * The state file: what thermpress changed and what was in force before, so that
 * every change can be undone (`cap restore`), also after a crash.  Private to core/.
 *
 *   thermpress-caps 2                              (version 1: stock lines only, still read)
 *   root /canonical/root                           (realpath of the root)
 *   scaling_max_freq POLICY ORIGINAL_KHZ APPLIED_KHZ     a stock kernel's policy limit
 *   cur_state COOLING_DEVICE ORIGINAL APPLIED             a stock kernel's cooling state
 *   cap CPU ORIGINAL_KHZ APPLIED_KHZ                      the patched interface (0: no cap)
 *   backend ORIGINAL APPLIED                              the active backend
 *   decay BACKEND ORIGINAL_MS APPLIED_MS                  a backend's decay period
 *   hold CPU PID START KHZ BEFORE                         a live cap hold (the ledger)
 *   hold scaling_max_freq|cur_state ID PID START VALUE BEFORE   a stock kernel's limit held
 *
 * hold lines are the ledger of nested cap holds (docs/state.md): one per CPU and
 * holding process (PID and its start time START, field 22 of /proc/PID/stat), in the
 * order the holds began, each with the value the limit had before the first of them
 * (BEFORE, the same on every line of a limit); the limit carries the value of its last
 * live hold, and BEFORE when the last holder ends.  A hold whose process is gone (no such PID, a
 * zombie, or another start time) is dead and is dropped by whoever finds it.
 * One entry per limit (kind and id, or backend name); the first original is kept
 * however often the limit changes again.  Ranges (tp_state_entry_valid()): ids
 * 0..TP_STATE_ID_MAX; scaling_max_freq and decay values 1..TP_STATE_VALUE_MAX,
 * cur_state and cap values 0..TP_STATE_VALUE_MAX; backend names 1..31 of
 * [A-Za-z0-9_.-].  A line that does not parse, is out of range, repeats an entry,
 * or is the last line without its newline (torn) is skipped and reported; the
 * others stay usable.  A file without the magic line or the root line is refused.
 *
 * Updates: the whole file is rewritten to NAME.tmp in the same directory, fsync'ed,
 * renamed over NAME and the directory fsync'ed, all under flock(LOCK_EX) on
 * NAME.lock, a separate file that is never replaced or removed (a lock on the state
 * file itself would be lost with the inode at each rename).  The directory is
 * created 0700 and refused when it is a symlink, not owned by the effective user,
 * or writable by group or others; every file in it is opened O_NOFOLLOW.
 */
#ifndef TP_CORE_STATE_H
#define TP_CORE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <thermpress/thermpress.h>

#define TP_STATE_MAGIC_V1 "thermpress-caps 1"
#define TP_STATE_MAGIC "thermpress-caps 2"
#define TP_STATE_ID_MAX 1000000
#define TP_STATE_VALUE_MAX INT64_C(1000000000000)
#define TP_STATE_MAX_BYTES (1 << 24)
#define TP_STATE_PATH_MAX 4200

enum tp_state_kind {
	TP_STATE_SCALING,	/* scaling_max_freq */
	TP_STATE_COOLING,	/* cur_state */
	TP_STATE_CAP,		/* cap */
	TP_STATE_BACKEND,	/* backend */
	TP_STATE_DECAY,		/* decay */
	TP_STATE_HOLD,		/* hold */
};

struct tp_state_entry {
	enum tp_state_kind kind;
	int id;				/* policy, cooling device or CPU; 0 for backend, decay */
	char name[TP_NAME_MAX];		/* backend: the original; decay: whose period */
	char applied_name[TP_NAME_MAX];	/* backend: the one switched to */
	int64_t original, applied;	/* kHz, state or ms (unused for backend); hold: applied */
	int64_t pid, start;		/* hold: the holding process and its start time */
	enum tp_state_kind held;	/* hold: the limit held (CAP, SCALING or COOLING) and id */
	int64_t before;			/* hold: the limit's value before the first hold */
};

struct tp_state_doc {
	char root[4096];
	struct tp_state_entry *v;
	size_t n, alloc;
	/* skipped lines: their numbers and text (kept in the file until a restore) */
	unsigned *bad_line;
	char **bad_text;
	size_t nbad;
};

/*
 * Parse text (len bytes, need not be NUL-terminated) into doc (zeroed first).
 * -EPROTO (err names the file as path) when the file as a whole is not usable;
 * damaged lines are only listed in doc->bad_*.
 */
int tp_state_parse(const char *text, size_t len, const char *path, struct tp_state_doc *doc,
		   struct tp_error *err);
/* The file text for doc (malloc, NUL-terminated), skipped lines kept when keep_bad. */
char *tp_state_format(const struct tp_state_doc *doc, bool keep_bad, size_t *len);
void tp_state_doc_free(struct tp_state_doc *doc);
bool tp_state_entry_valid(const struct tp_state_entry *e);
bool tp_state_name_valid(const char *name);
/* The entry of that limit (name only for decay), or NULL. */
struct tp_state_entry *tp_state_find(struct tp_state_doc *doc, enum tp_state_kind kind, int id,
				     const char *name);
int tp_state_add(struct tp_state_doc *doc, const struct tp_state_entry *e);
void tp_state_drop(struct tp_state_doc *doc, struct tp_state_entry *e);
/* This process as a holder: its pid and start time (-errno when /proc cannot tell). */
int tp_state_self(int64_t *pid, int64_t *start);
/* Whether the process pid with that start time still runs (not a zombie). */
bool tp_state_holder_alive(int64_t pid, int64_t start);
/* The value a limit had before its holds (from any of its hold lines), else now. */
int64_t tp_state_hold_base(struct tp_state_doc *doc, enum tp_state_kind held, int id, int64_t now);
/* Whether any hold line names the limit (its record then stays, even at its original). */
bool tp_state_held(struct tp_state_doc *doc, enum tp_state_kind held, int id);
/* Drop every hold of a process that is gone; how many were dropped. */
size_t tp_state_prune_holds(struct tp_state_doc *doc);
/* The most recent hold of the limit (held: CAP, SCALING or COOLING; the last line), or NULL. */
struct tp_state_entry *tp_state_last_hold(struct tp_state_doc *doc, enum tp_state_kind held, int id);
/* "lines 3, 7" of the skipped lines, for messages. */
void tp_state_bad_lines(const struct tp_state_doc *doc, char *buf, size_t len);

/* An open, locked state file. */
struct tp_state {
	int dirfd, lockfd;
	char path[TP_STATE_PATH_MAX];	/* DIR/NAME, for messages */
	char name[256];
	struct tp_state_doc doc;
	bool dirty;
	bool drop_bad;			/* the next save leaves skipped lines out */
};

/*
 * The directory: dir is absolute, or (with root, a prefix without a trailing slash,
 * not "") relative to root and never resolved outside it.  Open DIR/name locked and
 * read it.  create: make the directory (and the lock file) when missing; without it
 * a missing directory or file is an empty state.  root_canon is written in new files
 * and must match the root line of an existing one (-EXDEV otherwise).
 */
int tp_state_open(struct tp_state *st, const char *root, const char *dir, const char *name,
		  const char *root_canon, bool create, struct tp_error *err);
/*
 * The same with a directory already open (dirfd, kept by a holder from its start: the
 * directory is never looked up by name again, so swapping it for a link changes
 * nothing).  shown is the directory's name for messages.
 */
int tp_state_open_at(struct tp_state *st, int dirfd, const char *shown, const char *name,
		     const char *root_canon, struct tp_error *err);
/* Write the entries back atomically (or remove the file when none are left). */
int tp_state_save(struct tp_state *st, struct tp_error *err);
/* Drop the lock; unsaved changes are lost. */
void tp_state_close(struct tp_state *st);
/*
 * Restoring: the damaged lines of st counted and named (with st's file) in rep; the
 * next save leaves them out.  Nothing when there are none.
 */
void tp_state_report_bad(struct tp_state *st, struct tp_restore_report *rep);
/*
 * Restoring goes on past a failure (rc < 0, described in *one): the first failure is
 * the result, kept in *first and *err (err may be NULL).  Nothing when rc >= 0.
 */
void tp_restore_failed(int *first, int rc, struct tp_error *err, const struct tp_error *one);

/*
 * The directory for state files when none is imposed: $THERMPRESS_STATE_DIR,
 * /run/thermpress as root, $XDG_RUNTIME_DIR/thermpress, /tmp/thermpress-UID.
 */
void tp_state_default_dir(char *buf, size_t len);
/* The canonical root (realpath) of a root prefix ("" is "/"). */
void tp_state_canonical_root(const char *root, char *buf, size_t len);

#endif
