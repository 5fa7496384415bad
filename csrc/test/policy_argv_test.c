/* The launcher's argument parser (policy_argv.h): every rejection with its
 * reason, and the acceptances next to them. No kernel involved. Built by
 * scripts/c-tests.sh. */
#include <stdio.h>
#include <string.h>

#include "../core/policy_argv.h"

#define MAGIC SANDY_ARGV_MAGIC
#define NONCE "0123456789abcdef"
#define W(...) ((const char *[]){__VA_ARGS__, NULL})

typedef struct argv_case {
	const char *name;
	const char *const *words;
	const char *want; /* NULL: accepted; else a part of the reason */
} argv_case;

static const argv_case cases[] = {
	{"the smallest accepted launch", W(MAGIC, "--network", "allow_all", "--"), NULL},
	{"no words at all", W("--"), "missing version word"},
	{"another version word", W("--sandy-policy-v2", "--network", "allow_all", "--"), "missing version word"},
	{"only the version word", W(MAGIC), "missing \"--\""},
	{"no \"--\"", W(MAGIC, "--network", "allow_all"), "missing \"--\""},
	{"no --network", W(MAGIC, "--subprocesses", "--"), "missing --network"},
	{"an unknown network word", W(MAGIC, "--network", "some", "--"), "unknown network word"},
	{"--network without its word", W(MAGIC, "--network"), "unknown or incomplete option"},
	{"an unknown option", W(MAGIC, "--network", "allow_all", "--frobnicate", "--"), "unknown or incomplete option"},
	{"an unknown access word", W(MAGIC, "--network", "allow_all", "--grant", "write", "exact", "/a", "--"), "unknown grant word"},
	{"an unknown grant scope", W(MAGIC, "--network", "allow_all", "--grant", "read", "tree", "/a", "--"), "unknown grant word"},
	{"--grant short of its path", W(MAGIC, "--network", "allow_all", "--grant", "read", "exact"), "unknown or incomplete option"},
	{"an unknown execute scope", W(MAGIC, "--network", "allow_all", "--execute", "all", "/a", "--"), "unknown scope word"},
	{"--execute short of its path", W(MAGIC, "--network", "allow_all", "--execute", "exact"), "unknown or incomplete option"},
	{"--deny-subtree without a path", W(MAGIC, "--network", "allow_all", "--deny-subtree"), "unknown or incomplete option"},
	{"a fifth --tmpfs", W(MAGIC, "--network", "allow_all", "--tmpfs", "/a", "--tmpfs", "/b", "--tmpfs", "/c", "--tmpfs", "/d", "--tmpfs", "/e", "--"), "unknown or incomplete option"},
	{"four --tmpfs", W(MAGIC, "--network", "allow_all", "--tmpfs", "/a", "--tmpfs", "/b", "--tmpfs", "/c", "--tmpfs", "/d", "--"), NULL},
	{"a nonce too short", W(MAGIC, "--nonce", "0123", "--network", "allow_all", "--"), "unknown or incomplete option"},
	{"a nonce in capitals", W(MAGIC, "--nonce", "0123456789ABCDEF", "--network", "allow_all", "--"), "unknown or incomplete option"},
	{"a second nonce", W(MAGIC, "--nonce", NONCE, "--nonce", NONCE, "--network", "allow_all", "--"), "unknown or incomplete option"},
	{"a well-formed nonce", W(MAGIC, "--nonce", NONCE, "--network", "allow_all", "--"), NULL},
	{"a second --cwd", W(MAGIC, "--network", "allow_all", "--cwd", "/a", "--cwd", "/b", "--"), "unknown or incomplete option"},
	{"--pin short of its identity", W(MAGIC, "--network", "allow_all", "--pin", "cwd", "/a"), "unknown or incomplete option"},
	{"every flag once", W(MAGIC, "--network", "block_all", "--subprocesses", "--landlock-only", "--canonical", "--pinned", "--"), NULL},
};

static int too_many_pins(void)
{
	static const char *words[4 + 4 * (SANDY_PINS_MAX + 1) + 2];
	int n = 0;
	sandy_launch l;
	sandy_error err = {0};
	int rc;

	words[n++] = MAGIC;
	words[n++] = "--network";
	words[n++] = "allow_all";
	for (size_t i = 0; i <= SANDY_PINS_MAX; i++) {
		words[n++] = "--pin";
		words[n++] = "cwd";
		words[n++] = "/a";
		words[n++] = "1:2";
	}
	words[n++] = "--";
	rc = sandy_launch_from_argv(n, (char *const *)words, &l, &err);
	return rc != 0 && strstr(err.message, "too many pins") != NULL;
}

int main(void)
{
	int passed = 0, failed = 0;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const argv_case *k = &cases[c];
		sandy_launch l;
		sandy_error err = {0};
		int n = 0, rc;
		bool ok;

		while (k->words[n] != NULL)
			n++;
		rc = sandy_launch_from_argv(n, (char *const *)k->words, &l, &err);
		if (k->want == NULL)
			ok = rc == 0 && l.target == n;
		else
			ok = rc != 0 && err.kind == SANDY_ERR_PREPARATION_FAILED &&
			     strstr(err.message, k->want) != NULL;
		if (rc == 0)
			sandy_launch_free(&l);
		if (ok) {
			passed++;
			printf("ok   %s\n", k->name);
		} else {
			failed++;
			printf("FAIL %s: rc %d, reason \"%s\"\n", k->name, rc,
			       err.message);
		}
	}
	if (too_many_pins()) {
		passed++;
		printf("ok   one pin more than SANDY_PINS_MAX\n");
	} else {
		failed++;
		printf("FAIL one pin more than SANDY_PINS_MAX\n");
	}
	printf("policy_argv: %d passed, %d failed, 0 skipped\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
