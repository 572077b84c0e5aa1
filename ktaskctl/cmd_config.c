// SPDX-License-Identifier: GPL-2.0-or-later
/* ktaskctl get/set: ktask's tunables over generic netlink. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "netlink.h"
#include "output.h"
#include "parse.h"
#include "util.h"

const char get_usage[] =
"Usage: ktaskctl get [--json | --pretty] [KEY]\n"
"\n"
"Show ktask's settings (generic netlink KTASK_CMD_GET_CONFIG).  With KEY,\n"
"print just its value.\n"
"\n"
"Keys:\n"
"  max-threads   default maximum threads per task, caller included\n"
"  helper-nice   nice level of helper threads\n"
"  renice        whether a waiting caller lends its nice level: on or off\n"
"\n"
"  -j, --json    print JSON\n"
"  -p, --pretty  print indented JSON\n"
"  -h, --help    show this help\n";

const char set_usage[] =
"Usage: ktaskctl set KEY VALUE [KEY VALUE...]\n"
"\n"
"Change ktask's settings (generic netlink KTASK_CMD_SET_CONFIG; needs\n"
"CAP_SYS_ADMIN).  The kernel applies all of them or none.\n"
"\n"
"  max-threads N     1..nr_cpu_ids\n"
"  helper-nice N     -20..19\n"
"  renice on|off\n"
"\n"
"  -h, --help        show this help\n";

enum config_key { KEY_MAX_THREADS, KEY_HELPER_NICE, KEY_RENICE };

static const struct key_name {
	const char *name;	/* the command line's and text output's */
	const char *json;	/* JSON's, as in debugfs */
	enum config_key key;
} key_names[] = {
	{ "max-threads", "max_threads", KEY_MAX_THREADS },
	{ "helper-nice", "helper_nice", KEY_HELPER_NICE },
	{ "renice", "renice", KEY_RENICE },
};

static const struct key_name *find_key(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(key_names); i++) {
		if (!strcmp(name, key_names[i].name) ||
		    !strcmp(name, key_names[i].json))
			return &key_names[i];
	}
	return NULL;
}

static bool has_key(const struct ktask_config *c, enum config_key key)
{
	switch (key) {
	case KEY_MAX_THREADS:
		return c->has_max_threads;
	case KEY_HELPER_NICE:
		return c->has_helper_nice;
	default:
		return c->has_renice;
	}
}

static void add_key(struct out_node *doc, const struct key_name *k,
		    const struct ktask_config *c)
{
	char buf[32];

	switch (k->key) {
	case KEY_MAX_THREADS:
		snprintf(buf, sizeof(buf), "%" PRIu32, c->max_threads);
		out_field(doc, k->name, buf, k->json, buf);
		break;
	case KEY_HELPER_NICE:
		snprintf(buf, sizeof(buf), "%" PRId32, c->helper_nice);
		out_field(doc, k->name, buf, k->json, buf);
		break;
	case KEY_RENICE:
		/* Text says on/off, JSON the kernel's 0/1: both as in stats. */
		out_field(doc, k->name, format_on_off(c->renice), k->json,
			  c->renice ? "1" : "0");
		break;
	}
}

int cmd_get(int argc, char **argv, const struct global_opts *g)
{
	static const struct option longopts[] = {
		JSON_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const struct key_name *only = NULL;
	struct ktask_config config;
	struct ktask_nl *nl;
	struct out_node *doc;
	struct global_opts opts = *g;
	size_t i;
	int c, ret;

	while ((c = next_option("get", argc, argv, "jph", longopts)) != -1) {
		if (json_option(c, &opts))
			continue;
		switch (c) {
		case 'h':
			print_usage("get");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		only = find_key(argv[optind]);
		if (!only)
			return usage_error("get", "unknown key '%s' (max-threads, helper-nice or renice)",
					   argv[optind]);
		if (optind + 1 < argc)
			return usage_error("get", "unexpected argument '%s'",
					   argv[optind + 1]);
	}

	ret = ktask_nl_open(&nl);
	if (!ret)
		ret = ktask_nl_get_config(nl, &config);
	if (ret) {
		ktask_nl_report(nl, "get", ret);
		ktask_nl_close(nl);
		return EXIT_RUNTIME;
	}
	ktask_nl_close(nl);

	doc = out_new();
	for (i = 0; i < ARRAY_SIZE(key_names); i++) {
		const struct key_name *k = &key_names[i];

		if (only && only != k)
			continue;
		if (!has_key(&config, k->key)) {
			if (only) {
				error_msg("get", "the kernel did not report %s",
					  k->name);
				out_free(doc);
				return EXIT_RUNTIME;
			}
			continue;
		}
		add_key(doc, k, &config);
	}
	/* A single key in text is just its value, for scripts. */
	out_print(stdout, doc, opts.json || !only ? out_style(&opts)
						  : OUT_TEXT_VALUES);
	out_free(doc);
	return EXIT_OK;
}

/* Parses one KEY VALUE pair into config; returns 0 or EXIT_USAGE. */
static int set_pair(const char *name, const char *value,
		    struct ktask_config *config)
{
	const struct key_name *k = find_key(name);
	uint64_t u;
	int64_t s;
	bool on;

	if (!k)
		return usage_error("set", "unknown key '%s' (max-threads, helper-nice or renice)",
				   name);
	if (!value)
		return usage_error("set", "%s: missing value", k->name);

	switch (k->key) {
	case KEY_MAX_THREADS:
		if (parse_u64_range(value, 1, UINT32_MAX, &u))
			return usage_error("set", "max-threads: '%s' is not a number 1..nr_cpu_ids",
					   value);
		config->has_max_threads = true;
		config->max_threads = (uint32_t)u;
		break;
	case KEY_HELPER_NICE:
		if (parse_s64_range(value, -20, 19, &s))
			return usage_error("set", "helper-nice: '%s' is not a nice level -20..19",
					   value);
		config->has_helper_nice = true;
		config->helper_nice = (int32_t)s;
		break;
	case KEY_RENICE:
		if (parse_on_off(value, &on))
			return usage_error("set", "renice: '%s' is not on or off",
					   value);
		config->has_renice = true;
		config->renice = on;
		break;
	}
	return 0;
}

int cmd_set(int argc, char **argv, const struct global_opts *g)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ktask_config config = { 0 };
	struct ktask_nl *nl;
	int c, i, ret;

	(void)g;
	/* '+': "helper-nice -5" must not read -5 as an option. */
	while ((c = next_option("set", argc, argv, "+h", longopts)) != -1) {
		switch (c) {
		case 'h':
			print_usage("set");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error("set", "missing KEY VALUE");
	for (i = optind; i < argc; i += 2) {
		ret = set_pair(argv[i], i + 1 < argc ? argv[i + 1] : NULL,
			       &config);
		if (ret)
			return ret;
	}

	ret = ktask_nl_open(&nl);
	if (!ret)
		ret = ktask_nl_set_config(nl, &config);
	if (ret) {
		ktask_nl_report(nl, "set", ret);
		ktask_nl_close(nl);
		return EXIT_RUNTIME;
	}
	ktask_nl_close(nl);
	return EXIT_OK;
}
