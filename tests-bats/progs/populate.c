// SPDX-License-Identifier: GPL-2.0
/*
 * populate MODE SIZE_MIB LAYOUT: map SIZE_MIB MiB laid out as LAYOUT,
 * populate it by MODE in one call and report what the kernel did
 * (105-populate.bats, bench/populate.sh).
 *
 * MODE:   madv-write    madvise(MADV_POPULATE_WRITE)
 *         madv-read     madvise(MADV_POPULATE_READ)
 *         mlock         mlock(2)
 *         map-populate  mmap(MAP_POPULATE) (not hole-end, protnone-mid)
 * LAYOUT: anon          a private anonymous mapping
 *         cow           MAP_PRIVATE of a memfd whose every 8-byte word
 *                       holds its own offset: a write populate copies it
 *         shared        MAP_SHARED of that memfd
 *         file=PATH     MAP_SHARED of PATH, created (or truncated) to the
 *                       size: a new file on hugetlbfs or tmpfs reads zero
 *         hole-end      anon, then a 2 MiB hole and 2 MiB more anon; the
 *                       call covers all three (the error is the hole's)
 *         protnone-mid  anon with a PROT_NONE 2 MiB in the middle
 *
 * Prints one line of key=value: result (ok or the errno name), the pages
 * resident below the first failure (prefix) out of how many, the pages
 * resident in all, the call's elapsed_ns and its start_ns and end_ns
 * (CLOCK_MONOTONIC, for callers that time several processes' calls as one),
 * its cpu_ns (the process's user and system time over the call, helpers
 * included),
 * and content (ok, or the first wrong offset).  With POPULATE_NODES=1 in the environment, also nodes: how
 * many of the prefix's pages are on node 0, 1, ... (move_pages(2) query).
 * Right after the call it also prints unshare, the result of
 * unshare(CLONE_THREAD): a no-op for a process of one thread, EINVAL while a
 * helper of the call is still a thread of it, and threads, the process's
 * threads then (1).  With POPULATE_REPEAT=N, N more calls on the populated
 * range follow (quick ones: the helpers' start and exit is most of them),
 * and repeats_outlived counts those after which unshare failed.
 * With POPULATE_MUNMAP set, the range is then unmapped, timed (see
 * timed_munmap()).
 * Exits 0 whatever the call returned: the caller compares.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PROG	"populate"
#include "call-probe.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#endif

#define MIB		(1UL << 20)
#define GAP		(2 * MIB)	/* a hole or a PROT_NONE region: one PMD */

static long page_size;

/* A memfd of len bytes whose every 8-byte word holds its offset. */
static int pattern_memfd(size_t len)
{
	size_t block = 8 * MIB, off, i;
	uint64_t *buf = malloc(block);
	int fd = memfd_create("populate", 0);

	if (fd < 0 || !buf || ftruncate(fd, len))
		die("memfd");
	for (off = 0; off < len; off += block) {
		for (i = 0; i < block / 8; i++)
			buf[i] = off + i * 8;
		if (pwrite(fd, buf, block < len - off ? block : len - off, off) < 0)
			die("pwrite");
	}
	free(buf);
	return fd;
}

static size_t resident(char *addr, size_t len)
{
	size_t pages = len / page_size, n = 0, i;
	unsigned char *vec = malloc(pages ? pages : 1);

	if (!vec)
		die("malloc");
	if (pages && mincore(addr, len, vec))
		die("mincore");
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

/* " nodes=N0,N1,...": where the resident pages of [addr, addr + len) are. */
static void print_nodes(char *addr, size_t len)
{
	enum { MAX_NODES = 64 };
	size_t pages = len / page_size, count[MAX_NODES] = { 0 }, i;
	void **vec = malloc(pages * sizeof(*vec));
	int *status = malloc(pages * sizeof(*status)), last = 0;

	if (!vec || !status)
		die("malloc");
	for (i = 0; i < pages; i++)
		vec[i] = addr + i * page_size;
	/* No target nodes: the status of each page is the node it is on. */
	if (syscall(SYS_move_pages, 0, pages, vec, NULL, status, 0))
		die("move_pages");
	for (i = 0; i < pages; i++) {
		if (status[i] >= 0 && status[i] < MAX_NODES) {
			count[status[i]]++;
			if (status[i] > last)
				last = status[i];
		}
	}
	printf(" nodes=");
	for (i = 0; i <= (size_t)last; i++)
		printf("%s%zu", i ? "," : "", count[i]);
	free(vec);
	free(status);
}

/* Offset of the first wrong word in [addr, addr + len), or -1. */
static long check_content(const char *layout, char *addr, size_t len)
{
	bool pattern = !strcmp(layout, "cow") || !strcmp(layout, "shared");
	size_t off;

	for (off = 0; off < len; off += 8)
		if (*(uint64_t *)(addr + off) != (pattern ? off : 0))
			return off;
	return -1;
}

static int populate_call(const char *mode, char *addr, size_t len)
{
	if (!strcmp(mode, "madv-write"))
		return madvise(addr, len, MADV_POPULATE_WRITE);
	if (!strcmp(mode, "madv-read"))
		return madvise(addr, len, MADV_POPULATE_READ);
	if (!strcmp(mode, "mlock"))
		return mlock(addr, len);
	fprintf(stderr, "populate: unknown mode '%s'\n", mode);
	exit(2);
}

/*
 * POPULATE_MUNMAP=now|FIFO: after the report, munmap the range and report
 * that on a second line, munmap_ns, munmap_start_ns and munmap_end_ns; with
 * a FIFO, only once a byte can be read from it, so that several processes
 * free at once (bench/populate.sh's freeing ceiling).
 */
static void timed_munmap(const char *when, char *addr, size_t len)
{
	uint64_t start, end;
	char go;

	fflush(stdout);
	if (strcmp(when, "now")) {
		int fd = open(when, O_RDONLY);

		if (fd < 0 || read(fd, &go, 1) != 1)
			die(when);
		close(fd);
	}
	start = now_ns();
	if (munmap(addr, len))
		die("munmap");
	end = now_ns();
	printf("munmap_ns=%llu munmap_start_ns=%llu munmap_end_ns=%llu\n",
	       (unsigned long long)(end - start), (unsigned long long)start,
	       (unsigned long long)end);
}

int main(int argc, char **argv)
{
	const char *mode, *layout;
	size_t len, span, prefix, total;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS, fd = -1, err = 0, ret;
	int threads, unshare_err = 0, repeat = 0, i, outlived = 0;
	char *addr;
	uint64_t start, end, cpu;
	long bad;

	if (argc != 4) {
		fprintf(stderr, "usage: populate madv-write|madv-read|mlock|map-populate SIZE_MIB anon|cow|shared|file=PATH|hole-end|protnone-mid\n");
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	mode = argv[1];
	len = strtoul(argv[2], NULL, 0) * MIB;
	layout = argv[3];
	span = len;
	prefix = len;

	if (!strcmp(layout, "cow") || !strcmp(layout, "shared")) {
		fd = pattern_memfd(len);
		flags = strcmp(layout, "cow") ? MAP_SHARED : MAP_PRIVATE;
	} else if (!strncmp(layout, "file=", 5)) {
		fd = open(layout + 5, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, len))
			die(layout + 5);
		flags = MAP_SHARED;
	} else if (!strcmp(layout, "hole-end")) {
		span = len + 2 * GAP;
	} else if (strcmp(layout, "anon") && strcmp(layout, "protnone-mid")) {
		fprintf(stderr, "populate: unknown layout '%s'\n", layout);
		return 2;
	}

	if (!strcmp(mode, "map-populate")) {
		if (span != len || !strcmp(layout, "protnone-mid")) {
			fprintf(stderr, "populate: map-populate takes anon, cow, shared or file=PATH\n");
			return 2;
		}
		cpu = cpu_ns();
		start = now_ns();
		addr = mmap(NULL, len, PROT_READ | PROT_WRITE, flags | MAP_POPULATE, fd, 0);
		end = now_ns();
		cpu = cpu_ns() - cpu;
		if (addr == MAP_FAILED)
			die("mmap");
		goto report;
	}

	addr = mmap(NULL, span, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (addr == MAP_FAILED)
		die("mmap");
	if (!strcmp(layout, "hole-end")) {
		/* [anon len][hole GAP][anon GAP] */
		if (munmap(addr + len, GAP))
			die("munmap");
	} else if (!strcmp(layout, "protnone-mid")) {
		prefix = (len / 2) & ~(GAP - 1);
		if (mprotect(addr + prefix, GAP, PROT_NONE))
			die("mprotect");
	}

	cpu = cpu_ns();
	start = now_ns();
	ret = populate_call(mode, addr, span);
	end = now_ns();
	cpu = cpu_ns() - cpu;
	if (ret)
		err = errno;

	/*
	 * POPULATE_REPEAT=N: N more calls on the populated range, each quick,
	 * each probed at once for a helper that outlived it.
	 */
	repeat = getenv("POPULATE_REPEAT") ? atoi(getenv("POPULATE_REPEAT")) : 0;
	for (i = 0; i < repeat; i++) {
		populate_call(mode, addr, span);
		if (unshare(CLONE_THREAD))
			outlived++;
	}

report:
	/* First thing after the call: no helper may outlive it. */
	if (unshare(CLONE_THREAD))
		unshare_err = errno;
	threads = nr_threads();
	total = resident(addr, len);
	if (span != len)	/* hole-end: mincore fails on the hole */
		total += resident(addr + len + GAP, GAP);
	printf("result=%s prefix=%zu/%zu resident=%zu elapsed_ns=%llu start_ns=%llu end_ns=%llu cpu_ns=%llu",
	       err ? strerrorname_np(err) : "ok",
	       resident(addr, prefix), prefix / page_size, total,
	       (unsigned long long)(end - start), (unsigned long long)start,
	       (unsigned long long)end, (unsigned long long)cpu);
	if (repeat)
		printf(" repeats_outlived=%d/%d", outlived, repeat);
	printf(" unshare=%s threads=%d",
	       unshare_err ? strerrorname_np(unshare_err) : "ok", threads);
	if (getenv("POPULATE_NODES"))
		print_nodes(addr, prefix);
	bad = check_content(layout, addr, prefix);
	if (bad < 0)
		printf(" content=ok\n");
	else
		printf(" content=bad@%ld\n", bad);
	if (getenv("POPULATE_MUNMAP"))
		timed_munmap(getenv("POPULATE_MUNMAP"), addr, span);
	return 0;
}
