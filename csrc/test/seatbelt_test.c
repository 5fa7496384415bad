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
static const char last[] = LAST;

/* The services no command may look up: each acts for it outside the
 * sandbox (csrc/backends/seatbelt.c says how). */
static const char *const services[] = {
	"com.apple.DiskArbitration.diskarbitrationd",
	"com.apple.coreservices.launchservicesd",
	"com.apple.coreservices.quarantine-resolver",
	"com.apple.lsd.modifydb",
	"com.apple.coreservices.appleevents",
	"com.apple.security.authtrampoline",
	"com.apple.windowserver.active",
	"com.apple.pasteboard.1",
};
#define SERVICES (sizeof(services) / sizeof(services[0]))


static char *slurp(const char *dir, const char *name)
{
	static char buf[16384];
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
	const char *start = p;
	static const char *const allowed[] = {
		"\"/dev/null\"", "\"/dev/zero\"", "\"/dev/tty\"",
		"\"/dev/random\"", "\"/dev/urandom\"", "\"/dev/dtracehelper\"",
		"\"^/dev/fd/[0-9]+$\"", "\"^/dev/ttys[0-9]+$\"",
		"\"^/dev/tty[p-z][0-9a-f]$\"",
		"\"RootDomainUserClient\"",
		"\"" SANDY_SEATBELT_ROOT "\"", "\"" SANDY_SEATBELT_TEMP "\"",
		NULL};

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
		/* a sysctl's name: lower case, digits, '_' and '.', no '/' */
		if (!ok && ((p - start >= 13 &&
			     strncmp(p - 13, "(sysctl-name ", 13) == 0) ||
			    (p - start >= 20 &&
			     strncmp(p - 20, "(sysctl-name-prefix ", 20) == 0))) {
			size_t n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789_.");

			if (n > 0 && p[1 + n] == '"') {
				p += n + 2;
				ok = true;
			}
		}
		for (size_t i = 0; !ok && i < SERVICES; i++)
			if (strncmp(p + 1, services[i], strlen(services[i])) == 0 &&
			    p[1 + strlen(services[i])] == '"') {
				p += strlen(services[i]) + 2;
				ok = true;
			}
		if (!ok)
			return false;
	}
	return true;
}

/* The classes the profile closes (csrc/backends/seatbelt.c), in the order
 * SBPL needs, since the last matching rule wins: each deny once, then the
 * one allow that narrows it, if any, after it; and no other allow of that
 * operation anywhere (reopen: the prefix every such allow starts with). */
static const struct closed_class {
	const char *deny, *narrow, *reopen;
} closed[] = {
	{"(deny file-write* file-link file-clone)\n", "(allow file-write-data\n",
	 "(allow file-link"},
	{"(deny file-mount file-mount-update file-unmount file-revoke)\n", NULL,
	 "(allow file-mount"},
	{"(deny job-creation lsopen appleevent-send user-preference-write)\n",
	 NULL, "(allow appleevent"},
	{"(deny mach-lookup\n", NULL, "(allow mach-lookup"},
	{"(deny mach-priv-task-port)\n",
	 "(allow mach-priv-task-port (target same-sandbox))\n",
	 "(allow mach-priv"},
	{"(deny process-info*)\n", "(allow process-info* (target same-sandbox))\n",
	 "(allow process-info"},
	{"(deny sysctl-read)\n", "(allow sysctl-read\n", "(allow sysctl-read"},
	{"(deny sysctl-write)\n",
	 "(allow sysctl-write (sysctl-name \"kern.grade_cputype\"))\n",
	 "(allow sysctl-write"},
	{"(deny nvram*)\n", NULL, "(allow nvram"},
	{"(deny iokit-open iokit-set-properties)\n",
	 "(allow iokit-open\n  (iokit-registry-entry-class \"RootDomainUserClient\"))\n",
	 "(allow iokit"},
	{"(deny system-socket)\n",
	 "(allow system-socket\n  (socket-domain AF_UNIX) (socket-domain AF_INET)\n"
	 "  (socket-domain AF_INET6))\n",
	 "(allow system-socket"},
	{"(deny ipc-posix-shm* ipc-sysv*)\n", NULL, "(allow ipc-"},
	{"(deny file-read-data\n  (regex #\"^/dev/ttys[0-9]+$\") (regex #\"^/dev/tty[p-z][0-9a-f]$\"))\n",
	 NULL, "(allow file-read"},
	{"(deny file-ioctl)\n",
	 "(allow file-ioctl\n  (literal \"/dev/null\") (literal \"/dev/zero\")\n"
	 "  (literal \"/dev/random\") (literal \"/dev/urandom\")\n"
	 "  (literal \"/dev/dtracehelper\") (literal \"/dev/tty\")\n"
	 "  (regex #\"^/dev/ttys[0-9]+$\"))\n",
	 "(allow file-ioctl"},
	{"(deny signal)\n", "(allow signal (target same-sandbox))\n",
	 "(allow signal"},
};

static size_t count_of(const char *p, const char *needle)
{
	size_t n = 0;

	while ((p = strstr(p, needle)) != NULL) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/* Every closed class in order, every service in the mach-lookup deny, and
 * the terminal rule after the last allow of file-ioctl: NULL, or the first
 * rule out of place. */
static const char *out_of_order(const char *p)
{
	const char *lookup = strstr(p, "(deny mach-lookup\n");
	const char *end = lookup != NULL ? strstr(lookup, "))\n") : NULL;

	for (size_t i = 0; i < sizeof(closed) / sizeof(closed[0]); i++) {
		const struct closed_class *c = &closed[i];
		const char *deny = strstr(p, c->deny);
		const char *narrow = c->narrow != NULL ? strstr(p, c->narrow) : NULL;

		if (deny == NULL || count_of(p, c->deny) != 1 ||
		    (c->narrow != NULL &&
		     (narrow == NULL || narrow < deny ||
		      count_of(p, c->narrow) != 1)) ||
		    count_of(p, c->reopen) !=
			    (c->narrow != NULL &&
			     strncmp(c->narrow, c->reopen, strlen(c->reopen)) == 0))
			return c->deny;
	}
	for (size_t i = 0; i < SERVICES; i++) {
		const char *at = end != NULL ? strstr(lookup, services[i]) : NULL;

		if (at == NULL || at > end || at[-1] != '"' ||
		    at[strlen(services[i])] != '"')
			return services[i];
	}
	/* (no other process's arguments and environment) */
	if (strstr(p, "procargs") != NULL)
		return "procargs";
	if (strstr(p, last) == NULL || strstr(p, last) < strstr(p, "(allow file-ioctl"))
		return last;
	return NULL;
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
		      last > dir && out_of_order(p) == NULL,
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
		      above > config && strstr(p, LAST) > above &&
		      out_of_order(p) == NULL,
	      "protected writes: each after the allows, before the terminal rule");
	tap_check(w != NULL && index_of(w, n, "KEPT_1=/Users/a/p/.git/config\"))(allow file-write* (subpath \"/\"") < n,
	      "protected writes: a hostile path only in its -D word");
	tap_check(none == NULL, "protected writes: read-only takes none");
	sandy_argv_free(w);
}

/* The order check sees each way a profile can go wrong: a narrowing
 * allow before its deny (SBPL would then let the deny win), a service
 * left out, a later allow that reopens a class, the terminal rule before
 * the ioctl allow. */
static void order_controls(void)
{
	static char broken[16384];
	const char *good = sandy_seatbelt_profile(SANDY_MODE_WORKSPACE_WRITE);
	const char *deny = "(deny process-info*)\n";
	const char *allow = "(allow process-info* (target same-sandbox))\n";
	const char *at;
	bool all = true;

	/* swapped: the allow first */
	snprintf(broken, sizeof(broken), "%s", good);
	at = strstr(broken, deny);
	memcpy((char *)at, allow, strlen(allow));
	memcpy((char *)at + strlen(allow), deny, strlen(deny));
	all = all && out_of_order(broken) == closed[5].deny;
	/* a service dropped */
	snprintf(broken, sizeof(broken), "%s", good);
	memcpy(strstr(broken, "pasteboard.1"), "pasteboard.2", 12);
	all = all && out_of_order(broken) == services[SERVICES - 1];
	/* reopened at the end */
	snprintf(broken, sizeof(broken), "%s(allow mach-lookup (global-name \"x\"))\n", good);
	all = all && out_of_order(broken) == closed[3].deny;
	/* the terminal rule before the allow it narrows */
	snprintf(broken, sizeof(broken), "(deny file-ioctl (ioctl-command TIOCSTI))\n%s", good);
	*strstr(broken + 10, LAST) = '\0';
	all = all && out_of_order(broken) == last;
	tap_check(out_of_order(good) == NULL && all,
	      "control: the order check sees a swapped pair, a missing service, a reopened class, a misplaced terminal rule");
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
		snprintf(what, sizeof(what),
			 "%s: every closed class, then its one narrowing allow, every service denied", files[m]);
		tap_check(profile != NULL && out_of_order(profile) == NULL, what);
	}
	order_controls();
	tap_check(!balanced("(a (b)") && !balanced("(a))(") && !balanced("(\")\""),
	      "control: the balance check sees a broken profile");
	tap_check(!only_constant_strings("(subpath \"/Users\")") &&
		      !only_constant_strings("(sysctl-name \"/Users/a\")"),
	      "control: the string check sees a spliced path, as a sysctl's name too");

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
