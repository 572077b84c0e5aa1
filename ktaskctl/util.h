/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Error reporting, exit codes and allocation helpers shared by ktaskctl. */
#ifndef KTASKCTL_UTIL_H
#define KTASKCTL_UTIL_H

#include <stddef.h>

/* Exit statuses: documented in ktaskctl.8, relied on by scripts. */
#define EXIT_OK		0
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* "ktaskctl: <what>: <message>" on stderr. */
void error_msg(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A usage error: the message, then a pointer to the subcommand's help, so
 * the caller can simply return EXIT_USAGE.
 */
int usage_error(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
