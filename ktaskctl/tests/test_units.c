// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for ktaskctl's parsers, the synthetic protocol and the output
 * emitter.  Prints TAP: one "ok"/"not ok" line per check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"
#include "output.h"
#include "parse.h"
#include "synthetic.h"
#include "tap.h"

static void check_str(const char *got, const char *want, const char *name)
{
	check(got && !strcmp(got, want), "%s", name);
	if (!got || strcmp(got, want))
		printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)",
		       want);
}

static const char *errname(int ret)
{
	return ret == 0 ? "0" : ret == -EINVAL ? "-EINVAL" :
	       ret == -ERANGE ? "-ERANGE" : ret == -E2BIG ? "-E2BIG" :
	       ret == -ENODATA ? "-ENODATA" : "other";
}

static void u64_case(const char *s, int want_ret, uint64_t want)
{
	uint64_t v = 0;
	int ret = parse_u64(s, &v);

	check(ret == want_ret && (ret || v == want),
	      "parse_u64('%s') = %s %llu", s, errname(want_ret),
	      (unsigned long long)want);
}

static void s64_case(const char *s, int want_ret, int64_t want)
{
	int64_t v = 0;
	int ret = parse_s64(s, &v);

	check(ret == want_ret && (ret || v == want),
	      "parse_s64('%s') = %s %lld", s, errname(want_ret),
	      (long long)want);
}

static void size_case(const char *s, int want_ret, uint64_t want)
{
	uint64_t v = 0;
	int ret = parse_size(s, &v);

	check(ret == want_ret && (ret || v == want),
	      "parse_size('%s') = %s %llu", s, errname(want_ret),
	      (unsigned long long)want);
}

static void test_numbers(void)
{
	uint64_t u;
	int64_t s;
	bool on;
	int err;

	u64_case("0", 0, 0);
	u64_case("123", 0, 123);
	u64_case("007", 0, 7);
	u64_case("18446744073709551615", 0, UINT64_MAX);
	u64_case("18446744073709551616", -ERANGE, 0);
	u64_case("99999999999999999999999", -ERANGE, 0);
	u64_case("", -EINVAL, 0);
	u64_case("-1", -EINVAL, 0);
	u64_case("+1", -EINVAL, 0);
	u64_case(" 1", -EINVAL, 0);
	u64_case("1 ", -EINVAL, 0);
	u64_case("0x10", -EINVAL, 0);
	u64_case("12abc", -EINVAL, 0);
	/* Garbage wins over overflow: the value is not a number at all. */
	u64_case("99999999999999999999999x", -EINVAL, 0);

	s64_case("-20", 0, -20);
	s64_case("+19", 0, 19);
	s64_case("9223372036854775807", 0, INT64_MAX);
	s64_case("-9223372036854775808", 0, INT64_MIN);
	s64_case("9223372036854775808", -ERANGE, 0);
	s64_case("-9223372036854775809", -ERANGE, 0);
	s64_case("-", -EINVAL, 0);
	s64_case("--1", -EINVAL, 0);
	s64_case("1-", -EINVAL, 0);

	check(parse_u64_range("1024", 0, 1024, &u) == 0 && u == 1024,
	      "parse_u64_range accepts its maximum");
	check(parse_u64_range("1025", 0, 1024, &u) == -ERANGE,
	      "parse_u64_range rejects max + 1");
	check(parse_u64_range("0", 1, 10, &u) == -ERANGE,
	      "parse_u64_range rejects min - 1");
	check(parse_s64_range("-21", -20, 19, &s) == -ERANGE,
	      "parse_s64_range rejects nice -21");
	check(parse_s64_range("19", -20, 19, &s) == 0 && s == 19,
	      "parse_s64_range accepts nice 19");

	size_case("1", 0, 1);
	size_case("1K", 0, 1024);
	size_case("1k", 0, 1024);
	size_case("2M", 0, 2ULL << 20);
	size_case("3g", 0, 3ULL << 30);
	size_case("4G", 0, 1ULL << 32);
	size_case("0K", 0, 0);
	size_case("17179869183G", 0, 17179869183ULL << 30);
	size_case("17179869184G", -ERANGE, 0);
	size_case("18014398509481984K", -ERANGE, 0);
	size_case("18446744073709551616", -ERANGE, 0);
	size_case("K", -EINVAL, 0);
	size_case("", -EINVAL, 0);
	size_case("1KB", -EINVAL, 0);
	size_case("1T", -EINVAL, 0);
	size_case("1.5K", -EINVAL, 0);
	size_case("-1K", -EINVAL, 0);
	size_case("1 K", -EINVAL, 0);
	check(parse_size_range("4G", 1, 1ULL << 32, &u) == 0 && u == 1ULL << 32,
	      "parse_size_range accepts 4G as the synthetic maximum");
	check(parse_size_range("4194305K", 1, 1ULL << 32, &u) == -ERANGE,
	      "parse_size_range rejects 4G + 1K");
	check(parse_size_range("0", 1, 1ULL << 32, &u) == -ERANGE,
	      "parse_size_range rejects 0 when the minimum is 1");

	check(parse_on_off("on", &on) == 0 && on, "parse_on_off('on')");
	check(parse_on_off("off", &on) == 0 && !on, "parse_on_off('off')");
	check(parse_on_off("1", &on) == 0 && on, "parse_on_off('1')");
	check(parse_on_off("yes", &on) == -EINVAL, "parse_on_off rejects 'yes'");
	check(parse_on_off("ON ", &on) == -EINVAL, "parse_on_off rejects 'ON '");

	check(parse_errno("5", &err) == 0 && err == 5, "parse_errno('5')");
	check(parse_errno("EIO", &err) == 0 && err == EIO, "parse_errno('EIO')");
	check(parse_errno("enomem", &err) == 0 && err == ENOMEM,
	      "parse_errno('enomem')");
	check(parse_errno("4095", &err) == 0 && err == 4095,
	      "parse_errno('4095')");
	check(parse_errno("0", &err) == -ERANGE, "parse_errno rejects 0");
	check(parse_errno("4096", &err) == -ERANGE, "parse_errno rejects 4096");
	check(parse_errno("EBOGUS", &err) == -EINVAL,
	      "parse_errno rejects an unknown name");
	check(parse_errno("-5", &err) == -EINVAL, "parse_errno rejects -5");
}

static void layout_ok(const char *s, const char *normalized, uint64_t total)
{
	struct layout l;
	const char *why = NULL;
	char buf[512];
	int ret = parse_layout(s, &l, &why);

	check(ret == 0, "parse_layout('%s') succeeds", s);
	if (ret) {
		printf("#   %s: %s\n", errname(ret), why);
		return;
	}
	check(l.total == total, "parse_layout('%s') totals %llu", s,
	      (unsigned long long)total);
	check(format_layout(&l, buf, sizeof(buf)) == (int)strlen(normalized),
	      "format_layout('%s') returns its length", s);
	check_str(buf, normalized, "format_layout normalizes sizes");
}

static void layout_bad(const char *s, int want_ret, const char *want_why)
{
	struct layout l;
	const char *why = "";
	int ret = parse_layout(s, &l, &why);

	check(ret == want_ret && strstr(why, want_why),
	      "parse_layout('%.40s') = %s (%s)", s, errname(want_ret), want_why);
	if (ret != want_ret || !strstr(why, want_why))
		printf("#   got %s: %s\n", errname(ret), why);
}

static void test_layouts(void)
{
	char many[1024] = "";
	struct layout l;
	char small[8];
	int i;

	layout_ok("0:100", "0:100", 100);
	layout_ok("0:100,1:200", "0:100,1:200", 300);
	layout_ok("any:1K", "any:1024", 1024);
	layout_ok("0:1K,any:2M,1:1G", "0:1024,any:2097152,1:1073741824",
		  1024 + (2 << 20) + (1 << 30));
	layout_ok("1023:1", "1023:1", 1);
	layout_ok("0:0,1:5", "0:0,1:5", 5);

	layout_bad("", -EINVAL, "empty");
	layout_bad("0", -EINVAL, "not NID:SIZE");
	layout_bad("0:", -EINVAL, "size is not a number");
	layout_bad(":5", -EINVAL, "node is not a number");
	layout_bad("x:5", -EINVAL, "node is not a number");
	layout_bad("-1:5", -EINVAL, "node is not a number");
	layout_bad("ANY:5", -EINVAL, "node is not a number");
	layout_bad("0:5,", -EINVAL, "not NID:SIZE");
	layout_bad(",0:5", -EINVAL, "not NID:SIZE");
	layout_bad("0:5;1:5", -EINVAL, "size is not a number");
	layout_bad("0:5:6", -EINVAL, "size is not a number");
	layout_bad("1024:5", -ERANGE, "node number out of range");
	layout_bad("0:5x", -EINVAL, "size is not a number");
	layout_bad("0:18446744073709551616", -ERANGE, "overflows");
	layout_bad("0:1,1:18446744073709551615", -ERANGE, "total size overflows");
	layout_bad("0:123456789012345678901234567890123", -EINVAL, "too long");

	/* The kernel's KTASK_SYNTH_MAX_NODES is 8. */
	check(LAYOUT_MAX_ENTRIES == 8, "LAYOUT_MAX_ENTRIES is the kernel's 8");
	for (i = 0; i < LAYOUT_MAX_ENTRIES; i++)
		strcat(many, i ? ",0:1" : "0:1");
	check(parse_layout(many, &l, &(const char *){ NULL }) == 0 &&
	      l.count == LAYOUT_MAX_ENTRIES,
	      "parse_layout accepts %d entries", LAYOUT_MAX_ENTRIES);
	strcat(many, ",0:1");
	layout_bad(many, -ERANGE, "more than 8 parts, the kernel's limit");
	strcat(many, ",0:1");
	layout_bad(many, -ERANGE, "more than 8 parts");

	parse_layout("0:100,1:200", &l, &(const char *){ NULL });
	check(format_layout(&l, small, sizeof(small)) == -ENOSPC,
	      "format_layout reports a short buffer");
}

static void test_thread_lists(void)
{
	struct thread_list *list = malloc(sizeof(*list));
	const char *why = "";

	check(parse_thread_list("1,2,4", list, &why) == 0 && list->count == 3 &&
	      list->threads[0] == 1 && list->threads[1] == 2 &&
	      list->threads[2] == 4, "parse_thread_list('1,2,4')");
	check(parse_thread_list("1-4", list, &why) == 0 && list->count == 4 &&
	      list->threads[3] == 4, "parse_thread_list('1-4') expands");
	check(parse_thread_list("2,2,1-3", list, &why) == 0 &&
	      list->count == 3 && list->threads[0] == 2 &&
	      list->threads[1] == 1 && list->threads[2] == 3,
	      "parse_thread_list drops duplicates, keeps order");
	check(parse_thread_list("1-1024", list, &why) == 0 &&
	      list->count == 1024, "parse_thread_list('1-1024')");
	check(parse_thread_list("0", list, &why) == -ERANGE,
	      "parse_thread_list rejects 0");
	check(parse_thread_list("1025", list, &why) == -ERANGE,
	      "parse_thread_list rejects 1025");
	check(parse_thread_list("4-2", list, &why) == -EINVAL &&
	      strstr(why, "backwards"), "parse_thread_list rejects 4-2");
	check(parse_thread_list("", list, &why) == -EINVAL,
	      "parse_thread_list rejects ''");
	check(parse_thread_list("1,,2", list, &why) == -EINVAL,
	      "parse_thread_list rejects '1,,2'");
	check(parse_thread_list("1-", list, &why) == -EINVAL,
	      "parse_thread_list rejects '1-'");
	check(parse_thread_list("two", list, &why) == -EINVAL,
	      "parse_thread_list rejects 'two'");
	free(list);
}

static void format_case(const struct synth_request *req, const char *want,
			const char *name)
{
	char buf[SYNTH_MAX_LINE + 2];
	int len = synth_format(req, buf, sizeof(buf));

	check(len == (int)strlen(want), "%s: length", name);
	check_str(len >= 0 ? buf : NULL, want, name);
}

static void validate_case(const struct synth_request *req, int want_ret,
			  const char *want_why, const char *name)
{
	const char *why = "";
	int ret = synth_validate(req, &why);

	check(ret == want_ret && strstr(why, want_why), "%s", name);
	if (ret != want_ret || !strstr(why, want_why))
		printf("#   got %s: %s\n", errname(ret), why);
}

static void test_synthetic_request(void)
{
	struct synth_request req = { .kind = "cpu", .has_size = true,
				     .size = 100 };
	char buf[SYNTH_MAX_LINE + 2];
	const char *why;
	int i;

	format_case(&req, "kind=cpu size=100\n", "synth_format: size only");
	validate_case(&req, 0, "", "synth_validate: size only is valid");

	req = (struct synth_request){
		.kind = "memclear", .has_size = true, .size = 1024,
		.has_min_chunk = true, .min_chunk = 16,
		.has_max_threads = true, .max_threads = 4,
		.has_fail_at = true, .fail_at = 1023,
		.has_err = true, .err = 12,
	};
	parse_layout("0:512,any:512", &req.layout, &why);
	req.has_layout = true;
	format_case(&req,
		    "kind=memclear size=1024 min_chunk=16 max_threads=4 nodes=0:512,any:512 fail_at=1023 err=12\n",
		    "synth_format: every key, in the interface's order");
	validate_case(&req, 0, "", "synth_validate: every key");

	req.has_size = false;
	format_case(&req,
		    "kind=memclear min_chunk=16 max_threads=4 nodes=0:512,any:512 fail_at=1023 err=12\n",
		    "synth_format: nodes without size leaves size out");
	validate_case(&req, 0, "", "synth_validate: nodes without size");
	check(synth_units(&req) == 1024, "synth_units: the layout's total");

	req.has_size = true;
	req.size = 1000;
	validate_case(&req, -EINVAL, "sum", "synth_validate: size != layout sum");
	req.has_layout = false;
	validate_case(&req, -EINVAL, "--fail-at", "synth_validate: fail_at >= size");
	req.fail_at = 999;
	req.min_chunk = 1001;
	validate_case(&req, -EINVAL, "--min-chunk", "synth_validate: min_chunk > size");
	req.min_chunk = 0;
	validate_case(&req, -EINVAL, "--min-chunk", "synth_validate: min_chunk 0");
	req.min_chunk = 1000;
	req.max_threads = 1025;
	validate_case(&req, -EINVAL, "--threads", "synth_validate: max_threads 1025");
	req.max_threads = 1024;
	validate_case(&req, 0, "", "synth_validate: limits are inclusive");
	req.size = SYNTH_MAX_SIZE + 1;
	validate_case(&req, -EINVAL, "size", "synth_validate: size 4G + 1");
	req.has_size = false;
	validate_case(&req, -EINVAL, "--size or --nodes",
		      "synth_validate: neither size nor nodes");
	req = (struct synth_request){ .kind = "gpu", .has_size = true, .size = 1 };
	validate_case(&req, -EINVAL, "--kind", "synth_validate: unknown kind");

	/*
	 * The widest request the checks let through: every key, and 8 parts
	 * adding up to 4G with the most digits (3 of 10, 5 of 9).  It fits
	 * the kernel's line, so check_length() cannot fail today: that
	 * takes more parts or larger limits.
	 */
	req = (struct synth_request){
		.kind = "memclear", .has_size = true, .size = SYNTH_MAX_SIZE,
		.has_min_chunk = true, .min_chunk = SYNTH_MAX_SIZE,
		.has_max_threads = true, .max_threads = SYNTH_MAX_THREADS,
		.has_layout = true, .has_fail_at = true,
		.fail_at = SYNTH_MAX_SIZE - 1, .has_err = true, .err = 4095,
	};
	for (i = 0; i < LAYOUT_MAX_ENTRIES; i++) {
		static const uint64_t widest[] = {
			1000000000, 1000000000, 1000000000, 258993459,
			258993459, 258993459, 258993459, 258993460,
		};

		req.layout.entries[req.layout.count++] = (struct layout_entry){
			.nid = LAYOUT_MAX_NID, .size = widest[i],
		};
		req.layout.total += widest[i];
	}
	check(req.layout.total == SYNTH_MAX_SIZE, "the widest layout is 4G");
	validate_case(&req, 0, "", "synth_validate: the widest request");
	check(synth_format(&req, buf, sizeof(buf)) == 225 && buf[224] == '\n',
	      "synth_format: the widest valid request, 224 bytes, fits the kernel's line");

	/*
	 * The line limit itself needs values synth_validate() refuses:
	 * "kind=cpu" (8) + " min_chunk=100000" (17) + " nodes=" (7)
	 * + 8 x "1000:18446744073709551615" and 7 commas (207)
	 * + " fail_at=100000" (15) = 254 bytes.
	 */
	req = (struct synth_request){ .kind = "cpu", .has_layout = true,
				      .has_min_chunk = true, .min_chunk = 100000,
				      .has_fail_at = true, .fail_at = 100000 };
	for (i = 0; i < LAYOUT_MAX_ENTRIES; i++)
		req.layout.entries[req.layout.count++] =
			(struct layout_entry){ .nid = 1000, .size = UINT64_MAX };
	check(synth_format(&req, buf, sizeof(buf)) == 255 && buf[254] == '\n',
	      "synth_format: a 254-byte line gets its newline");
	req.fail_at = 1000000;		/* 255 bytes */
	check(synth_format(&req, buf, sizeof(buf)) == 255 && buf[254] == '0',
	      "synth_format: a 255-byte line goes without newline");
	req.fail_at = 10000000;		/* 256 bytes */
	check(synth_format(&req, buf, sizeof(buf)) == -E2BIG,
	      "synth_format: a line over 255 bytes is -E2BIG");
}

static void test_synthetic_result(void)
{
	struct synth_result res;
	const char *why = "";

	check(synth_parse_result("kind: cpu\nsize: 100000\nmin_chunk: 1\n"
				 "max_threads: 2\nthreads_used: 2\nchunks: 8\n"
				 "elapsed_ns: 123456789\nunits_done: 100000\n"
				 "units_undone: 0\nerror: 0\n", &res, &why) == 0 &&
	      !strcmp(res.kind, "cpu") && res.size == 100000 &&
	      res.threads_used == 2 && res.chunks == 8 &&
	      res.elapsed_ns == 123456789 && res.units_done == 100000 &&
	      res.error == 0 && res.has_size && res.has_min_chunk &&
	      res.has_max_threads && res.has_chunks,
	      "synth_parse_result: a full result");
	check(synth_parse_result("threads_used: 3\nelapsed_ns: 5\n"
				 "units_done: 7\nunits_undone: 9\nerror: -5\n"
				 "future_key: 1\n", &res, &why) == 0 &&
	      res.threads_used == 3 && res.units_undone == 9 &&
	      res.error == -5 && !res.has_size && !res.has_chunks && !res.kind[0],
	      "synth_parse_result: required keys, error -5, unknown key ignored");
	check(synth_parse_result("runs: 0\n", &res, &why) == -ENODATA,
	      "synth_parse_result: 'runs: 0' is -ENODATA");
	check(synth_parse_result("threads_used: 3\nunits_done: 7\n"
				 "units_undone: 9\nerror: 0\n", &res, &why) == -EINVAL &&
	      strstr(why, "elapsed_ns"),
	      "synth_parse_result: missing elapsed_ns is named");
	check(synth_parse_result("threads_used: x\nelapsed_ns: 5\n"
				 "units_done: 7\nunits_undone: 9\nerror: 0\n",
				 &res, &why) == -EINVAL && strstr(why, "threads_used"),
	      "synth_parse_result: non-numeric threads_used is named");
	check(synth_parse_result("threads_used: 1\nelapsed_ns: 5\n"
				 "units_done: 7\nunits_undone: 9\nerror: 5\n",
				 &res, &why) == -EINVAL && strstr(why, "error"),
	      "synth_parse_result: a positive error is malformed");
	check(synth_parse_result("garbage\n", &res, &why) == -EINVAL,
	      "synth_parse_result: not key: value");
}

static void test_summary(void)
{
	const uint64_t odd[] = { 30, 10, 20 };
	const uint64_t even[] = { 40, 10, 30, 20 };
	const uint64_t big[] = { UINT64_MAX, UINT64_MAX - 2 };
	const uint64_t one[] = { 7 };
	struct summary s;

	summarize(odd, 3, &s);
	check(s.min == 10 && s.median == 20 && s.max == 30, "summarize: odd count");
	summarize(even, 4, &s);
	check(s.min == 10 && s.median == 25 && s.max == 40,
	      "summarize: even count averages the middle two");
	summarize(big, 2, &s);
	check(s.median == UINT64_MAX - 1, "summarize: median does not overflow");
	summarize(one, 1, &s);
	check(s.min == 7 && s.median == 7 && s.max == 7, "summarize: one value");
	check(odd[0] == 30, "summarize leaves its input unsorted");
}

static void test_debugfs_parsers(void)
{
	struct kv_list kv;
	struct table t;
	size_t bad = 0;

	check(parse_kv("helper_nice: -5\nrenice:1\n\n  renice_events:  42  \n",
		       &kv, &bad) == 0 && kv.count == 3 &&
	      !strcmp(kv_get(&kv, "helper_nice"), "-5") &&
	      !strcmp(kv_get(&kv, "renice"), "1") &&
	      !strcmp(kv_get(&kv, "renice_events"), "42") &&
	      !kv_get(&kv, "nope"), "parse_kv: values trimmed, blank lines skipped");
	kv_free(&kv);
	check(parse_kv("a: 1\nno colon\n", &kv, &bad) == -EINVAL && bad == 2,
	      "parse_kv: reports the bad line");
	check(parse_kv("a b: 1\n", &kv, &bad) == -EINVAL,
	      "parse_kv: a key with a space is malformed");
	check(parse_kv("a:\n", &kv, &bad) == -EINVAL,
	      "parse_kv: an empty value is malformed");
	check(parse_kv("", &kv, &bad) == 0 && kv.count == 0,
	      "parse_kv: an empty file has no keys");

	check(parse_table("scope   in_use  limit\nsystem  0       1\nnode0   0       0\n",
			  &t, &bad) == 0 && t.ncols == 3 && t.nrows == 2 &&
	      !strcmp(t.head[1], "in_use") &&
	      !strcmp(table_cell(&t, 1, 0), "node0") &&
	      !strcmp(table_cell(&t, 0, 2), "1"), "parse_table: rlimits");
	table_free(&t);
	check(parse_table("node queued\n", &t, &bad) == 0 && t.nrows == 0,
	      "parse_table: header only");
	table_free(&t);
	check(parse_table("a b c\n1 2 3\n4 5\n", &t, &bad) == -EINVAL && bad == 3,
	      "parse_table: a short row is malformed");
	check(parse_table("a b\n1 2 3\n", &t, &bad) == -EINVAL && bad == 2,
	      "parse_table: a long row is malformed");
	check(parse_table("\n\n", &t, &bad) == -EINVAL,
	      "parse_table: no header");
}

static char *render(const struct out_node *doc, enum out_style style)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	out_print(f, doc, style);
	fclose(f);
	return buf;
}

static void test_output(void)
{
	static const char *const heads[] = { "scope", "in_use", NULL };
	static const char *const keys[] = { "scope", "in_use", "hidden" };
	struct out_node *doc = out_new(), *sub;
	struct out_table *t;
	char *s;

	out_str(doc, "kind", "cpu");
	out_u64(doc, "threads_used", 2);
	out_duration(doc, "elapsed", "elapsed_ns", 123456789);
	out_errno(doc, "error", -5);
	out_field(doc, NULL, NULL, "json_only", "1");
	out_field(doc, "text_only", "x", NULL, NULL);
	sub = out_object(doc, "workers");
	out_s64(sub, "helper_nice", -5);
	out_bool(sub, "renice", true, "on", "off");
	t = out_table(doc, "rlimits", 3, heads, keys);
	out_row(t);
	out_cell_raw(t, "system");
	out_cell_raw(t, "0");
	out_cell_raw(t, "h");
	out_row(t);
	out_cell_raw(t, "node0");
	out_cell_raw(t, "12");
	out_cell_raw(t, "h");

	s = render(doc, OUT_TEXT);
	check_str(s,
		  "kind:         cpu\n"
		  "threads_used: 2\n"
		  "elapsed:      123.457 ms\n"
		  "error:        -5 (Input/output error)\n"
		  "text_only:    x\n"
		  "\n"
		  "workers:\n"
		  "  helper_nice: -5\n"
		  "  renice:      on\n"
		  "\n"
		  "rlimits:\n"
		  "  scope   in_use\n"
		  "  system       0\n"
		  "  node0       12\n",
		  "out_print text: aligned keys, sections, right-aligned numbers");
	free(s);

	s = render(doc, OUT_JSON);
	check_str(s,
		  "{\n"
		  "  \"kind\": \"cpu\",\n"
		  "  \"threads_used\": 2,\n"
		  "  \"elapsed_ns\": 123456789,\n"
		  "  \"error\": -5,\n"
		  "  \"json_only\": 1,\n"
		  "  \"workers\": {\n"
		  "    \"helper_nice\": -5,\n"
		  "    \"renice\": true\n"
		  "  },\n"
		  "  \"rlimits\": [\n"
		  "    {\"scope\": \"system\", \"in_use\": 0, \"hidden\": \"h\"},\n"
		  "    {\"scope\": \"node0\", \"in_use\": 12, \"hidden\": \"h\"}\n"
		  "  ]\n"
		  "}\n",
		  "out_print JSON: pretty, hidden fields, tables as arrays");
	free(s);
	s = render(doc, OUT_JSON_LINE);
	check_str(s,
		  "{\"kind\": \"cpu\", \"threads_used\": 2, "
		  "\"elapsed_ns\": 123456789, \"error\": -5, \"json_only\": 1, "
		  "\"workers\": {\"helper_nice\": -5, \"renice\": true}, "
		  "\"rlimits\": [{\"scope\": \"system\", \"in_use\": 0, \"hidden\": \"h\"}, "
		  "{\"scope\": \"node0\", \"in_use\": 12, \"hidden\": \"h\"}]}\n",
		  "out_print JSON line (-j): the same document on one line");
	free(s);
	out_free(doc);

	doc = out_new();
	out_str(doc, "func", "ktask_\"q\"");
	out_u64(doc, "size", 3);
	s = render(doc, OUT_JSON_LINE);
	check_str(s, "{\"func\": \"ktask_\\\"q\\\"\", \"size\": 3}\n",
		  "out_print JSON line: one line, escaped");
	free(s);
	s = render(doc, OUT_TEXT_LINE);
	check_str(s, "func=ktask_\"q\" size=3\n", "out_print text line: key=value");
	free(s);
	s = render(doc, OUT_TEXT_VALUES);
	check_str(s, "ktask_\"q\"\n3\n", "out_print values: one per line");
	free(s);
	out_free(doc);

	doc = out_new();
	out_duration_compact(doc, "elapsed", "elapsed_ns", 1500);
	out_duration_compact(doc, "cpu", "cpu_ns", 999);
	s = render(doc, OUT_TEXT_LINE);
	check_str(s, "elapsed=1.500us cpu=999ns\n",
		  "out_duration_compact: no space inside a key=value");
	free(s);
	s = render(doc, OUT_JSON_LINE);
	check_str(s, "{\"elapsed_ns\": 1500, \"cpu_ns\": 999}\n",
		  "out_duration_compact: nanoseconds in JSON");
	free(s);
	out_free(doc);

	doc = out_new();
	s = render(doc, OUT_JSON);
	check_str(s, "{}\n", "out_print JSON: empty object");
	free(s);
	out_double(doc, "rate", "rate", NAN, 0, "units/s");
	out_double(doc, "speedup", "speedup", 1.5, 2, NULL);
	s = render(doc, OUT_JSON_LINE);
	check_str(s, "{\"rate\": null, \"speedup\": 1.50}\n",
		  "out_double: NaN is null in JSON");
	free(s);
	out_free(doc);

	s = json_quote("a\\b\n\t\x01");
	check_str(s, "\"a\\\\b\\n\\t\\u0001\"", "json_quote escapes");
	free(s);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		json_put_chars(f, "a\\b\"\n\x01");
		fclose(f);
		check_str(buf, "a\\\\b\\\"\\n\\u0001",
			  "json_put_chars escapes, without quotes");
		free(buf);
	}
	s = json_scalar("-42");
	check_str(s, "-42", "json_scalar: integers stay numbers");
	free(s);
	s = json_scalar("007");
	check_str(s, "\"007\"", "json_scalar: leading zeros become strings");
	free(s);
	s = json_scalar("node0");
	check_str(s, "\"node0\"", "json_scalar: words become strings");
	free(s);
	s = json_scalar("-");
	check_str(s, "\"-\"", "json_scalar: a lone '-' is a string");
	free(s);

	s = format_duration(999);
	check_str(s, "999 ns", "format_duration: ns");
	free(s);
	s = format_duration(1500);
	check_str(s, "1.500 us", "format_duration: us");
	free(s);
	s = format_duration(2500000);
	check_str(s, "2.500 ms", "format_duration: ms");
	free(s);
	s = format_duration(3000000000ULL);
	check_str(s, "3.000 s", "format_duration: s");
	free(s);
}

int main(void)
{
	test_numbers();
	test_layouts();
	test_thread_lists();
	test_synthetic_request();
	test_synthetic_result();
	test_summary();
	test_debugfs_parsers();
	test_output();
	return tap_done();
}
