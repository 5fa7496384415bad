/* The macOS probe: whether /usr/bin/sandbox-exec enforces the seam's two
 * profiles here, asked of the kernel rather than read from the profile's
 * text. In a scratch directory made here (ws, tmp, out, and a file
 * out/victim), each profile runs one shell script (SCRIPT below) within a
 * deadline, and this process then looks at what the script left:
 *
 *   workspace-write: the writes into ws and tmp land, the two (still
 *     empty) directories themselves are not removed, tmp is not moved
 *     into ws, and the write into out and a hard link from ws to
 *     out/victim are refused; /dev/null stays writable (exit 0);
 *   read-only: the writes into ws and tmp are refused too.
 *
 * Any other outcome (sandbox-exec missing, a profile this macOS cannot
 * parse, sandbox_apply refused inside another sandbox, a rule that does
 * not hold) leaves the backend unusable, with the first check that failed
 * as the reason.
 *
 * The scratch directory of that probe lies in /private/tmp, on the system's
 * volume. A workspace on another volume, or spelt so that Seatbelt's
 * resolved path differs from the canonical one (a firmlink, a case
 * spelling), would miss the workspace's allow, or a deny, only there:
 * sandy_probe_volume runs the workspace-write check again in a scratch
 * directory made inside the workspace itself, which confine asks before
 * a workspace-write argv on each volume is handed out.
 *
 * Compiled on Linux against csrc/test/darwin_sdk.h
 * (test/unit/native.test.js); never run on a Mac (docs/backends.md, "macOS"). */
#include "../core/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../backends/seatbelt.h"
#include "../core/policy_argv.h"
#include "../core/run.h"

/* Each run's deadline. */
#define DEADLINE_MS 3000

/* $1 ws, $2 tmp, $3 out. Every write is tried; the parent judges. */
#define SCRIPT                                                               \
	"echo x > /dev/null || exit 3\n"                                     \
	"rmdir \"$1\" \"$2\" 2>/dev/null\n"                                  \
	"mv \"$2\" \"$1/moved\" 2>/dev/null\n"                               \
	"(echo x > \"$1/in\") 2>/dev/null\n"                                 \
	"(echo x > \"$2/in\") 2>/dev/null\n"                                 \
	"(echo x > \"$3/in\") 2>/dev/null\n"                                 \
	"ln \"$3/victim\" \"$1/link\" 2>/dev/null\n"                         \
	"exit 0\n"

/* The scratch directory's entries, in the order they are removed. */
enum { IN_WS, LINK_WS, IN_TMP, IN_OUT, VICTIM, MOVED, WS, TMP, OUT, ENTRIES };
static const char *const names[ENTRIES] = {
	[IN_WS] = "ws/in",   [LINK_WS] = "ws/link",   [IN_TMP] = "tmp/in",
	[IN_OUT] = "out/in", [VICTIM] = "out/victim", [MOVED] = "ws/moved",
	[WS] = "ws",         [TMP] = "tmp",           [OUT] = "out",
};

typedef struct scratch {
	char base[PATH_MAX];
	char path[ENTRIES][PATH_MAX];
} scratch;

static bool exists(const scratch *s, int entry)
{
	return access(s->path[entry], F_OK) == 0;
}

static void scratch_remove(const scratch *s)
{
	for (int e = 0; e < ENTRIES; e++)
		if (unlink(s->path[e]) != 0)
			rmdir(s->path[e]);
	rmdir(s->base);
}

/* A fresh scratch directory in parent, a resolved path (Seatbelt matches
 * resolved paths: /private/tmp, not /tmp). */
static bool scratch_make(scratch *s, const char *parent)
{
	int fd;

	if ((size_t)snprintf(s->base, sizeof(s->base), "%s/.sandy-probe-XXXXXX",
			     parent) >= sizeof(s->base) - 16 ||
	    mkdtemp(s->base) == NULL) {
		s->base[0] = '\0';
		return false;
	}
	for (int e = 0; e < ENTRIES; e++)
		snprintf(s->path[e], sizeof(s->path[e]), "%s/%s", s->base,
			 names[e]);
	if (mkdir(s->path[WS], 0700) != 0 || mkdir(s->path[TMP], 0700) != 0 ||
	    mkdir(s->path[OUT], 0700) != 0)
		return false;
	fd = open(s->path[VICTIM], O_WRONLY | O_CREAT | O_EXCL, 0600);
	return fd >= 0 && close(fd) == 0;
}

/* Whether words (sandbox-exec, a profile, the shim, the script) exit 0
 * before the deadline (killed after it, core/run.c); their output is
 * captured and dropped (inside another sandbox sandbox-exec prints its
 * refusal). */
static bool runs(char **words)
{
	/* (on the heap: 8 KiB, and worker threads share the addon) */
	sandy_run_result *res = malloc(sizeof(*res));
	char why[64];
	bool ok = res != NULL &&
		  sandy_run_program(words, DEADLINE_MS, res, why, sizeof(why)) &&
		  res->wait == SANDY_WAIT_EXITED && WIFEXITED(res->status) &&
		  WEXITSTATUS(res->status) == 0;

	free(res);
	return ok;
}

/* The script under mode's profile, as confine writes it; NULL when it
 * ran and left what the mode allows, else what went wrong. */
static const char *enforces(sandy_mode mode, const scratch *s)
{
	bool writes = mode == SANDY_MODE_WORKSPACE_WRITE;
	size_t n = 0;
	const sandy_seatbelt_call call = {.mode = mode,
					  .root = writes ? s->path[WS] : NULL,
					  .temp_dir = writes ? s->path[TMP] : NULL};
	char **w = sandy_seatbelt_argv(&call, &n);
	const char *tail[] = {"/bin/sh",   "-c",	 SCRIPT,     "sh",
			      s->path[WS], s->path[TMP], s->path[OUT]};
	char **full = w == NULL ? NULL : calloc(n + 8, sizeof(*full));
	const char *why = NULL;

	if (full != NULL) {
		/* ... /bin/sh -c SCRIPT sh WS TMP OUT */
		memcpy(full, w, n * sizeof(*full));
		for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
			full[n + i] = (char *)tail[i];
	}
	if (full == NULL)
		why = "could not be tried: out of memory";
	else if (!runs(full))
		why = "did not run a profile to its end (a profile this macOS "
		      "cannot parse, or inside another sandbox?)";
	else if (!exists(s, WS) || !exists(s, TMP))
		why = "let the workspace or temp directory itself be removed "
		      "or moved";
	else if (exists(s, IN_WS) != writes || exists(s, IN_TMP) != writes)
		why = writes ? "refused a write into the workspace"
			     : "let a read-only run write";
	else if (exists(s, IN_OUT))
		why = "let a write outside the workspace land";
	else if (exists(s, LINK_WS))
		why = "let a hard link to a file outside the workspace be made";
	free(full);
	sandy_argv_free(w);
	return why;
}

/* mode's profile in a fresh scratch directory in parent (on the heap:
 * 10 KiB, and worker threads share the addon); NULL when it holds. */
static const char *holds_in(sandy_mode mode, const char *parent)
{
	scratch *s = calloc(1, sizeof(*s));
	const char *why;

	if (s == NULL)
		return "could not be tried: out of memory";
	why = scratch_make(s, parent) ? enforces(mode, s)
				      : "could not be tried: no scratch "
					"directory could be made";
	if (s->base[0] != '\0')
		scratch_remove(s);
	free(s);
	return why;
}

/* Both profiles, each in a fresh scratch directory; NULL when both hold. */
static const char *sandbox_exec_enforces(void)
{
	static const sandy_mode modes[] = {SANDY_MODE_WORKSPACE_WRITE,
					   SANDY_MODE_READ_ONLY};
	const char *why = NULL;

	if (access(SANDY_SANDBOX_EXEC, X_OK) != 0)
		return "is missing";
	for (size_t m = 0; why == NULL && m < 2; m++)
		why = holds_in(modes[m], "/private/tmp");
	return why;
}

const char *sandy_probe_volume(const char *root)
{
	return holds_in(SANDY_MODE_WORKSPACE_WRITE, root);
}

void sandy_probe_run(sandy_probe_report *r)
{
	struct utsname u;
	const char *why;

	memset(r, 0, sizeof(*r));
	strcpy(r->platform, "darwin");
	if (uname(&u) == 0)
		strncpy(r->kernel_release, u.release,
			sizeof(r->kernel_release) - 1);
	why = sandbox_exec_enforces();
	r->sandbox_exec = why == NULL;
	if (why != NULL)
		snprintf(r->sandbox_exec_detail, sizeof(r->sandbox_exec_detail),
			 SANDY_SANDBOX_EXEC " %s", why);
	sandy_probe_judge(r);
}
