/* The `seatbelt` backend's words (seatbelt.h): the profile, its
 * parameters, the shim, and its dialect. */
#include "seatbelt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/policy_argv.h"
#include "../core/secret_env.h"

/* The kernel state a command may read by sysctl (see BASE): names and,
 * last, prefixes; none of kern.procargs*. */
#define SYSCTL_READS                                                         \
	"  (sysctl-name \"hw.activecpu\")\n"                                 \
	"  (sysctl-name \"hw.busfrequency_compat\")\n"                       \
	"  (sysctl-name \"hw.byteorder\")\n"                                 \
	"  (sysctl-name \"hw.cacheconfig\")\n"                               \
	"  (sysctl-name \"hw.cachelinesize_compat\")\n"                      \
	"  (sysctl-name \"hw.cpufamily\")\n"                                 \
	"  (sysctl-name \"hw.cpufrequency\")\n"                              \
	"  (sysctl-name \"hw.cpufrequency_compat\")\n"                       \
	"  (sysctl-name \"hw.cputype\")\n"                                   \
	"  (sysctl-name \"hw.l1dcachesize_compat\")\n"                       \
	"  (sysctl-name \"hw.l1icachesize_compat\")\n"                       \
	"  (sysctl-name \"hw.l2cachesize_compat\")\n"                        \
	"  (sysctl-name \"hw.l3cachesize_compat\")\n"                        \
	"  (sysctl-name \"hw.logicalcpu\")\n"                                \
	"  (sysctl-name \"hw.logicalcpu_max\")\n"                            \
	"  (sysctl-name \"hw.machine\")\n"                                   \
	"  (sysctl-name \"hw.memsize\")\n"                                   \
	"  (sysctl-name \"hw.model\")\n"                                     \
	"  (sysctl-name \"hw.ncpu\")\n"                                      \
	"  (sysctl-name \"hw.nperflevels\")\n"                               \
	"  (sysctl-name \"hw.packages\")\n"                                  \
	"  (sysctl-name \"hw.pagesize\")\n"                                  \
	"  (sysctl-name \"hw.pagesize_compat\")\n"                           \
	"  (sysctl-name \"hw.physicalcpu\")\n"                               \
	"  (sysctl-name \"hw.physicalcpu_max\")\n"                           \
	"  (sysctl-name \"hw.tbfrequency_compat\")\n"                        \
	"  (sysctl-name \"hw.vectorunit\")\n"                                \
	"  (sysctl-name \"kern.argmax\")\n"                                  \
	"  (sysctl-name \"kern.bootargs\")\n"                                \
	"  (sysctl-name \"kern.boottime\")\n"                                \
	"  (sysctl-name \"kern.hostname\")\n"                                \
	"  (sysctl-name \"kern.maxfiles\")\n"                                \
	"  (sysctl-name \"kern.maxfilesperproc\")\n"                         \
	"  (sysctl-name \"kern.maxproc\")\n"                                 \
	"  (sysctl-name \"kern.ngroups\")\n"                                 \
	"  (sysctl-name \"kern.osproductversion\")\n"                        \
	"  (sysctl-name \"kern.osrelease\")\n"                               \
	"  (sysctl-name \"kern.ostype\")\n"                                  \
	"  (sysctl-name \"kern.osvariant_status\")\n"                        \
	"  (sysctl-name \"kern.osversion\")\n"                               \
	"  (sysctl-name \"kern.secure_kernel\")\n"                           \
	"  (sysctl-name \"kern.tcsm_available\")\n"                          \
	"  (sysctl-name \"kern.tcsm_enable\")\n"                             \
	"  (sysctl-name \"kern.usrstack64\")\n"                              \
	"  (sysctl-name \"kern.version\")\n"                                 \
	"  (sysctl-name \"kern.willshutdown\")\n"                            \
	"  (sysctl-name \"machdep.ptrauth_enabled\")\n"                      \
	"  (sysctl-name \"security.mac.lockdown_mode_state\")\n"             \
	"  (sysctl-name \"sysctl.proc_cputype\")\n"                          \
	"  (sysctl-name \"vm.loadavg\")\n"                                   \
	"  (sysctl-name-prefix \"hw.optional.\")\n"                          \
	"  (sysctl-name-prefix \"hw.perflevel\")\n"                          \
	"  (sysctl-name-prefix \"kern.proc.all\")\n"                         \
	"  (sysctl-name-prefix \"kern.proc.pgrp.\")\n"                       \
	"  (sysctl-name-prefix \"kern.proc.pid.\")\n"                        \
	"  (sysctl-name-prefix \"machdep.cpu.\")\n"                          \
	"  (sysctl-name-prefix \"net.routetable.\")\n"

/* The profile starts from (allow default) and closes classes of
 * operations, each narrowed by the allows that follow it (in SBPL a later
 * rule wins over an earlier one); why not (deny default) is in
 * docs/backends.md, "macOS". Reads, execution and network
 * stay as the host allows (macOS has no small closed read set: the dyld
 * shared cache, frameworks and toolchains must stay readable). Each rule
 * with its reason, and the peer rule or Apple text it follows (Codex:
 * seatbelt_base_policy.sbpl; srt: Anthropic sandbox-runtime's profile).
 * Operations and filters a macOS cannot parse fail the whole profile, and
 * the probe with it: closed. ioctl-command needs macOS 13. */
#define BASE                                                                 \
	"(version 1)\n"                                                      \
	"(allow default)\n"                                                  \
	/* every write refused; hard links and clones too: Seatbelt checks   \
	 * neither as a write of the host file they reach (a link in the     \
	 * workspace writes it; a clone is checked against its source only)  \
	 * (Codex, srt: writes only where allowed) */                        \
	"(deny file-write* file-link file-clone)\n"                          \
	/* a mount over a host directory replaces what is there */          \
	"(deny file-mount file-mount-update file-unmount file-revoke)\n"     \
	/* launchd jobs, Launch Services, Apple events and cfprefsd writes   \
	 * act outside the sandbox (H1; Codex and srt allow none) */         \
	"(deny job-creation lsopen appleevent-send user-preference-write)\n" \
	/* services that act for the caller outside the sandbox: a disk      \
	 * image mounted by diskarbitrationd, Launch Services and its        \
	 * database, Apple events (appleevent-send may be checked in user    \
	 * space only), a root tool started after a password prompt          \
	 * (authtrampoline), synthetic input to other applications          \
	 * (windowserver), the clipboard (pasteboard: a planted command, a   \
	 * copied secret); Codex allows none of them, srt Launch Services    \
	 * and, with its GPU option, the window server and diskarbitrationd */\
	"(deny mach-lookup\n"                                                \
	"  (global-name \"com.apple.DiskArbitration.diskarbitrationd\")\n"   \
	"  (global-name \"com.apple.coreservices.launchservicesd\")\n"       \
	"  (global-name \"com.apple.coreservices.quarantine-resolver\")\n"   \
	"  (global-name \"com.apple.lsd.modifydb\")\n"                       \
	"  (global-name \"com.apple.coreservices.appleevents\")\n"           \
	"  (global-name \"com.apple.security.authtrampoline\")\n"            \
	"  (global-name \"com.apple.windowserver.active\")\n"                \
	"  (global-name \"com.apple.pasteboard.1\"))\n"                      \
	/* code injected into a process outside would run unconfined (srt:   \
	 * same-sandbox only; Codex: none) */                                \
	"(deny mach-priv-task-port)\n"                                       \
	"(allow mach-priv-task-port (target same-sandbox))\n"                \
	/* other processes' information (their arguments and environment,    \
	 * tokens among them) is theirs (Codex, srt: same-sandbox only; their \
	 * names and ids stay listed by kern.proc.*, below) */              \
	"(deny process-info*)\n"                                             \
	"(allow process-info* (target same-sandbox))\n"                      \
	/* ... also when asked of sysctl: KERN_PROCARGS2 answers any process \
	 * of the same user with its arguments and environment, under a name \
	 * with its pid (kern.procargs2.PID); reads of the kernel's state     \
	 * only by name, from the union of the peers' lists (Codex and srt:   \
	 * (deny default) and these names), and these added: kern.boottime    \
	 * (uptime), all of hw.optional. (Intel's feature flags too) */       \
	"(deny sysctl-read)\n"                                               \
	"(allow sysctl-read\n"                                               \
	SYSCTL_READS                                                         \
	")\n"                                                                \
	/* the kernel's settings, firmware variables, IOKit user clients and \
	 * properties are the host's (Codex: one sysctl-write, one IOKit     \
	 * class; srt: no nvram, no iokit-set-properties) */                 \
	"(deny sysctl-write)\n"                                              \
	"(allow sysctl-write (sysctl-name \"kern.grade_cputype\"))\n"        \
	"(deny nvram*)\n"                                                    \
	"(deny iokit-open iokit-set-properties)\n"                           \
	"(allow iokit-open\n"                                                \
	"  (iokit-registry-entry-class \"RootDomainUserClient\"))\n"         \
	/* sockets of the kernel's other families (routing, network drivers, \
	 * kernel control: its network statistics name every process's       \
	 * sockets) are attack surface; the network's and UNIX sockets stay  \
	 * as the host has them (Codex: no system-socket; srt: UNIX when     \
	 * asked, and AF_SYSTEM's control protocol, left out here) */        \
	"(deny system-socket)\n"                                             \
	"(allow system-socket\n"                                             \
	"  (socket-domain AF_UNIX) (socket-domain AF_INET)\n"                \
	"  (socket-domain AF_INET6))\n"                                      \
	/* POSIX shared memory, and System V's shared memory, messages and   \
	 * semaphores, are namespaces of the whole host: a segment or queue  \
	 * of a process outside is reached by its name or key (Codex allows  \
	 * none; POSIX semaphores stay, as Codex keeps them for Python's     \
	 * multiprocessing) */                                               \
	"(deny ipc-posix-shm* ipc-sysv*)\n"                                  \
	/* the data of a few devices writable, never the nodes themselves    \
	 * (so > /dev/stderr works; Codex, srt: /dev/null, as a character    \
	 * device) */                                                        \
	"(allow file-write-data\n"                                           \
	"  (literal \"/dev/null\") (literal \"/dev/zero\")\n"                \
	"  (literal \"/dev/tty\") (regex #\"^/dev/fd/[0-9]+$\"))\n"          \
	/* no terminal opened by its name: the user's other terminals        \
	 * (ttysN, the user's own; the legacy ttyXY, mode 0666) would be     \
	 * read, racing their shells for keystrokes; the command's own stays \
	 * reachable as the descriptors it was given and as /dev/tty (srt:   \
	 * ttys only with its pty option; Codex: every ttysN) */            \
	"(deny file-read-data\n"                                             \
	"  (regex #\"^/dev/ttys[0-9]+$\") (regex #\"^/dev/tty[p-z][0-9a-f]$\"))\n" \
	/* ioctls only on the listed devices and the terminals the command   \
	 * was given (tcsetattr must work; no other can be opened, above);   \
	 * TIOCSTI narrowed last, in TAIL (Codex: every ttysN, srt: these   \
	 * devices) */                                                       \
	"(deny file-ioctl)\n"                                                \
	"(allow file-ioctl\n"                                                \
	"  (literal \"/dev/null\") (literal \"/dev/zero\")\n"                \
	"  (literal \"/dev/random\") (literal \"/dev/urandom\")\n"           \
	"  (literal \"/dev/dtracehelper\") (literal \"/dev/tty\")\n"         \
	"  (regex #\"^/dev/ttys[0-9]+$\"))\n"                                \
	/* signals only within the sandbox (Codex, srt) */                   \
	"(deny signal)\n"                                                    \
	"(allow signal (target same-sandbox))\n"

/* After every allow of a mode: no input pushed into a terminal, its own
 * included (the shell that resumes would run it; Codex allows every ioctl
 * on a terminal, srt none unless asked). */
#define TAIL "(deny file-ioctl (ioctl-command TIOCSTI))\n"

/* Each mode's allows, before the protections' denies and the tail. */
#define WRITES                                                               \
	"(allow file-write*\n"                                               \
	"  (subpath (param \"" SANDY_SEATBELT_ROOT "\"))\n"                  \
	"  (subpath (param \"" SANDY_SEATBELT_TEMP "\")))\n"                 \
	"(deny file-write-unlink file-write-create\n"                        \
	"  (literal (param \"" SANDY_SEATBELT_ROOT "\"))\n"                  \
	"  (literal (param \"" SANDY_SEATBELT_TEMP "\")))\n"

static const char *const heads[] = {
	[SANDY_MODE_READ_ONLY] = BASE,
	/* the workspace and the call's temp directory, both by parameter, and
	 * never the two directories themselves removed or replaced (a root
	 * swapped for a link would widen the next call: H2) */
	[SANDY_MODE_WORKSPACE_WRITE] = BASE WRITES,
};

static const char *const profiles[] = {
	[SANDY_MODE_READ_ONLY] = BASE TAIL,
	[SANDY_MODE_WORKSPACE_WRITE] = BASE WRITES TAIL,
};

static bool confining(sandy_mode mode)
{
	return mode == SANDY_MODE_READ_ONLY || mode == SANDY_MODE_WORKSPACE_WRITE;
}

const char *sandy_seatbelt_profile(sandy_mode mode)
{
	return confining(mode) ? profiles[mode] : NULL;
}

/* A growing string; failed once anything did not fit in memory. */
typedef struct text {
	char *s;
	size_t n, cap;
	bool failed;
} text;

static void put(text *t, const char *s)
{
	size_t len = strlen(s);

	if (t->failed)
		return;
	if (t->n + len + 1 > t->cap) {
		size_t cap = (t->n + len + 1) * 2;
		char *grown = realloc(t->s, cap);

		if (grown == NULL) {
			t->failed = true;
			return;
		}
		t->s = grown;
		t->cap = cap;
	}
	memcpy(t->s + t->n, s, len + 1);
	t->n += len;
}

/* The rule of one protected path, by its parameter: reads and writes
 * denied, for a socket the connect too; after every allow, since in SBPL
 * the later rule wins. */
static void deny_rule(text *t, size_t i, sandy_seatbelt_kind kind)
{
	char param[48];

	snprintf(param, sizeof(param), "(param \"" SANDY_SEATBELT_PROTECTED
		 "%zu\")", i);
	put(t, "(deny file-read* file-write*\n  (");
	put(t, kind == SANDY_SEATBELT_DIRECTORY ? "subpath " : "literal ");
	put(t, param);
	put(t, "))\n");
	if (kind == SANDY_SEATBELT_SOCKET) {
		put(t, "(deny network-outbound (literal ");
		put(t, param);
		put(t, "))\n");
	}
}

/* The rule of one protected write, by its parameter: after the
 * workspace's allow, which it narrows. */
static void keep_rule(text *t, size_t i, sandy_seatbelt_keep keep)
{
	char param[48];

	snprintf(param, sizeof(param), "(param \"" SANDY_SEATBELT_KEPT
		 "%zu\")", i);
	put(t, keep == SANDY_SEATBELT_KEEP_ABOVE
		       ? "(deny file-write-unlink file-write-create\n  (literal "
		       : "(deny file-write*\n  (");
	if (keep != SANDY_SEATBELT_KEEP_ABOVE)
		put(t, keep == SANDY_SEATBELT_KEEP_DIRECTORY ? "subpath "
							      : "literal ");
	put(t, param);
	put(t, "))\n");
}

char *sandy_seatbelt_profile_for(const sandy_seatbelt_call *c)
{
	text t = {0};

	if (!confining(c->mode) || c->n_reads > SANDY_DENY_READS_MAX ||
	    c->n_writes > SANDY_SEATBELT_WRITES_MAX ||
	    (c->n_writes > 0 && c->mode != SANDY_MODE_WORKSPACE_WRITE))
		return NULL;
	put(&t, heads[c->mode]);
	for (size_t i = 0; i < c->n_reads; i++)
		deny_rule(&t, i, c->reads[i].kind);
	for (size_t i = 0; i < c->n_writes; i++)
		keep_rule(&t, i, c->writes[i].keep);
	put(&t, TAIL);
	if (t.failed) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

/* name with each letter as [Xx]. */
static void any_case(text *t, const char *name)
{
	char one[5];

	for (; *name != '\0'; name++) {
		char c = *name;

		if (c >= 'A' && c <= 'Z')
			snprintf(one, sizeof(one), "[%c%c]", c, c - 'A' + 'a');
		else
			snprintf(one, sizeof(one), "%c", c);
		put(t, one);
	}
}

/* A secret variable's case patterns (vocabulary.h): the name; the prefix
 * and "*"; for a suffix "*" and the suffix in any case, and the suffix
 * without its '_' in any case. */
static void env_pattern(text *t, sandy_secret_match match, const char *name)
{
	if (match == SANDY_SECRET_EXACT) {
		put(t, name);
	} else if (match == SANDY_SECRET_PREFIX) {
		put(t, name);
		put(t, "*");
	} else {
		put(t, "*");
		any_case(t, name);
		put(t, "|");
		any_case(t, name + 1);
	}
}

char *sandy_seatbelt_shim(const sandy_seatbelt_call *c)
{
	bool first = true;
	text t = {0};

	if (c->n_keep_env > SANDY_KEEP_ENV_MAX)
		return NULL;
	put(&t, "IFS=' \t\n'; for n in $(/usr/bin/env | /usr/bin/sed -n "
		"'s/^\\([A-Za-z_][A-Za-z0-9_]*\\)=.*/\\1/p'); do case $n in ");
	for (size_t i = 0; i < c->n_keep_env; i++) {
		if (!sandy_env_name_valid(c->keep_env[i])) {
			free(t.s);
			return NULL;
		}
		put(&t, i == 0 ? "" : "|");
		put(&t, c->keep_env[i]);
	}
	if (c->n_keep_env > 0)
		put(&t, ") ;; ");
#define SANDY_X(match, name, why)                                            \
	put(&t, first ? "" : "|");                                            \
	first = false;                                                        \
	env_pattern(&t, SANDY_SECRET_##match, name);
	SANDY_SECRET_ENV_MAP(SANDY_X)
#undef SANDY_X
	put(&t, ") command unset \"$n\" 2>/dev/null ;; esac; done; unset IFS n; ");
	put(&t, c->mode == SANDY_MODE_WORKSPACE_WRITE
			? "TMPDIR=\"$0\"; export TMPDIR; exec \"$@\""
			: "exec \"$@\"");
	if (t.failed) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

/* "NAME=VALUE", malloc'd. */
static char *define(const char *name, const char *value)
{
	size_t n = strlen(name) + 1 + strlen(value) + 1;
	char *s = malloc(n);

	if (s != NULL)
		snprintf(s, n, "%s=%s", name, value);
	return s;
}

/* The -D words' values: the root and the temp directory, then each
 * protected read's, then each protected write's. */
#define DEFINES_MAX                                                          \
	(2 + SANDY_DENY_READS_MAX + SANDY_SEATBELT_WRITES_MAX)

char **sandy_seatbelt_argv(const sandy_seatbelt_call *c, size_t *count)
{
	bool writes = c->mode == SANDY_MODE_WORKSPACE_WRITE;
	char *defs[DEFINES_MAX] = {NULL}, *profile = NULL, *shim = NULL;
	const char *words[8 + 2 * DEFINES_MAX];
	size_t n = 0, n_defs = 0;
	char **out = NULL;
	char name[48];

	if (!confining(c->mode) ||
	    (writes && (c->root == NULL || c->temp_dir == NULL)) ||
	    (profile = sandy_seatbelt_profile_for(c)) == NULL ||
	    (shim = sandy_seatbelt_shim(c)) == NULL)
		goto done;
	if (writes) {
		defs[n_defs++] = define(SANDY_SEATBELT_ROOT, c->root);
		defs[n_defs++] = define(SANDY_SEATBELT_TEMP, c->temp_dir);
	}
	for (size_t i = 0; i < c->n_reads; i++) {
		snprintf(name, sizeof(name), SANDY_SEATBELT_PROTECTED "%zu", i);
		defs[n_defs++] = define(name, c->reads[i].path);
	}
	for (size_t i = 0; i < c->n_writes; i++) {
		snprintf(name, sizeof(name), SANDY_SEATBELT_KEPT "%zu", i);
		defs[n_defs++] = define(name, c->writes[i].path);
	}
	words[n++] = SANDY_SANDBOX_EXEC;
	words[n++] = "-p";
	words[n++] = profile;
	for (size_t i = 0; i < n_defs; i++) {
		if (defs[i] == NULL)
			goto done;
		words[n++] = "-D";
		words[n++] = defs[i];
	}
	words[n++] = "--";
	words[n++] = "/bin/sh";
	words[n++] = "-c";
	words[n++] = shim;
	words[n++] = writes ? c->temp_dir : "sandy-native";
	words[n] = NULL;
	out = sandy_words_dup(words, count);
done:
	for (size_t i = 0; i < n_defs; i++)
		free(defs[i]);
	free(profile);
	free(shim);
	return out;
}

/* ---- dialect ---------------------------------------------------------- */

/* Seatbelt: a denied file effect is EPERM. sandbox-exec's own refusals
 * before the command runs start with its name: a profile it cannot parse
 * (65), sandbox_apply refused, as when already sandboxed, or an exec that
 * failed (71; the shim keeps a missing command the shell's 127). A denied or
 * missing command never prints that prefix (reported by others, never run
 * here: docs/backends.md, "macOS"). */
static const char *const seatbelt_denials[] = {
	"Operation not permitted",
	NULL,
};
static const int seatbelt_exit_codes[] = {65, 71, 0};
static const char *const seatbelt_fatal[] = {"sandbox-exec: ", NULL};
static const sandy_runner_rule seatbelt_rules[] = {
	{seatbelt_exit_codes, seatbelt_fatal, NULL},
};

const sandy_dialect sandy_seatbelt_dialect = {
	seatbelt_denials, seatbelt_rules, 1, {"seatbelt", "seatbelt", "shim", "seatbelt",
						   "seatbelt"}};
