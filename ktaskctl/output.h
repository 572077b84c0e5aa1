/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One print path for text and JSON.  A command builds a document (an
 * object of fields, nested objects and tables) and prints it once in the
 * chosen style, so the two outputs cannot drift apart.
 *
 * Every field carries a text key and value and a JSON key and literal;
 * they usually agree, but text shows "123.457 ms" where JSON has
 * "elapsed_ns": 123456789.  A NULL text key hides the field in text, a
 * NULL JSON key hides it in JSON.
 */
#ifndef KTASKCTL_OUTPUT_H
#define KTASKCTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum out_style {
	OUT_TEXT,		/* aligned "key: value" lines and tables */
	OUT_JSON,		/* pretty-printed JSON (-p) */
	OUT_JSON_LINE,		/* JSON on a single line (-j) */
	OUT_TEXT_LINE,		/* key=value pairs on a single line */
	OUT_TEXT_VALUES,	/* the fields' text values, one per line */
};

struct out_node;
struct out_table;

struct out_node *out_new(void);
void out_free(struct out_node *doc);
void out_print(FILE *f, const struct out_node *doc, enum out_style style);

struct out_node *out_object(struct out_node *parent, const char *key);

void out_field(struct out_node *obj, const char *text_key, const char *text,
	       const char *json_key, const char *json);
void out_u64(struct out_node *obj, const char *key, uint64_t value);
void out_s64(struct out_node *obj, const char *key, int64_t value);
void out_str(struct out_node *obj, const char *key, const char *value);
void out_bool(struct out_node *obj, const char *key, bool value,
	      const char *text_true, const char *text_false);
/* Text "<value> <unit>" with the given decimals; JSON null if not finite. */
void out_double(struct out_node *obj, const char *text_key,
		const char *json_key, double value, int decimals,
		const char *unit);
/* Text in ns/us/ms/s, JSON in nanoseconds. */
void out_duration(struct out_node *obj, const char *text_key,
		  const char *json_key, uint64_t ns);
/* The same without the space ("1.234ms"), for key=value text lines. */
void out_duration_compact(struct out_node *obj, const char *text_key,
			  const char *json_key, uint64_t ns);
/* 0 or a negative errno: text adds strerror(). */
void out_errno(struct out_node *obj, const char *key, int64_t err);

/* Columns have a text heading and a JSON key; NULL hides the column. */
struct out_table *out_table(struct out_node *parent, const char *key,
			    size_t ncols, const char *const *text_heads,
			    const char *const *json_keys);
/* Starts a row; out_cell() then fills its columns in order. */
void out_row(struct out_table *t);
void out_cell(struct out_table *t, const char *text, const char *json);
void out_cell_raw(struct out_table *t, const char *raw);

/* Formatting helpers, also for callers that build their own cells. */
char *format_duration(uint64_t ns);
/* A JSON string literal for s, quotes included. */
char *json_quote(const char *s);
/*
 * s's characters escaped for inside a JSON string, quotes not included.
 * Allocates nothing: error reporting uses it when memory ran out.
 */
void json_put_chars(FILE *f, const char *s);
/* s itself if it is a decimal integer, else json_quote(s). */
char *json_scalar(const char *s);

#endif
