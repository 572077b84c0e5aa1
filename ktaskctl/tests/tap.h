/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TAP output the C unit tests share: one "ok"/"not ok" line per check,
 * the plan at the end (the number of checks is known only then).  For one
 * test program per translation unit: the counters are static.
 */
#ifndef KTASKCTL_TESTS_TAP_H
#define KTASKCTL_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_tests, tap_failures;

__attribute__((format(printf, 2, 3)))
static void check(int pass, const char *fmt, ...)
{
	va_list ap;

	tap_tests++;
	if (!pass)
		tap_failures++;
	printf("%s %d - ", pass ? "ok" : "not ok", tap_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Prints the plan; main's exit status: 1 when a check failed. */
static int tap_done(void)
{
	printf("1..%d\n", tap_tests);
	return tap_failures ? 1 : 0;
}

#endif
