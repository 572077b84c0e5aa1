// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktaskctl: inspect, tune and exercise ktask, the kernel framework that
 * multithreads CPU-intensive kernel work.  This file holds the command
 * table, global options and dispatch; each subcommand lives in cmd_*.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "debugfs.h"
#include "util.h"

#ifndef KTASKCTL_VERSION
#define KTASKCTL_VERSION "unknown"
#endif

static int cmd_help(int argc, char **argv, const struct global_opts *g);

static const char help_usage[] =
"Usage: ktaskctl help [COMMAND]\n"
"\n"
"Show the list of commands, or a command's help.\n"
"\n"
"  -h, --help    show this help\n";

static const struct command commands[] = {
	{ "stats", cmd_stats,
	  "show resource limits, per-node counters, workers and task statistics",
	  stats_usage },
	{ "run-synthetic", cmd_run_synthetic,
	  "run a synthetic task in the kernel and time it",
	  run_synthetic_usage },
	{ "bench", cmd_bench,
	  "time synthetic tasks across thread counts and show the speedup",
	  bench_usage },
	{ "get", cmd_get,
	  "show settings: max-threads, helper-nice, renice",
	  get_usage },
	{ "set", cmd_set,
	  "change settings: max-threads, helper-nice, renice",
	  set_usage },
	{ "monitor", cmd_monitor,
	  "print one line per finished task, as it finishes",
	  monitor_usage },
	{ "help", cmd_help,
	  "show this list, or a command's help",
	  help_usage },
};

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	}
	return NULL;
}

static void print_main_usage(FILE *f)
{
	size_t i;

	fputs("Usage: ktaskctl [-j | -p] COMMAND [ARGS...]\n"
	      "       ktaskctl COMMAND --help\n"
	      "       ktaskctl --version\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-15s%s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "Options:\n"
	      "  -j, --json     print JSON, one line per document; errors too,\n"
	      "                 as {\"error\": \"...\"} on standard output\n"
	      "  -p, --pretty   print indented JSON (implies --json)\n"
	      "  -h, --help     show this help\n"
	      "  -V, --version  show the version\n"
	      "\n"
	      "Environment:\n"
	      "  " DEBUGFS_ENV "  ktask's debugfs directory (default "
	      DEBUGFS_DEFAULT_DIR ")\n"
	      "\n"
	      "Exit status: 0 success, 1 failure, 2 usage error.  See ktaskctl(8).\n",
	      f);
}

void print_usage(const char *name)
{
	const struct command *cmd = find_command(name);

	if (cmd)
		fputs(cmd->usage, stdout);
}

bool json_option(int c, struct global_opts *g)
{
	if (c != 'j' && c != 'p')
		return false;
	g->json = true;
	/* As in bpftool, -j after -p leaves the JSON pretty. */
	if (c == 'p')
		g->pretty = true;
	set_json_errors(true);
	return true;
}

/* Whether name, as typed, abbreviates more than one long option. */
static bool ambiguous(const char *name, size_t len,
		      const struct option *longopts)
{
	const struct option *o;
	int matches = 0;

	for (o = longopts; o->name; o++) {
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return false;
		if (!strncmp(o->name, name, len))
			matches++;
	}
	return matches > 1;
}

/* Reports the error getopt_long() returned c for; returns '?'. */
static int option_error(const char *what, int c, char **argv, bool is_long,
			const struct option *longopts)
{
	const char *arg = argv[optind - 1];
	/* "--json=x": the option is "--json", the part before '='. */
	int len = is_long ? (int)strcspn(arg, "=") : 0;

	if (c == ':' && is_long)
		usage_error(what, "option '%.*s' requires an argument", len, arg);
	else if (c == ':')
		usage_error(what, "option '-%c' requires an argument", optopt);
	else if (is_long && optopt)
		usage_error(what, "option '%.*s' doesn't allow an argument",
			    len, arg);
	else if (is_long && ambiguous(arg + 2, len - 2, longopts))
		usage_error(what, "option '%.*s' is ambiguous", len, arg);
	else if (is_long)
		usage_error(what, "unrecognized option '%s'", arg);
	else
		usage_error(what, "invalid option '-%c'", optopt);
	return '?';
}

int next_option(const char *what, int argc, char **argv, const char *optstring,
		const struct option *longopts)
{
	bool stop_at_operand = optstring[0] == '+';
	int start = optind, c;
	char spec[64];

	/* A leading ':' makes getopt return ':' for a missing argument. */
	snprintf(spec, sizeof(spec), "%s:%s", stop_at_operand ? "+" : "",
		 optstring + stop_at_operand);
	opterr = 0;
	c = getopt_long(argc, argv, spec, longopts, NULL);
	if (c != ':' && c != '?')
		return c;
	/*
	 * optopt holds a long option's short letter too, which would report
	 * "--json=x" as "-j": name what the user typed instead.  A failed
	 * long option's word is always behind optind; a short option's
	 * cluster ("-jx") may still be at optind, so "--" behind optind
	 * then belongs to an earlier, valid option.
	 */
	return option_error(what, c, argv,
			    optind > start && !strncmp(argv[optind - 1], "--", 2),
			    longopts);
}

static int cmd_help(int argc, char **argv, const struct global_opts *g)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const struct command *cmd;
	int c;

	(void)g;
	while ((c = next_option("help", argc, argv, "h", longopts)) != -1) {
		if (c != 'h')
			return EXIT_USAGE;
		fputs(help_usage, stdout);
		return EXIT_OK;
	}
	if (optind >= argc) {
		print_main_usage(stdout);
		return EXIT_OK;
	}
	if (optind + 1 < argc)
		return usage_error("help", "unexpected argument '%s'",
				   argv[optind + 1]);
	cmd = find_command(argv[optind]);
	if (!cmd)
		return usage_error("help", "%s: unknown command", argv[optind]);
	fputs(cmd->usage, stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		JSON_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct global_opts g = { 0 };
	const struct command *cmd;
	int c, ret;

	while ((c = next_option(NULL, argc, argv, "+jphV", longopts)) != -1) {
		if (json_option(c, &g))
			continue;
		switch (c) {
		case 'h':
			print_main_usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("ktaskctl %s\n", KTASKCTL_VERSION);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		if (g.json)
			return usage_error(NULL, "missing command");
		print_main_usage(stderr);
		return EXIT_USAGE;
	}
	cmd = find_command(argv[optind]);
	/* Not "Try 'ktaskctl foo --help'": there is no foo to ask. */
	if (!cmd)
		return usage_error(NULL, "%s: unknown command", argv[optind]);

	/* Subcommands parse their own options from argv[0] = their name. */
	argc -= optind;
	argv += optind;
	optind = 0;
	ret = cmd->run(argc, argv, &g);
	if (fflush(stdout) || ferror(stdout)) {
		error_msg(NULL, "write error on standard output");
		return EXIT_RUNTIME;
	}
	return ret;
}
