// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"
#include "synthetic.h"
#include "util.h"

static const char *const kinds[] = { "cpu", "memclear", "sleep" };

bool synth_kind_valid(const char *kind)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (!strcmp(kind, kinds[i]))
			return true;
	}
	return false;
}

uint64_t synth_units(const struct synth_request *req)
{
	if (req->has_size)
		return req->size;
	return req->has_layout ? req->layout.total : 0;
}

int synth_validate(const struct synth_request *req, const char **why)
{
	uint64_t units = synth_units(req);

	if (!synth_kind_valid(req->kind)) {
		*why = "--kind must be cpu, memclear or sleep";
		return -EINVAL;
	}
	if (!req->has_size && !req->has_layout) {
		*why = "--size or --nodes is required";
		return -EINVAL;
	}
	if (req->has_size && req->has_layout && req->size != req->layout.total) {
		*why = "--size must equal the sum of the --nodes sizes";
		return -EINVAL;
	}
	if (units < 1 || units > SYNTH_MAX_SIZE) {
		*why = "the task size must be 1..4294967296 (4G)";
		return -EINVAL;
	}
	if (req->has_min_chunk && (req->min_chunk < 1 || req->min_chunk > units)) {
		*why = "--min-chunk must be 1..size";
		return -EINVAL;
	}
	if (req->has_max_threads && req->max_threads > SYNTH_MAX_THREADS) {
		*why = "--threads must be 0..1024";
		return -EINVAL;
	}
	if (req->has_fail_at && req->fail_at >= units) {
		*why = "--fail-at must be below the size";
		return -EINVAL;
	}
	return 0;
}

int synth_format(const struct synth_request *req, char *buf, size_t len)
{
	char line[4 * SYNTH_MAX_LINE];
	char layout[2 * SYNTH_MAX_LINE];
	size_t used;
	int n;

	n = snprintf(line, sizeof(line), "kind=%s", req->kind);
	used = n;
#define APPEND(...)							\
	do {								\
		n = snprintf(line + used, sizeof(line) - used, __VA_ARGS__); \
		if (n < 0 || (size_t)n >= sizeof(line) - used)		\
			return -E2BIG;					\
		used += n;						\
	} while (0)

	if (req->has_size)
		APPEND(" size=%" PRIu64, req->size);
	if (req->has_min_chunk)
		APPEND(" min_chunk=%" PRIu64, req->min_chunk);
	if (req->has_max_threads)
		APPEND(" max_threads=%u", req->max_threads);
	if (req->has_layout) {
		if (format_layout(&req->layout, layout, sizeof(layout)) < 0)
			return -E2BIG;
		APPEND(" nodes=%s", layout);
	}
	if (req->has_fail_at)
		APPEND(" fail_at=%" PRIu64, req->fail_at);
	if (req->has_err)
		APPEND(" err=%d", req->err);
#undef APPEND

	if (used > SYNTH_MAX_LINE || used + 1 >= len)
		return -E2BIG;
	memcpy(buf, line, used);
	/* The newline is a courtesy to the kernel's parser, not part of the limit. */
	if (used < SYNTH_MAX_LINE)
		buf[used++] = '\n';
	buf[used] = '\0';
	return (int)used;
}

/* Names the offending key for the caller's message. */
static const char *bad_key(const char *key)
{
	static char why[64];

	snprintf(why, sizeof(why), "missing or malformed '%s'", key);
	return why;
}

/* A NULL present means the key is required. */
static int result_u64(const struct kv_list *kv, const char *key, bool *present,
		      uint64_t *out, const char **why)
{
	const char *value = kv_get(kv, key);

	if (!value && present) {
		*present = false;
		return 0;
	}
	if (!value || parse_u64(value, out)) {
		*why = bad_key(key);
		return -EINVAL;
	}
	if (present)
		*present = true;
	return 0;
}

int synth_parse_result(const char *text, struct synth_result *res,
		       const char **why)
{
	struct kv_list kv;
	const char *value;
	size_t bad_line;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (parse_kv(text, &kv, &bad_line)) {
		*why = "a line is not 'key: value'";
		return -EINVAL;
	}

	value = kv_get(&kv, "runs");
	if (value && !strcmp(value, "0") && !kv_get(&kv, "elapsed_ns")) {
		*why = "no synthetic task has run yet";
		ret = -ENODATA;
		goto out;
	}

	value = kv_get(&kv, "kind");
	snprintf(res->kind, sizeof(res->kind), "%s", value ? value : "");

	ret = result_u64(&kv, "size", &res->has_size, &res->size, why);
	ret = ret ?: result_u64(&kv, "min_chunk", &res->has_min_chunk,
				&res->min_chunk, why);
	ret = ret ?: result_u64(&kv, "max_threads", &res->has_max_threads,
				&res->max_threads, why);
	ret = ret ?: result_u64(&kv, "chunks", &res->has_chunks, &res->chunks, why);
	ret = ret ?: result_u64(&kv, "threads_used", NULL, &res->threads_used, why);
	ret = ret ?: result_u64(&kv, "elapsed_ns", NULL, &res->elapsed_ns, why);
	ret = ret ?: result_u64(&kv, "units_done", NULL, &res->units_done, why);
	ret = ret ?: result_u64(&kv, "units_undone", NULL, &res->units_undone, why);
	if (ret)
		goto out;

	value = kv_get(&kv, "error");
	if (!value || parse_s64_range(value, -4095, 0, &res->error)) {
		*why = bad_key("error");
		ret = -EINVAL;
	}
out:
	kv_free(&kv);
	return ret;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void summarize(const uint64_t *values, size_t n, struct summary *out)
{
	uint64_t *sorted;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_u64);
	out->min = sorted[0];
	out->max = sorted[n - 1];
	if (n % 2)
		out->median = sorted[n / 2];
	else	/* Halves first: the sum could overflow. */
		out->median = sorted[n / 2 - 1] / 2 + sorted[n / 2] / 2 +
			      (sorted[n / 2 - 1] % 2 + sorted[n / 2] % 2) / 2;
	free(sorted);
}
