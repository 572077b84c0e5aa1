/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Error reporting, exit codes and allocation helpers shared by ktaskctl. */
#ifndef KTASKCTL_UTIL_H
#define KTASKCTL_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/* Exit statuses: documented in ktaskctl.8, relied on by scripts. */
#define EXIT_OK		0
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A macro's value as a string literal, so messages follow the limits. */
#define STRINGIFY_(x)	#x
#define STRINGIFY(x)	STRINGIFY_(x)

/*
 * From now on, report errors as one {"error": "<what>: <message>"} line on
 * stdout instead of text on stderr, as bpftool does: a script that asked
 * for JSON reads one stream.  Set by -j/-p, before or after the command.
 */
void set_json_errors(bool on);

/*
 * "ktaskctl: <what>: <message>" on stderr, or the JSON object on stdout
 * after set_json_errors(true).  A NULL what leaves "<what>: " out.
 */
void error_msg(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A usage error: the message, then (in text) a pointer to the subcommand's
 * help, or to 'ktaskctl help' if what is NULL.  Returns EXIT_USAGE so the
 * caller can simply return it.
 */
int usage_error(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * "ktaskctl: <what>: <message>" on stderr whatever the output format: for
 * progress notes that are not errors (monitor's "listening"), which must
 * stay out of a JSON stream on stdout.
 */
void notice_msg(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
