// SPDX-License-Identifier: GPL-2.0
/*
 * falloc TARGET OFFSET_MIB SIZE_MIB [keep-size]: one fallocate(2) of SIZE_MIB
 * MiB at OFFSET_MIB of TARGET, and what the kernel did (107-shmem-fallocate.bats,
 * bench/fallocate.sh).
 *
 * TARGET: PATH         a file, opened (created) read-write, not truncated
 *         memfd        a new memfd (tmpfs)
 *
 * Prints one line of key=value: result (ok or the errno name), the call's
 * elapsed_ns, start_ns and end_ns (CLOCK_MONOTONIC), its cpu_ns (the
 * process's user and system time over the call, helpers included), the
 * file's pages allocated after it (st_blocks) and its size in bytes, then
 * unshare, the result of unshare(CLONE_THREAD) right after the call (EINVAL
 * while a helper of the call is still a thread of the process) and threads,
 * the process's threads then (1).  With FALLOC_CONTENT=1, also content: ok
 * when every byte of the range reads zero, else the first offset that does
 * not.  With FALLOC_REPEAT=N, N more calls on the same range follow, and
 * repeats_outlived counts those after which unshare failed.  Exits 0
 * whatever the call returned: the caller compares.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG	"falloc"
#include "call-probe.h"

#define MIB	(1ULL << 20)

/* The first offset of [off, off + len) of fd that does not read zero, or -1. */
static long long first_nonzero(int fd, off_t off, size_t len)
{
	size_t block = 8 * MIB, done, i;
	unsigned char *buf = malloc(block);
	long long bad = -1;
	ssize_t n;

	if (!buf)
		die("malloc");
	for (done = 0; done < len && bad < 0; done += n) {
		n = pread(fd, buf, block < len - done ? block : len - done, off + done);
		if (n <= 0) {
			bad = off + done;	/* short: past the end of the file */
			break;
		}
		for (i = 0; i < (size_t)n && bad < 0; i++)
			if (buf[i])
				bad = off + done + i;
	}
	free(buf);
	return bad;
}

int main(int argc, char **argv)
{
	int mode = 0, fd, err = 0, unshare_err = 0, threads, repeat, i, outlived = 0;
	uint64_t start, end, cpu;
	off_t off;
	size_t len;
	struct stat st;

	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "keep-size"))) {
		fprintf(stderr, "usage: falloc PATH|memfd OFFSET_MIB SIZE_MIB [keep-size]\n");
		return 2;
	}
	if (argc == 5)
		mode = FALLOC_FL_KEEP_SIZE;
	off = strtoull(argv[2], NULL, 0) * MIB;
	len = strtoull(argv[3], NULL, 0) * MIB;
	if (!strcmp(argv[1], "memfd"))
		fd = memfd_create("falloc", 0);
	else
		fd = open(argv[1], O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		die(argv[1]);

	cpu = cpu_ns();
	start = now_ns();
	if (fallocate(fd, mode, off, len))
		err = errno;
	end = now_ns();
	cpu = cpu_ns() - cpu;

	repeat = getenv("FALLOC_REPEAT") ? atoi(getenv("FALLOC_REPEAT")) : 0;
	for (i = 0; i < repeat; i++) {
		fallocate(fd, mode, off, len);
		if (unshare(CLONE_THREAD))
			outlived++;
	}

	/* First thing after the call: no helper may outlive it. */
	if (unshare(CLONE_THREAD))
		unshare_err = errno;
	threads = nr_threads();
	if (fstat(fd, &st))
		die("fstat");
	printf("result=%s elapsed_ns=%llu start_ns=%llu end_ns=%llu cpu_ns=%llu pages=%llu size=%lld",
	       err ? strerrorname_np(err) : "ok", (unsigned long long)(end - start),
	       (unsigned long long)start, (unsigned long long)end,
	       (unsigned long long)cpu,
	       (unsigned long long)st.st_blocks * 512 / sysconf(_SC_PAGESIZE),
	       (long long)st.st_size);
	if (repeat)
		printf(" repeats_outlived=%d/%d", outlived, repeat);
	printf(" unshare=%s threads=%d",
	       unshare_err ? strerrorname_np(unshare_err) : "ok", threads);
	if (getenv("FALLOC_CONTENT")) {
		long long bad = first_nonzero(fd, off, len);

		if (bad < 0)
			printf(" content=ok");
		else
			printf(" content=bad@%lld", bad);
	}
	printf("\n");
	return 0;
}
