/* The `sandy` and `landlock` backends' words (sandy.h): the launcher's
 * policy for a seam mode and its argv, and the two levels' dialects. */
#include "sandy.h"

#include <dirent.h>
#include <stdbool.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/kernel_fs.h"
#include "../core/protocol.h"
#include "../core/policy_argv.h"
#include "../core/secret_env.h"
#include "../core/stat.h"

/* ---- dialects --------------------------------------------------------- */

/* What common tools print for the errno values each backend produces when
 * it blocks a file effect (strerror texts, shared by coreutils, sh, bash,
 * python and node). */
static const char *const launcher_denials[] = {
	"Permission denied",       /* EACCES: Landlock */
	"Read-only file system",   /* EROFS: read-only mounts of the view */
	"Operation not permitted", /* EPERM: seccomp, mount attributes */
	NULL,
};
/* Without a view there are no read-only mounts: Landlock and seccomp only. */
static const char *const landlock_denials[] = {
	"Permission denied",       /* EACCES: Landlock */
	"Operation not permitted", /* EPERM: seccomp */
	NULL,
};

static const int launcher_exit_codes[] = {SANDY_LAUNCHER_EXIT_FAILURE, 0};
static const char *const launcher_fatal[] = {"sandy-launcher: fatal:", NULL};
static const sandy_runner_rule launcher_rules[] = {
	{launcher_exit_codes, launcher_fatal, NULL},
};

const sandy_dialect sandy_launcher_dialect = {
	launcher_denials, launcher_rules, 1, {"view", "view", "launcher", "view", "watch"}};
const sandy_dialect sandy_landlock_dialect = {
	landlock_denials, launcher_rules, 1, {"landlock", NULL, "launcher", NULL,
						  "watch"}};

/* ---- the launcher's policy for a seam mode ---------------------------- */

/* workspace-write at the full level gets a private /tmp */
static bool private_tmp(sandy_mode mode, sandy_seam_level level)
{
	return mode == SANDY_MODE_WORKSPACE_WRITE && level == SANDY_SEAM_FULL;
}

static bool is_one_of(const char *name, const char *const *names)
{
	for (size_t i = 0; names[i] != NULL; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Top-level entries not granted wholesale: /dev gets its devices one by
 * one (grant_devices), and a private /tmp replaces the host's. */
static bool skipped_top_level(const char *name, bool own_tmp)
{
	static const char *const always[] = {".", "..", "dev", NULL};

	return is_one_of(name, always) || (own_tmp && strcmp(name, "tmp") == 0);
}

/* Reads and execution everywhere: each top-level directory of the host as
 * a read (+ execute) subtree; the root itself may only be granted exact
 * read. Top-level symlinks (/bin -> usr/bin) are left to the view, which
 * recreates them. */
static int grant_host_tree(bool own_tmp, sandy_policy *out)
{
	DIR *d = opendir("/");
	struct dirent *e;
	char path[NAME_MAX + 2];
	int rc = 0;

	if (d == NULL)
		return -1;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (e->d_type != DT_DIR || skipped_top_level(e->d_name, own_tmp))
			continue;
		path[0] = '/';
		strcpy(path + 1, e->d_name);
		rc = sandy_policy_grant(out, path, strlen(path),
					SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
		/* the kernel's own trees are read, never executed from */
		if (rc == 0 && !sandy_kernel_tree(path, false))
			rc = sandy_policy_allow_execute(out, path, strlen(path),
							SANDY_SCOPE_SUBTREE);
	}
	closedir(d);
	return rc;
}

static int grant_devices(sandy_policy *out)
{
	static const char *const readable[] = {"/dev/zero", "/dev/full",
					       "/dev/random", "/dev/urandom",
					       NULL};
	size_t i;
	struct stat st;

	/* /dev/null is the one sink every mode permits. */
	if (sandy_policy_grant(out, "/dev/null", 9, SANDY_ACCESS_READ_WRITE,
			       SANDY_SCOPE_EXACT) != 0)
		return -1;
	for (i = 0; readable[i] != NULL; i++) {
		if (sandy_stat(AT_FDCWD, readable[i], 0, &st) != 0)
			continue; /* a minimal /dev: grant what exists */
		if (sandy_policy_grant(out, readable[i], strlen(readable[i]),
				       SANDY_ACCESS_READ,
				       SANDY_SCOPE_EXACT) != 0)
			return -1;
	}
	return 0;
}

/* A writable directory of workspace-write: written, and run from. */
static int grant_writable(sandy_policy *out, const char *root)
{
	return sandy_policy_grant(out, root, strlen(root),
				  SANDY_ACCESS_READ_WRITE,
				  SANDY_SCOPE_SUBTREE) != 0 ||
	       sandy_policy_allow_execute(out, root, strlen(root),
					  SANDY_SCOPE_SUBTREE) != 0;
}

int sandy_seam_policy(sandy_mode mode, sandy_seam_level level,
		      const sandy_writable_root *roots, size_t n_roots,
		      sandy_policy *out, sandy_error *err)
{
	sandy_policy_init(out, SANDY_NETWORK_ALLOW_ALL);
	out->allow_subprocesses = true;
	if (sandy_policy_grant(out, "/", 1, SANDY_ACCESS_READ,
			       SANDY_SCOPE_EXACT) != 0 ||
	    grant_host_tree(private_tmp(mode, level), out) != 0 ||
	    grant_devices(out) != 0)
		goto fail;
	for (size_t i = 0; mode == SANDY_MODE_WORKSPACE_WRITE && i < n_roots;
	     i++)
		if (grant_writable(out, roots[i].path) != 0)
			goto fail;
	return 0;
fail:
	sandy_policy_free(out);
	return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			  "cannot list the host's top-level directories");
}

int sandy_seam_protect(sandy_policy *p, const char *const *dirs, size_t n,
		       sandy_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (sandy_policy_deny_write_exact(p, dirs[i], strlen(dirs[i])) !=
		    0)
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "protect[%zu]: cannot be added", i);
	return 0;
}

char **sandy_seam_launcher_argv(const sandy_policy *p, sandy_mode mode,
				sandy_seam_level level, const char *nonce,
				const sandy_writable_root *roots,
				size_t n_roots, const sandy_seam_shield *s,
				size_t *count)
{
	struct sandy_launch_pin pins[SANDY_GUARD_ROOTS_MAX];
	sandy_launch l = {.policy = *p,
			  .landlock_only = level == SANDY_SEAM_LANDLOCK_ONLY,
			  .canonical = true,
			  .nonce = nonce,
			  .pins = pins,
			  .scrub_env = true,
			  .n_keep_env = s->n_keep_env};

	if (n_roots > SANDY_GUARD_ROOTS_MAX ||
	    s->n_reads > SANDY_DENY_READS_MAX ||
	    s->n_keep_env > SANDY_KEEP_ENV_MAX ||
	    s->n_watches > SANDY_WATCHES_MAX ||
	    (s->n_watches > 0 && (mode != SANDY_MODE_WORKSPACE_WRITE ||
				  level != SANDY_SEAM_FULL)))
		return NULL;
	for (size_t i = 0; i < s->n_watches; i++)
		l.watches[l.n_watches++] = s->watches[i];
	for (size_t i = 0; mode == SANDY_MODE_WORKSPACE_WRITE && i < n_roots;
	     i++)
		pins[l.n_pins++] = (struct sandy_launch_pin){
			"root", roots[i].path, roots[i].id};
	for (size_t i = 0; i < s->n_reads; i++)
		l.deny_reads[l.n_deny_reads++] = (struct sandy_launch_read){
			s->reads[i].path, s->reads[i].id};
	for (size_t i = 0; i < s->n_keep_env; i++) {
		if (!sandy_env_name_valid(s->keep_env[i]))
			return NULL;
		l.keep_env[i] = s->keep_env[i];
	}
	if (private_tmp(mode, level)) {
		l.tmpfs[l.n_tmpfs++] = "/tmp";
		l.tmpfs[l.n_tmpfs++] = "/dev/shm";
	}
	return sandy_launch_to_argv(&l, count);
}

