/* The guard mode's words (guard_argv.h): what the addon writes, the
 * launcher reads back; every malformed form refused. No kernel involved.
 * Built by csrc/Makefile (c-tests). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
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
	{"as many roots as allowed", W(G, "--bind-root", "/1", "1:1", "--bind-root", "/2", "1:2", "--bind-root", "/3", "1:3", "--bind-root", "/4", "1:4", "--bind-root", "/5", "1:5", "--bind-root", "/6", "1:6", "--bind-root", "/7", "1:7", "--bind-root", "/8", "1:8", "--bind-root", "/9", "1:9", "--", "/usr/bin/bwrap"), true},
	{"one root too many", W(G, "--bind-root", "/1", "1:1", "--bind-root", "/2", "1:2", "--bind-root", "/3", "1:3", "--bind-root", "/4", "1:4", "--bind-root", "/5", "1:5", "--bind-root", "/6", "1:6", "--bind-root", "/7", "1:7", "--bind-root", "/8", "1:8", "--bind-root", "/9", "1:9", "--bind-root", "/10", "1:10", "--", "/usr/bin/bwrap"), false},
	{"a root after a protected directory", W(G, "--bind-root", "/ws", "1:2", "--protect", "/c", "--bind-root", "/x", "1:3", "--", "/usr/bin/bwrap"), false},
	{"protected reads, the scrub and a kept name", W(G, "--bind-root", "/ws", "1:2", "--deny-read", "/h/.npmrc", "3:4", "--deny-read", "/run/docker.sock", "5:6", "--scrub-env", "--keep-env", "CI_TOKEN", "--", "/usr/bin/bwrap"), true},
	{"protected reads without a workspace (read-only)", W(G, "--deny-read", "/h/.npmrc", "3:4", "--scrub-env", "--", "/usr/bin/bwrap"), true},
	{"a protected read that is not absolute", W(G, "--deny-read", "h/.npmrc", "3:4", "--", "/usr/bin/bwrap"), false},
	{"a kept name that is no variable's", W(G, "--scrub-env", "--keep-env", "A=B", "--", "/usr/bin/bwrap"), false},
	{"a protected read after the scrub", W(G, "--scrub-env", "--deny-read", "/h/.npmrc", "3:4", "--", "/usr/bin/bwrap"), false},
	/* the guard compares paths as text: only canonical text is taken */
	{"a root spelled through ..", W(G, "--bind-root", "/tmp/../proc", "1:2", "--", "/usr/bin/bwrap"), false},
	{"a protected directory with a trailing slash", W(G, "--bind-root", "/ws", "1:2", "--protect", "/ws/c/", "--", "/usr/bin/bwrap"), false},
	{"a protected read with a doubled slash", W(G, "--deny-read", "//h/.npmrc", "3:4", "--", "/usr/bin/bwrap"), false},
	{"a watched directory through .", W(G, "--bind-root", "/ws", "1:2", "--watch", "/ws/./.git", "1:3", "config", "--", "/usr/bin/bwrap"), false},
	{"a runner spelled through ..", W(G, "--", "/usr/bin/../bin/bwrap"), false},
	{"a watched directory, canonical", W(G, "--bind-root", "/ws", "1:2", "--watch", "/ws/.git", "1:3", "config", "--", "/usr/bin/bwrap"), true},
};


/* The encoder's words, decoded again, give the same arguments. */
static bool round_trip(size_t n_roots, size_t n_protect)
{
	static char names[SANDY_GUARD_PROTECT_MAX + 1][16];
	const char *dirs[SANDY_GUARD_PROTECT_MAX + 1];
	static const sandy_writable_root roots[SANDY_GUARD_ROOTS_MAX] = {
		{"/ws", "3:4"}, {"/r1", "5:6"}, {"/r2", "7:8"},
		{"/r3", "9:1"}, {"/r4", "9:2"}, {"/r5", "9:3"},
		{"/r6", "9:4"}, {"/r7", "9:5"}, {"/r8", "9:6"}};
	sandy_guard_args in = {.nonce = NONCE}, out;
	const char *words[SANDY_GUARD_WORDS_MAX + 2];
	sandy_error err = {0};
	size_t n;

	for (size_t i = 0; i <= SANDY_GUARD_PROTECT_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "/p%zu", i);
		dirs[i] = names[i];
	}
	memcpy(in.roots, roots, n_roots * sizeof(*roots));
	in.n_roots = n_roots;
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
	if (strcmp(out.nonce, NONCE) != 0 || out.n_roots != n_roots ||
	    out.n_protect != n_protect || out.runner != (int)n)
		return false;
	for (size_t i = 0; i < n_roots; i++)
		if (strcmp(out.roots[i].path, roots[i].path) != 0 ||
		    strcmp(out.roots[i].id, roots[i].id) != 0)
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
		tap_check(cases[c].ok ? rc == 0
				  : rc != 0 &&
					    strcmp(err.message,
						   "malformed guard arguments") == 0,
		      cases[c].name);
	}
	tap_check(round_trip(0, 0), "round trip: no root");
	tap_check(round_trip(1, 0), "round trip: a root, nothing protected");
	tap_check(round_trip(SANDY_GUARD_ROOTS_MAX, SANDY_GUARD_PROTECT_MAX),
	      "round trip: as many roots and protected directories as allowed");
	{
		sandy_guard_args g = {.roots = {{"/ws", "1:2"}},
				      .n_roots = 1,
				      .n_protect = SANDY_GUARD_PROTECT_MAX + 1};
		const char *words[SANDY_GUARD_WORDS_MAX];

		tap_check(sandy_guard_words("/launcher", &g, words) == 0,
		      "the encoder refuses one protected directory too many");
		g.n_protect = 0;
		g.n_roots = SANDY_GUARD_ROOTS_MAX + 1;
		tap_check(sandy_guard_words("/launcher", &g, words) == 0,
		      "the encoder refuses one root too many");
		g.n_roots = 0;
		g.n_protect = 1;
		tap_check(sandy_guard_words("/launcher", &g, words) == 0,
		      "the encoder refuses a protected directory without a root");
		g.n_protect = 0;
		g.keep_env[0] = "A=B";
		g.n_keep_env = 1;
		tap_check(sandy_guard_words("/launcher", &g, words) == 0,
		      "the encoder refuses a kept name that is no variable's");
		g.n_keep_env = 0;
		g.n_deny_reads = SANDY_DENY_READS_MAX + 1;
		tap_check(sandy_guard_words("/launcher", &g, words) == 0,
		      "the encoder refuses one protected read too many");
		g.n_deny_reads = 0;
		g.n_roots = 1;
		g.roots[0].path = "/tmp/../proc";
		tap_check(sandy_guard_words("/launcher", &g, words) == 0,
		      "the encoder refuses a root that is not canonical");
	}
	{
		sandy_guard_args g = {.deny_reads = {{"/h/.npmrc", "3:4"}},
				      .n_deny_reads = 1, .scrub_env = true,
				      .keep_env = {"CI_TOKEN"}, .n_keep_env = 1};
		const char *words[SANDY_GUARD_WORDS_MAX + 2];
		size_t n = sandy_guard_words("/launcher", &g, words);
		sandy_guard_args back;
		sandy_error err = {0};

		words[n] = "/usr/bin/bwrap";
		words[n + 1] = NULL;
		tap_check(n > 0 &&
			      sandy_guard_from_argv((int)n + 1, (char *const *)words,
						    &back, &err) == 0 &&
			      back.n_deny_reads == 1 &&
			      strcmp(back.deny_reads[0].path, "/h/.npmrc") == 0 &&
			      strcmp(back.deny_reads[0].id, "3:4") == 0 &&
			      back.scrub_env && back.n_keep_env == 1 &&
			      strcmp(back.keep_env[0], "CI_TOKEN") == 0,
		      "round trip: a protected read, the scrub, a kept name");
	}
	return tap_done();
}
