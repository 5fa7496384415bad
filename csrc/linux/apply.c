/* Applying a resolved policy to the calling (launcher) process on Linux.
 *
 * Order, and why:
 *  0. The plan (plan.c), nothing looked at but the policy and the host's
 *     Landlock ABI (read once for the whole apply, after the process is
 *     known to be single-threaded, the one check before it): what Linux
 *     cannot represent is refused here (Unsupported: Landlock ABI >= 6
 *     must exist, >= 4 to block TCP; a private temp area needs the full
 *     level), and every decision that needs no filesystem is made once:
 *     the Landlock rule paths and rights, the view's mount plan, the
 *     seccomp filter. The steps below carry it out and decide only what
 *     needs the objects themselves. It is freed in one place, here.
 *  1. Preparation, nothing changed yet (errors: PreparationFailed, or
 *     Unsupported for a host lacking a mechanism): the process must be
 *     single-threaded (unshare(CLONE_NEWUSER) and a per-thread Landlock
 *     domain would otherwise leave threads outside); the signals the
 *     launcher's supervisors take are blocked before any fork
 *     (processes.c); no inherited directory descriptor may reach beneath
 *     the view, nor, where the policy restricts execution, any file a
 *     loader could map executable on its own mount; the Landlock-only
 *     level refuses uid 0; the names on the way to each deny are watched
 *     from the process that stays outside (watch.c: the host's rename of
 *     one would detach the view's mount on it, or, at the Landlock-only
 *     level, put an object with rules of its own there), and every path
 *     is pinned by descriptor while it still names what resolution saw.
 *  2. unshare user+mount+IPC+PID(+network) namespaces, identity id maps,
 *     private propagation. This is the first irreversible step: from here
 *     on a failure is EnforcementFailed (ENOSYS still says Unsupported).
 *  3. Fork: this process stays outside the new PID namespace and only
 *     supervises (processes.c says what each process does); its child,
 *     pid 1 of the namespace, goes on.
 *  4. The view, built from the plan and the pinned descriptors while the
 *     init still holds every capability of its new user namespace, with
 *     the namespace's own /proc; pivot_root and detach the old root;
 *     re-enter the working directory.
 *  5. An anonymous session keyring replaces the inherited one;
 *     no_new_privs (required by Landlock and seccomp for an unprivileged
 *     caller, and it stops set-id and file capabilities at exec), then
 *     Landlock, which opens its rule paths inside the view, then the
 *     capabilities are dropped (bounding, ambient, then the sets; the
 *     mount and Landlock steps needed them).
 *  6. Fork: the init stays as the namespace's reaper; its child is the
 *     command, which loads seccomp last, because its filter denies
 *     syscalls the earlier steps use (fork among them), and gets the
 *     caller's signal mask back.
 * The Landlock-only level (no user namespaces on the host) skips 2 to 4:
 * after 1 it forks the reaper, which forks the command (processes.c), and
 * the command does 5 and loads seccomp.
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "linux.h"
#include "../core/sys.h"
#include "../core/stat.h"


/* Test builds only (csrc/Makefile's layers): layers switched off, so the
 * confinement suite can prove what each layer stops on its own. The view
 * layer is the namespaces, pinning, the descriptor checks and the view;
 * the base layer (off only in the build that confines nothing) is the
 * keyring, no_new_privs and the capability drop. A release build never
 * defines these. */
#ifdef SANDY_TEST_SKIP_VIEW
#define VIEW_LAYER 0
#else
#define VIEW_LAYER 1
#endif
#ifdef SANDY_TEST_SKIP_LANDLOCK
#define LANDLOCK_LAYER 0
#else
#define LANDLOCK_LAYER 1
#endif
#ifdef SANDY_TEST_SKIP_SECCOMP
#define SECCOMP_LAYER 0
#else
#define SECCOMP_LAYER 1
#endif
#ifdef SANDY_TEST_SKIP_BASE
#define BASE_LAYER 0
#else
#define BASE_LAYER 1
#endif

/* /proc/<pid>/task has one link per thread plus "." and "..": a single
 * stat instead of parsing /proc/self/status. */
static int check_single_threaded(sandy_error *err)
{
	struct stat st;

	if (sandy_stat(AT_FDCWD, "/proc/self/task", 0, &st) != 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "threads: cannot count threads (errno %d)",
				  errno);
	if (st.st_nlink != 3)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "threads: the process is not single-threaded");
	return 0;
}

static int replace_keyring(sandy_error *err)
{
	/* ENOSYS: no keyrings in this kernel, so none can be inherited. */
	if (sys_keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0) < 0 &&
	    errno != ENOSYS)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "keyring: replacing the session keyring failed (errno %d)",
				  errno);
	return 0;
}

static int get_caps(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};

	return sys_capget(&hdr, data);
}

static bool may_setpcap(const struct __user_cap_data_struct data[2])
{
	return (data[CAP_TO_INDEX(CAP_SETPCAP)].effective &
		CAP_TO_MASK(CAP_SETPCAP)) != 0;
}

/* Bounding set and securebits need CAP_SETPCAP, which the process has in
 * its own user namespace. Without it (Landlock-only level, unprivileged)
 * there is nothing in the permitted set to keep, and no_new_privs caps
 * whatever an exec could add at the (empty) permitted set. */
static int drop_bounding_and_lock(sandy_error *err)
{
	int bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
		   SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
		   SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
		   SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

	for (unsigned long cap = 0; cap < 64; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL)
			break; /* past the kernel's last capability */
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "capabilities: bounding set drop failed (errno %d)",
				  errno);
	}
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "capabilities: securebits failed (errno %d)",
				  errno);
	return 0;
}

static int drop_capabilities(sandy_error *err)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {{0, 0, 0}, {0, 0, 0}};

	if (get_caps(data) != 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "capabilities: capget failed (errno %d)",
				  errno);
	if (may_setpcap(data) && drop_bounding_and_lock(err) != 0)
		return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 &&
	    errno != EINVAL)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "capabilities: ambient clear failed (errno %d)",
				  errno);
	data[0] = data[1] = (struct __user_cap_data_struct){0, 0, 0};
	if (sys_capset(&hdr, data) != 0 || get_caps(data) != 0 ||
	    (data[0].permitted | data[1].permitted | data[0].effective |
	     data[1].effective | data[0].inheritable | data[1].inheritable))
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "capabilities: dropping them failed");
	return 0;
}


/* Step 5, for both levels: in the init and the command it forks, or in
 * the Landlock-only level's command. */
static int restrict_self(const sandy_plan *p, sandy_error *err)
{
	if (BASE_LAYER && replace_keyring(err) != 0)
		return -1;
	if (BASE_LAYER && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "no_new_privs failed (errno %d)", errno);
	if (LANDLOCK_LAYER && sandy_landlock_restrict(&p->landlock, err) != 0)
		return -1;
	return BASE_LAYER ? drop_capabilities(err) : 0;
}

/* The command's last steps before its exec. */
static int finish_command(const sandy_plan *p, sandy_procs *procs,
			  sandy_error *err)
{
	if (SECCOMP_LAYER && sandy_seccomp_load(p->seccomp_variant, err) != 0)
		return -1;
	return sandy_procs_command(procs, err);
}

/* Steps 2 to 4, in the process that ends up the init. */
static int enter_view(const sandy_resolved *r, const sandy_plan *p,
		      sandy_procs *procs, sandy_error *err)
{
	sandy_view view;
	pid_t init;
	int rc;

	if (sandy_refuse_inherited_dirs(err) != 0 ||
	    sandy_view_pin(r, &view, err) != 0)
		return -1;
	rc = sandy_namespaces_enter(&p->view, err);
	if (rc == 0) {
		init = sandy_procs_fork_init(procs, err);
		if (init > 0) {
			/* the outer process keeps nothing of the host */
			sandy_view_release(&view);
			return sandy_procs_outer(procs, init, err);
		}
		rc = init < 0 ? -1 : sandy_view_build(&p->view, &view, err);
	}
	/* what the view holds with mounts, for the init to look at */
	if (rc == 0) {
		sandy_procs_hold(procs, view.mounted, view.n_mounted);
		view.mounted = NULL;
	}
	sandy_view_release(&view);
	return rc;
}

static int apply_full(const sandy_resolved *r, const sandy_plan *p,
		      sandy_procs *procs, sandy_error *err)
{
	if (VIEW_LAYER && enter_view(r, p, procs, err) != 0)
		return -1;
	if (restrict_self(p, err) != 0 ||
	    (VIEW_LAYER && sandy_procs_init(procs, err) != 0))
		return -1;
	return finish_command(p, procs, err);
}

/* The reaper needs Landlock's signal scoping: builds without that layer
 * run the command in this process. */
static int apply_landlock_only(const sandy_plan *p, sandy_procs *procs,
			       sandy_error *err)
{
	if ((LANDLOCK_LAYER && sandy_procs_reaper(procs, err) != 0) ||
	    restrict_self(p, err) != 0)
		return -1;
	return finish_command(p, procs, err);
}

int sandy_runs_as_root(void)
{
	uid_t ruid, euid, suid;

	if (getresuid(&ruid, &euid, &suid) != 0)
		return -1;
	return ruid == 0 || euid == 0 || suid == 0;
}

/* The plan refuses uid 0 at the Landlock-only level. */
static int check_landlock_only_uid(const sandy_plan *p, sandy_error *err)
{
	int root = sandy_runs_as_root();

	if (root < 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "uid: getresuid failed (errno %d)", errno);
	return sandy_plan_admit_uid(p, root != 0, err);
}

/* Everything after step 0. */
static int apply_planned(const sandy_resolved *r, const sandy_plan *p,
			 sandy_apply_level level, const sandy_own_words *w,
			 sandy_watch *watch, sandy_error *err)
{
	sandy_procs procs;

	if (VIEW_LAYER && sandy_refuse_executable_files(r, err) != 0)
		return -1;
	if (level == SANDY_APPLY_LANDLOCK_ONLY &&
	    check_landlock_only_uid(p, err) != 0)
		return -1;
	if (watch->fd >= 0 && (level != SANDY_APPLY_FULL || !VIEW_LAYER))
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "watched names need the full level");
	if ((level == SANDY_APPLY_LANDLOCK_ONLY ? LANDLOCK_LAYER : VIEW_LAYER) &&
	    sandy_watch_hold(watch, p->holds, p->n_holds, err) != 0)
		return -1;
	if (sandy_procs_begin(&procs, w->words, w->n, watch, err) != 0)
		return -1;
	return level == SANDY_APPLY_LANDLOCK_ONLY
		       ? apply_landlock_only(p, &procs, err)
		       : apply_full(r, p, &procs, err);
}

int sandy_apply(const sandy_resolved *r, sandy_apply_level level,
		const sandy_own_words *w, sandy_watch *watch,
		sandy_error *err)
{
	sandy_host_facts facts;
	sandy_plan plan;
	int rc;

	if (check_single_threaded(err) != 0)
		return -1;
	facts = (sandy_host_facts){
		.landlock_abi = sandy_landlock_abi(),
		.with_view = level == SANDY_APPLY_FULL,
	};
	if (sandy_make_plan(r, &facts, &plan, err) != 0)
		return -1;
	rc = apply_planned(r, &plan, level, w, watch, err);
	sandy_plan_free(&plan);
	return rc;
}
