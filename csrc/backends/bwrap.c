/* The `bwrap` backend's words (bwrap.h): the guard's, then bubblewrap's
 * own up to the command, and its dialect. */
#include "bwrap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/policy_argv.h"
#include "../core/protocol.h"
#include "../core/secret_env.h"

/* ---- dialect ---------------------------------------------------------- */

static const char *const bwrap_denials[] = {
	"Read-only file system", /* EROFS: --ro-bind / / */
	"Permission denied",     /* EACCES: a protected read's cover */
	NULL,
};
/* bubblewrap reports every failure before the exec as "bwrap: ..." and
 * exits 1; the command itself is started through a shell shim, so a missing
 * command is the shell's ordinary 127, never a bwrap line. */
static const int bwrap_exit_codes[] = {1, 0};
static const char *const bwrap_fatal[] = {"bwrap: ", NULL};
static const sandy_runner_rule bwrap_rules[] = {
	{bwrap_exit_codes, bwrap_fatal, NULL},
};

const sandy_dialect sandy_bwrap_dialect = {bwrap_denials, bwrap_rules, 1,
					   {"guard", "guard", "guard", "guard",
					    "watch"}};

/* ---- bubblewrap ------------------------------------------------------- */

/* Appends a NULL-terminated list to words[*n]. */
static void append(const char **words, size_t *n, const char *const *list)
{
	for (size_t i = 0; list[i] != NULL; i++)
		words[(*n)++] = list[i];
}

char **sandy_bwrap_argv(const sandy_bwrap_call *c, size_t *count)
{
	/* The launcher in guard mode first (guard.h): bubblewrap passes
	 * inherited descriptors through, has no Landlock, and binds by path.
	 * The guard builds the whole tree by descriptor in a namespace of its
	 * own (the root confine saw writable, every other mount read-only, a
	 * private /tmp) and bubblewrap binds it as it stands. */
	sandy_guard_args g = {.nonce = c->nonce};
	const char *guard[SANDY_GUARD_WORDS_MAX + 1] = {0};
	/* The guard's tree as it stands, fresh /proc for a private PID
	 * namespace (the host's /proc would expose other processes' roots),
	 * a minimal /dev that is then made read-only (its device nodes stay
	 * usable, so /dev/null is writable), no capabilities even as root
	 * (measured: with them a confined root can remount / read-write), and
	 * a user namespace even as root, where bubblewrap clears the
	 * capability bounding set. */
	const char *const head[] = {
		c->bwrap, "--new-session", "--die-with-parent", "--cap-drop",
		"ALL", "--unshare-user", "--unshare-pid", "--unshare-ipc",
		"--bind", "/", "/",
		"--proc", "/proc",
		/* sysctls and other kernel switches check uid 0, not
		 * capabilities, and bubblewrap leaves them writable in its
		 * fresh /proc (measured: a confined root rewrote
		 * kernel.core_pattern) */
		"--ro-bind-try", "/proc/sys", "/proc/sys",
		"--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
		"--ro-bind-try", "/proc/irq", "/proc/irq",
		"--ro-bind-try", "/proc/bus", "/proc/bus",
		"--dev", "/dev", NULL};
	const char *const writable[] = {"--tmpfs", "/dev/shm", NULL};
	/* /dev and the fresh /proc read-only: uid 0 owns their entries, and
	 * a chmod of a /proc entry changes the kernel's one copy for the
	 * whole host */
	const char *const tail[] = {"--remount-ro", "/dev", "--remount-ro",
				    "/proc", NULL};
	/* A shell shim, so that a missing command is the shell's 127, never
	 * a bwrap line. */
	const char *const shim[] = {"--", "/bin/sh", "-c", "exec \"$0\" \"$@\"",
				    NULL};
	size_t n = 0;
	const char **words;
	char **out = NULL;
	bool writes = c->mode == SANDY_MODE_WORKSPACE_WRITE;

	if (c->shield.n_reads > SANDY_DENY_READS_MAX ||
	    c->shield.n_keep_env > SANDY_KEEP_ENV_MAX)
		return NULL;
	for (size_t i = 0; i < c->shield.n_reads; i++)
		g.deny_reads[g.n_deny_reads++] = c->shield.reads[i];
	for (size_t i = 0; i < c->shield.n_keep_env; i++)
		g.keep_env[g.n_keep_env++] = c->shield.keep_env[i];
	g.scrub_env = true;
	if (writes) {
		if (c->n_protect > SANDY_GUARD_PROTECT_MAX ||
		    c->n_roots > SANDY_GUARD_ROOTS_MAX)
			return NULL;
		memcpy(g.roots, c->roots, c->n_roots * sizeof(*g.roots));
		g.n_roots = c->n_roots;
		memcpy(g.protect, c->protect, c->n_protect * sizeof(*g.protect));
		g.n_protect = c->n_protect;
		if (c->shield.n_watches > SANDY_WATCHES_MAX)
			return NULL;
		memcpy(g.watches, c->shield.watches,
		       c->shield.n_watches * sizeof(*g.watches));
		g.n_watches = c->shield.n_watches;
	} else if (c->shield.n_watches > 0) {
		return NULL;
	}
	if (sandy_guard_words(c->launcher, &g, guard) == 0)
		return NULL;
	words = calloc(SANDY_GUARD_WORDS_MAX + 64, sizeof(*words));
	if (words == NULL)
		return NULL;
	append(words, &n, guard);
	append(words, &n, head);
	if (writes)
		append(words, &n, writable);
	append(words, &n, tail);
	append(words, &n, shim);
	words[n] = NULL;
	out = sandy_words_dup(words, count);
	free(words);
	return out;
}
