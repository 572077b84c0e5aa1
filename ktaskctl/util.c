// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

static bool json_errors;

void set_json_errors(bool on)
{
	json_errors = on;
}

static void emit(bool json, const char *what, const char *msg)
{
	/* Anything already printed on stdout should come before the error. */
	fflush(stdout);
	if (json) {
		fputs("{\"error\": \"", stdout);
		if (what) {
			json_put_chars(stdout, what);
			fputs(": ", stdout);
		}
		json_put_chars(stdout, msg);
		fputs("\"}\n", stdout);
		/* If stdout is what failed, say so where it can be seen. */
		if (!fflush(stdout) && !ferror(stdout))
			return;
	}
	fprintf(stderr, "ktaskctl: %s%s%s\n", what ? what : "",
		what ? ": " : "", msg);
}

static void vreport(bool json, const char *what, const char *fmt, va_list ap)
{
	char fallback[512], *msg;
	va_list copy;

	/* No xasprintf(): running out of memory is reported through here. */
	va_copy(copy, ap);
	if (vasprintf(&msg, fmt, ap) < 0) {
		msg = NULL;
		vsnprintf(fallback, sizeof(fallback), fmt, copy);
	}
	va_end(copy);
	emit(json, what, msg ? msg : fallback);
	free(msg);
}

void error_msg(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(json_errors, what, fmt, ap);
	va_end(ap);
}

void notice_msg(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(false, what, fmt, ap);
	va_end(ap);
}

int usage_error(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(json_errors, what, fmt, ap);
	va_end(ap);
	/* A JSON reader gets the one object, not advice meant for people. */
	if (json_errors)
		return EXIT_USAGE;
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
