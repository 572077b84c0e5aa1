/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The debugfs "synthetic" protocol: the request line written to run a
 * task, and the "key: value" result read back (see docs/interface.md).
 */
#ifndef KTASKCTL_SYNTHETIC_H
#define KTASKCTL_SYNTHETIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse.h"

/* Limits from the interface; the kernel enforces them again. */
#define SYNTH_MAX_SIZE		(1ULL << 32)
#define SYNTH_MAX_THREADS	1024
#define SYNTH_MAX_LINE		255

struct synth_request {
	const char *kind;		/* "cpu", "memclear" or "sleep" */
	bool has_size;
	uint64_t size;
	bool has_min_chunk;
	uint64_t min_chunk;
	bool has_max_threads;
	unsigned int max_threads;	/* 0: the kernel's default maximum */
	bool has_layout;
	struct layout layout;
	bool has_fail_at;
	uint64_t fail_at;
	bool has_err;
	int err;
};

bool synth_kind_valid(const char *kind);

/* Units in the task: size, or the layout's total. */
uint64_t synth_units(const struct synth_request *req);

/* Cross-field checks; returns 0 or -EINVAL with *why. */
int synth_validate(const struct synth_request *req, const char **why);

/*
 * The request line, newline-terminated when that fits the kernel's
 * 255-byte limit; returns its length or -E2BIG.
 */
int synth_format(const struct synth_request *req, char *buf, size_t len);

struct synth_result {
	/* The request as the kernel saw it, and chunks: shown if present. */
	char kind[16];
	bool has_size, has_min_chunk, has_max_threads, has_chunks;
	uint64_t size;
	uint64_t min_chunk;
	uint64_t max_threads;
	uint64_t chunks;
	/* Required. */
	uint64_t threads_used;
	uint64_t elapsed_ns;
	uint64_t units_done;
	uint64_t units_undone;
	int64_t error;			/* 0 or a negative errno */
};

/*
 * Parses what reading the file returns after a run.  -ENODATA: no task has
 * run yet ("runs: 0"); -EINVAL: unexpected contents.  *why says more.
 */
int synth_parse_result(const char *text, struct synth_result *res,
		       const char **why);

/* Minimum, median (mean of the middle two for even n) and maximum. */
struct summary {
	uint64_t min;
	uint64_t median;
	uint64_t max;
};

void summarize(const uint64_t *values, size_t n, struct summary *out);

#endif
