/* The core's path containment and UTF-8 validation (core/paths.h): the
 * edges where a hand-written copy would go wrong. No kernel involved.
 * Built by csrc/Makefile (c-tests). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../core/paths.h"
#include "tap.h"

typedef struct within_case {
	const char *dir, *path;
	bool want;
} within_case;

static const within_case within_cases[] = {
	{"/a", "/a", true},
	{"/a", "/a/b", true},
	{"/a", "/a/b/c", true},
	{"/a", "/ab", false},
	{"/a", "/ab/c", false},
	{"/a/b", "/a", false},
	{"/a", "/b", false},
	{"/a", "/", false},
	{"/", "/", true},
	{"/", "/a", true},
	{"/", "/a/b", true},
	{"/a/b", "/a/b/", true}, /* (not canonical: a trailing slash) */
	{"/a/b", "/a/bc", false},
	{"/a/", "/a/b", false}, /* a dir with a trailing slash is not canonical */
	{"/tmp", "/tmp/x", true},
	{"/dev", "/device", false},
	{"/proc", "/proc", true},
	{"", "/a", false}, /* no directory holds nothing */
	{"", "", false},
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

int main(void)
{
	for (size_t i = 0; i < sizeof(within_cases) / sizeof(*within_cases);
	     i++) {
		const within_case *c = &within_cases[i];
		bool got = sandy_path_within(c->dir, c->path);

		if (!tap_ok(got == c->want, "\"%s\" %s \"%s\"", c->path,
			    c->want ? "is within" : "is not within", c->dir))
			tap_diag("got %d", got);
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
