/* The launcher's argument parser (policy_argv.h): every rejection with its
 * reason, and the acceptances next to them. No kernel involved. Built by
 * csrc/Makefile (c-tests). */
#include <stdio.h>
#include <string.h>

#include "../core/policy_argv.h"
#include "tap.h"

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
	{"every flag once", W(MAGIC, "--network", "block_all", "--subprocesses", "--landlock-only", "--canonical", "--pinned", "--scrub-env", "--"), NULL},
	{"a protected read", W(MAGIC, "--network", "allow_all", "--deny-read", "/h/.npmrc", "1:2", "--"), NULL},
	{"a protected read that is not absolute", W(MAGIC, "--network", "allow_all", "--deny-read", "h/.npmrc", "1:2", "--"), "unknown or incomplete option"},
	{"--deny-read short of its identity", W(MAGIC, "--network", "allow_all", "--deny-read", "/h/.npmrc"), "unknown or incomplete option"},
	{"a kept variable", W(MAGIC, "--network", "allow_all", "--scrub-env", "--keep-env", "CI_TOKEN", "--"), NULL},
	{"a kept name that is no variable's", W(MAGIC, "--network", "allow_all", "--keep-env", "A=B", "--"), "unknown or incomplete option"},
	{"a kept name starting with a digit", W(MAGIC, "--network", "allow_all", "--keep-env", "1A", "--"), "unknown or incomplete option"},
};

/* The secret variables (secret_env.h): the list's names and suffixes
 * matched, near misses not, the kept ones kept, the rest compacted. */
static void secret_env(void)
{
	char e0[] = "GITHUB_TOKEN=a", e1[] = "PATH=/bin", e2[] = "npm_config__authToken=b",
	     e3[] = "KEEP_TOKEN=c", e4[] = "SSH_AUTH_SOCK=/s", e5[] = "TOKEN=d", e6[] = "SSH_AUTH_SOCKET=e";
	char *env[] = {e0, e1, e2, e3, e4, e5, e6, NULL};
	const char *keep[] = {"KEEP_TOKEN"};
	size_t gone = sandy_env_scrub(env, keep, 1);
	const struct {
		bool ok;
		const char *what;
	} checks[] = {
		{sandy_env_secret("GITHUB_TOKEN=x") && sandy_env_secret("my_api_key") &&
			 sandy_env_secret("AWS_SECRET_ACCESS_KEY=") && sandy_env_secret("SSH_AUTH_SOCK"),
		 "secret_env: exact names and suffixes in either case match"},
		{sandy_env_secret("TOKEN=x") && sandy_env_secret("api_key") && sandy_env_secret("PGPASSWORD=") &&
			 sandy_env_secret("TF_TOKEN_app_terraform_io=") && sandy_env_secret("GPG_PASSPHRASE"),
		 "secret_env: a suffix's bare name, the exact names and the prefix match"},
		{!sandy_env_secret("_TOKEN=x") && !sandy_env_secret("SSH_AUTH_SOCKET=x") &&
			 !sandy_env_secret("ssh_auth_sock=x") && !sandy_env_secret("PATH=/x_TOKEN") &&
			 !sandy_env_secret("TF_TOKEN_") && !sandy_env_secret("tf_token_x") && !sandy_env_secret("TOKENS"),
		 "secret_env: a longer or lower-case exact name, a bare prefix, a value, near misses do not"},
		{gone == 4 && env[0] == e1 && env[1] == e3 && env[2] == e6 && env[3] == NULL,
		 "secret_env: the scrub removes four, keeps the kept one and the others, in order"},
		{sandy_env_name_valid("A_1") && sandy_env_name_valid("_x") && !sandy_env_name_valid("") &&
			 !sandy_env_name_valid("1A") && !sandy_env_name_valid("A=B") && !sandy_env_name_valid("A-B"),
		 "secret_env: a kept name is a variable's name"},
	};

	for (size_t i = 0; i < sizeof(checks) / sizeof(*checks); i++) {
		tap_check(checks[i].ok, checks[i].what);
	}
}

/* The words the encoder writes for the seam's protections read back. */
static bool round_trip(void)
{
	sandy_launch l = {.deny_reads = {{"/h/.npmrc", "1:2"}}, .n_deny_reads = 1,
			  .scrub_env = true, .keep_env = {"CI_TOKEN"}, .n_keep_env = 1};
	sandy_launch back;
	sandy_error err = {0};
	size_t n = 0;
	char **w;
	bool ok;

	sandy_policy_init(&l.policy, SANDY_NETWORK_ALLOW_ALL);
	char *all[64] = {NULL};

	w = sandy_launch_to_argv(&l, &n);
	if (w == NULL || n + 1 >= sizeof(all) / sizeof(*all)) {
		sandy_argv_free(w);
		sandy_policy_free(&l.policy);
		return false;
	}
	memcpy(all, w, n * sizeof(*w));
	all[n] = "--";
	ok = sandy_launch_from_argv((int)n + 1, all, &back, &err) == 0 &&
	     back.n_deny_reads == 1 && strcmp(back.deny_reads[0].path, "/h/.npmrc") == 0 &&
	     strcmp(back.deny_reads[0].id, "1:2") == 0 && back.scrub_env &&
	     back.n_keep_env == 1 && strcmp(back.keep_env[0], "CI_TOKEN") == 0;
	if (ok)
		sandy_launch_free(&back);
	sandy_argv_free(w);
	sandy_policy_free(&l.policy);
	return ok;
}

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
		if (!tap_check(ok, k->name))
			tap_diag("rc %d, reason \"%s\"", rc, err.message);
	}
	secret_env();
	tap_check(round_trip(), "the seam's protections round-trip through the words");
	tap_check(too_many_pins(), "one pin more than SANDY_PINS_MAX");
	return tap_done();
}
