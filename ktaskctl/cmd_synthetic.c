// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktaskctl run-synthetic and bench: run synthetic tasks through the
 * debugfs "synthetic" file and report their timing.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "debugfs.h"
#include "output.h"
#include "parse.h"
#include "synthetic.h"
#include "util.h"

#define SYNTH_FILE	"synthetic"
#define MAX_REPEAT	100000
#define BENCH_REPEAT	5

const char run_synthetic_usage[] =
"Usage: ktaskctl run-synthetic (--size N | --nodes LAYOUT) [options]\n"
"\n"
"Run a synthetic ktask task in the kernel (debugfs ktask/synthetic) and\n"
"show how it went.\n"
"\n"
"  -k, --kind KIND      cpu (default), memclear or sleep\n"
"  -s, --size N         units in the task, 1..4G; K, M, G multiply by\n"
"                       2^10, 2^20, 2^30\n"
"  -c, --min-chunk N    minimum chunk size, 1..size (default 1)\n"
"  -t, --threads N      maximum threads, 0..1024 (0: the kernel's default)\n"
"  -n, --nodes LAYOUT   NID:SIZE[,NID:SIZE...], NID a node number or 'any',\n"
"                       at most " STRINGIFY(LAYOUT_MAX_ENTRIES) " parts; runs the task per node\n"
"                       (ktask_run_numa)\n"
"  -f, --fail-at U      the chunk holding unit U fails\n"
"  -e, --err E          errno the failing chunk returns, 1..4095 or a name\n"
"                       such as EIO (the kernel's default is EIO)\n"
"  -r, --repeat R       run R times and show min/median/max\n"
"  -j, --json           print JSON\n"
"  -p, --pretty         print indented JSON\n"
"  -h, --help           show this help\n";

const char bench_usage[] =
"Usage: ktaskctl bench [options]\n"
"\n"
"Time a synthetic task at several thread counts: per count one discarded\n"
"warm-up run, then R timed runs.  Speedup compares medians with the\n"
"1-thread median, which is always measured.\n"
"\n"
"  -k, --kind KIND      cpu (default), memclear or sleep\n"
"  -s, --size N         units in the task (default: cpu 100K,\n"
"                       memclear 16K, sleep 200)\n"
"  -c, --min-chunk N    minimum chunk size (default 1)\n"
"  -n, --nodes LAYOUT   NID:SIZE[,NID:SIZE...] as for run-synthetic\n"
"  -t, --threads LIST   thread counts, e.g. 1,2,4 or 1-8 (default 1-nproc)\n"
"  -r, --repeat R       timed runs per thread count (default 5)\n"
"  -j, --json           print JSON\n"
"  -p, --pretty         print indented JSON\n"
"  -h, --help           show this help\n";

/* Options run-synthetic and bench share; the rest differ. */
#define REQUEST_OPTIONS							\
	{ "kind", required_argument, NULL, 'k' },			\
	{ "size", required_argument, NULL, 's' },			\
	{ "min-chunk", required_argument, NULL, 'c' },			\
	{ "nodes", required_argument, NULL, 'n' },			\
	{ "threads", required_argument, NULL, 't' },			\
	{ "repeat", required_argument, NULL, 'r' },			\
	JSON_LONGOPTS,							\
	{ "help", no_argument, NULL, 'h' }

#define A_NUMBER	"a number"
#define A_SIZE		"a number (optionally with K, M or G)"

static int bad_number(const char *what, const char *opt, const char *arg,
		      int ret, const char *range, const char *expected)
{
	if (ret == -ERANGE)
		return usage_error(what, "%s: '%s' is out of range (%s)", opt,
				   arg, range);
	return usage_error(what, "%s: '%s' is not %s", opt, arg, expected);
}

/*
 * Parses an option both subcommands accept.  Returns 0 if handled, 1 if c
 * is not such an option, or EXIT_USAGE after reporting the error.
 */
static int request_option(const char *what, int c, const char *arg,
			  struct synth_request *req)
{
	const char *why;
	int ret;

	switch (c) {
	case 'k':
		if (!synth_kind_valid(arg))
			return usage_error(what, "--kind: '%s' is not cpu, memclear or sleep",
					   arg);
		req->kind = arg;
		return 0;
	case 's':
		ret = parse_size_range(arg, 1, SYNTH_MAX_SIZE, &req->size);
		if (ret)
			return bad_number(what, "--size", arg, ret, "1..4G",
					  A_SIZE);
		req->has_size = true;
		return 0;
	case 'c':
		ret = parse_size_range(arg, 1, SYNTH_MAX_SIZE, &req->min_chunk);
		if (ret)
			return bad_number(what, "--min-chunk", arg, ret,
					  "1..4G", A_SIZE);
		req->has_min_chunk = true;
		return 0;
	case 'n':
		ret = parse_layout(arg, &req->layout, &why);
		/* A value out of range is well-formed: no need for the syntax. */
		if (ret == -ERANGE)
			return usage_error(what, "--nodes: bad layout '%s': %s",
					   arg, why);
		if (ret)
			return usage_error(what, "--nodes: bad layout '%s': %s (expected NID:SIZE[,NID:SIZE...])",
					   arg, why);
		req->has_layout = true;
		return 0;
	case 'f':
		ret = parse_size(arg, &req->fail_at);
		if (ret)
			return bad_number(what, "--fail-at", arg, ret,
					  "0..size-1", A_SIZE);
		req->has_fail_at = true;
		return 0;
	case 'e':
		ret = parse_errno(arg, &req->err);
		if (ret)
			return bad_number(what, "--err", arg, ret, "1..4095",
					  "an errno (1..4095 or a name such as EIO)");
		req->has_err = true;
		return 0;
	default:
		return 1;
	}
}

/*
 * Checks the request fits the kernel's line limit, with room for any
 * thread count if any_threads (bench sets them); returns 0 or EXIT_USAGE.
 * With today's limits (8 parts, 4G) every valid request fits, as
 * test_units checks with the widest; this keeps it so if they grow.
 */
static int check_length(const char *what, const struct synth_request *req,
			bool any_threads)
{
	struct synth_request widest = *req;
	char line[SYNTH_MAX_LINE + 2];

	if (any_threads) {
		widest.has_max_threads = true;
		widest.max_threads = SYNTH_MAX_THREADS;
	}
	if (synth_format(&widest, line, sizeof(line)) < 0)
		return usage_error(what, "the request would be longer than %d bytes (fewer --nodes entries?)",
				   SYNTH_MAX_LINE);
	return 0;
}

/* Writes the request and reads the result; reports errors itself. */
static int run_once(const char *what, const struct synth_request *req,
		    struct synth_result *res)
{
	char line[SYNTH_MAX_LINE + 2];
	enum debugfs_stage stage;
	const char *why;
	char *text, *path;
	int len, ret;

	/* check_length() made sure it fits. */
	len = synth_format(req, line, sizeof(line));
	if (len < 0) {
		error_msg(what, "the request is longer than %d bytes",
			  SYNTH_MAX_LINE);
		return len;
	}

	ret = debugfs_transact(SYNTH_FILE, line, len, &text, &stage);
	if (ret) {
		debugfs_report(what, SYNTH_FILE, ret, stage);
		return ret;
	}

	ret = synth_parse_result(text, res, &why);
	if (ret) {
		path = debugfs_path(SYNTH_FILE);
		error_msg(what, "%s: unexpected result: %s", path, why);
		free(path);
	}
	free(text);
	return ret;
}

static double throughput(uint64_t units, uint64_t elapsed_ns)
{
	/* 0 ns is possible with a coarse clock; JSON shows null then. */
	return elapsed_ns ? units * 1e9 / elapsed_ns : (double)NAN;
}

/* Kernel's echo of the request, shared by single and repeated runs. */
static void add_request_echo(struct out_node *doc, const struct synth_result *res)
{
	if (res->kind[0])
		out_str(doc, "kind", res->kind);
	if (res->has_size)
		out_u64(doc, "size", res->size);
	if (res->has_min_chunk)
		out_u64(doc, "min_chunk", res->min_chunk);
	if (res->has_max_threads)
		out_u64(doc, "max_threads", res->max_threads);
}

static void add_outcome(struct out_node *doc, const struct synth_result *res)
{
	out_u64(doc, "units_done", res->units_done);
	out_u64(doc, "units_undone", res->units_undone);
	out_errno(doc, "error", res->error);
}

static void print_single(const struct synth_result *res,
			 const struct global_opts *opts)
{
	struct out_node *doc = out_new();

	add_request_echo(doc, res);
	out_u64(doc, "threads_used", res->threads_used);
	if (res->has_chunks)
		out_u64(doc, "chunks", res->chunks);
	out_duration(doc, "elapsed", "elapsed_ns", res->elapsed_ns);
	out_double(doc, "throughput", "throughput",
		   throughput(res->units_done, res->elapsed_ns), 0, "units/s");
	add_outcome(doc, res);
	out_print(stdout, doc, out_style(opts));
	out_free(doc);
}

/* Text "min X, median Y, max Z"; JSON <key>_min, <key>_median, <key>_max. */
static void add_summary(struct out_node *doc, const char *text_key,
			const char *json_key, const struct summary *s,
			bool durations)
{
	const uint64_t values[] = { s->min, s->median, s->max };
	static const char *const names[] = { "min", "median", "max" };
	char *text[3], *line, key[64], json[32];
	size_t i;

	for (i = 0; i < 3; i++) {
		text[i] = durations ? format_duration(values[i])
				    : xasprintf("%" PRIu64, values[i]);
		snprintf(key, sizeof(key), "%s_%s", json_key, names[i]);
		snprintf(json, sizeof(json), "%" PRIu64, values[i]);
		out_field(doc, NULL, NULL, key, json);
	}
	line = xasprintf("min %s, median %s, max %s", text[0], text[1], text[2]);
	out_field(doc, text_key, line, NULL, NULL);
	free(line);
	for (i = 0; i < 3; i++)
		free(text[i]);
}

static void print_repeated(const struct synth_result *last,
			   const struct summary *elapsed,
			   const struct summary *used, unsigned int runs,
			   const struct global_opts *opts)
{
	struct out_node *doc = out_new();
	char buf[32];

	add_request_echo(doc, last);
	out_u64(doc, "runs", runs);
	snprintf(buf, sizeof(buf), "%" PRIu64, used->median);
	out_field(doc, NULL, NULL, "threads_used", buf);
	add_summary(doc, "threads_used", "threads_used", used, false);
	if (last->has_chunks)
		out_u64(doc, "chunks", last->chunks);
	snprintf(buf, sizeof(buf), "%" PRIu64, elapsed->median);
	out_field(doc, NULL, NULL, "elapsed_ns", buf);
	add_summary(doc, "elapsed", "elapsed_ns", elapsed, true);
	out_double(doc, "throughput", "throughput",
		   throughput(last->units_done, elapsed->median), 0,
		   "units/s (median)");
	add_outcome(doc, last);
	out_print(stdout, doc, out_style(opts));
	out_free(doc);
}

int cmd_run_synthetic(int argc, char **argv, const struct global_opts *g)
{
	static const struct option longopts[] = {
		REQUEST_OPTIONS,
		{ "fail-at", required_argument, NULL, 'f' },
		{ "err", required_argument, NULL, 'e' },
		{ 0 }
	};
	const char *what = "run-synthetic";
	struct synth_request req = { .kind = "cpu" };
	struct synth_result res;
	struct summary elapsed, used;
	uint64_t repeat = 1, value, *elapsed_ns, *threads_used;
	struct global_opts opts = *g;
	bool repeated = false;
	const char *why;
	unsigned int i;
	int c, ret;

	while ((c = next_option(what, argc, argv, "k:s:c:n:t:f:e:r:jph",
				longopts)) != -1) {
		if (json_option(c, &opts))
			continue;
		ret = request_option(what, c, optarg, &req);
		if (ret == 0)
			continue;
		if (ret != 1)
			return ret;
		switch (c) {
		case 't':
			ret = parse_u64_range(optarg, 0, SYNTH_MAX_THREADS, &value);
			if (ret)
				return bad_number(what, "--threads", optarg, ret,
						  "0..1024", A_NUMBER);
			req.has_max_threads = true;
			req.max_threads = (unsigned int)value;
			break;
		case 'r':
			ret = parse_u64_range(optarg, 1, MAX_REPEAT, &repeat);
			if (ret)
				return bad_number(what, "--repeat", optarg, ret,
						  "1..100000", A_NUMBER);
			repeated = true;
			break;
		case 'h':
			print_usage(what);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(what, "unexpected argument '%s'", argv[optind]);
	if (synth_validate(&req, &why))
		return usage_error(what, "%s", why);
	if (check_length(what, &req, false))
		return EXIT_USAGE;

	if (!repeated) {
		if (run_once(what, &req, &res))
			return EXIT_RUNTIME;
		print_single(&res, &opts);
		return EXIT_OK;
	}

	elapsed_ns = xcalloc(repeat, sizeof(uint64_t));
	threads_used = xcalloc(repeat, sizeof(uint64_t));
	for (i = 0; i < repeat; i++) {
		if (run_once(what, &req, &res)) {
			free(elapsed_ns);
			free(threads_used);
			return EXIT_RUNTIME;
		}
		elapsed_ns[i] = res.elapsed_ns;
		threads_used[i] = res.threads_used;
	}
	summarize(elapsed_ns, repeat, &elapsed);
	summarize(threads_used, repeat, &used);
	print_repeated(&res, &elapsed, &used, (unsigned int)repeat, &opts);
	free(elapsed_ns);
	free(threads_used);
	return EXIT_OK;
}

struct bench_point {
	unsigned int threads;
	struct summary elapsed;
	struct summary used;
};

/* One warm-up run, then repeat timed runs at the given thread count. */
static int bench_point(struct synth_request *req, unsigned int threads,
		       unsigned int repeat, struct bench_point *point)
{
	uint64_t *elapsed_ns = xcalloc(repeat, sizeof(uint64_t));
	uint64_t *threads_used = xcalloc(repeat, sizeof(uint64_t));
	struct synth_result res;
	unsigned int i;
	int ret = 0;

	req->has_max_threads = true;
	req->max_threads = threads;
	point->threads = threads;
	for (i = 0; i <= repeat; i++) {
		ret = run_once("bench", req, &res);
		if (ret)
			break;
		if (res.error) {
			error_msg("bench", "the task with %u thread%s failed: %s",
				  threads, threads == 1 ? "" : "s",
				  strerror((int)-res.error));
			ret = -EIO;
			break;
		}
		/* Run 0 warms caches and wakes workers; it isn't counted. */
		if (i > 0) {
			elapsed_ns[i - 1] = res.elapsed_ns;
			threads_used[i - 1] = res.threads_used;
		}
	}
	if (!ret) {
		summarize(elapsed_ns, repeat, &point->elapsed);
		summarize(threads_used, repeat, &point->used);
	}
	free(elapsed_ns);
	free(threads_used);
	return ret;
}

static void add_elapsed_cell(struct out_table *t, uint64_t ns)
{
	char *text = format_duration(ns);
	char json[32];

	snprintf(json, sizeof(json), "%" PRIu64, ns);
	out_cell(t, text, json);
	free(text);
}

static void add_u64_cell(struct out_table *t, uint64_t value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	out_cell(t, buf, buf);
}

static void print_bench(const struct synth_request *req, unsigned int repeat,
			const struct bench_point *points, size_t npoints,
			const struct global_opts *opts)
{
	static const char *const text_heads[] = {
		"threads", "min", "median", "max", "threads_used", NULL, NULL,
		NULL, "speedup",
	};
	static const char *const json_keys[] = {
		"threads", "elapsed_ns_min", "elapsed_ns_median",
		"elapsed_ns_max", NULL, "threads_used_min",
		"threads_used_median", "threads_used_max", "speedup",
	};
	struct out_node *doc = out_new();
	uint64_t baseline = points[0].elapsed.median;
	struct out_table *t;
	char used[64], speedup[32];
	size_t i;

	out_str(doc, "kind", req->kind);
	out_u64(doc, "size", synth_units(req));
	if (req->has_min_chunk)
		out_u64(doc, "min_chunk", req->min_chunk);
	out_u64(doc, "repeat", repeat);

	t = out_table(doc, "results", ARRAY_SIZE(json_keys), text_heads,
		      json_keys);
	for (i = 0; i < npoints; i++) {
		const struct bench_point *p = &points[i];

		out_row(t);
		add_u64_cell(t, p->threads);
		add_elapsed_cell(t, p->elapsed.min);
		add_elapsed_cell(t, p->elapsed.median);
		add_elapsed_cell(t, p->elapsed.max);
		if (p->used.min == p->used.max)
			snprintf(used, sizeof(used), "%" PRIu64, p->used.min);
		else
			snprintf(used, sizeof(used), "%" PRIu64 "-%" PRIu64,
				 p->used.min, p->used.max);
		out_cell(t, used, "null");
		add_u64_cell(t, p->used.min);
		add_u64_cell(t, p->used.median);
		add_u64_cell(t, p->used.max);
		if (p->elapsed.median) {
			snprintf(speedup, sizeof(speedup), "%.2f",
				 (double)baseline / p->elapsed.median);
			out_cell(t, speedup, speedup);
		} else {
			out_cell(t, "-", "null");
		}
	}
	out_print(stdout, doc, out_style(opts));
	out_free(doc);
}

static uint64_t default_bench_size(const char *kind)
{
	/* Around a second single-threaded in a TCG guest, less on hardware. */
	if (!strcmp(kind, "memclear"))
		return 16384;		/* pages: 64 MiB */
	if (!strcmp(kind, "sleep"))
		return 200;		/* ms */
	return 100000;
}

int cmd_bench(int argc, char **argv, const struct global_opts *g)
{
	static const struct option longopts[] = {
		REQUEST_OPTIONS,
		{ 0 }
	};
	const char *what = "bench";
	struct synth_request req = { .kind = "cpu" };
	struct thread_list list = { 0 };
	struct bench_point *points;
	uint64_t repeat = BENCH_REPEAT;
	struct global_opts opts = *g;
	bool have_list = false;
	size_t npoints = 0, i;
	const char *why;
	long ncpus;
	int c, ret;

	while ((c = next_option(what, argc, argv, "k:s:c:n:t:r:jph",
				longopts)) != -1) {
		if (json_option(c, &opts))
			continue;
		ret = request_option(what, c, optarg, &req);
		if (ret == 0)
			continue;
		if (ret != 1)
			return ret;
		switch (c) {
		case 't':
			if (parse_thread_list(optarg, &list, &why))
				return usage_error(what, "--threads: bad list '%s': %s (expected N[,N...] or A-B)",
						   optarg, why);
			have_list = true;
			break;
		case 'r':
			ret = parse_u64_range(optarg, 1, MAX_REPEAT, &repeat);
			if (ret)
				return bad_number(what, "--repeat", optarg, ret,
						  "1..100000", A_NUMBER);
			break;
		case 'h':
			print_usage(what);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(what, "unexpected argument '%s'", argv[optind]);
	if (!req.has_size && !req.has_layout) {
		req.has_size = true;
		req.size = default_bench_size(req.kind);
	}
	if (synth_validate(&req, &why))
		return usage_error(what, "%s", why);
	if (check_length(what, &req, true))
		return EXIT_USAGE;

	if (!have_list) {
		ncpus = sysconf(_SC_NPROCESSORS_ONLN);
		if (ncpus < 1)
			ncpus = 1;
		if (ncpus > THREAD_LIST_MAX)
			ncpus = THREAD_LIST_MAX;
		for (i = 0; i < (size_t)ncpus; i++)
			list.threads[list.count++] = (unsigned int)i + 1;
	}

	/* The 1-thread median is the speedup's baseline: measure it first. */
	points = xcalloc(list.count + 1, sizeof(*points));
	if (bench_point(&req, 1, (unsigned int)repeat, &points[npoints++]))
		goto fail;
	for (i = 0; i < list.count; i++) {
		if (list.threads[i] == 1)
			continue;
		if (bench_point(&req, list.threads[i], (unsigned int)repeat,
				&points[npoints++]))
			goto fail;
	}
	print_bench(&req, (unsigned int)repeat, points, npoints, &opts);
	free(points);
	return EXIT_OK;
fail:
	free(points);
	return EXIT_RUNTIME;
}
