/* The guard mode's words (guard_argv.h): what the addon writes, the
 * launcher reads back; every malformed form refused. No kernel involved.
 * Built by scripts/c-tests.sh. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../core/guard_argv.h"

#define G SANDY_GUARD_MAGIC
#define NONCE "0123456789abcdef"
#define W(...) ((const char *[]){"/launcher", __VA_ARGS__, NULL})

static const struct {
	const char *name;
	const char *const *words;
	bool ok;
} cases[] = {
	{"the smallest accepted guard", W(G, "--", "/usr/bin/bwrap"), true},
	{"nonce, root and a protected directory", W(G, "--nonce", NONCE, "--bind-root", "/ws", "1:2", "--protect", "/c", "--", "/usr/bin/bwrap", "x"), true},
	{"another magic word", W("--sandy-guard-v2", "--", "/usr/bin/bwrap"), false},
	{"a malformed nonce", W(G, "--nonce", "xyz", "--", "/usr/bin/bwrap"), false},
	{"--protect without a root", W(G, "--protect", "/c", "--", "/usr/bin/bwrap"), false},
	{"no \"--\"", W(G, "--bind-root", "/ws", "1:2", "/usr/bin/bwrap"), false},
	{"a relative runner", W(G, "--", "bwrap"), false},
	{"no runner", W(G, "--"), false},
	{"--bind-root short of its identity", W(G, "--bind-root", "/ws", "--", "/usr/bin/bwrap"), false},
	{"an unknown option", W(G, "--frobnicate", "--", "/usr/bin/bwrap"), false},
};

static int passed, failed;

static void check(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (ok)
		passed++;
	else
		failed++;
}

/* The encoder's words, decoded again, give the same arguments. */
static bool round_trip(size_t n_protect)
{
	static const char *const dirs[SANDY_GUARD_PROTECT_MAX + 1] = {
		"/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h", "/i", "/j",
		"/k", "/l", "/m", "/n", "/o", "/p", "/q"};
	sandy_guard_args in = {.nonce = NONCE, .root = "/ws", .root_id = "3:4"}, out;
	const char *words[SANDY_GUARD_WORDS_MAX + 2];
	sandy_error err = {0};
	size_t n;

	memcpy(in.protect, dirs, n_protect * sizeof(*dirs));
	in.n_protect = n_protect;
	n = sandy_guard_words("/launcher", &in, words);
	if (n == 0)
		return false;
	words[n] = "/usr/bin/bwrap";
	words[n + 1] = NULL;
	if (sandy_guard_from_argv((int)n + 1, (char *const *)words, &out,
				  &err) != 0)
		return false;
	if (strcmp(out.nonce, NONCE) != 0 || strcmp(out.root, "/ws") != 0 ||
	    strcmp(out.root_id, "3:4") != 0 || out.n_protect != n_protect ||
	    out.runner != (int)n)
		return false;
	for (size_t i = 0; i < n_protect; i++)
		if (strcmp(out.protect[i], dirs[i]) != 0)
			return false;
	return true;
}

int main(void)
{
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		sandy_guard_args g;
		sandy_error err = {0};
		int n = 0, rc;

		while (cases[c].words[n] != NULL)
			n++;
		rc = sandy_guard_from_argv(n, (char *const *)cases[c].words, &g,
					   &err);
		check(cases[c].ok ? rc == 0
				  : rc != 0 &&
					    strcmp(err.message,
						   "malformed guard arguments") == 0,
		      cases[c].name);
	}
	check(round_trip(0), "round trip: a root, nothing protected");
	check(round_trip(SANDY_GUARD_PROTECT_MAX),
	      "round trip: as many protected directories as allowed");
	{
		sandy_guard_args g = {.root = "/ws", .root_id = "1:2",
				      .n_protect = SANDY_GUARD_PROTECT_MAX + 1};
		const char *words[SANDY_GUARD_WORDS_MAX];

		check(sandy_guard_words("/launcher", &g, words) == 0,
		      "the encoder refuses one protected directory too many");
	}
	printf("guard_argv: %d passed, %d failed, 0 skipped\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
