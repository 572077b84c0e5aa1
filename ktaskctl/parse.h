/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsing of command-line values: plain numbers, sizes with K/M/G
 * suffixes, NUMA layouts, thread lists, on/off and errno values.
 *
 * Every parser returns 0, -EINVAL (not what was expected) or -ERANGE (out
 * of range, including 64-bit overflow); parse_layout() and
 * parse_thread_list() also explain why in *why.
 */
#ifndef KTASKCTL_PARSE_H
#define KTASKCTL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decimal digits only: no sign, no spaces, no base prefixes. */
int parse_u64(const char *s, uint64_t *out);
int parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Optional '-' or '+', then decimal digits. */
int parse_s64(const char *s, int64_t *out);
int parse_s64_range(const char *s, int64_t min, int64_t max, int64_t *out);

/* A number with an optional K, M or G suffix (either case): 2^10, 2^20, 2^30. */
int parse_size(const char *s, uint64_t *out);
int parse_size_range(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* "on"/"off" (also "1"/"0"). */
int parse_on_off(const char *s, bool *out);
/* "on" or "off": how get and stats show a switch in text. */
const char *format_on_off(bool on);

/* A positive errno: a number 1..4095 or a name such as "EIO". */
int parse_errno(const char *s, int *out);

/* Human-readable reason for a parse_*() return value. */
const char *parse_strerror(int ret);

/* The kernel's node numbers stay below MAX_NUMNODES (at most 1 << 10). */
#define LAYOUT_MAX_NID		1023
#define LAYOUT_ANY_NODE		(-1)
/*
 * The kernel's KTASK_SYNTH_MAX_NODES (kernel/ktask_synthetic.c, patch
 * 0008): its "nodes=" parser refuses more parts with EINVAL, so more are
 * a usage error here.  Not UAPI, hence this copy; keep the two equal.
 */
#define LAYOUT_MAX_ENTRIES	8

struct layout_entry {
	int nid;		/* LAYOUT_ANY_NODE for "any" */
	uint64_t size;
};

struct layout {
	size_t count;
	uint64_t total;		/* sum of the sizes */
	struct layout_entry entries[LAYOUT_MAX_ENTRIES];
};

/*
 * NID:SIZE[,NID:SIZE...], at most LAYOUT_MAX_ENTRIES parts; NID a node
 * number or "any", SIZE with suffixes.
 */
int parse_layout(const char *s, struct layout *out, const char **why);

/* The normalized form (plain numbers), as the kernel reads it. */
int format_layout(const struct layout *layout, char *buf, size_t len);

#define THREAD_LIST_MAX		1024

struct thread_list {
	size_t count;
	unsigned int threads[THREAD_LIST_MAX];
};

/* N[,N...] and ranges A-B, each 1..THREAD_LIST_MAX; duplicates dropped. */
int parse_thread_list(const char *s, struct thread_list *out, const char **why);

#endif
