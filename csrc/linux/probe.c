/* The launcher's probe mode on Linux (probe.h): every fact a backend
 * depends on is measured by the code that enforces it, so the probe and
 * the launcher cannot disagree. The steps that change a process run in
 * short-lived forked children (sandy_run_child) on a minimal policy ("/"
 * exact read, as the seam's modes have it, /dev/null, a cloned node, and
 * /proc, the PID namespace's own):
 *   namespaces  the view's plan, sandy_view_pin, sandy_namespaces_enter,
 *               then in its child, pid 1 of the new PID namespace,
 *               sandy_new_proc and sandy_view_build:
 *               user_namespaces (with the failing step; denied when a
 *               step after the namespace was made got EPERM),
 *               pid_namespace (with why not), mount_api
 *   filters     no_new_privs, then sandy_seccomp_load: seccomp_filter
 * and in this process, changing nothing: Ubuntu's AppArmor restriction of
 * user namespaces (its sysctl), Landlock's ABI and errata
 * (landlock.c), openat2 (the view's own helper), the uid rule of the
 * Landlock-only level (apply.c), and bubblewrap, run as a program with a
 * deadline: found in a fixed directory, --version, and a trial sandbox. */
#include "../core/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/policy.h"
#include "../core/run.h"
#include "../core/stat.h"
#include "linux.h"
#include "../core/sys.h"

#define CHILD_TIMEOUT_MS 2000
#define BWRAP_TIMEOUT_MS 3000

/* Fixed, root-owned directories only: a PATH entry could be writable by
 * the code we are about to confine. */
static const char *const bwrap_dirs[] = {"/usr/bin", "/bin", "/usr/local/bin"};

/* A child's answer: one status letter, then the error's message. */
enum {
	ANSWER_OK = '0',
	ANSWER_PREPARE = 'P', /* the probe policy itself: nothing measured */
	ANSWER_NAMESPACES = 'N',
	/* made, then a step that needs their capabilities refused: EPERM */
	ANSWER_NAMESPACES_DENIED = 'D',
	ANSWER_PROC = 'C', /* pid 1 of the new namespace mounts no /proc */
	ANSWER_VIEW = 'V',
	ANSWER_NO_NEW_PRIVS = 'R',
	ANSWER_SECCOMP = 'S',
};

static void answer(char a[SANDY_RUN_ANSWER], char status,
		   const sandy_error *err)
{
	const char *m = err != NULL ? err->message : "";
	size_t n = strnlen(m, SANDY_RUN_ANSWER - 2);

	a[0] = status;
	memcpy(a + 1, m, n);
	a[n + 1] = '\0';
}

/* The working directory "/": what every seam policy has. */
static int probe_policy(sandy_resolved *r, sandy_error *err)
{
	sandy_policy p;
	int rc;

	sandy_policy_init(&p, SANDY_NETWORK_ALLOW_ALL);
	p.allow_subprocesses = true;
	rc = sandy_policy_grant(&p, "/", 1, SANDY_ACCESS_READ,
				SANDY_SCOPE_EXACT) != 0 ||
		     sandy_policy_grant(&p, "/dev/null", 9,
					SANDY_ACCESS_READ_WRITE,
					SANDY_SCOPE_EXACT) != 0 ||
		     sandy_policy_grant(&p, "/proc", 5, SANDY_ACCESS_READ,
					SANDY_SCOPE_SUBTREE) != 0
		     ? sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "out of memory")
		     : sandy_resolve(&p, "/", r, err);
	sandy_policy_free(&p);
	return rc;
}

typedef struct view_trial {
	sandy_view_plan p;
	sandy_view v;
	int host_proc; /* the pin of the host's /proc */
} view_trial;

static int proc_pin(const sandy_resolved *r, const sandy_view *v)
{
	for (size_t i = 0; i < r->n_grants; i++)
		if (strcmp(r->grants[i].path, "/proc") == 0)
			return v->grants[i].fd;
	return -1; /* (unreachable: probe_policy grants it) */
}

/* pid 1 of the new PID namespace, as the launcher's init: its own /proc
 * first (the one step only such a process can take), then the view. */
static void init_child(char a[SANDY_RUN_ANSWER], void *arg)
{
	view_trial *t = arg;
	sandy_error err = {0};
	int proc = sandy_new_proc(t->host_proc);

	if (proc < 0) {
		sandy_fail(&err, SANDY_ERR_ENFORCEMENT_FAILED,
			   "a /proc of its own cannot be mounted (errno %d)",
			   errno);
		answer(a, ANSWER_PROC, &err);
		return;
	}
	close(proc);
	if (sandy_view_build(&t->p, &t->v, &err) != 0)
		answer(a, ANSWER_VIEW, &err);
	else
		answer(a, ANSWER_OK, NULL);
}

/* Whether an LSM refused the namespaces, as AppArmor's restriction does:
 * a step after the namespace was made (the setgroups and id-map writes,
 * private propagation: errors past unshare are enforcement failures,
 * linux/namespaces.c) refused with EPERM or EACCES, or unshare itself
 * with EACCES (AppArmor without its unprivileged_userns profile); never
 * unshare's EPERM, which a sysctl or seccomp rule gives as well. */
static bool lsm_refused(const sandy_error *err)
{
	if (err->kind == SANDY_ERR_ENFORCEMENT_FAILED)
		return err->errnum == EPERM || err->errnum == EACCES;
	return err->errnum == EACCES;
}

static void namespaces_child(char a[SANDY_RUN_ANSWER], void *arg)
{
	sandy_resolved r;
	view_trial t;
	sandy_error err = {0};
	char why[SANDY_PROBE_TEXT];

	/* (a short-lived child: what it holds ends with it) */
	(void)arg;
	if (probe_policy(&r, &err) != 0 ||
	    sandy_plan_view(&r, &t.p, &err) != 0 ||
	    sandy_view_pin(&r, &t.v, &err) != 0) {
		answer(a, ANSWER_PREPARE, &err);
		return;
	}
	if (sandy_namespaces_enter(&t.p, &err) != 0) {
		answer(a, lsm_refused(&err) ? ANSWER_NAMESPACES_DENIED
					    : ANSWER_NAMESPACES,
		       &err);
		return;
	}
	t.host_proc = proc_pin(&r, &t.v);
	if (!sandy_run_child(init_child, &t, CHILD_TIMEOUT_MS, a, why,
			     sizeof(why))) {
		sandy_fail(&err, SANDY_ERR_ENFORCEMENT_FAILED, "%s", why);
		answer(a, ANSWER_PROC, &err);
	}
}

static void filters_child(char a[SANDY_RUN_ANSWER], void *arg)
{
	const sandy_host_facts facts = {.with_view = true};
	sandy_resolved r;
	sandy_error err = {0};

	(void)arg;
	if (probe_policy(&r, &err) != 0) {
		answer(a, ANSWER_PREPARE, &err);
	} else if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		sandy_fail(&err, SANDY_ERR_ENFORCEMENT_FAILED,
			   "no_new_privs failed (errno %d)", errno);
		answer(a, ANSWER_NO_NEW_PRIVS, &err);
	} else if (sandy_seccomp_load(sandy_plan_seccomp(&r, &facts), &err) !=
		   0) {
		answer(a, ANSWER_SECCOMP, &err);
	} else {
		answer(a, ANSWER_OK, NULL);
	}
}

static void probe_namespaces(sandy_probe_report *r)
{
	char a[SANDY_RUN_ANSWER];
	char *why = r->user_namespaces_detail;
	size_t len = sizeof(r->user_namespaces_detail);

	if (!sandy_run_child(namespaces_child, NULL, CHILD_TIMEOUT_MS, a, why,
			     len))
		return;
	if (a[0] == ANSWER_OK || a[0] == ANSWER_VIEW || a[0] == ANSWER_PROC) {
		r->user_namespaces = true;
		r->pid_namespace = a[0] != ANSWER_PROC;
		r->mount_api = a[0] == ANSWER_OK;
		if (a[0] == ANSWER_VIEW)
			snprintf(r->mount_api_detail,
				 sizeof(r->mount_api_detail), "%s", a + 1);
		if (a[0] == ANSWER_PROC)
			snprintf(r->pid_namespace_detail,
				 sizeof(r->pid_namespace_detail), "%s", a + 1);
		return;
	}
	r->user_namespaces_denied = a[0] == ANSWER_NAMESPACES_DENIED;
	snprintf(why, len, "%s", a + 1);
}

static void probe_filters(sandy_probe_report *r)
{
	char a[SANDY_RUN_ANSWER], why[SANDY_PROBE_TEXT];

	if (!sandy_run_child(filters_child, NULL, CHILD_TIMEOUT_MS, a, why,
			     sizeof(why)))
		return;
	r->no_new_privs = a[0] == ANSWER_OK || a[0] == ANSWER_SECCOMP;
	r->seccomp_filter = a[0] == ANSWER_OK;
}

/* Ubuntu's AppArmor restriction of unprivileged user namespaces
 * (docs/apparmor.md): its sysctl reads 1. Test builds (csrc/Makefile's
 * apparmor) take it as set: Debian's kernels lack the patch. */
static bool userns_restricted(void)
{
#ifdef SANDY_TEST_APPARMOR_RESTRICTED
	return true;
#else
	char c = 0;
	int fd = open("/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
		      O_RDONLY | O_CLOEXEC);
	bool set = fd >= 0 && read(fd, &c, 1) == 1 && c == '1';

	if (fd >= 0)
		close(fd);
	return set;
#endif
}

static void probe_kernel(sandy_probe_report *r)
{
	struct utsname u;
	int fd;

	snprintf(r->platform, sizeof(r->platform), "linux");
	snprintf(r->kernel_release, sizeof(r->kernel_release), "%s",
		 uname(&u) == 0 ? u.release : "unknown");
	r->user_namespaces_restricted = userns_restricted();
	r->landlock_abi = sandy_landlock_abi();
	r->landlock_errata = r->landlock_abi > 0 ? sandy_landlock_errata() : 0;
	fd = sandy_open_how(AT_FDCWD, "/", O_PATH | O_CLOEXEC,
			    RESOLVE_NO_MAGICLINKS);
	r->openat2 = fd >= 0;
	if (fd >= 0)
		close(fd);
	/* an error reads as root: the Landlock-only level refuses both */
	r->root_user = sandy_runs_as_root() != 0;
}

/* ---- bubblewrap ------------------------------------------------------ */

static bool find_bwrap(sandy_probe_report *r)
{
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(bwrap_dirs) / sizeof(bwrap_dirs[0]); i++) {
		snprintf(r->bwrap_path, sizeof(r->bwrap_path), "%s/bwrap",
			 bwrap_dirs[i]);
		if (sandy_stat(AT_FDCWD, r->bwrap_path, 0, &st) == 0 &&
		    S_ISREG(st.st_mode) &&
		    access(r->bwrap_path, X_OK) == 0)
			return true;
	}
	r->bwrap_path[0] = '\0';
	return false;
}

/* Returns false when `bwrap --version` hangs: such a bwrap is broken and
 * a second run would only double the wait. */
static bool bwrap_version(sandy_probe_report *r, sandy_run_result *res)
{
	static const char prefix[] = "bubblewrap ";
	char *argv[] = {r->bwrap_path, "--version", NULL};
	char why[SANDY_PROBE_TEXT], line[sizeof(r->bwrap_version)];

	if (!sandy_run_program(argv, BWRAP_TIMEOUT_MS, res, why, sizeof(why)))
		return true;
	if (res->wait == SANDY_WAIT_TIMED_OUT) {
		snprintf(r->bwrap_detail, sizeof(r->bwrap_detail),
			 "bwrap --version timed out after %d ms",
			 BWRAP_TIMEOUT_MS);
		return false;
	}
	if (res->wait != SANDY_WAIT_EXITED || res->status != 0)
		return true;
	sandy_first_line(res->out, line, sizeof(line));
	snprintf(r->bwrap_version, sizeof(r->bwrap_version), "%s",
		 strncmp(line, prefix, sizeof(prefix) - 1) == 0
			 ? line + sizeof(prefix) - 1
			 : line);
	return true;
}

/* bwrap_detail: "exit status 1: bwrap: <first stderr line>" and so on.
 * The trial has what the backend's argv needs of bubblewrap: user and
 * PID namespaces of its own and a fresh /proc (a host that masks parts of
 * /proc refuses the last). */
static void bwrap_try(sandy_probe_report *r, sandy_run_result *res)
{
	char *argv[] = {r->bwrap_path, "--unshare-user", "--unshare-pid",
			"--ro-bind", "/", "/", "--proc", "/proc", "true", NULL};
	char *d = r->bwrap_detail;
	size_t len = sizeof(r->bwrap_detail), used;

	if (!sandy_run_program(argv, BWRAP_TIMEOUT_MS, res, d, len))
		return;
	if (res->wait == SANDY_WAIT_EXITED && WIFEXITED(res->status) &&
	    WEXITSTATUS(res->status) == 0) {
		r->bwrap_works = true;
		return;
	}
	sandy_describe_end(res->wait, res->status, BWRAP_TIMEOUT_MS, d, len);
	used = strlen(d);
	if (res->err[0] != '\0' && used + 3 < len) {
		snprintf(d + used, len - used, ": ");
		sandy_first_line(res->err, d + used + 2, len - used - 2);
	}
}

static void probe_bwrap(sandy_probe_report *r)
{
	static sandy_run_result res;

	r->bwrap_found = find_bwrap(r);
	if (!r->bwrap_found)
		return;
	if (bwrap_version(r, &res))
		bwrap_try(r, &res);
}

void sandy_probe_run(sandy_probe_report *r)
{
	memset(r, 0, sizeof(*r));
	probe_kernel(r);
	probe_namespaces(r);
	probe_filters(r);
	probe_bwrap(r);
	r->launcher_ok = true;
	sandy_probe_judge(r);
}
