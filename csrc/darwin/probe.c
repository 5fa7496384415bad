/* The macOS probe: whether /usr/bin/sandbox-exec enforces the seam's two
 * profiles here, asked of the kernel rather than read from the profile's
 * text. In a scratch directory made here (ws, tmp, out, and a file
 * out/victim), each profile runs one shell script (SCRIPT below) within a
 * deadline, and this process then looks at what the script left:
 *
 *   workspace-write: the writes into ws and tmp land, the two (still
 *     empty) directories themselves are not removed, tmp is not moved
 *     into ws, and the write into out, a hard link from ws to
 *     out/victim, the making of ws/kept (a protected write, missing) and a
 *     read of out/secret (a protected read) are refused; /dev/null stays
 *     writable (exit 0);
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
#include <dirent.h>
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

/* $1 ws, $2 tmp, $3 out. Every write and the protected read are tried;
 * the parent judges. */
#define SCRIPT                                                               \
	"echo x > /dev/null || exit 3\n"                                     \
	"rmdir \"$1\" \"$2\" 2>/dev/null\n"                                  \
	"mv \"$2\" \"$1/moved\" 2>/dev/null\n"                               \
	"(echo x > \"$1/in\") 2>/dev/null\n"                                 \
	"(echo x > \"$2/in\") 2>/dev/null\n"                                 \
	"(echo x > \"$3/in\") 2>/dev/null\n"                                 \
	"ln \"$3/victim\" \"$1/link\" 2>/dev/null\n"                         \
	"(echo x > \"$1/kept\") 2>/dev/null\n"                               \
	"(echo x > \"$1/KEPT\") 2>/dev/null\n"                               \
	"cat \"$3/secret\" >/dev/null 2>&1 && (echo x > \"$1/read\") 2>/dev/null\n" \
	"exit 0\n"

/* The scratch directory's entries, in the order they are removed: each
 * the base's own or one level below (kept: a protected write, a name not
 * made, as a missing name is kept, tried in its case and in capitals;
 * KEPT: the capitals' own file on a volume that tells case apart; secret:
 * a protected read, outside the workspace, which Seatbelt's default would
 * let be read; both by their rules under workspace-write; read: the
 * script's mark that the secret was read). ws and tmp are empty when the
 * script starts, so that their removal is refused by their own rules, not
 * by their entries. */
enum {
	IN_WS, LINK_WS, KEPT_CASE, KEPT, READ, IN_TMP, IN_OUT, VICTIM, SECRET,
	MOVED, WS, TMP, OUT, ENTRIES
};
static const char *const names[ENTRIES] = {
	[IN_WS] = "ws/in",     [LINK_WS] = "ws/link",    [KEPT_CASE] = "ws/KEPT",
	[KEPT] = "ws/kept",    [READ] = "ws/read",       [IN_TMP] = "tmp/in",
	[IN_OUT] = "out/in",   [VICTIM] = "out/victim",  [SECRET] = "out/secret",
	[MOVED] = "ws/moved",  [WS] = "ws",              [TMP] = "tmp",
	[OUT] = "out",
};

/* The paths go to the profile and the script; this process reaches every
 * entry through fd, the base opened without following links, and each
 * directory below it the same way, so that whatever a process in the
 * workspace does to the scratch meanwhile (a directory swapped for a
 * link) leads nothing here outside the base. */
typedef struct scratch {
	char base[PATH_MAX];
	char path[ENTRIES][PATH_MAX + 16];
	int fd;
} scratch;

/* entry's directory (fd: s->fd itself, or one opened below it, to close
 * when not s->fd) and its last name; false when the directory is not
 * one. */
static bool entry_at(const scratch *s, int entry, int *dir, const char **name)
{
	const char *slash = strchr(names[entry], '/');
	char sub[8];

	*dir = s->fd;
	*name = names[entry];
	if (slash == NULL)
		return true;
	snprintf(sub, sizeof(sub), "%.*s", (int)(slash - names[entry]),
		 names[entry]);
	*name = slash + 1;
	*dir = openat(s->fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					  O_CLOEXEC);
	return *dir >= 0;
}

static void entry_done(const scratch *s, int dir)
{
	if (dir >= 0 && dir != s->fd)
		close(dir);
}

/* Whether entry is there (never following a link). */
static bool exists(const scratch *s, int entry)
{
	struct stat st;
	const char *name;
	int dir;
	bool there = entry_at(s, entry, &dir, &name) &&
		     fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;

	entry_done(s, dir);
	return there;
}

/* A file made for the script, with text. */
static bool make_file(const scratch *s, int entry, const char *text)
{
	const char *name;
	int dir, fd = -1;
	bool ok = entry_at(s, entry, &dir, &name) &&
		  (fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL |
						  O_NOFOLLOW | O_CLOEXEC,
			       0600)) >= 0 &&
		  write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0 && close(fd) != 0)
		ok = false;
	entry_done(s, dir);
	return ok;
}

static void scratch_remove(const scratch *s)
{
	for (int e = 0; s->fd >= 0 && e < ENTRIES; e++) {
		const char *name;
		int dir;

		if (entry_at(s, e, &dir, &name) && unlinkat(dir, name, 0) != 0)
			unlinkat(dir, name, AT_REMOVEDIR);
		entry_done(s, dir);
	}
	if (s->fd >= 0)
		close(s->fd);
	/* (a link or another directory put in its place is removed if
	 * empty, never followed) */
	rmdir(s->base);
}

/* Whether the directory open at fd has no entry. */
static bool empty_dir(int fd)
{
	int copy = dup(fd);
	DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
	struct dirent *e;
	bool empty = d != NULL;

	if (d == NULL && copy >= 0)
		close(copy);
	while (d != NULL && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = false;
	if (d != NULL)
		closedir(d);
	return empty;
}

/* A fresh scratch directory in parent, a resolved path (Seatbelt matches
 * resolved paths: /private/tmp, not /tmp). A directory put in its place
 * between mkdtemp and open that already holds entries is not used, nor
 * cleaned: only its name is removed, should it be empty by then. */
static bool scratch_make(scratch *s, const char *parent)
{
	s->fd = -1;
	if ((size_t)snprintf(s->base, sizeof(s->base), "%s/.sandy-probe-XXXXXX",
			     parent) >= sizeof(s->base) - 16 ||
	    mkdtemp(s->base) == NULL) {
		s->base[0] = '\0';
		return false;
	}
	s->fd = open(s->base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->fd >= 0 && !empty_dir(s->fd)) {
		close(s->fd);
		s->fd = -1;
	}
	for (int e = 0; e < ENTRIES; e++)
		snprintf(s->path[e], sizeof(s->path[e]), "%s/%s", s->base,
			 names[e]);
	return s->fd >= 0 && mkdirat(s->fd, names[WS], 0700) == 0 &&
	       mkdirat(s->fd, names[TMP], 0700) == 0 &&
	       mkdirat(s->fd, names[OUT], 0700) == 0 &&
	       make_file(s, VICTIM, "") && make_file(s, SECRET, "secret\n");
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
	const struct sandy_seatbelt_read secret = {s->path[SECRET],
						   SANDY_SEATBELT_FILE};
	const struct sandy_seatbelt_write keep = {s->path[KEPT],
						  SANDY_SEATBELT_KEEP_FILE};
	/* (the protected rules under workspace-write, whose marks only a
	 * writing run can leave: a missing name kept, a file outside) */
	const sandy_seatbelt_call call = {.mode = mode,
					  .root = writes ? s->path[WS] : NULL,
					  .temp_dir = writes ? s->path[TMP] : NULL,
					  .reads = &secret,
					  .n_reads = writes ? 1 : 0,
					  .writes = &keep,
					  .n_writes = writes ? 1 : 0};
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
	/* (on a volume that ignores case, KEPT is kept: a missing protected
	 * name made in another case, .git/COMMONDIR, would be read as it) */
	else if (exists(s, KEPT))
		why = "let a write into a protected path land (in its own or "
		      "another letter case)";
	else if (exists(s, READ))
		why = "let a protected file be read";
	free(full);
	sandy_argv_free(w);
	return why;
}

/* mode's profile in a fresh scratch directory in parent (on the heap:
 * 13 KiB, and worker threads share the addon); NULL when it holds. */
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
