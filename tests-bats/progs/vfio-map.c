// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfio-map: pin and map an anonymous buffer through a VFIO type1 container,
 * time VFIO_IOMMU_MAP_DMA and VFIO_IOMMU_UNMAP_DMA, and report what the
 * process has locked (VmLck) around them.  With --verify, QEMU's edu device
 * copies sample pages through the IOMMU to prove the mapping is right.
 *
 * Runs in the test guest (tests-bats/110-vfio.bats, bench/vfio.sh).  Output:
 * one key=value line per result, or one JSON object with --json.  Errors:
 * "vfio-map: <what>: <why>" on stderr; exit 1 when a call fails (an ioctl's
 * errno name is printed, and as error=NAME on stdout), 2 for a usage error,
 * 3 when --verify reads back wrong data.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/pci_regs.h>
#include <linux/vfio.h>

#define PROG "vfio-map"
#include "call-probe.h"

/* QEMU's edu device (docs/specs/edu.rst). */
#define EDU_ID			0x00
#define EDU_DMA_SRC		0x80
#define EDU_DMA_DST		0x88
#define EDU_DMA_COUNT		0x90
#define EDU_DMA_CMD		0x98
#define EDU_CMD_START		0x1
#define EDU_CMD_TO_RAM		0x2
#define EDU_DMA_BUF		0x40000
#define EDU_DMA_BUF_SIZE	4096
#define EDU_ADDR_LIMIT		(1ULL << 28)	/* edu masks RAM addresses to 28 bits */

static const char *prog = PROG;

static const char usage_text[] =
"Usage: vfio-map [OPTIONS] GROUP\n"
"Map an anonymous buffer for DMA through the VFIO group GROUP (/dev/vfio/N\n"
"or N) and unmap it, timing both.\n"
"\n"
"  -s, --size SIZE      buffer size, K/M/G suffixes, terms joined by '+'\n"
"                       (2M+12K); a multiple of the page size (default 4K)\n"
"  -i, --iova ADDR      IOVA to map at (default 0x100000)\n"
"  -p, --populate       MAP_POPULATE the buffer before mapping it\n"
"  -H, --hole OFFSET    munmap the page at OFFSET before mapping\n"
"  -r, --repeat N       N map/unmap cycles (default 1)\n"
"  -n, --unmap-none     do not unmap: closing the container tears down\n"
"  -v, --verify         DMA sample pages through the group's edu device\n"
"  -d, --device BDF     the edu device for --verify (default: the group's)\n"
"  -S, --samples N      pages --verify checks (default 6, first and last included)\n"
"      --verify-skew N  DMA N bytes past each sample's IOVA: --verify must fail\n"
"                       (tests the test)\n"
"  -j, --json           one JSON object instead of key=value lines\n"
"  -h, --help           this text\n"
"\n"
"Prints size, pages, map_ns, map_cpu_ns (the CPU time of every thread of\n"
"the process over the map, ktask's helpers included), unmap_ns (the last\n"
"cycle; with --repeat also\n"
"_min, _median, _max), vmlck_before_kb, vmlck_after_map_kb,\n"
"vmlck_after_unmap_kb (VmLck from /proc/self/status), verified_pages;\n"
"error=ERRNO when the map fails.  Exit: 0 ok, 1 failure, 2 usage,\n"
"3 --verify read back wrong data.\n";

/* Results, printed in insertion order at exit. */
#define MAX_RESULTS 48
static struct result {
	char key[40];
	char value[64];
	bool is_string;
} results[MAX_RESULTS];
static int nresults;
static bool json;

static void add_result(const char *key, bool is_string, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_result(const char *key, bool is_string, const char *fmt, ...)
{
	struct result *r;
	va_list ap;
	int i;

	for (i = 0; i < nresults; i++)
		if (!strcmp(results[i].key, key))
			break;
	if (i == MAX_RESULTS)
		return;
	r = &results[i];
	if (i == nresults)
		nresults++;
	snprintf(r->key, sizeof(r->key), "%s", key);
	r->is_string = is_string;
	va_start(ap, fmt);
	vsnprintf(r->value, sizeof(r->value), fmt, ap);
	va_end(ap);
}

static void add_u64(const char *key, uint64_t v)
{
	add_result(key, false, "%" PRIu64, v);
}

static void print_results(void)
{
	int i;

	if (json)
		putchar('{');
	for (i = 0; i < nresults; i++) {
		const struct result *r = &results[i];

		if (!json)
			printf("%s=%s\n", r->key, r->value);
		else if (r->is_string)
			printf("%s\"%s\": \"%s\"", i ? ", " : "", r->key, r->value);
		else
			printf("%s\"%s\": %s", i ? ", " : "", r->key, r->value);
	}
	if (json)
		puts("}");
	fflush(stdout);
}

static const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "EUNKNOWN";
}

/* fail WHAT: report errno, print what was measured so far, exit 1. */
static void __attribute__((noreturn)) fail_errno(const char *what)
{
	int err = errno;

	add_result("error", true, "%s", errno_name(err));
	print_results();
	fprintf(stderr, "%s: %s: %s (%s)\n", prog, what, errno_name(err), strerror(err));
	exit(1);
}

static void __attribute__((noreturn, format(printf, 2, 3))) fail(int status, const char *fmt, ...)
{
	va_list ap;

	print_results();
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'vfio-map --help'.\n");
	exit(2);
}

/* "2M+12K" -> bytes; false on junk or overflow. */
static bool parse_size(const char *s, uint64_t *out)
{
	uint64_t total = 0;

	for (;;) {
		char *end;
		uint64_t v, shift = 0;

		if (*s < '0' || *s > '9')
			return false;
		errno = 0;
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			v = strtoull(s, &end, 16);
		else
			v = strtoull(s, &end, 10);
		if (errno)
			return false;
		switch (*end) {
		case 'k': case 'K': shift = 10; end++; break;
		case 'm': case 'M': shift = 20; end++; break;
		case 'g': case 'G': shift = 30; end++; break;
		}
		if (shift && (v >> (64 - shift)))
			return false;
		v <<= shift;
		if (total + v < total)
			return false;
		total += v;
		if (*end == '\0')
			break;
		if (*end != '+')
			return false;
		s = end + 1;
	}
	*out = total;
	return true;
}

/* VmLck of this process in kB. */
static uint64_t vmlck_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	uint64_t kb = UINT64_MAX;

	if (!f)
		fail_errno("/proc/self/status");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %" SCNu64 " kB", &kb) == 1)
			break;
	fclose(f);
	if (kb == UINT64_MAX)
		fail(1, "/proc/self/status: no VmLck line");
	return kb;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The edu device behind the group, opened through VFIO. */
struct edu {
	int fd;
	volatile uint8_t *bar;
	size_t bar_size;
};

static uint64_t edu_read(struct edu *e, unsigned int reg)
{
	return *(volatile uint64_t *)(e->bar + reg);
}

static void edu_write(struct edu *e, unsigned int reg, uint64_t v)
{
	*(volatile uint64_t *)(e->bar + reg) = v;
}

/* The only PCI device in the group, from sysfs. */
static void group_device(const char *group_num, char *bdf, size_t len)
{
	char cmd[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls /sys/kernel/iommu_groups/%s/devices 2>/dev/null", group_num);
	p = popen(cmd, "r");
	if (!p || !fgets(bdf, (int)len, p))
		fail(1, "verify: no device in /sys/kernel/iommu_groups/%s/devices (use --device)", group_num);
	bdf[strcspn(bdf, "\n")] = '\0';
	pclose(p);
}

static void edu_open(struct edu *e, int group, const char *bdf)
{
	struct vfio_region_info bar = { .argsz = sizeof(bar), .index = VFIO_PCI_BAR0_REGION_INDEX };
	struct vfio_region_info cfg = { .argsz = sizeof(cfg), .index = VFIO_PCI_CONFIG_REGION_INDEX };
	uint16_t cmd;
	uint32_t id;
	void *p;

	e->fd = ioctl(group, VFIO_GROUP_GET_DEVICE_FD, bdf);
	if (e->fd < 0)
		fail_errno("VFIO_GROUP_GET_DEVICE_FD");
	if (ioctl(e->fd, VFIO_DEVICE_GET_REGION_INFO, &cfg) < 0)
		fail_errno("VFIO_DEVICE_GET_REGION_INFO (config)");
	if (ioctl(e->fd, VFIO_DEVICE_GET_REGION_INFO, &bar) < 0)
		fail_errno("VFIO_DEVICE_GET_REGION_INFO (BAR0)");
	if (!(bar.flags & VFIO_REGION_INFO_FLAG_MMAP) || bar.size < EDU_DMA_BUF + EDU_DMA_BUF_SIZE)
		fail(1, "verify: %s: BAR0 is not an mmappable edu BAR (size %llu, flags %#x)",
		     bdf, (unsigned long long)bar.size, bar.flags);

	/* Memory decoding for the BAR, bus mastering for the DMA. */
	if (pread(e->fd, &cmd, sizeof(cmd), (off_t)(cfg.offset + PCI_COMMAND)) != sizeof(cmd))
		fail_errno("verify: reading PCI_COMMAND");
	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	if (pwrite(e->fd, &cmd, sizeof(cmd), (off_t)(cfg.offset + PCI_COMMAND)) != sizeof(cmd))
		fail_errno("verify: writing PCI_COMMAND");

	p = mmap(NULL, bar.size, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, (off_t)bar.offset);
	if (p == MAP_FAILED)
		fail_errno("verify: mmap BAR0");
	e->bar = p;
	e->bar_size = bar.size;
	id = *(volatile uint32_t *)(e->bar + EDU_ID);
	if ((id & 0xff) != 0xed)
		fail(1, "verify: %s: identification %#x is not edu's (0xRRrr00ed)", bdf, id);
}

/*
 * One DMA of COUNT bytes between RAM at IOVA and edu's buffer at DEV_OFF;
 * false on timeout.  QEMU 7.2's edu rejects a transfer that reaches the
 * buffer's last byte (its range check excludes the end), and rejecting
 * means a hardware error that kills the VM: callers keep DEV_OFF + COUNT
 * below EDU_DMA_BUF_SIZE.
 */
static bool edu_dma(struct edu *e, uint64_t iova, uint64_t dev_off, uint64_t count, bool to_ram)
{
	uint64_t deadline = now_ns() + 20ULL * 1000000000ULL;
	const struct timespec tick = { .tv_nsec = 2000000 };
	uint64_t dev = EDU_DMA_BUF + dev_off;

	edu_write(e, EDU_DMA_SRC, to_ram ? dev : iova);
	edu_write(e, EDU_DMA_DST, to_ram ? iova : dev);
	edu_write(e, EDU_DMA_COUNT, count);
	edu_write(e, EDU_DMA_CMD, EDU_CMD_START | (to_ram ? EDU_CMD_TO_RAM : 0));
	while (edu_read(e, EDU_DMA_CMD) & EDU_CMD_START) {
		if (now_ns() > deadline)
			return false;
		nanosleep(&tick, NULL);
	}
	__sync_synchronize();
	return true;
}

/*
 * Copy one page from SRC to DST (IOVAs) through edu's buffer: all but its
 * last 8 bytes in one pass, those in a second (see edu_dma()).
 */
static void edu_copy_page(struct edu *e, uint64_t src, uint64_t dst, uint64_t pagesz)
{
	const uint64_t tail = 8, head = pagesz - tail;
	const struct { uint64_t off, len; } part[2] = { { 0, head }, { head, tail } };
	int i;

	for (i = 0; i < 2; i++) {
		if (!edu_dma(e, src + part[i].off, 0, part[i].len, false))
			fail(1, "verify: DMA from iova %#" PRIx64 " did not finish in 20 s", src + part[i].off);
		if (!edu_dma(e, dst + part[i].off, 0, part[i].len, true))
			fail(1, "verify: DMA to iova %#" PRIx64 " did not finish in 20 s", dst + part[i].off);
	}
}

static uint64_t pattern_word(uint64_t seed, uint64_t page, uint64_t i)
{
	uint64_t x = seed ^ (page << 20) ^ i;

	/* splitmix64: every page and word distinct. */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * For sample page k: fill it with its own pattern, clear the next sample
 * page, DMA page k into edu and edu back into the next page, compare.  Both
 * transfers go through the IOMMU at the IOVAs VFIO mapped; a page mapped at
 * the wrong IOVA, or not at all, reads back wrong.
 */
static uint64_t verify(struct edu *e, uint8_t *buf, uint64_t size, uint64_t iova, unsigned int nsamples,
		       uint64_t skew)
{
	uint64_t pagesz = (uint64_t)sysconf(_SC_PAGESIZE), npages = size / pagesz;
	uint64_t seed = now_ns(), pages[64], n = 0, k, i;

	if (nsamples > 64)
		nsamples = 64;
	if (nsamples < 2)
		nsamples = 2;
	for (k = 0; k < nsamples; k++) {
		uint64_t p = npages > 1 ? k * (npages - 1) / (nsamples - 1) : 0;

		if (!n || pages[n - 1] != p)
			pages[n++] = p;
	}
	for (k = 0; k < n; k++) {
		uint64_t src = pages[k], dst = pages[(k + 1) % n];
		uint64_t *s = (uint64_t *)(buf + src * pagesz), *d = (uint64_t *)(buf + dst * pagesz);
		uint64_t words = pagesz / sizeof(uint64_t);

		for (i = 0; i < words; i++)
			s[i] = pattern_word(seed, src, i);
		if (dst != src)
			memset(d, 0, pagesz);
		__sync_synchronize();
		edu_copy_page(e, iova + src * pagesz + skew, iova + dst * pagesz, pagesz);
		for (i = 0; i < words; i++) {
			uint64_t want = pattern_word(seed, src, i);

			if (d[i] != want) {
				add_u64("verified_pages", k);
				fail(3, "verify: page %" PRIu64 " copied through edu into page %" PRIu64
				     " reads %#" PRIx64 " at word %" PRIu64 ", expected %#" PRIx64,
				     src, dst, d[i], i, want);
			}
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "iova", required_argument, NULL, 'i' },
		{ "populate", no_argument, NULL, 'p' },
		{ "hole", required_argument, NULL, 'H' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "unmap-none", no_argument, NULL, 'n' },
		{ "verify", no_argument, NULL, 'v' },
		{ "device", required_argument, NULL, 'd' },
		{ "samples", required_argument, NULL, 'S' },
		{ "verify-skew", required_argument, NULL, 'K' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t size = 4096, iova = 0x100000, hole = UINT64_MAX, repeat = 1, samples = 6, skew = 0;
	uint64_t pagesz = (uint64_t)sysconf(_SC_PAGESIZE);
	bool populate = false, unmap = true, do_verify = false;
	const char *device = NULL, *group_arg;
	char group_path[PATH_MAX], bdf[64];
	const char *group_num;
	uint64_t *map_ns, *unmap_ns, c, vmlck_unmapped_max = 0;
	struct vfio_group_status status = { .argsz = sizeof(status) };
	struct edu edu = { .fd = -1 };
	int container, group, opt;
	uint8_t *buf;

	while ((opt = getopt_long(argc, argv, "s:i:pH:r:nvd:S:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (!parse_size(optarg, &size) || !size)
				usage_error("--size: '%s' is not a size (like 4K, 1G or 2M+12K)", optarg);
			break;
		case 'i':
			if (!parse_size(optarg, &iova))
				usage_error("--iova: '%s' is not an address", optarg);
			break;
		case 'p':
			populate = true;
			break;
		case 'H':
			if (!parse_size(optarg, &hole))
				usage_error("--hole: '%s' is not an offset", optarg);
			break;
		case 'r':
			if (!parse_size(optarg, &repeat) || !repeat || repeat > 100000)
				usage_error("--repeat: '%s' is not a count (1-100000)", optarg);
			break;
		case 'n':
			unmap = false;
			break;
		case 'v':
			do_verify = true;
			break;
		case 'd':
			device = optarg;
			break;
		case 'S':
			if (!parse_size(optarg, &samples) || samples < 2 || samples > 64)
				usage_error("--samples: '%s' is not a count (2-64)", optarg);
			break;
		case 'K':
			if (!parse_size(optarg, &skew))
				usage_error("--verify-skew: '%s' is not a size", optarg);
			do_verify = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			usage_error("unknown option");
		}
	}
	if (optind != argc - 1)
		usage_error("expected one GROUP (/dev/vfio/N or N)");
	group_arg = argv[optind];
	if (size % pagesz)
		usage_error("--size: %" PRIu64 " is not a multiple of the page size (%" PRIu64 ")", size, pagesz);
	if (iova % pagesz)
		usage_error("--iova: %#" PRIx64 " is not page-aligned", iova);
	if (hole != UINT64_MAX && (hole % pagesz || hole >= size))
		usage_error("--hole: %" PRIu64 " is not a page offset inside the buffer", hole);
	if (!unmap && repeat > 1)
		usage_error("--unmap-none maps once: no --repeat");
	if (skew % pagesz || skew >= size)
		usage_error("--verify-skew: a multiple of the page size inside the buffer");
	if (do_verify && iova + size > EDU_ADDR_LIMIT)
		usage_error("--verify: IOVA range %#" PRIx64 "-%#" PRIx64 " must end below 256 MiB (edu masks DMA addresses to 28 bits)",
			    iova, iova + size);
	if (do_verify && size < 2 * pagesz)
		usage_error("--verify copies between pages: --size of 2 pages or more");
	if (do_verify && hole != UINT64_MAX)
		usage_error("--verify and --hole: a map with a hole fails, there is nothing to verify");
	if (strchr(group_arg, '/'))
		snprintf(group_path, sizeof(group_path), "%s", group_arg);
	else
		snprintf(group_path, sizeof(group_path), "/dev/vfio/%s", group_arg);
	group_num = strrchr(group_path, '/') + 1;

	container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (container < 0)
		fail_errno("/dev/vfio/vfio");
	if (ioctl(container, VFIO_GET_API_VERSION) != VFIO_API_VERSION)
		fail(1, "/dev/vfio/vfio: unknown VFIO API version");
	if (ioctl(container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) <= 0)
		fail(1, "/dev/vfio/vfio: no VFIO_TYPE1v2_IOMMU support");
	group = open(group_path, O_RDWR | O_CLOEXEC);
	if (group < 0)
		fail_errno(group_path);
	if (ioctl(group, VFIO_GROUP_GET_STATUS, &status) < 0)
		fail_errno("VFIO_GROUP_GET_STATUS");
	if (!(status.flags & VFIO_GROUP_FLAGS_VIABLE))
		fail(1, "%s: group not viable (bind every device in it to vfio-pci)", group_path);
	if (ioctl(group, VFIO_GROUP_SET_CONTAINER, &container) < 0)
		fail_errno("VFIO_GROUP_SET_CONTAINER");
	if (ioctl(container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU) < 0)
		fail_errno("VFIO_SET_IOMMU");
	if (do_verify) {
		if (!device) {
			group_device(group_num, bdf, sizeof(bdf));
			device = bdf;
		}
		edu_open(&edu, group, device);
	}

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);
	if (buf == MAP_FAILED)
		fail_errno("mmap");
	if (hole != UINT64_MAX && munmap(buf + hole, pagesz))
		fail_errno("munmap of the hole");

	map_ns = calloc(repeat, sizeof(*map_ns));
	unmap_ns = calloc(repeat, sizeof(*unmap_ns));
	if (!map_ns || !unmap_ns)
		fail_errno("calloc");

	add_u64("size", size);
	add_u64("pages", size / pagesz);
	add_result("iova", true, "%#" PRIx64, iova);
	if (hole != UINT64_MAX)
		add_u64("hole", hole);
	add_u64("vmlck_before_kb", vmlck_kb());

	for (c = 0; c < repeat; c++) {
		struct vfio_iommu_type1_dma_map map = {
			.argsz = sizeof(map),
			.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
			.vaddr = (uintptr_t)buf,
			.iova = iova,
			.size = size,
		};
		struct vfio_iommu_type1_dma_unmap um = {
			.argsz = sizeof(um),
			.iova = iova,
			.size = size,
		};
		uint64_t t0, cpu0, kb;
		int ret;

		cpu0 = cpu_ns();
		t0 = now_ns();
		ret = ioctl(container, VFIO_IOMMU_MAP_DMA, &map);
		map_ns[c] = now_ns() - t0;
		cpu0 = cpu_ns() - cpu0;
		add_u64("vmlck_after_map_kb", vmlck_kb());
		if (ret < 0) {
			add_u64("map_ns", map_ns[c]);
			fail_errno("VFIO_IOMMU_MAP_DMA");
		}
		add_u64("map_ns", map_ns[c]);
		add_u64("map_cpu_ns", cpu0);
		if (do_verify && c == 0)
			add_u64("verified_pages", verify(&edu, buf, size, iova, (unsigned int)samples, skew));
		if (!unmap)
			break;
		t0 = now_ns();
		ret = ioctl(container, VFIO_IOMMU_UNMAP_DMA, &um);
		unmap_ns[c] = now_ns() - t0;
		if (ret < 0)
			fail_errno("VFIO_IOMMU_UNMAP_DMA");
		add_u64("unmap_ns", unmap_ns[c]);
		if (um.size != size)
			fail(1, "VFIO_IOMMU_UNMAP_DMA: unmapped %llu bytes of %" PRIu64,
			     (unsigned long long)um.size, size);
		kb = vmlck_kb();
		add_u64("vmlck_after_unmap_kb", kb);
		if (kb > vmlck_unmapped_max)
			vmlck_unmapped_max = kb;
	}
	if (repeat > 1) {
		add_u64("cycles", repeat);
		add_u64("vmlck_after_unmap_max_kb", vmlck_unmapped_max);
		qsort(map_ns, repeat, sizeof(*map_ns), cmp_u64);
		qsort(unmap_ns, repeat, sizeof(*unmap_ns), cmp_u64);
		add_u64("map_ns_min", map_ns[0]);
		add_u64("map_ns_median", map_ns[repeat / 2]);
		add_u64("map_ns_max", map_ns[repeat - 1]);
		add_u64("unmap_ns_min", unmap_ns[0]);
		add_u64("unmap_ns_median", unmap_ns[repeat / 2]);
		add_u64("unmap_ns_max", unmap_ns[repeat - 1]);
	}
	print_results();

	/* Closing the device, the group and the container unmaps what is left. */
	if (edu.fd >= 0) {
		munmap((void *)edu.bar, edu.bar_size);
		close(edu.fd);
	}
	close(group);
	close(container);
	free(map_ns);
	free(unmap_ns);
	return 0;
}
