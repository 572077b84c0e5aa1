/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ktask debugfs directory: reading and writing its files, parsing their
 * two formats ("key: value" lines, or a header line and columns), and
 * explaining failures (not root, debugfs not mounted, no ktask).
 */
#ifndef KTASKCTL_DEBUGFS_H
#define KTASKCTL_DEBUGFS_H

#include <stdbool.h>
#include <stddef.h>

#define DEBUGFS_DEFAULT_DIR	"/sys/kernel/debug/ktask"
/* Lets tests point ktaskctl at fixture files instead of the kernel's. */
#define DEBUGFS_ENV		"KTASK_DEBUGFS"

struct kv {
	char *key;
	char *value;
};

struct kv_list {
	size_t count;
	struct kv *items;
};

struct table {
	size_t ncols;
	size_t nrows;
	char **head;		/* ncols names */
	char **cells;		/* nrows * ncols values, row by row */
};

const char *debugfs_dir(void);
/* The full path of a file in debugfs_dir(); the caller frees it. */
char *debugfs_path(const char *name);

enum debugfs_stage {
	DEBUGFS_OPEN,		/* open() failed: report with the path */
	DEBUGFS_IO,		/* read() or write() failed: the kernel's answer */
};

/* Reads a whole file into a NUL-terminated *text; returns 0 or -errno. */
int debugfs_read(const char *name, char **text, enum debugfs_stage *stage);

/*
 * Writes buf with a single write() and reads the file back through the same
 * descriptor into *text; returns 0 or -errno.
 */
int debugfs_transact(const char *name, const char *buf, size_t len,
		     char **text, enum debugfs_stage *stage);

/* Writes buf with a single write(); returns 0 or -errno. */
int debugfs_write(const char *name, const char *buf, size_t len,
		  enum debugfs_stage *stage);

/*
 * Reports a failed debugfs_read()/debugfs_write() on stderr as
 * "ktaskctl: <what>: ...", naming the likely cause.
 */
void debugfs_report(const char *what, const char *name, int err,
		    enum debugfs_stage stage);

/* "key: value" lines; returns 0 or -EINVAL with the 1-based *bad_line. */
int parse_kv(const char *text, struct kv_list *out, size_t *bad_line);
const char *kv_get(const struct kv_list *list, const char *key);
void kv_free(struct kv_list *list);

/* Header line, then rows with as many whitespace-separated columns. */
int parse_table(const char *text, struct table *out, size_t *bad_line);
const char *table_cell(const struct table *t, size_t row, size_t col);
void table_free(struct table *t);

#endif
