/* The seatbelt backend's words (csrc/backends/seatbelt.h), checked where no
 * Mac is: the profiles against golden files, their structure (balanced
 * parentheses, the version and base rule first, no path in the text but
 * the constant devices, every (param "NAME") given by a -D word and every
 * -D word used), hostile paths that change nothing but their own -D word,
 * and the argv's shape. Built by csrc/Makefile (c-tests); run with the golden
 * directory as its argument. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../backends/seatbelt.h"
#include "../core/policy_argv.h"
#include "../core/probe.h"

/* What every profile starts with: the version, then the base rule. */
#define FIRST "(version 1)\n(allow default)\n(deny file-write* file-link file-clone)\n"
/* ... and ends with: the terminal rule narrows the default's file-ioctl,
 * and in SBPL a later rule wins. */
#define LAST "\n(deny file-ioctl (ioctl-command TIOCSTI))\n"


static char *slurp(const char *dir, const char *name)
{
	static char buf[4096];
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Parentheses balance outside string literals, never going below zero. */
static bool balanced(const char *p)
{
	int depth = 0;
	bool in_string = false;

	for (; *p; p++) {
		if (in_string) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			else if (*p == '"')
				in_string = false;
		} else if (*p == '"') {
			in_string = true;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && --depth < 0) {
			return false;
		}
	}
	return depth == 0 && !in_string;
}

/* Every string literal in the profile is one of the constant devices or
 * service names, or a parameter's name: no path is spliced into the
 * text. */
static bool only_constant_strings(const char *p)
{
	static const char *const allowed[] = {"\"/dev/null\"", "\"/dev/zero\"",
					      "\"/dev/tty\"", "\"^/dev/fd/[0-9]+$\"",
					      "\"com.apple.DiskArbitration.diskarbitrationd\"",
					      "\"com.apple.lsd.modifydb\"",
					      "\"com.apple.coreservices.launchservicesd\"",
					      "\"com.apple.coreservices.quarantine-resolver\"",
					      "\"" SANDY_SEATBELT_ROOT "\"",
					      "\"" SANDY_SEATBELT_TEMP "\"", NULL};

	while ((p = strchr(p, '"')) != NULL) {
		bool ok = false;
		size_t digits;

		/* a protected path's parameter: PROTECTED_ or KEPT_ and its
		 * index */
		size_t prefix = strncmp(p, "\"" SANDY_SEATBELT_PROTECTED,
					strlen(SANDY_SEATBELT_PROTECTED) + 1) == 0
					? strlen(SANDY_SEATBELT_PROTECTED)
				: strncmp(p, "\"" SANDY_SEATBELT_KEPT,
					  strlen(SANDY_SEATBELT_KEPT) + 1) == 0
					? strlen(SANDY_SEATBELT_KEPT)
					: 0;

		if (prefix > 0) {
			p += prefix + 1;
			digits = strspn(p, "0123456789");
			if (digits == 0 || p[digits] != '"')
				return false;
			p += digits + 1;
			continue;
		}

		for (size_t i = 0; allowed[i] != NULL; i++)
			if (strncmp(p, allowed[i], strlen(allowed[i])) == 0) {
				p += strlen(allowed[i]);
				ok = true;
				break;
			}
		if (!ok)
			return false;
	}
	return true;
}

/* The names a profile asks for with (param "NAME") and the names the -D
 * words give are the same set. */
static bool params_match(const char *profile, char **words, size_t n)
{
	const char *p = profile;
	size_t asked = 0, given = 0;

	while ((p = strstr(p, "(param \"")) != NULL) {
		const char *name = p + strlen("(param \"");
		size_t len = strcspn(name, "\"");
		bool found = false;

		for (size_t i = 0; i + 1 < n; i++)
			if (strcmp(words[i], "-D") == 0 &&
			    strncmp(words[i + 1], name, len) == 0 &&
			    words[i + 1][len] == '=')
				found = true;
		if (!found)
			return false;
		asked++;
		p = name + len;
	}
	for (size_t i = 0; i + 1 < n; i++)
		if (strcmp(words[i], "-D") == 0) {
			char needle[64];
			size_t len = strcspn(words[i + 1], "=");

			snprintf(needle, sizeof(needle), "(param \"%.*s\")",
				 (int)len, words[i + 1]);
			if (strstr(profile, needle) == NULL)
				return false;
			given++;
		}
	return asked >= given;
}

static size_t index_of(char **words, size_t n, const char *w)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(words[i], w) == 0)
			return i;
	return n;
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && strcmp(s + n - m, end) == 0;
}

/* Protected paths and secret variables (docs/protected-reads.md): a deny
 * rule per path by parameter, after every allow and before the terminal
 * rule; a socket's connect denied too; the paths only in -D words; the
 * shim's patterns from the vocabulary, the kept names in it. */
static void protections(void)
{
	static const struct sandy_seatbelt_read reads[] = {
		{"/Users/a\"))(allow file-read* (subpath \"/\"", SANDY_SEATBELT_FILE},
		{"/private/var/run/docker.sock", SANDY_SEATBELT_SOCKET},
		{"/Users/a/.gnupg/private-keys-v1.d", SANDY_SEATBELT_DIRECTORY},
	};
	const char *keep[] = {"GH_TOKEN"};
	sandy_seatbelt_call c = {SANDY_MODE_WORKSPACE_WRITE, "/Users/a/p",
				 "/private/tmp/t", reads, 3, keep, 1, NULL, 0};
	size_t n = 0;
	char **w = sandy_seatbelt_argv(&c, &n);
	const char *p = w ? w[2] : "";
	const char *allow = strstr(p, "(allow file-write*");
	const char *deny0 = strstr(p, "(literal (param \"PROTECTED_0\"))");
	const char *sock = strstr(p, "(deny network-outbound (literal (param \"PROTECTED_1\")))");
	const char *dir = strstr(p, "(subpath (param \"PROTECTED_2\"))");
	const char *last = strstr(p, LAST);

	tap_check(w != NULL && balanced(p) && only_constant_strings(p) &&
		      params_match(p, w, n),
	      "protections: balanced, no spliced path, every parameter given");
	tap_check(allow != NULL && deny0 > allow && sock > deny0 && dir > sock &&
		      last > dir,
	      "protections: each deny after the allows, before the terminal rule");
	tap_check(w != NULL && index_of(w, n, "PROTECTED_0=/Users/a\"))(allow file-read* (subpath \"/\"") < n,
	      "protections: a hostile path only in its -D word");
	tap_check(w != NULL && strstr(w[n - 2], "case $n in GH_TOKEN) ;; SSH_AUTH_SOCK|") != NULL &&
		      strstr(w[n - 2], "*_[Tt][Oo][Kk][Ee][Nn]|") != NULL,
	      "protections: the shim keeps GH_TOKEN, unsets the list's names and suffixes");
	sandy_argv_free(w);
}

/* Protected writes (docs/protected-writes.md): a repository's hooks and
 * config kept unwritable, the .git above them never removed or replaced,
 * each by its parameter after the workspace's allow and before the
 * terminal rule (the golden profile shows them); the paths only in -D
 * words; read-only takes none. */
static void protected_writes(const char *golden)
{
	static const struct sandy_seatbelt_write writes[] = {
		{"/Users/a/p/.git/hooks", SANDY_SEATBELT_KEEP_DIRECTORY},
		{"/Users/a/p/.git/config\"))(allow file-write* (subpath \"/\"",
		 SANDY_SEATBELT_KEEP_FILE},
		{"/Users/a/p/.git", SANDY_SEATBELT_KEEP_ABOVE},
	};
	sandy_seatbelt_call c = {SANDY_MODE_WORKSPACE_WRITE, "/Users/a/p",
				 "/private/tmp/t", NULL, 0, NULL, 0, writes, 3};
	sandy_seatbelt_call ro = {SANDY_MODE_READ_ONLY, NULL, NULL, NULL, 0,
				  NULL, 0, writes, 1};
	size_t n = 0, m = 0;
	char **w = sandy_seatbelt_argv(&c, &n);
	char **none = sandy_seatbelt_argv(&ro, &m);
	const char *p = w ? w[2] : "";
	const char *want = slurp(golden, "seatbelt-workspace-write-kept.sb");
	const char *allow = strstr(p, "(allow file-write*");
	const char *hooks = strstr(p, "(subpath (param \"KEPT_0\"))");
	const char *config = strstr(p, "(literal (param \"KEPT_1\"))");
	const char *above = strstr(p, "(deny file-write-unlink file-write-create\n  (literal (param \"KEPT_2\"))");

	tap_check(want != NULL && strcmp(p, want) == 0,
	      "protected writes: the golden profile");
	tap_check(w != NULL && balanced(p) && only_constant_strings(p) &&
		      params_match(p, w, n),
	      "protected writes: balanced, no spliced path, every parameter given");
	tap_check(allow != NULL && hooks > allow && config > hooks &&
		      above > config && strstr(p, LAST) > above,
	      "protected writes: each after the allows, before the terminal rule");
	tap_check(w != NULL && index_of(w, n, "KEPT_1=/Users/a/p/.git/config\"))(allow file-write* (subpath \"/\"") < n,
	      "protected writes: a hostile path only in its -D word");
	tap_check(none == NULL, "protected writes: read-only takes none");
	sandy_argv_free(w);
}

int main(int argc, char **argv)
{
	const char *golden = argc > 1 ? argv[1] : "csrc/test/golden";
	static const char *const hostile[] = {
		"/Users/a \"b\" (c)", "/Users/x\\y", "/Users/new\nline",
		"/Users/caf\xc3\xa9", "/Users/a\"))(allow file-write* (subpath \"/\"",
		"/Users/-Dx=y", NULL};
	const sandy_mode modes[] = {SANDY_MODE_READ_ONLY,
				    SANDY_MODE_WORKSPACE_WRITE};
	const char *const files[] = {"seatbelt-read-only.sb",
				     "seatbelt-workspace-write.sb"};

	for (size_t m = 0; m < 2; m++) {
		const char *profile = sandy_seatbelt_profile(modes[m]);
		const char *want = slurp(golden, files[m]);
		char what[128];

		snprintf(what, sizeof(what), "%s: the golden profile", files[m]);
		tap_check(profile != NULL && want != NULL && strcmp(profile, want) == 0,
		      what);
		snprintf(what, sizeof(what), "%s: balanced parentheses", files[m]);
		tap_check(profile != NULL && balanced(profile), what);
		snprintf(what, sizeof(what),
			 "%s: the version, then the base rule, first", files[m]);
		tap_check(profile != NULL && strncmp(profile, FIRST, strlen(FIRST)) == 0,
		      what);
		snprintf(what, sizeof(what),
			 "%s: no string but the constant devices, services and parameter names", files[m]);
		tap_check(profile != NULL && only_constant_strings(profile), what);
		snprintf(what, sizeof(what),
			 "%s: the terminal rule last (no later allow reopens TIOCSTI)",
			 files[m]);
		tap_check(profile != NULL && strlen(profile) > strlen(LAST) &&
			      strcmp(profile + strlen(profile) - strlen(LAST), LAST) == 0,
		      what);
	}
	tap_check(!balanced("(a (b)") && !balanced("(a))(") && !balanced("(\")\""),
	      "control: the balance check sees a broken profile");
	tap_check(!only_constant_strings("(subpath \"/Users\")"),
	      "control: the string check sees a spliced path");

	/* read-only: no parameter, the shim starts the command */
	{
		size_t n = 0;
		sandy_seatbelt_call c = {.mode = SANDY_MODE_READ_ONLY};
		char **w = sandy_seatbelt_argv(&c, &n);
		size_t sep = w ? index_of(w, n, "--") : 0;

		tap_check(w != NULL && n == 8 && strcmp(w[0], SANDY_SANDBOX_EXEC) == 0 &&
			      strcmp(w[1], "-p") == 0 &&
			      strcmp(w[2], sandy_seatbelt_profile(SANDY_MODE_READ_ONLY)) == 0 &&
			      sep == 3 && strcmp(w[4], "/bin/sh") == 0 &&
			      strcmp(w[5], "-c") == 0 &&
			      ends_with(w[6], "; exec \"$@\""),
		      "read-only: sandbox-exec -p PROFILE -- /bin/sh -c '...; exec \"$@\"' ARG0");
		tap_check(w != NULL && params_match(w[2], w, n),
		      "read-only: no -D word, no parameter");
		sandy_argv_free(w);
	}
	/* workspace-write, with every hostile path as the root and the temp */
	for (size_t h = 0; hostile[h] != NULL; h++) {
		size_t n = 0;
		sandy_seatbelt_call c = {SANDY_MODE_WORKSPACE_WRITE, hostile[h],
					 "/private/var/folders/x/T/sandy-1",
					 NULL, 0, NULL, 0, NULL, 0};
		char **w = sandy_seatbelt_argv(&c, &n);
		char root_def[256], what[160];

		snprintf(root_def, sizeof(root_def), SANDY_SEATBELT_ROOT "=%s",
			 hostile[h]);
		snprintf(what, sizeof(what),
			 "workspace-write, hostile root #%zu: the profile text unchanged, the path only in its -D word",
			 h);
		tap_check(w != NULL && n == 12 &&
			      strcmp(w[2], sandy_seatbelt_profile(SANDY_MODE_WORKSPACE_WRITE)) == 0 &&
			      strcmp(w[3], "-D") == 0 && strcmp(w[4], root_def) == 0 &&
			      strcmp(w[5], "-D") == 0 &&
			      strcmp(w[6], SANDY_SEATBELT_TEMP "=/private/var/folders/x/T/sandy-1") == 0 &&
			      strcmp(w[7], "--") == 0 && strcmp(w[8], "/bin/sh") == 0 &&
			      ends_with(w[10], "; TMPDIR=\"$0\"; export TMPDIR; exec \"$@\"") &&
			      strcmp(w[11], "/private/var/folders/x/T/sandy-1") == 0,
		      what);
		snprintf(what, sizeof(what),
			 "workspace-write, hostile root #%zu: every parameter given, every -D word used",
			 h);
		tap_check(w != NULL && params_match(w[2], w, n), what);
		sandy_argv_free(w);
	}
	{
		size_t n = 0;
		char *given[] = {"-D", "EXTRA=/x", NULL};

		tap_check(!params_match("(version 1)", given, 2),
		      "control: the parameter check sees an unused -D word");
		sandy_seatbelt_call no_temp = {SANDY_MODE_WORKSPACE_WRITE, "/ws",
					       NULL, NULL, 0, NULL, 0, NULL, 0};
		sandy_seatbelt_call no_root = {SANDY_MODE_WORKSPACE_WRITE, NULL,
					       "/t", NULL, 0, NULL, 0, NULL, 0};
		sandy_seatbelt_call no_mode = {0};
		const char *bad_name[] = {"A=B"};
		sandy_seatbelt_call bad_keep = {SANDY_MODE_READ_ONLY, NULL, NULL,
						NULL, 0, bad_name, 1, NULL, 0};

		tap_check(sandy_seatbelt_argv(&no_temp, &n) == NULL &&
			      sandy_seatbelt_argv(&no_root, &n) == NULL &&
			      sandy_seatbelt_argv(&no_mode, &n) == NULL &&
			      sandy_seatbelt_profile(SANDY_MODE_NONE) == NULL,
		      "workspace-write without both paths, or no mode: NULL");
		tap_check(sandy_seatbelt_argv(&bad_keep, &n) == NULL,
		      "a kept name that is not a variable name: NULL (it would reach the shim's text)");
	}
	protections();
	protected_writes(golden);
	/* the judge: seatbelt usable only on darwin, only when the probe's
	 * writes held, and then partial; the probe's reason otherwise */
	{
		sandy_probe_report r;
		const sandy_backend_verdict *v = &r.backends[SANDY_BACKEND_SEATBELT];

		memset(&r, 0, sizeof(r));
		strcpy(r.platform, "darwin");
		strcpy(r.sandbox_exec_detail,
		       "/usr/bin/sandbox-exec let a write outside the workspace land");
		sandy_probe_judge(&r);
		tap_check(!v->usable && v->enforcement[0] == '\0' &&
			      strcmp(v->reason, r.sandbox_exec_detail) == 0,
		      "judge: a probe write that did not hold leaves seatbelt unusable, saying which");
		r.sandbox_exec_detail[0] = '\0';
		sandy_probe_judge(&r);
		tap_check(!v->usable && strstr(v->reason, "not tried") != NULL,
		      "judge: no measurement, no use");
		r.sandbox_exec = true;
		sandy_probe_judge(&r);
		tap_check(v->usable && strcmp(v->enforcement, "partial") == 0,
		      "judge: the writes held: usable, partial (services reachable)");
		strcpy(r.platform, "linux");
		sandy_probe_judge(&r);
		tap_check(!v->usable && strstr(v->reason, "macOS only") != NULL,
		      "judge: never elsewhere, whatever the facts say");
	}
	return tap_done();
}
