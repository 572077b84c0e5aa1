// SPDX-License-Identifier: GPL-2.0-or-later
/* ktaskctl monitor: one line per finished ktask task, from netlink events. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "ktask_uapi.h"
#include "netlink.h"
#include "output.h"
#include "parse.h"
#include "util.h"

const char monitor_usage[] =
"Usage: ktaskctl monitor [--count N] [--json | --pretty] [--verbose]\n"
"\n"
"Print one line per finished ktask task (generic netlink family ktask,\n"
"multicast group events) until interrupted:\n"
"\n"
"  func=F size=N threads=N chunks=N elapsed=T cpu=T error=E undone=N\n"
"\n"
"cpu is the CPU time of every thread of the task, helpers included.\n"
"\n"
"  -c, --count N    exit after N events\n"
"  -j, --json       one JSON object per line\n"
"  -p, --pretty     the same: events stay one per line\n"
"  -v, --verbose    say on stderr when listening has started\n"
"  -h, --help       show this help\n";

struct monitor {
	uint64_t count;		/* 0: until interrupted */
	uint64_t seen;
	bool json;
};

static bool print_event(const struct ktask_event *ev, void *arg)
{
	struct monitor *m = arg;
	struct out_node *doc = out_new();

	if (ev->has_func)
		out_str(doc, "func", ev->func);
	if (ev->has_size)
		out_u64(doc, "size", ev->size);
	if (ev->has_threads)
		out_u64(doc, "threads", ev->threads);
	if (ev->has_chunks)
		out_u64(doc, "chunks", ev->chunks);
	/* out_print() writes text as space-separated key=value. */
	if (ev->has_elapsed_ns)
		out_duration_compact(doc, "elapsed", "elapsed_ns", ev->elapsed_ns);
	if (ev->has_cpu_ns)
		out_duration_compact(doc, "cpu", "cpu_ns", ev->cpu_ns);
	if (ev->has_error)
		out_s64(doc, "error", ev->error);
	if (ev->has_undone)
		out_u64(doc, "undone", ev->undone);

	/* out_print() flushes, so a reader sees each event at once. */
	out_print(stdout, doc, m->json ? OUT_JSON_LINE : OUT_TEXT_LINE);
	out_free(doc);
	m->seen++;
	return !m->count || m->seen < m->count;
}

static void events_lost(void *arg)
{
	(void)arg;
	/* Not an error (monitoring goes on): keep it out of a JSON stream. */
	notice_msg("monitor", "events lost (receive buffer overrun)");
}

int cmd_monitor(int argc, char **argv, const struct global_opts *g)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'c' },
		JSON_LONGOPTS,
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct global_opts opts = *g;
	struct monitor m = { 0 };
	bool verbose = false;
	struct ktask_nl *nl;
	int c, ret;

	while ((c = next_option("monitor", argc, argv, "c:jpvh", longopts)) != -1) {
		if (json_option(c, &opts))
			continue;
		switch (c) {
		case 'c':
			ret = parse_u64_range(optarg, 1, UINT64_MAX, &m.count);
			if (ret)
				return usage_error("monitor", "--count: '%s' is not a number of events (1 or more)",
						   optarg);
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			print_usage("monitor");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error("monitor", "unexpected argument '%s'",
				   argv[optind]);
	/* Even with -p: a reader takes each event as one line as it comes. */
	m.json = opts.json;

	ret = ktask_nl_open(&nl);
	if (ret) {
		ktask_nl_report(NULL, "monitor", ret);
		return EXIT_RUNTIME;
	}
	ret = ktask_nl_subscribe_events(nl);
	if (ret == -ENOENT) {
		error_msg("monitor", "generic netlink family '%s' has no '%s' group",
			  KTASK_FAMILY_NAME, KTASK_MCGRP_EVENTS);
		goto fail;
	}
	if (ret == -EPERM || ret == -EACCES) {
		/* The kernel refuses the join: events show every user's tasks. */
		error_msg("monitor", "joining the '%s' group needs CAP_SYS_ADMIN: %s",
			  KTASK_MCGRP_EVENTS, strerror(-ret));
		goto fail;
	}
	if (ret) {
		ktask_nl_report(nl, "monitor", ret);
		goto fail;
	}
	/* Scripts start a task only once this appears, so none is missed. */
	if (verbose)
		notice_msg("monitor", "listening");

	ret = ktask_nl_receive_events(nl, print_event, events_lost, &m);
	if (ret) {
		ktask_nl_report(nl, "monitor", ret);
		goto fail;
	}
	ktask_nl_close(nl);
	return EXIT_OK;
fail:
	ktask_nl_close(nl);
	return EXIT_RUNTIME;
}
