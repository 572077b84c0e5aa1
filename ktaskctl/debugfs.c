// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debugfs.h"
#include "util.h"

const char *debugfs_dir(void)
{
	const char *dir = getenv(DEBUGFS_ENV);

	return dir && *dir ? dir : DEBUGFS_DEFAULT_DIR;
}

char *debugfs_path(const char *name)
{
	return xasprintf("%s/%s", debugfs_dir(), name);
}

int debugfs_read(const char *name, char **text, enum debugfs_stage *stage)
{
	char *path = debugfs_path(name);
	size_t len = 0, cap = 4096;
	char *buf;
	int fd, err = 0;

	*stage = DEBUGFS_OPEN;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;

	*stage = DEBUGFS_IO;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/*
 * One write() carrying the whole line: the kernel parses and runs each write
 * on its own, so retrying a short write would send the rest as a second
 * command.  Returns 0 or -errno.
 */
static int write_request(int fd, const char *buf, size_t len)
{
	ssize_t n;

	do {
		n = write(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int debugfs_write(const char *name, const char *buf, size_t len,
		  enum debugfs_stage *stage)
{
	char *path = debugfs_path(name);
	int fd, err;

	*stage = DEBUGFS_OPEN;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;

	*stage = DEBUGFS_IO;
	err = write_request(fd, buf, len);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* Reads what fd holds from offset 0 with pread(); returns 0 or -errno. */
static int pread_all(int fd, char **text)
{
	size_t len = 0, cap = 4096;
	char *buf = xmalloc(cap);

	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = pread(fd, buf + len, cap - len - 1, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

int debugfs_transact(const char *name, const char *buf, size_t len,
		     char **text, enum debugfs_stage *stage)
{
	char *path = debugfs_path(name);
	struct stat st;
	int fd, err;

	/* A FIFO standing in for the kernel (tests) answers on a new open. */
	if (!stat(path, &st) && S_ISFIFO(st.st_mode)) {
		free(path);
		err = debugfs_write(name, buf, len, stage);
		return err ? err : debugfs_read(name, text, stage);
	}

	*stage = DEBUGFS_OPEN;
	fd = open(path, O_RDWR | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;

	*stage = DEBUGFS_IO;
	err = write_request(fd, buf, len);
	if (err) {
		close(fd);
		return err;
	}

	/*
	 * The kernel keeps each open file's own result, so reading it back
	 * through the same descriptor cannot pick up a concurrent writer's.
	 */
	err = pread_all(fd, text);
	close(fd);
	return err;
}

/* True if dir is missing or holds nothing but "." and "..". */
static bool dir_missing_or_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return errno == ENOENT || errno == ENOTDIR;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = false;
			break;
		}
	}
	closedir(d);
	return empty;
}

/* Why is debugfs_path(name) missing? */
static void report_missing(const char *what, const char *name)
{
	const char *dir = debugfs_dir();
	char *path = debugfs_path(name);
	char *parent = xstrdup(dir);
	char *slash;
	struct stat st;

	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* A ktask without this file: older or differently configured. */
		error_msg(what, "%s: %s", path, strerror(ENOENT));
		goto out;
	}

	slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(parent, ".");

	/* An unmounted debugfs leaves /sys/kernel/debug empty. */
	if (dir_missing_or_empty(parent))
		error_msg(what, "debugfs is not mounted at %s (mount -t debugfs none %s)",
			  parent, parent);
	else
		error_msg(what, "kernel has no ktask (CONFIG_KTASK): %s does not exist",
			  dir);
out:
	free(parent);
	free(path);
}

/* What a failed write to the synthetic file means, beyond strerror(). */
static const char *write_hint(int err)
{
	switch (err) {
	case EBUSY:
		return " (another synthetic task is running)";
	case E2BIG:
		return " (line longer than 255 bytes)";
	case ENOMEM:
		return " (more memory than available)";
	case EIO:
		return " (the task failed its self-check; see dmesg)";
	default:
		return "";
	}
}

void debugfs_report(const char *what, const char *name, int err,
		    enum debugfs_stage stage)
{
	char *path;

	err = -err;
	if (err == EACCES || err == EPERM) {
		path = debugfs_path(name);
		error_msg(what, "%s: %s (are you root?)", path, strerror(err));
		free(path);
	} else if (stage == DEBUGFS_OPEN && err == ENOENT) {
		report_missing(what, name);
	} else if (stage == DEBUGFS_OPEN) {
		path = debugfs_path(name);
		error_msg(what, "%s: %s", path, strerror(err));
		free(path);
	} else {
		error_msg(what, "%s%s", strerror(err), write_hint(err));
	}
}

/* Splits text into lines in place; returns the next line or NULL. */
static char *next_line(char **cursor)
{
	char *line = *cursor, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*cursor = nl + 1;
	} else {
		*cursor = NULL;
	}
	return line;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

int parse_kv(const char *text, struct kv_list *out, size_t *bad_line)
{
	char *copy = xstrdup(text), *cursor = copy, *line;
	size_t lineno = 0;

	out->count = 0;
	out->items = NULL;
	while ((line = next_line(&cursor))) {
		char *colon, *key, *value;

		lineno++;
		line = trim(line);
		if (!*line)
			continue;
		colon = strchr(line, ':');
		if (!colon)
			goto bad;
		*colon = '\0';
		key = trim(line);
		value = trim(colon + 1);
		if (!*key || !*value || strpbrk(key, " \t"))
			goto bad;
		out->items = xrealloc(out->items,
				      (out->count + 1) * sizeof(*out->items));
		out->items[out->count].key = xstrdup(key);
		out->items[out->count].value = xstrdup(value);
		out->count++;
	}
	free(copy);
	return 0;
bad:
	*bad_line = lineno;
	free(copy);
	kv_free(out);
	return -EINVAL;
}

const char *kv_get(const struct kv_list *list, const char *key)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		if (!strcmp(list->items[i].key, key))
			return list->items[i].value;
	}
	return NULL;
}

void kv_free(struct kv_list *list)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		free(list->items[i].key);
		free(list->items[i].value);
	}
	free(list->items);
	list->items = NULL;
	list->count = 0;
}

/* Splits line into whitespace-separated words, appended to *words. */
static size_t split_words(char *line, char ***words, size_t have)
{
	char *save = NULL, *word;
	size_t n = 0;

	for (word = strtok_r(line, " \t\r", &save); word;
	     word = strtok_r(NULL, " \t\r", &save)) {
		*words = xrealloc(*words, (have + n + 1) * sizeof(**words));
		(*words)[have + n] = xstrdup(word);
		n++;
	}
	return n;
}

int parse_table(const char *text, struct table *out, size_t *bad_line)
{
	char *copy = xstrdup(text), *cursor = copy, *line;
	size_t lineno = 0;

	memset(out, 0, sizeof(*out));
	while ((line = next_line(&cursor))) {
		size_t first = out->nrows * out->ncols, n, i;

		lineno++;
		if (!*trim(line))
			continue;
		if (!out->head) {
			out->ncols = split_words(line, &out->head, 0);
			continue;
		}
		n = split_words(line, &out->cells, first);
		if (n != out->ncols) {
			for (i = 0; i < n; i++)
				free(out->cells[first + i]);
			goto bad;
		}
		out->nrows++;
	}
	free(copy);
	if (!out->head) {
		*bad_line = 1;
		return -EINVAL;
	}
	return 0;
bad:
	*bad_line = lineno;
	free(copy);
	table_free(out);
	return -EINVAL;
}

const char *table_cell(const struct table *t, size_t row, size_t col)
{
	return t->cells[row * t->ncols + col];
}

void table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	for (i = 0; i < t->ncols; i++)
		free(t->head[i]);
	free(t->head);
	t->head = NULL;
	free(t->cells);
	t->cells = NULL;
	t->ncols = t->nrows = 0;
}
