/* The core's path containment and UTF-8 validation (core/paths.h): the
 * edges where a hand-written copy would go wrong. No kernel involved.
 * Built by csrc/Makefile (c-tests); run with the containment table's path
 * (default: test/fixtures/containment-cases.json, from the package root). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../core/paths.h"
#include "tap.h"

#include "cJSON.h" /* deps/cjson: scripts/fetch-cjson.sh */

/* The whole of file, or NULL (unreadable, or larger than the buffer). */
static char *slurp(const char *file)
{
	static char buf[1 << 16];
	FILE *f = fopen(file, "rb");
	size_t n;

	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n == sizeof(buf))
		return NULL;
	buf[n] = '\0';
	return buf;
}

static const char *text_of(const cJSON *row, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One row: false when it is malformed (then checked as a failure). */
static bool within_row(const cJSON *row)
{
	const char *dir = text_of(row, "dir"), *path = text_of(row, "path");
	const cJSON *want = cJSON_GetObjectItemCaseSensitive(row, "c");
	bool got;

	if (want == NULL)
		want = cJSON_GetObjectItemCaseSensitive(row, "within");
	if (dir == NULL || path == NULL || !cJSON_IsBool(want))
		return false;
	got = sandy_path_within(dir, path);
	if (!tap_ok(got == cJSON_IsTrue(want), "\"%s\" %s \"%s\"", path,
		    cJSON_IsTrue(want) ? "is within" : "is not within", dir))
		tap_diag("got %d", got);
	return true;
}

/* The containment rows live in test/fixtures/containment-cases.json, which
 * test/unit/containment-table.test.js asks of lib/paths.js's isWithin:
 * one table for both copies. A row's C answer is its "c" where it has one
 * (text that is not canonical, outside paths.h's contract), else its
 * "within"; a table that cannot be read, or has no rows, fails. */
static void within_table(const char *file)
{
	char *text = slurp(file);
	cJSON *doc = text ? cJSON_Parse(text) : NULL;
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "cases");
	const cJSON *row;
	int n = 0;

	cJSON_ArrayForEach(row, rows) {
		n++;
		if (!within_row(row))
			tap_ok(false, "%s: row %d is well formed", file, n);
	}
	tap_ok(n > 0, "%s: containment rows read (%d)", file, n);
	cJSON_Delete(doc);
}

typedef struct canonical_case {
	const char *path;
	bool want;
} canonical_case;

static const canonical_case canonical_cases[] = {
	{"/", true}, {"/a", true}, {"/a/b", true}, {"/a/.b", true},
	{"/a/..b", true}, {"/a/...", true}, {"/.x", true},
	{"", false}, {"a", false}, {"a/b", false}, {"//", false},
	{"//a", false}, {"/a//b", false}, {"/a/", false}, {"/.", false},
	{"/..", false}, {"/a/.", false}, {"/a/..", false}, {"/a/./b", false},
	{"/tmp/../proc", false}, {"/a/b/", false},
};

typedef struct utf8_case {
	const char *name;
	const char *bytes;
	size_t len;
	bool want;
	size_t bad; /* the failing byte's offset in the first sequence */
} utf8_case;

#define U(name, s, want, bad) {name, s, sizeof(s) - 1, want, bad}

static const utf8_case utf8_cases[] = {
	U("ASCII", "plain/ascii", true, 0),
	U("empty", "", true, 0),
	U("a NUL byte (the length says where the string ends)", "a\0b", true, 0),
	U("two bytes, U+00E9", "\xc3\xa9", true, 0),
	U("three bytes, U+20AC", "\xe2\x82\xac", true, 0),
	U("four bytes, U+1F600", "\xf0\x9f\x98\x80", true, 0),
	U("U+0080, the smallest two-byte", "\xc2\x80", true, 0),
	U("U+07FF", "\xdf\xbf", true, 0),
	U("U+0800, the smallest three-byte", "\xe0\xa0\x80", true, 0),
	U("U+D7FF, below the surrogates", "\xed\x9f\xbf", true, 0),
	U("U+E000, above the surrogates", "\xee\x80\x80", true, 0),
	U("U+FFFF", "\xef\xbf\xbf", true, 0),
	U("U+10000, the smallest four-byte", "\xf0\x90\x80\x80", true, 0),
	U("U+10FFFF, the last code point", "\xf4\x8f\xbf\xbf", true, 0),
	U("U+110000, past the last code point", "\xf4\x90\x80\x80", false, 1),
	U("F5: a lead past U+10FFFF", "\xf5\x80\x80\x80", false, 0),
	U("FF: never a lead", "\xff", false, 0),
	U("overlong '/' in two bytes", "\xc0\xaf", false, 0),
	U("overlong in two bytes, C1", "\xc1\xbf", false, 0),
	U("overlong '/' in three bytes", "\xe0\x80\xaf", false, 1),
	U("overlong U+07FF in three bytes", "\xe0\x9f\xbf", false, 1),
	U("overlong '/' in four bytes", "\xf0\x80\x80\xaf", false, 1),
	U("overlong U+FFFF in four bytes", "\xf0\x8f\xbf\xbf", false, 1),
	U("surrogate U+D800", "\xed\xa0\x80", false, 1),
	U("surrogate U+DFFF", "\xed\xbf\xbf", false, 1),
	U("a surrogate pair spelled in UTF-8 (CESU-8)",
	  "\xed\xa0\xbd\xed\xb8\x80", false, 1),
	U("a lone continuation byte", "\x80", false, 0),
	U("a continuation byte after ASCII", "a\xbf", false, 0),
	U("two bytes cut short", "\xc3", false, 1),
	U("three bytes cut after two", "\xe2\x82", false, 2),
	U("four bytes cut after three", "\xf0\x9f\x98", false, 3),
	U("a sequence cut by ASCII", "\xe2\x82" "a", false, 2),
	U("a continuation replaced by a lead", "\xc3\xc3\xa9", false, 1),
	U("valid text, then a bad byte", "caf\xc3\xa9\xff", false, 0),
};

/* The offset sandy_utf8_sequence reports for the first invalid sequence
 * of s, found by walking the valid ones before it. */
static size_t first_bad(const char *s, size_t n)
{
	size_t i = 0, step, bad = 0;

	while (i < n && (step = sandy_utf8_sequence(s + i, n - i, &bad)) != 0)
		i += step;
	return bad;
}

int main(int argc, char **argv)
{
	const char *table = argc > 1 ? argv[1]
				     : "test/fixtures/containment-cases.json";
	within_table(table);
	for (size_t i = 0; i < sizeof(canonical_cases) / sizeof(*canonical_cases);
	     i++) {
		const canonical_case *c = &canonical_cases[i];

		tap_ok(sandy_path_canonical(c->path) == c->want,
		       "\"%s\" %s canonical", c->path, c->want ? "is" : "is not");
	}
	for (size_t i = 0; i < sizeof(utf8_cases) / sizeof(*utf8_cases); i++) {
		const utf8_case *c = &utf8_cases[i];
		bool got = sandy_utf8_valid(c->bytes, c->len);
		size_t bad = got ? 0 : first_bad(c->bytes, c->len);

		if (!tap_ok(got == c->want && bad == c->bad, "UTF-8: %s",
			    c->name))
			tap_diag("valid %d, bad byte at %zu", got, bad);
	}
	return tap_done();
}
