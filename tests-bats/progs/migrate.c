// SPDX-License-Identifier: GPL-2.0
/*
 * migrate CALL SIZE_MIB thp|nothp [FROM TO]: fills SIZE_MIB MiB of fresh
 * anonymous memory on node FROM (default 0), moves it to node TO (default 1)
 * with one system call, and prints what the kernel did
 * (108-migrate.bats, bench/migrate.sh).
 *
 * CALL: move_pages      move_pages(2) of the range, one address per folio
 *                       (a 2 MiB THP, or a 4 KiB page): a THP's later
 *                       addresses would report EBUSY and cut the list
 *       migrate_pages   migrate_pages(2) of the whole process, FROM to TO
 *       mbind           mbind(2) MPOL_BIND to TO with MPOL_MF_MOVE
 *       copy            no call: memcpy() of the range to a populated
 *                       buffer on node TO, what the copy alone costs
 *
 * Prints one line of key=value: result (ok or the errno name) and ret (the
 * call's return value), the call's elapsed_ns, start_ns and end_ns
 * (CLOCK_MONOTONIC) and cpu_ns (the process's user and system time over the
 * call, helpers included), statuses (move_pages: each status value and its
 * count, "1:512" for 512 folios now on node 1), on_to and on_from (the
 * range's 4 KiB pages on each node after the call), thp_to_kb (the growth of
 * node TO's AnonHugePages over the call), content (ok when every
 * page holds its pattern, else bad@OFFSET), then unshare, the result of
 * unshare(CLONE_THREAD) right after the call (EINVAL while a helper of the
 * call is still a thread of the process), and threads (1).
 *
 * Environment: MIGRATE_HOLE=1 unmaps the range's middle 2 MiB before the
 * call (move_pages: its addresses report EFAULT and cut the list in two).
 * MIGRATE_FIFO=PATH: once filled, prints a line "ready" and starts the call
 * only once a byte can be read from the FIFO PATH, so that several processes
 * migrate at once (bench/migrate.sh's ceiling).
 * Exits 0 whatever the call returned: the caller compares.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PROG	"migrate"
#include "call-probe.h"

#define MIB		(1UL << 20)
#define THP_SIZE	(2 * MIB)
#define PAGE		4096UL
/* Checked words per page: the first, the last and six in between. */
#define WORDS_CHECKED	8

static unsigned long pattern(unsigned long page, unsigned int word)
{
	return (page * 0x9e3779b97f4a7c15UL) ^ word ^ 0x6b74736bUL;
}

static void fill(char *p, size_t len)
{
	unsigned long page;
	unsigned int w;

	for (page = 0; page < len / PAGE; page++)
		for (w = 0; w < WORDS_CHECKED; w++)
			((unsigned long *)(p + page * PAGE))[w * (PAGE / 8 - 1) /
				(WORDS_CHECKED - 1)] = pattern(page, w);
}

/* The offset of the first page whose pattern is wrong, or -1. */
static long check(char *p, size_t len, size_t hole_off)
{
	unsigned long page;
	unsigned int w;

	for (page = 0; page < len / PAGE; page++) {
		if (hole_off && page * PAGE >= hole_off &&
		    page * PAGE < hole_off + THP_SIZE)
			continue;
		for (w = 0; w < WORDS_CHECKED; w++)
			if (((unsigned long *)(p + page * PAGE))[w * (PAGE / 8 - 1) /
				(WORDS_CHECKED - 1)] != pattern(page, w))
				return page * PAGE;
	}
	return -1;
}

/* The raw calls: no libnuma on the build host. */
static long move_pages(int pid, unsigned long nr, void **pages,
		       const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, pid, nr, pages, nodes, status, flags);
}

static long migrate_pages(int pid, unsigned long maxnode,
			  const unsigned long *from, const unsigned long *to)
{
	return syscall(SYS_migrate_pages, pid, maxnode, from, to);
}

static long mbind(void *addr, unsigned long len, int mode,
		  const unsigned long *nodemask, unsigned long maxnode,
		  unsigned int flags)
{
	return syscall(SYS_mbind, addr, len, mode, nodemask, maxnode, flags);
}

static unsigned long node_mask(int node)
{
	return 1UL << node;
}

/*
 * len bytes of anonymous memory, 2 MiB-aligned, THP as asked, bound to node
 * (until the caller's next mbind()): untouched yet.
 */
static char *map_on_node(size_t len, int thp, int node)
{
	char *map = mmap(NULL, len + THP_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	if (map == MAP_FAILED)
		die("mmap");
	p = (char *)(((unsigned long)map + THP_SIZE - 1) & ~(THP_SIZE - 1));
	if (madvise(p, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		die("madvise");
	if (mbind(p, len, MPOL_BIND, (unsigned long[]){ node_mask(node) }, 64, 0))
		die("mbind");
	return p;
}

/* Counts the range's 4 KiB pages on nodes from and to (move_pages query). */
static void count_nodes(char *p, size_t len, int from, int to,
			unsigned long *on_from, unsigned long *on_to)
{
	unsigned long n = len / PAGE, i;
	void **pages = malloc(n * sizeof(*pages));
	int *status = malloc(n * sizeof(*status));

	if (!pages || !status)
		die("malloc");
	for (i = 0; i < n; i++)
		pages[i] = p + i * PAGE;
	if (move_pages(0, n, pages, NULL, status, 0))
		die("move_pages (query)");
	*on_from = *on_to = 0;
	for (i = 0; i < n; i++) {
		*on_from += status[i] == from;
		*on_to += status[i] == to;
	}
	free(pages);
	free(status);
}

/* The AnonHugePages of a node's meminfo, in kB. */
static long node_thp_kb(int node)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d AnonHugePages: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* "value:count,..." of a move_pages status array, in order of first seen. */
static void print_statuses(const int *status, unsigned long n)
{
	int values[16];
	unsigned long counts[16] = { 0 }, i;
	int nr = 0, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nr && values[j] != status[i]; j++)
			;
		if (j == nr && nr < 16)
			values[nr++] = status[i];
		if (j < nr)
			counts[j]++;
	}
	printf(" statuses=");
	for (j = 0; j < nr; j++)
		printf("%s%d:%lu", j ? "," : "", values[j], counts[j]);
}

int main(int argc, char **argv)
{
	int from = 0, to = 1, thp, err = 0, unshare_err = 0, threads;
	unsigned long on_from, on_to, i, nr = 0, stride;
	size_t len, hole_off = 0;
	uint64_t start, end, cpu;
	int *status = NULL, *nodes = NULL;
	void **pages = NULL;
	char *p, *copy_to = NULL;
	long ret = 0, bad, thp_kb;
	const char *fifo = getenv("MIGRATE_FIFO");

	if ((argc != 4 && argc != 6) ||
	    (strcmp(argv[3], "thp") && strcmp(argv[3], "nothp"))) {
		fprintf(stderr, "usage: migrate move_pages|migrate_pages|mbind SIZE_MIB thp|nothp [FROM TO]\n");
		return 2;
	}
	len = strtoul(argv[2], NULL, 0) * MIB;
	thp = !strcmp(argv[3], "thp");
	if (argc == 6) {
		from = atoi(argv[4]);
		to = atoi(argv[5]);
	}
	if (!len || len % THP_SIZE || from < 0 || to < 0 || from > 62 || to > 62) {
		fprintf(stderr, PROG ": SIZE_MIB a multiple of 2, nodes 0-62\n");
		return 2;
	}

	p = map_on_node(len, thp, from);
	fill(p, len);
	/* The call moves what is there, wherever the policy says it goes. */
	if (mbind(p, len, MPOL_DEFAULT, NULL, 0, 0))
		die("mbind (default)");
	if (!strcmp(argv[1], "move_pages")) {
		stride = thp ? THP_SIZE : PAGE;
		nr = len / stride;
		pages = malloc(nr * sizeof(*pages));
		nodes = malloc(nr * sizeof(*nodes));
		status = malloc(nr * sizeof(*status));
		if (!pages || !nodes || !status)
			die("malloc");
		for (i = 0; i < nr; i++) {
			pages[i] = p + i * stride;
			nodes[i] = to;
			status[i] = -1000;
		}
	} else if (!strcmp(argv[1], "copy")) {
		copy_to = map_on_node(len, thp, to);
		memset(copy_to, 1, len);
	} else if (strcmp(argv[1], "migrate_pages") && strcmp(argv[1], "mbind")) {
		fprintf(stderr, PROG ": unknown call %s\n", argv[1]);
		return 2;
	}

	/* After the mallocs above, which could have mapped into the hole. */
	if (getenv("MIGRATE_HOLE")) {
		hole_off = (len / 2) & ~(THP_SIZE - 1);
		if (munmap(p + hole_off, THP_SIZE))
			die("munmap (hole)");
	}

	if (fifo) {
		char go;
		int fd;

		printf("ready\n");
		fflush(stdout);
		fd = open(fifo, O_RDONLY);
		if (fd < 0 || read(fd, &go, 1) != 1)
			die(fifo);
		close(fd);
	}

	thp_kb = node_thp_kb(to);
	cpu = cpu_ns();
	start = now_ns();
	if (copy_to)
		memcpy(copy_to, p, len);
	else if (pages)
		ret = move_pages(0, nr, pages, nodes, status, 0);
	else if (!strcmp(argv[1], "migrate_pages"))
		ret = migrate_pages(0, 64, (unsigned long[]){ node_mask(from) },
				    (unsigned long[]){ node_mask(to) });
	else
		ret = mbind(p, len, MPOL_BIND, (unsigned long[]){ node_mask(to) },
			    64, MPOL_MF_MOVE);
	if (ret < 0)
		err = errno;
	end = now_ns();
	cpu = cpu_ns() - cpu;

	/* First thing after the call: no helper may outlive it. */
	if (unshare(CLONE_THREAD))
		unshare_err = errno;
	threads = nr_threads();
	thp_kb = node_thp_kb(to) - thp_kb;

	if (hole_off) {
		/* Counted without the hole: its pages have no node. */
		unsigned long f1, t1, f2, t2;

		count_nodes(p, hole_off, from, to, &f1, &t1);
		count_nodes(p + hole_off + THP_SIZE, len - hole_off - THP_SIZE,
			    from, to, &f2, &t2);
		on_from = f1 + f2;
		on_to = t1 + t2;
	} else {
		count_nodes(p, len, from, to, &on_from, &on_to);
	}
	bad = check(p, len, hole_off);

	printf("result=%s ret=%ld elapsed_ns=%llu start_ns=%llu end_ns=%llu cpu_ns=%llu",
	       err ? strerrorname_np(err) : "ok", ret,
	       (unsigned long long)(end - start), (unsigned long long)start,
	       (unsigned long long)end, (unsigned long long)cpu);
	if (status)
		print_statuses(status, nr);
	printf(" on_to=%lu on_from=%lu thp_to_kb=%ld", on_to, on_from, thp_kb);
	if (bad < 0)
		printf(" content=ok");
	else
		printf(" content=bad@%ld", bad);
	printf(" unshare=%s threads=%d\n",
	       unshare_err ? strerrorname_np(unshare_err) : "ok", threads);
	return 0;
}
