// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void vreport(const char *what, const char *fmt, va_list ap)
{
	/* Anything already printed on stdout should come before the error. */
	fflush(stdout);
	fputs("ktaskctl: ", stderr);
	if (what)
		fprintf(stderr, "%s: ", what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void error_msg(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(what, fmt, ap);
	va_end(ap);
}

int usage_error(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(what, fmt, ap);
	va_end(ap);
	if (what)
		fprintf(stderr, "Try 'ktaskctl %s --help'.\n", what);
	else
		fputs("Try 'ktaskctl help'.\n", stderr);
	return EXIT_USAGE;
}

static void *check_alloc(void *p)
{
	if (!p) {
		error_msg(NULL, "out of memory");
		exit(EXIT_RUNTIME);
	}
	return p;
}

void *xmalloc(size_t size)
{
	return check_alloc(malloc(size ? size : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *ptr, size_t size)
{
	return check_alloc(realloc(ptr, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return check_alloc(n < 0 ? NULL : s);
}
