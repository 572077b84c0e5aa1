/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test programs that time one system call share: the clocks, the
 * probe that no helper of the call outlived it, and how they die.  Define
 * PROG, the program's name for its messages, before including this.  Each
 * function is inline: a program that does not use one is not warned about it.
 */
#ifndef CALL_PROBE_H
#define CALL_PROBE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static inline void die(const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(errno));
	exit(2);
}

/*
 * CPU time of the whole process so far, user and system: the helpers of a
 * call are threads of the process, reaped before the call returns, so
 * their time is in it.
 */
static inline uint64_t cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage");
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The Threads: line of /proc/self/status. */
static inline int nr_threads(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		die("/proc/self/status");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

#endif
