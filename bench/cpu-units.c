// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cpu-units: the userspace twin of ktask's synthetic "cpu" task, for the
 * benchmark's practical limit of the guest (bench/cpu.sh).  One unit is
 * what the kernel's ktask_synth_cpu_unit() does: 1000 iterations of
 * x = x * 6364136223846793005 + 1442695040888963407 on a u64.  UNITS units
 * are split into PROCS contiguous parts, one per forked process (as ktask
 * splits a task over threads); the parent prints the wall time from the
 * first fork to the last child's exit:
 *
 *   units=N procs=P elapsed_ns=T
 *
 * Usage: cpu-units UNITS [PROCS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CPU_LOOPS	1000	/* KTASK_SYNTH_CPU_LOOPS */

/* Keeps the compiler from dropping the arithmetic, as the kernel's sink. */
static volatile uint64_t sink;

static uint64_t cpu_unit(uint64_t x)
{
	int i;

	for (i = 0; i < CPU_LOOPS; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

/* The kernel's thread function: x starts at the part's first unit. */
static void run_part(uint64_t first, uint64_t last)
{
	uint64_t unit, x = first;

	for (unit = first; unit < last; unit++)
		x = cpu_unit(x);
	sink = x;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' || *v < min || *v > max;
}

int main(int argc, char **argv)
{
	uint64_t units, procs = 1, start, first = 0, i;
	int status, failed = 0;

	if (argc < 2 || argc > 3 || parse_u64(argv[1], 1, UINT64_MAX, &units) ||
	    (argc == 3 && parse_u64(argv[2], 1, 4096, &procs))) {
		fprintf(stderr, "usage: cpu-units UNITS [PROCS]  (UNITS >= 1, PROCS 1..4096)\n");
		return 2;
	}

	start = now_ns();
	for (i = 0; i < procs; i++) {
		/* Parts differ by at most one unit. */
		uint64_t len = units / procs + (i < units % procs);
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "cpu-units: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			run_part(first, first + len);
			_exit(0);
		}
		first += len;
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	if (failed) {
		fprintf(stderr, "cpu-units: a child failed\n");
		return 1;
	}
	printf("units=%" PRIu64 " procs=%" PRIu64 " elapsed_ns=%" PRIu64 "\n",
	       units, procs, now_ns() - start);
	return 0;
}
