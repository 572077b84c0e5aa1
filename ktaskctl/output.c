// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

enum node_kind { NODE_FIELD, NODE_OBJECT, NODE_TABLE };

struct out_table {
	size_t ncols;
	size_t nrows;
	size_t filled;		/* cells filled so far, row by row */
	char **text_heads;
	char **json_keys;
	char **text;		/* nrows * ncols */
	char **json;
};

struct out_node {
	enum node_kind kind;
	char *text_key;
	char *json_key;
	char *text;		/* NODE_FIELD */
	char *json;
	struct out_node *first_child, *last_child;	/* NODE_OBJECT */
	struct out_table *table;			/* NODE_TABLE */
	struct out_node *next;
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct out_node *out_new(void)
{
	struct out_node *node = xcalloc(1, sizeof(*node));

	node->kind = NODE_OBJECT;
	return node;
}

static struct out_node *add_child(struct out_node *parent, enum node_kind kind,
				  const char *text_key, const char *json_key)
{
	struct out_node *node = xcalloc(1, sizeof(*node));

	node->kind = kind;
	node->text_key = dup_or_null(text_key);
	node->json_key = dup_or_null(json_key);
	if (parent->last_child)
		parent->last_child->next = node;
	else
		parent->first_child = node;
	parent->last_child = node;
	return node;
}

static void free_strings(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void out_free(struct out_node *node)
{
	while (node) {
		struct out_node *next = node->next;

		out_free(node->first_child);
		if (node->table) {
			struct out_table *t = node->table;

			free_strings(t->text_heads, t->ncols);
			free_strings(t->json_keys, t->ncols);
			free_strings(t->text, t->filled);
			free_strings(t->json, t->filled);
			free(t);
		}
		free(node->text_key);
		free(node->json_key);
		free(node->text);
		free(node->json);
		free(node);
		node = next;
	}
}

struct out_node *out_object(struct out_node *parent, const char *key)
{
	return add_child(parent, NODE_OBJECT, key, key);
}

void out_field(struct out_node *obj, const char *text_key, const char *text,
	       const char *json_key, const char *json)
{
	struct out_node *node = add_child(obj, NODE_FIELD, text_key, json_key);

	node->text = dup_or_null(text);
	node->json = dup_or_null(json);
}

void out_u64(struct out_node *obj, const char *key, uint64_t value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	out_field(obj, key, buf, key, buf);
}

void out_s64(struct out_node *obj, const char *key, int64_t value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, value);
	out_field(obj, key, buf, key, buf);
}

void out_str(struct out_node *obj, const char *key, const char *value)
{
	char *quoted = json_quote(value);

	out_field(obj, key, value, key, quoted);
	free(quoted);
}

void out_bool(struct out_node *obj, const char *key, bool value,
	      const char *text_true, const char *text_false)
{
	out_field(obj, key, value ? text_true : text_false, key,
		  value ? "true" : "false");
}

void out_double(struct out_node *obj, const char *text_key,
		const char *json_key, double value, int decimals,
		const char *unit)
{
	char *text, *json;

	if (!isfinite(value)) {
		out_field(obj, text_key, "-", json_key, "null");
		return;
	}
	text = xasprintf("%.*f%s%s", decimals, value, unit ? " " : "",
			 unit ? unit : "");
	json = xasprintf("%.*f", decimals, value);
	out_field(obj, text_key, text, json_key, json);
	free(text);
	free(json);
}

char *format_duration(uint64_t ns)
{
	if (ns < 1000)
		return xasprintf("%" PRIu64 " ns", ns);
	if (ns < 1000000)
		return xasprintf("%.3f us", ns / 1e3);
	if (ns < 1000000000)
		return xasprintf("%.3f ms", ns / 1e6);
	return xasprintf("%.3f s", ns / 1e9);
}

static void duration_field(struct out_node *obj, const char *text_key,
			   const char *json_key, uint64_t ns, bool compact)
{
	char *text = format_duration(ns), *space = strchr(text, ' ');
	char json[32];

	if (compact && space)
		memmove(space, space + 1, strlen(space));
	snprintf(json, sizeof(json), "%" PRIu64, ns);
	out_field(obj, text_key, text, json_key, json);
	free(text);
}

void out_duration(struct out_node *obj, const char *text_key,
		  const char *json_key, uint64_t ns)
{
	duration_field(obj, text_key, json_key, ns, false);
}

void out_duration_compact(struct out_node *obj, const char *text_key,
			  const char *json_key, uint64_t ns)
{
	duration_field(obj, text_key, json_key, ns, true);
}

void out_errno(struct out_node *obj, const char *key, int64_t err)
{
	char json[32];
	char *text;

	snprintf(json, sizeof(json), "%" PRId64, err);
	if (err < 0 && err > -4096)
		text = xasprintf("%s (%s)", json, strerror((int)-err));
	else
		text = xstrdup(json);
	out_field(obj, key, text, key, json);
	free(text);
}

struct out_table *out_table(struct out_node *parent, const char *key,
			    size_t ncols, const char *const *text_heads,
			    const char *const *json_keys)
{
	struct out_node *node = add_child(parent, NODE_TABLE, key, key);
	struct out_table *t = xcalloc(1, sizeof(*t));
	size_t i;

	t->ncols = ncols;
	t->text_heads = xcalloc(ncols, sizeof(char *));
	t->json_keys = xcalloc(ncols, sizeof(char *));
	for (i = 0; i < ncols; i++) {
		t->text_heads[i] = dup_or_null(text_heads[i]);
		t->json_keys[i] = dup_or_null(json_keys[i]);
	}
	node->table = t;
	return t;
}

void out_row(struct out_table *t)
{
	/* Pad an unfinished row so every row has ncols cells. */
	while (t->filled < t->nrows * t->ncols)
		out_cell(t, "", "null");
	t->nrows++;
	t->text = xrealloc(t->text, t->nrows * t->ncols * sizeof(char *));
	t->json = xrealloc(t->json, t->nrows * t->ncols * sizeof(char *));
}

void out_cell(struct out_table *t, const char *text, const char *json)
{
	if (t->filled >= t->nrows * t->ncols)
		return;
	t->text[t->filled] = xstrdup(text);
	t->json[t->filled] = xstrdup(json);
	t->filled++;
}

void out_cell_raw(struct out_table *t, const char *raw)
{
	char *json = json_scalar(raw);

	out_cell(t, raw, json);
	free(json);
}

/* The JSON form of one byte of a string: itself, or an escape sequence. */
static const char *json_escape(unsigned char c, char buf[8])
{
	if (c == '"' || c == '\\') {
		buf[0] = '\\';
		buf[1] = c;
		buf[2] = '\0';
	} else if (c == '\n') {
		return "\\n";
	} else if (c == '\t') {
		return "\\t";
	} else if (c < 0x20 || c == 0x7f) {
		snprintf(buf, 8, "\\u%04x", c);
	} else {
		buf[0] = c;
		buf[1] = '\0';
	}
	return buf;
}

char *json_quote(const char *s)
{
	/* Worst case: every byte becomes \u00XX. */
	char *out = xmalloc(strlen(s) * 6 + 3), buf[8];
	size_t used = 0;

	out[used++] = '"';
	for (; *s; s++) {
		const char *e = json_escape((unsigned char)*s, buf);
		size_t n = strlen(e);

		memcpy(out + used, e, n);
		used += n;
	}
	out[used++] = '"';
	out[used] = '\0';
	return out;
}

void json_put_chars(FILE *f, const char *s)
{
	char buf[8];

	for (; *s; s++)
		fputs(json_escape((unsigned char)*s, buf), f);
}

static bool is_integer(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return false;
	/* JSON forbids leading zeros such as "007". */
	if (s[0] == '0' && s[1])
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

char *json_scalar(const char *s)
{
	return is_integer(s) ? xstrdup(s) : json_quote(s);
}

/* --- text --- */

static void indent(FILE *f, int depth)
{
	fprintf(f, "%*s", depth * 2, "");
}

static bool column_is_numeric(const struct out_table *t, size_t col)
{
	size_t row;

	for (row = 0; row < t->nrows; row++) {
		const char *cell = t->text[row * t->ncols + col];

		if (*cell && !strchr("-0123456789.", cell[0]))
			return false;
	}
	return t->nrows > 0;
}

static void print_text_table(FILE *f, const struct out_table *t, int depth)
{
	size_t *width = xcalloc(t->ncols, sizeof(size_t));
	bool *numeric = xcalloc(t->ncols, sizeof(bool));
	size_t row, col, last = 0;

	for (col = 0; col < t->ncols; col++) {
		if (!t->text_heads[col])
			continue;
		last = col;
		width[col] = strlen(t->text_heads[col]);
		numeric[col] = column_is_numeric(t, col);
		for (row = 0; row < t->nrows; row++) {
			size_t w = strlen(t->text[row * t->ncols + col]);

			if (w > width[col])
				width[col] = w;
		}
	}

	/* Line 0 is the heading, line r + 1 shows row r. */
	for (row = 0; row <= t->nrows; row++) {
		indent(f, depth);
		for (col = 0; col < t->ncols; col++) {
			const char *cell;
			int w = (int)width[col];

			if (!t->text_heads[col])
				continue;
			cell = row == 0 ? t->text_heads[col]
					: t->text[(row - 1) * t->ncols + col];
			if (numeric[col])
				fprintf(f, "%*s", w, cell);
			else if (col == last)
				fputs(cell, f);
			else
				fprintf(f, "%-*s", w, cell);
			if (col != last)
				fputs("  ", f);
		}
		fputc('\n', f);
	}
	free(width);
	free(numeric);
}

static void print_text_object(FILE *f, const struct out_node *obj, int depth)
{
	const struct out_node *child;
	size_t key_width = 0;
	bool printed = false;

	for (child = obj->first_child; child; child = child->next) {
		if (child->kind == NODE_FIELD && child->text_key &&
		    strlen(child->text_key) > key_width)
			key_width = strlen(child->text_key);
	}

	for (child = obj->first_child; child; child = child->next) {
		if (!child->text_key)
			continue;
		if (child->kind == NODE_FIELD) {
			indent(f, depth);
			fprintf(f, "%s:%*s %s\n", child->text_key,
				(int)(key_width - strlen(child->text_key)), "",
				child->text);
			printed = true;
			continue;
		}
		/* Sections stand apart from what precedes them. */
		if (printed)
			fputc('\n', f);
		indent(f, depth);
		fprintf(f, "%s:\n", child->text_key);
		if (child->kind == NODE_OBJECT)
			print_text_object(f, child, depth + 1);
		else
			print_text_table(f, child->table, depth + 1);
		printed = true;
	}
}

static void print_text_line(FILE *f, const struct out_node *obj)
{
	const struct out_node *child;
	bool first = true;

	for (child = obj->first_child; child; child = child->next) {
		if (child->kind != NODE_FIELD || !child->text_key)
			continue;
		fprintf(f, "%s%s=%s", first ? "" : " ", child->text_key,
			child->text);
		first = false;
	}
	fputc('\n', f);
}

static void print_text_values(FILE *f, const struct out_node *obj)
{
	const struct out_node *child;

	for (child = obj->first_child; child; child = child->next) {
		if (child->kind == NODE_FIELD && child->text_key)
			fprintf(f, "%s\n", child->text);
	}
}

/* --- JSON --- */

struct json_style {
	bool pretty;
};

static void json_newline(FILE *f, const struct json_style *s, int depth)
{
	if (s->pretty) {
		fputc('\n', f);
		indent(f, depth);
	}
}

static void print_json_key(FILE *f, const char *key)
{
	char *quoted = json_quote(key);

	fprintf(f, "%s: ", quoted);
	free(quoted);
}

static void print_json_table(FILE *f, const struct out_table *t,
			     const struct json_style *s, int depth)
{
	size_t row, col;

	fputc('[', f);
	for (row = 0; row < t->nrows; row++) {
		bool first = true;

		if (row)
			fputs(s->pretty ? "," : ", ", f);
		json_newline(f, s, depth + 1);
		fputc('{', f);
		for (col = 0; col < t->ncols; col++) {
			if (!t->json_keys[col])
				continue;
			fputs(first ? "" : ", ", f);
			print_json_key(f, t->json_keys[col]);
			fputs(t->json[row * t->ncols + col], f);
			first = false;
		}
		fputc('}', f);
	}
	if (t->nrows)
		json_newline(f, s, depth);
	fputc(']', f);
}

static void print_json_object(FILE *f, const struct out_node *obj,
			      const struct json_style *s, int depth)
{
	const struct out_node *child;
	bool first = true;

	fputc('{', f);
	for (child = obj->first_child; child; child = child->next) {
		if (!child->json_key)
			continue;
		if (!first)
			fputs(s->pretty ? "," : ", ", f);
		first = false;
		json_newline(f, s, depth + 1);
		print_json_key(f, child->json_key);
		if (child->kind == NODE_FIELD)
			fputs(child->json, f);
		else if (child->kind == NODE_OBJECT)
			print_json_object(f, child, s, depth + 1);
		else
			print_json_table(f, child->table, s, depth + 1);
	}
	if (!first)
		json_newline(f, s, depth);
	fputc('}', f);
}

void out_print(FILE *f, const struct out_node *doc, enum out_style style)
{
	struct json_style s = { .pretty = style == OUT_JSON };

	switch (style) {
	case OUT_TEXT:
		print_text_object(f, doc, 0);
		break;
	case OUT_TEXT_LINE:
		print_text_line(f, doc);
		break;
	case OUT_TEXT_VALUES:
		print_text_values(f, doc);
		break;
	case OUT_JSON:
	case OUT_JSON_LINE:
		print_json_object(f, doc, &s, 0);
		fputc('\n', f);
		break;
	}
	/* monitor's readers (and tests) see each record as it happens. */
	fflush(f);
}
