/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Subcommands: each cmd_*.c file exports a handler and its help text,
 * and main.c lists them in one table.
 */
#ifndef KTASKCTL_COMMANDS_H
#define KTASKCTL_COMMANDS_H

#include <stdbool.h>

#include "output.h"

/* Options given before the subcommand; -j and -p work after it too. */
struct global_opts {
	bool json;		/* -j: JSON, one line per document */
	bool pretty;		/* -p: JSON, indented; implies json */
};

/* The getopt_long() entries for -j and -p, shared by every command. */
#define JSON_LONGOPTS						\
	{ "json", no_argument, NULL, 'j' },			\
	{ "pretty", no_argument, NULL, 'p' }

/*
 * argv[0] is the subcommand's name.  Handlers return an exit status
 * (EXIT_OK, EXIT_RUNTIME, EXIT_USAGE) and print their own errors.
 */
typedef int (*command_fn)(int argc, char **argv, const struct global_opts *g);

struct command {
	const char *name;
	command_fn run;
	const char *summary;	/* one line for 'ktaskctl help' */
	const char *usage;	/* the subcommand's --help */
};

int cmd_stats(int argc, char **argv, const struct global_opts *g);
int cmd_run_synthetic(int argc, char **argv, const struct global_opts *g);
int cmd_bench(int argc, char **argv, const struct global_opts *g);
int cmd_get(int argc, char **argv, const struct global_opts *g);
int cmd_set(int argc, char **argv, const struct global_opts *g);
int cmd_monitor(int argc, char **argv, const struct global_opts *g);

extern const char stats_usage[];
extern const char run_synthetic_usage[];
extern const char bench_usage[];
extern const char get_usage[];
extern const char set_usage[];
extern const char monitor_usage[];

/* Prints a subcommand's usage on stdout (for --help). */
void print_usage(const char *name);

/*
 * getopt_long() with ktaskctl's messages instead of getopt's: returns the
 * option, -1 at the end, or '?' after reporting a usage error.  A leading
 * '+' in optstring stops at the first non-option (for negative values).
 */
struct option;
int next_option(const char *what, int argc, char **argv, const char *optstring,
		const struct option *longopts);

/*
 * Handles -j or -p (c), given before or after the subcommand alike: sets
 * g, and errors are JSON from then on.  Returns false for other options.
 */
bool json_option(int c, struct global_opts *g);

/* Text, compact JSON (-j) or pretty JSON (-p). */
static inline enum out_style out_style(const struct global_opts *g)
{
	if (!g->json)
		return OUT_TEXT;
	return g->pretty ? OUT_JSON : OUT_JSON_LINE;
}

#endif
