// SPDX-License-Identifier: GPL-2.0-or-later
/* ktaskctl stats: the debugfs counters as tables or JSON. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "debugfs.h"
#include "output.h"
#include "parse.h"
#include "util.h"

const char stats_usage[] =
"Usage: ktaskctl stats [--json | --pretty]\n"
"\n"
"Show ktask's resource limits, per-node counters, worker settings and task\n"
"statistics, read from the debugfs files rlimits, nodes, workers and stats.\n"
"\n"
"  -j, --json    print JSON: {\"rlimits\": [...], \"nodes\": [...],\n"
"                \"workers\": {...}, \"tasks\": {...}}\n"
"  -p, --pretty  print indented JSON\n"
"  -h, --help    show this help\n";

/* Each section: the debugfs file, its key in the output, its format. */
static const struct section {
	const char *file;
	const char *key;
	bool is_table;
} sections[] = {
	{ "rlimits", "rlimits", true },
	{ "nodes", "nodes", true },
	{ "workers", "workers", false },
	{ "stats", "tasks", false },
};

static void add_table(struct out_node *doc, const char *key,
		      const struct table *t)
{
	const char **heads = xcalloc(t->ncols, sizeof(char *));
	struct out_table *ot;
	size_t row, col;

	for (col = 0; col < t->ncols; col++)
		heads[col] = t->head[col];
	ot = out_table(doc, key, t->ncols, heads, heads);
	for (row = 0; row < t->nrows; row++) {
		out_row(ot);
		for (col = 0; col < t->ncols; col++)
			out_cell_raw(ot, table_cell(t, row, col));
	}
	free(heads);
}

/*
 * Switches among the key-value files' keys: text says on/off for 1/0, as
 * get does, and JSON keeps the kernel's 0/1, as get's JSON does.
 */
static const struct {
	const char *file;
	const char *key;
} switches[] = {
	{ "workers", "renice" },
};

static const char *switch_text(const char *file, const char *key,
			       const char *value)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(switches); i++) {
		if (strcmp(switches[i].file, file) || strcmp(switches[i].key, key))
			continue;
		/* Anything else is shown as the kernel wrote it. */
		if (!strcmp(value, "0") || !strcmp(value, "1"))
			return format_on_off(value[0] == '1');
	}
	return value;
}

static void add_kv(struct out_node *doc, const struct section *s,
		   const struct kv_list *kv)
{
	struct out_node *obj = out_object(doc, s->key);
	size_t i;

	for (i = 0; i < kv->count; i++) {
		const char *key = kv->items[i].key, *value = kv->items[i].value;
		char *json = json_scalar(value);

		out_field(obj, key, switch_text(s->file, key, value), key, json);
		free(json);
	}
}

/* Reads and parses one section into doc; reports errors itself. */
static int add_section(struct out_node *doc, const struct section *s)
{
	enum debugfs_stage stage;
	size_t bad_line = 0;
	char *text;
	int ret;

	ret = debugfs_read(s->file, &text, &stage);
	if (ret) {
		debugfs_report("stats", s->file, ret, stage);
		return ret;
	}
	if (s->is_table) {
		struct table t;

		ret = parse_table(text, &t, &bad_line);
		if (!ret) {
			add_table(doc, s->key, &t);
			table_free(&t);
		}
	} else {
		struct kv_list kv;

		ret = parse_kv(text, &kv, &bad_line);
		if (!ret) {
			add_kv(doc, s, &kv);
			kv_free(&kv);
		}
	}
	if (ret) {
		char *path = debugfs_path(s->file);

		error_msg("stats", "%s: unexpected format at line %zu",
			  path, bad_line);
		free(path);
	}
	free(text);
	return ret;
}

int cmd_stats(int argc, char **argv, const struct global_opts *g)
{
	static const struct option longopts[] = {
		JSON_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct global_opts opts = *g;
	struct out_node *doc;
	size_t i;
	int c;

	while ((c = next_option("stats", argc, argv, "jph", longopts)) != -1) {
		if (json_option(c, &opts))
			continue;
		switch (c) {
		case 'h':
			print_usage("stats");
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error("stats", "unexpected argument '%s'", argv[optind]);

	/* Read everything first: a failure prints no partial output. */
	doc = out_new();
	for (i = 0; i < ARRAY_SIZE(sections); i++) {
		if (add_section(doc, &sections[i])) {
			out_free(doc);
			return EXIT_RUNTIME;
		}
	}
	out_print(stdout, doc, out_style(&opts));
	out_free(doc);
	return EXIT_OK;
}
