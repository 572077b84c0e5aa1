// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "parse.h"
#include "util.h"

/* Parses the digits in s[0..len) with overflow checking. */
static int parse_digits(const char *s, size_t len, uint64_t *out)
{
	uint64_t value = 0;
	size_t i;

	if (len == 0)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		unsigned int digit = s[i] - '0';

		if (value > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		value = value * 10 + digit;
	}
	*out = value;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	return parse_digits(s, strlen(s), out);
}

int parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t value;
	int ret = parse_u64(s, &value);

	if (ret)
		return ret;
	if (value < min || value > max)
		return -ERANGE;
	*out = value;
	return 0;
}

int parse_s64(const char *s, int64_t *out)
{
	bool negative = false;
	uint64_t magnitude;
	int ret;

	if (*s == '-' || *s == '+')
		negative = *s++ == '-';
	ret = parse_u64(s, &magnitude);
	if (ret)
		return ret;
	if (negative) {
		if (magnitude > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		*out = magnitude == (uint64_t)INT64_MAX + 1 ?
			INT64_MIN : -(int64_t)magnitude;
	} else {
		if (magnitude > INT64_MAX)
			return -ERANGE;
		*out = (int64_t)magnitude;
	}
	return 0;
}

int parse_s64_range(const char *s, int64_t min, int64_t max, int64_t *out)
{
	int64_t value;
	int ret = parse_s64(s, &value);

	if (ret)
		return ret;
	if (value < min || value > max)
		return -ERANGE;
	*out = value;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	size_t len = strlen(s);
	unsigned int shift = 0;
	uint64_t value;
	int ret;

	if (len > 0) {
		switch (s[len - 1]) {
		case 'K': case 'k': shift = 10; break;
		case 'M': case 'm': shift = 20; break;
		case 'G': case 'g': shift = 30; break;
		}
		if (shift)
			len--;
	}
	ret = parse_digits(s, len, &value);
	if (ret)
		return ret;
	if (value > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = value << shift;
	return 0;
}

int parse_size_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t value;
	int ret = parse_size(s, &value);

	if (ret)
		return ret;
	if (value < min || value > max)
		return -ERANGE;
	*out = value;
	return 0;
}

int parse_on_off(const char *s, bool *out)
{
	if (!strcmp(s, "on") || !strcmp(s, "1")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "off") || !strcmp(s, "0")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

const char *format_on_off(bool on)
{
	return on ? "on" : "off";
}

/* Matches the kernel's MAX_ERRNO: -4095..-1 are error pointers/returns. */
#define MAX_ERRNO 4095

int parse_errno(const char *s, int *out)
{
	uint64_t value;
	int err;

	if (s[0] >= '0' && s[0] <= '9') {
		int ret = parse_u64_range(s, 1, MAX_ERRNO, &value);

		if (!ret)
			*out = (int)value;
		return ret;
	}
	for (err = 1; err <= MAX_ERRNO; err++) {
		const char *name = strerrorname_np(err);

		if (name && !strcasecmp(name, s)) {
			*out = err;
			return 0;
		}
	}
	return -EINVAL;
}

const char *parse_strerror(int ret)
{
	switch (ret) {
	case 0:
		return "no error";
	case -ERANGE:
		return "out of range";
	default:
		return "invalid";
	}
}

/* Copies s[0..len) into a NUL-terminated buffer, or fails if too long. */
static int copy_token(const char *s, size_t len, char *buf, size_t buflen)
{
	if (len >= buflen)
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 0;
}

static int parse_layout_entry(const char *s, size_t len,
			      struct layout_entry *entry, const char **why)
{
	const char *colon = memchr(s, ':', len);
	char nid[32], size[32];
	uint64_t value;
	int ret;

	if (!colon) {
		*why = "an entry is not NID:SIZE";
		return -EINVAL;
	}
	if (copy_token(s, colon - s, nid, sizeof(nid)) ||
	    copy_token(colon + 1, len - (colon + 1 - s), size, sizeof(size))) {
		*why = "an entry is too long";
		return -EINVAL;
	}

	if (!strcmp(nid, "any")) {
		entry->nid = LAYOUT_ANY_NODE;
	} else {
		ret = parse_u64_range(nid, 0, LAYOUT_MAX_NID, &value);
		if (ret) {
			*why = ret == -ERANGE ? "node number out of range (0..1023)"
					      : "node is not a number or 'any'";
			return ret;
		}
		entry->nid = (int)value;
	}

	ret = parse_size(size, &entry->size);
	if (ret) {
		*why = ret == -ERANGE ? "size overflows 64 bits"
				      : "size is not a number (with optional K, M or G)";
		return ret;
	}
	/* A node with no units is fine as long as the task has some. */
	return 0;
}

int parse_layout(const char *s, struct layout *out, const char **why)
{
	const char *p = s;

	out->count = 0;
	out->total = 0;
	if (!*s) {
		*why = "empty layout";
		return -EINVAL;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct layout_entry *entry;
		int ret;

		if (out->count == LAYOUT_MAX_ENTRIES) {
			*why = "more than " STRINGIFY(LAYOUT_MAX_ENTRIES)
			       " parts, the kernel's limit";
			return -ERANGE;
		}
		entry = &out->entries[out->count];
		ret = parse_layout_entry(p, len, entry, why);
		if (ret)
			return ret;
		if (entry->size > UINT64_MAX - out->total) {
			*why = "total size overflows 64 bits";
			return -ERANGE;
		}
		out->total += entry->size;
		out->count++;
		if (!end)
			return 0;
		p = end + 1;
	}
}

int format_layout(const struct layout *layout, char *buf, size_t len)
{
	size_t used = 0;
	size_t i;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (i = 0; i < layout->count; i++) {
		const struct layout_entry *entry = &layout->entries[i];
		int n;

		if (entry->nid == LAYOUT_ANY_NODE)
			n = snprintf(buf + used, len - used, "%sany:%llu",
				     i ? "," : "",
				     (unsigned long long)entry->size);
		else
			n = snprintf(buf + used, len - used, "%s%d:%llu",
				     i ? "," : "", entry->nid,
				     (unsigned long long)entry->size);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += n;
	}
	return (int)used;
}

static void thread_list_add(struct thread_list *list, unsigned int threads)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		if (list->threads[i] == threads)
			return;
	}
	/* At most THREAD_LIST_MAX distinct values exist, so this fits. */
	list->threads[list->count++] = threads;
}

static int parse_thread_count(const char *s, size_t len, uint64_t *out,
			      const char **why)
{
	char buf[32];
	int ret;

	if (copy_token(s, len, buf, sizeof(buf))) {
		*why = "not a number";
		return -EINVAL;
	}
	ret = parse_u64_range(buf, 1, THREAD_LIST_MAX, out);
	if (ret)
		*why = ret == -ERANGE ? "thread count out of range (1..1024)"
				      : "not a number";
	return ret;
}

int parse_thread_list(const char *s, struct thread_list *out, const char **why)
{
	const char *p = s;

	out->count = 0;
	if (!*s) {
		*why = "empty list";
		return -EINVAL;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *dash = memchr(p, '-', len);
		uint64_t first, last, n;
		int ret;

		if (dash) {
			ret = parse_thread_count(p, dash - p, &first, why);
			if (!ret)
				ret = parse_thread_count(dash + 1,
							 len - (dash + 1 - p),
							 &last, why);
			if (ret)
				return ret;
			if (first > last) {
				*why = "range runs backwards";
				return -EINVAL;
			}
		} else {
			ret = parse_thread_count(p, len, &first, why);
			if (ret)
				return ret;
			last = first;
		}
		for (n = first; n <= last; n++)
			thread_list_add(out, (unsigned int)n);
		if (!end)
			return 0;
		p = end + 1;
	}
}
