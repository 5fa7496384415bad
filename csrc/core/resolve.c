/* Resolution: turns caller intent into effective rules against one
 * working-directory snapshot. Only realpath(3) and sandy_stat (stat.h)
 * touch the filesystem: realpath follows symlinks component by component, so
 * `link/..` names the parent of the link's target, as the kernel would.
 * No chdir, no global state: the addon and the launcher both call this. */
#include "resolve.h"

#include "kernel_fs.h"
#include "paths.h"
#include "stat.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#define NO_INDEX SIZE_MAX

/* Where an entry came from: the only context an error may carry. */
typedef struct where {
	const char *section;
	size_t index;
} where;

static int fail_at(sandy_error *err, sandy_error_kind kind, where w,
		   const char *reason)
{
	if (w.index == NO_INDEX)
		return sandy_fail(err, kind, "%s: %s", w.section, reason);
	return sandy_fail(err, kind, "%s[%zu]: %s", w.section, w.index, reason);
}

static int invalid(sandy_error *err, where w, const char *reason)
{
	return fail_at(err, SANDY_ERR_INVALID_POLICY, w, reason);
}

static int out_of_memory(sandy_error *err, where w)
{
	return fail_at(err, SANDY_ERR_PREPARATION_FAILED, w, "out of memory");
}

/* ---- strings and paths ------------------------------------------------ */

/* a + "/" + b, without doubling the slash after the root. */
static char *path_join(const char *a, const char *b, size_t b_len)
{
	size_t a_len = strlen(a);
	char *joined;

	if (a_len > 0 && a[a_len - 1] == '/')
		a_len--;
	joined = malloc(a_len + 1 + b_len + 1);
	if (joined == NULL)
		return NULL;
	memcpy(joined, a, a_len);
	joined[a_len] = '/';
	memcpy(joined + a_len + 1, b, b_len);
	joined[a_len + 1 + b_len] = '\0';
	return joined;
}

static bool same_text(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static bool is_root(const char *path)
{
	return path != NULL && strcmp(path, "/") == 0;
}

/* ---- filesystem ------------------------------------------------------- */

/* Resource exhaustion is the host's problem, not the caller's policy. */
static bool is_resource_errno(int e)
{
	return e == ENOMEM || e == EMFILE || e == ENFILE || e == ENOBUFS ||
	       e == EAGAIN || e == EINTR || e == EIO;
}

static int errno_fail(sandy_error *err, where w, int e)
{
	switch (e) {
	case ENOENT:
		return invalid(err, w, "path does not exist");
	case ENOTDIR:
		return invalid(err, w,
			       "path does not exist (a component is not a directory)");
	case EACCES:
		return invalid(err, w, "path is not accessible");
	case ELOOP:
		return invalid(err, w, "too many levels of symbolic links");
	case ENAMETOOLONG:
		return invalid(err, w, "path is too long");
	default:
		break;
	}
	if (is_resource_errno(e))
		return fail_at(err, SANDY_ERR_PREPARATION_FAILED, w,
			       "out of resources while resolving the path");
	return invalid(err, w, "path cannot be resolved");
}

/* A resolved spelling must obey the same rules as an input one. */
static int check_resolved(const char *path, where w, sandy_error *err)
{
	size_t len = strlen(path);

	if (len > SANDY_PATH_MAX_BYTES)
		return invalid(err, w, "resolved path is too long");
	if (!sandy_utf8_valid(path, len))
		return invalid(err, w, "resolved path is not valid UTF-8");
	return 0;
}

/* realpath(3) as every libc should answer it on Linux: one leading slash.
 * glibc's folds "//x" to "/x"; musl's keeps exactly two leading slashes
 * (from the input or a link's target), which POSIX allows and Linux treats
 * as one. Both programs compare canonical paths as strings (a deny inside
 * a grant, the launcher's pins against confine's), so a libc's spelling
 * must never decide: fold them here, then refuse anything still not
 * canonical. */
static int fold_leading_slashes(char *path, where w, sandy_error *err)
{
	size_t extra = strspn(path, "/");

	if (extra > 1)
		memmove(path, path + extra - 1, strlen(path + extra - 1) + 1);
	if (path[0] != '/' || strstr(path, "//") != NULL ||
	    (path[1] != '\0' && path[strlen(path) - 1] == '/'))
		return invalid(err, w, "resolved path is not canonical");
	return 0;
}

/* Full resolution of an absolute path; *out is malloc'd. */
static int canonicalize(const char *abs, char **out, where w, sandy_error *err)
{
	*out = realpath(abs, NULL);
	if (*out == NULL)
		return errno_fail(err, w, errno);
	if (fold_leading_slashes(*out, w, err) == 0 &&
	    check_resolved(*out, w, err) == 0)
		return 0;
	free(*out);
	*out = NULL;
	return -1;
}

/* ---- working directory ------------------------------------------------ */

static int cwd_source(const char *cwd, char **abs, sandy_error *err)
{
	where w = {"cwd", NO_INDEX};

	if (cwd != NULL) {
		if (cwd[0] != '/')
			return invalid(err, w, "not an absolute path");
		*abs = strdup(cwd);
		if (*abs == NULL)
			return out_of_memory(err, w);
		return 0;
	}
	*abs = getcwd(NULL, 0);
	if (*abs == NULL)
		return errno_fail(err, w, errno);
	return 0;
}

/* The one snapshot every relative path is joined to: canonical, so that
 * `..` means what it means to a process whose cwd is that directory. */
static int snapshot_cwd(const char *cwd, char **out, sandy_error *err)
{
	where w = {"cwd", NO_INDEX};
	char *abs = NULL;
	struct stat st;
	int rc;

	if (cwd_source(cwd, &abs, err) != 0)
		return -1;
	rc = canonicalize(abs, out, w, err);
	free(abs);
	if (rc != 0)
		return -1;
	if (sandy_stat(AT_FDCWD, *out, 0, &st) != 0)
		rc = errno_fail(err, w, errno);
	else if (!S_ISDIR(st.st_mode))
		rc = invalid(err, w, "not a directory");
	if (rc != 0) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* ---- one input path --------------------------------------------------- */

static int check_input(const sandy_path *p, where w, sandy_error *err)
{
	if (p->bytes == NULL || p->len == 0)
		return invalid(err, w, "path is empty");
	if (strlen(p->bytes) != p->len)
		return invalid(err, w, "path contains a NUL byte");
	if (p->len > SANDY_PATH_MAX_BYTES)
		return invalid(err, w, "path is too long");
	if (!sandy_utf8_valid(p->bytes, p->len))
		return invalid(err, w, "path is not valid UTF-8");
	return 0;
}

/* The path as written, made absolute against the snapshot. */
static int absolute_of(const char *cwd, const sandy_path *p, char **abs,
		       where w, sandy_error *err)
{
	*abs = p->bytes[0] == '/' ? strdup(p->bytes)
				  : path_join(cwd, p->bytes, p->len);
	if (*abs == NULL)
		return out_of_memory(err, w);
	if (strlen(*abs) > SANDY_PATH_MAX_BYTES) {
		free(*abs);
		*abs = NULL;
		return invalid(err, w,
			       "path is too long once joined to the working directory");
	}
	return 0;
}

/* Validates, makes absolute and canonicalizes one entry. *abs (optional)
 * receives the absolute spelling as written. */
static int resolve_input(const char *cwd, const sandy_path *p, where w,
			 char **canonical, char **abs_out, sandy_error *err)
{
	char *abs;
	int rc;

	*canonical = NULL;
	if (check_input(p, w, err) != 0 || absolute_of(cwd, p, &abs, w, err) != 0)
		return -1;
	rc = canonicalize(abs, canonical, w, err);
	if (abs_out != NULL && rc == 0)
		*abs_out = abs;
	else
		free(abs);
	return rc;
}

/* ---- deny spellings --------------------------------------------------- */

/* Splits abs (modified in place) into parent and final component as
 * written. Trailing slashes are not a component. Returns the component,
 * or NULL when there is none that can be kept lexically: the root, ".",
 * "..", whose only meaningful spelling is the canonical one. */
static const char *split_final(char *abs, const char **parent)
{
	size_t len = strlen(abs);
	char *slash, *comp;

	while (len > 1 && abs[len - 1] == '/')
		abs[--len] = '\0';
	slash = strrchr(abs, '/');
	comp = slash + 1;
	if (*comp == '\0' || strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
		return NULL;
	*slash = '\0';
	*parent = slash == abs ? "/" : abs;
	return comp;
}

/* The safe lexical spelling: canonical parent + final component, the
 * final symlink not followed. NULL when it adds nothing. */
static int deny_lexical(char *abs, const char *canonical, char **lexical,
			where w, sandy_error *err)
{
	const char *parent = NULL, *comp = split_final(abs, &parent);
	char *parent_canonical;

	*lexical = NULL;
	if (comp == NULL)
		return 0;
	if (canonicalize(parent, &parent_canonical, w, err) != 0)
		return -1;
	*lexical = path_join(parent_canonical, comp, strlen(comp));
	free(parent_canonical);
	if (*lexical == NULL)
		return out_of_memory(err, w);
	if (strcmp(*lexical, canonical) == 0) {
		free(*lexical);
		*lexical = NULL;
		return 0;
	}
	if (check_resolved(*lexical, w, err) != 0) {
		free(*lexical);
		*lexical = NULL;
		return -1;
	}
	return 0;
}

/* ---- sections --------------------------------------------------------- */

/* Root may only be granted exact read. */
static int check_grant(const sandy_grant *g, const char *canonical, where w,
		       sandy_error *err)
{
	if (is_root(canonical) &&
	    (g->access != SANDY_ACCESS_READ || g->scope != SANDY_SCOPE_EXACT))
		return invalid(err, w, "the root may only be granted exact read");
#ifdef __linux__
	if (g->access == SANDY_ACCESS_READ_WRITE) {
		struct stat st;
		int kernel = sandy_on_kernel_fs(canonical);

		if (kernel < 0 || sandy_stat(AT_FDCWD, canonical, 0, &st) != 0)
			return errno_fail(err, w, errno);
		/* its files check the uid, not capabilities: a confined root
		 * would set sysctls and cgroup controls, or replace the host's
		 * device nodes (a device node's operations are the device's,
		 * granted exactly) */
		if (kernel && !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
			return invalid(err, w,
				       "a kernel filesystem (/proc, /sys, /dev and the like) cannot be granted read_write");
		if (g->scope == SANDY_SCOPE_SUBTREE)
			return 0;
		/* A regular file cannot keep both content mutation and
		 * parent replacement semantics (the seed); an exact directory
		 * is its node only, which the view cannot make writable
		 * without its entries. Exact devices are supported. */
		if (S_ISREG(st.st_mode))
			return invalid(err, w,
				       "exact read_write grants of regular files are not supported on Linux");
		if (S_ISDIR(st.st_mode))
			return invalid(err, w,
				       "exact read_write grants of directories are not supported on Linux");
	}
#endif
	return 0;
}

/* For one identical path and scope, read_write subsumes read. */
static void add_grant(sandy_resolved *r, char *path, sandy_access access,
		      sandy_scope scope)
{
	size_t i;

	for (i = 0; i < r->n_grants; i++) {
		sandy_rgrant *g = &r->grants[i];

		if (g->scope == scope && strcmp(g->path, path) == 0) {
			if (access == SANDY_ACCESS_READ_WRITE)
				g->access = SANDY_ACCESS_READ_WRITE;
			free(path);
			return;
		}
	}
	r->grants[r->n_grants++] = (sandy_rgrant){path, access, scope, {0}};
}

static int resolve_grants(const sandy_policy *p, sandy_resolved *r,
			  sandy_error *err)
{
	size_t i;
	char *canonical;

	for (i = 0; i < p->n_grants; i++) {
		where w = {SANDY_SECTION_KEY(GRANTS), i};

		if (resolve_input(r->cwd, &p->grants[i].path, w, &canonical, NULL,
				  err) != 0)
			return -1;
		if (check_grant(&p->grants[i], canonical, w, err) != 0) {
			free(canonical);
			return -1;
		}
		add_grant(r, canonical, p->grants[i].access, p->grants[i].scope);
	}
	return 0;
}

static void add_exec(sandy_resolved *r, char *path, sandy_scope scope)
{
	size_t i;

	for (i = 0; i < r->n_execs; i++) {
		if (r->execs[i].scope == scope &&
		    strcmp(r->execs[i].path, path) == 0) {
			free(path);
			return;
		}
	}
	r->execs[r->n_execs++] = (sandy_rexec){path, scope, {0}};
}

static int resolve_execs(const sandy_policy *p, sandy_resolved *r,
			 sandy_error *err)
{
	size_t i;
	char *canonical;

	for (i = 0; i < p->n_exec_grants; i++) {
		where w = {SANDY_SECTION_KEY(EXECUTABLE_GRANTS), i};

		if (resolve_input(r->cwd, &p->exec_grants[i].path, w, &canonical,
				  NULL, err) != 0)
			return -1;
		if (is_root(canonical)) {
			free(canonical);
			return invalid(err, w, "the root cannot be granted execution");
		}
		add_exec(r, canonical, p->exec_grants[i].scope);
	}
	return 0;
}

/* Identical denies (both spellings equal) collapse. A deny with fewer
 * spellings is kept beside a wider one: harmless, and simpler to audit. */
static void add_deny(sandy_rdeny *denies, size_t *n, sandy_rdeny d)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (strcmp(denies[i].canonical, d.canonical) == 0 &&
		    same_text(denies[i].lexical, d.lexical)) {
			free(d.canonical);
			free(d.lexical);
			return;
		}
	}
	denies[(*n)++] = d;
}

/* What the view can enforce (checked at confine and again in the
 * launcher, which resolves the same way): a read-only mount blocks writes
 * to regular files, directories and symlinks only, so deny_write_exact on
 * a FIFO, socket or device would not stop a write reaching a host reader;
 * and a denied regular file with another hard link could be reached
 * through that name. */
static int check_denied_object(const char *canonical, bool write_exact,
			       where w, sandy_error *err)
{
	struct stat st;

	if (sandy_stat(AT_FDCWD, canonical, 0, &st) != 0)
		return invalid(err, w, "path is not accessible");
	if (write_exact && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return invalid(err, w,
			       "only a regular file or a directory can be "
			       "denied writing");
	if (S_ISREG(st.st_mode) && st.st_nlink > 1)
		return invalid(err, w,
			       "a file with more than one hard link cannot be "
			       "denied (another name reaches it)");
	return 0;
}

/* Every symlink met while resolving a deny's path, as the kernel follows
 * them, must lie outside the writable grants: a command could re-point
 * one, and every later resolution would deny what it names then while the
 * object meant stays open. The one exception is the deny's own last
 * component as written, whose spelling stays protected (its parent keeps
 * no write right). At most 40 links, as the kernel allows. */
static bool is_writable_subtree(const sandy_rgrant *g)
{
	return g->access == SANDY_ACCESS_READ_WRITE &&
	       g->scope == SANDY_SCOPE_SUBTREE;
}

/* path (a directory the walk has reached, its symlinks resolved) lies in
 * a writable subtree grant: beneath one by its spelling, or the same
 * directory as one, itself or one of its ancestors, by device and inode
 * (a mount can show a grant under another name). */
static bool in_writable_grant(const sandy_resolved *r, const char *path)
{
	char p[SANDY_PATH_MAX_BYTES + 2];
	struct stat st, g;

	for (size_t i = 0; i < r->n_grants; i++)
		if (is_writable_subtree(&r->grants[i]) &&
		    sandy_path_within(r->grants[i].path, path))
			return true;
	snprintf(p, sizeof(p), "%s", path);
	for (;;) {
		char *slash = strrchr(p, '/');

		if (sandy_stat(AT_FDCWD, p, 0, &st) == 0)
			for (size_t i = 0; i < r->n_grants; i++)
				if (is_writable_subtree(&r->grants[i]) &&
				    sandy_stat(AT_FDCWD, r->grants[i].path, 0,
					       &g) == 0 &&
				    g.st_dev == st.st_dev && g.st_ino == st.st_ino)
					return true;
		if (slash == NULL || strcmp(p, "/") == 0)
			return false;
		if (slash == p)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

typedef struct spelling {
	const sandy_resolved *r;
	int links;
	char cur[SANDY_PATH_MAX_BYTES + 2];
} spelling;

/* The next component of *p (skipping slashes), its length in *len. */
static const char *next_component(const char **p, size_t *len)
{
	const char *c = *p + strspn(*p, "/");

	*len = strcspn(c, "/");
	*p = c + *len;
	return *len ? c : NULL;
}

/* Nothing but slashes follows: the component just read is the last one
 * as written. ("link/." is not: resolution keeps no symlink spelling for
 * it, so nothing would protect the link.) */
static bool only_slashes(const char *p)
{
	return p[strspn(p, "/")] == '\0';
}

static int walk(spelling *sp, const char *path, bool exempt_last,
		where w, sandy_error *err);

/* Follows the link (in directory sp->cur), with rest still to walk. */
static int follow(spelling *sp, const char *link, const char *rest,
		  bool exempt_last, where w, sandy_error *err)
{
	char target[SANDY_PATH_MAX_BYTES + 1], *next;
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	size_t need;
	int rc;

	if (n < 0 || ++sp->links > 40)
		return 0; /* resolution itself reports what is wrong */
	target[n] = '\0';
	/* the walk goes on from the link's directory, or from / */
	need = (size_t)n + 1 + strlen(rest) + 1;
	if ((next = malloc(need)) == NULL)
		return out_of_memory(err, w);
	snprintf(next, need, "%s/%s", target, rest);
	if (target[0] == '/')
		strcpy(sp->cur, "/");
	rc = walk(sp, next, exempt_last && !only_slashes(rest), w, err);
	free(next);
	return rc;
}

static int walk(spelling *sp, const char *path, bool exempt_last, where w,
		sandy_error *err)
{
	const char *p = path, *c;
	size_t len;

	while ((c = next_component(&p, &len)) != NULL) {
		char next[SANDY_PATH_MAX_BYTES + 2];
		bool last = only_slashes(p);
		struct stat st;

		if (len == 1 && c[0] == '.')
			continue;
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			char *slash = strrchr(sp->cur, '/');

			slash[slash == sp->cur ? 1 : 0] = '\0';
			continue;
		}
		if (snprintf(next, sizeof(next), "%s%s%.*s", sp->cur,
			     strcmp(sp->cur, "/") == 0 ? "" : "/", (int)len,
			     c) >= (int)sizeof(next))
			return 0;
		if (sandy_stat(AT_FDCWD, next, AT_SYMLINK_NOFOLLOW, &st) == 0 &&
		    S_ISLNK(st.st_mode)) {
			if (!(last && exempt_last) &&
			    in_writable_grant(sp->r, sp->cur))
				return invalid(err, w,
					       "spelled through a symlink inside "
					       "a writable grant, which a command "
					       "could re-point");
			return follow(sp, next, p, exempt_last, w, err);
		}
		strcpy(sp->cur, next);
	}
	return 0;
}

static int check_deny_spelling(const sandy_resolved *r, const char *abs,
			       where w, sandy_error *err)
{
	spelling sp = {.r = r, .links = 0, .cur = "/"};

	return walk(&sp, abs, true, w, err);
}

/* A grant or an execute grant is refused likewise when its spelling meets
 * a symlink inside a writable grant, its own last component included: no
 * rule keeps that link, so a command could re-point it and every later
 * resolution would grant what it names then. */
static int check_grant_spelling(const sandy_resolved *r, const sandy_path *path,
				where w, sandy_error *err)
{
	spelling sp = {.r = r, .links = 0, .cur = "/"};
	char *abs;
	int rc;

	if (absolute_of(r->cwd, path, &abs, w, err) != 0)
		return -1;
	rc = walk(&sp, abs, false, w, err);
	free(abs);
	return rc;
}

static bool relative(const sandy_path *path)
{
	return path->bytes[0] != '/';
}

/* Whether any entry of the policy is joined to the working directory. */
static bool any_relative(const sandy_policy *p)
{
	for (size_t i = 0; i < p->n_grants; i++)
		if (relative(&p->grants[i].path))
			return true;
	for (size_t i = 0; i < p->n_exec_grants; i++)
		if (relative(&p->exec_grants[i].path))
			return true;
	for (size_t i = 0; i < p->n_deny_subtrees; i++)
		if (relative(&p->deny_subtrees[i]))
			return true;
	for (size_t i = 0; i < p->n_deny_write_exact; i++)
		if (relative(&p->deny_write_exact[i]))
			return true;
	return false;
}

/* Relative entries are joined to the working directory's canonical
 * snapshot, so the caller's own spelling of it (cwd, when given) must not
 * meet a symlink inside a writable grant either: a command could re-point
 * that link, and every relative entry would follow it. */
static int check_cwd_spelling(const sandy_policy *p, const char *cwd,
			      const sandy_resolved *r, sandy_error *err)
{
	spelling sp = {.r = r, .links = 0, .cur = "/"};

	if (cwd == NULL || !any_relative(p))
		return 0;
	return walk(&sp, cwd, false, (where){"cwd", NO_INDEX}, err);
}

static int check_grant_spellings(const sandy_policy *p, const sandy_resolved *r,
				 sandy_error *err)
{
	for (size_t i = 0; i < p->n_grants; i++)
		if (check_grant_spelling(r, &p->grants[i].path,
					 (where){SANDY_SECTION_KEY(GRANTS), i},
					 err) != 0)
			return -1;
	for (size_t i = 0; i < p->n_exec_grants; i++)
		if (check_grant_spelling(
			    r, &p->exec_grants[i].path,
			    (where){SANDY_SECTION_KEY(EXECUTABLE_GRANTS), i},
			    err) != 0)
			return -1;
	return 0;
}

static int resolve_deny(const sandy_resolved *r, const sandy_path *path,
			where w, bool write_exact, sandy_rdeny *d,
			sandy_error *err)
{
	char *abs = NULL;
	int rc;

	d->lexical = NULL;
	if (resolve_input(r->cwd, path, w, &d->canonical, &abs, err) != 0)
		return -1;
	rc = check_deny_spelling(r, abs, w, err);
	if (rc == 0)
		rc = deny_lexical(abs, d->canonical, &d->lexical, w, err);
	free(abs);
	if (rc == 0 && (is_root(d->canonical) || is_root(d->lexical)))
		rc = invalid(err, w, "the root cannot be denied");
	if (rc == 0)
		rc = check_denied_object(d->canonical, write_exact, w, err);
	if (rc != 0) {
		free(d->canonical);
		free(d->lexical);
	}
	return rc;
}

static int resolve_denies(const sandy_resolved *r, const sandy_path *paths,
			  size_t n, sandy_section section, sandy_rdeny *out,
			  size_t *n_out, sandy_error *err)
{
	bool write_exact = section == SANDY_SECTION_DENY_WRITE_EXACT;
	size_t i;
	sandy_rdeny d = {0};

	for (i = 0; i < n; i++) {
		where w = {sandy_section_key(section), i};

		if (resolve_deny(r, &paths[i], w, write_exact, &d, err) != 0)
			return -1;
		add_deny(out, n_out, d);
	}
	return 0;
}

/* ---- bounds ----------------------------------------------------------- */

/* Inputs are bounded before any filesystem work, by the total number of
 * entries and not after deduplication: a policy is judged by what it
 * asks, and the check costs no system call. */
static int check_input_bound(const sandy_policy *p, sandy_error *err)
{
	size_t total = p->n_grants + p->n_exec_grants + p->n_deny_subtrees +
		       p->n_deny_write_exact;

	if (total > SANDY_EFFECTIVE_RULES_MAX)
		return invalid(err, (where){"policy", NO_INDEX},
			       "too many entries");
	return 0;
}

/* Each deny spelling becomes its own native rule, so a deny with a
 * distinct lexical spelling counts twice. */
static size_t deny_rules(const sandy_rdeny *d, size_t n)
{
	size_t i, count = n;

	for (i = 0; i < n; i++)
		if (d[i].lexical != NULL)
			count++;
	return count;
}

static int check_effective_bound(const sandy_resolved *r, sandy_error *err)
{
	size_t total = r->n_grants + r->n_execs +
		       deny_rules(r->deny_subtrees, r->n_deny_subtrees) +
		       deny_rules(r->deny_write_exact, r->n_deny_write_exact);

	if (total > SANDY_EFFECTIVE_RULES_MAX)
		return invalid(err, (where){"policy", NO_INDEX},
			       "too many effective rules after resolution");
	return 0;
}

/* ---- entry points ----------------------------------------------------- */

/* Room for every input entry: deduplication only ever shrinks. */
static int allocate(const sandy_policy *p, sandy_resolved *r, sandy_error *err)
{
	where w = {"policy", NO_INDEX};

	if ((p->n_grants &&
	     !(r->grants = calloc(p->n_grants, sizeof(*r->grants)))) ||
	    (p->n_exec_grants &&
	     !(r->execs = calloc(p->n_exec_grants, sizeof(*r->execs)))) ||
	    (p->n_deny_subtrees &&
	     !(r->deny_subtrees = calloc(p->n_deny_subtrees,
					 sizeof(*r->deny_subtrees)))) ||
	    (p->n_deny_write_exact &&
	     !(r->deny_write_exact = calloc(p->n_deny_write_exact,
					    sizeof(*r->deny_write_exact)))))
		return out_of_memory(err, w);
	return 0;
}

static int resolve_all(const sandy_policy *p, const char *cwd,
		       sandy_resolved *r, sandy_error *err)
{
	r->network = p->network;
	r->allow_subprocesses = p->allow_subprocesses;
	if (check_input_bound(p, err) != 0 || allocate(p, r, err) != 0 ||
	    snapshot_cwd(cwd, &r->cwd, err) != 0)
		return -1;
	if (resolve_grants(p, r, err) != 0 || resolve_execs(p, r, err) != 0 ||
	    check_grant_spellings(p, r, err) != 0 ||
	    check_cwd_spelling(p, cwd, r, err) != 0)
		return -1;
	if (resolve_denies(r, p->deny_subtrees, p->n_deny_subtrees,
			   SANDY_SECTION_DENY_SUBTREES, r->deny_subtrees,
			   &r->n_deny_subtrees, err) != 0 ||
	    resolve_denies(r, p->deny_write_exact, p->n_deny_write_exact,
			   SANDY_SECTION_DENY_WRITE_EXACT, r->deny_write_exact,
			   &r->n_deny_write_exact, err) != 0)
		return -1;
	return check_effective_bound(r, err);
}

int sandy_resolve(const sandy_policy *p, const char *cwd, sandy_resolved *out,
		  sandy_error *err)
{
	memset(out, 0, sizeof(*out));
	if (resolve_all(p, cwd, out, err) == 0)
		return 0;
	sandy_resolved_free(out);
	return -1;
}

static void denies_free(sandy_rdeny *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(d[i].canonical);
		free(d[i].lexical);
	}
	free(d);
}

void sandy_resolved_free(sandy_resolved *r)
{
	size_t i;

	for (i = 0; i < r->n_grants; i++)
		free(r->grants[i].path);
	for (i = 0; i < r->n_execs; i++)
		free(r->execs[i].path);
	free(r->grants);
	free(r->execs);
	denies_free(r->deny_subtrees, r->n_deny_subtrees);
	denies_free(r->deny_write_exact, r->n_deny_write_exact);
	free(r->cwd);
	memset(r, 0, sizeof(*r));
}

static bool denied(const sandy_rdeny *d, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (sandy_path_within(d[i].canonical, path) ||
		    (d[i].lexical && sandy_path_within(d[i].lexical, path)))
			return true;
	return false;
}

bool sandy_resolved_covers_cwd(const sandy_resolved *r)
{
	bool granted = false;
	size_t i;

	if (r->cwd == NULL)
		return false;
	for (i = 0; i < r->n_grants && !granted; i++) {
		const sandy_rgrant *g = &r->grants[i];

		granted = g->scope == SANDY_SCOPE_SUBTREE
				  ? sandy_path_within(g->path, r->cwd)
				  : strcmp(g->path, r->cwd) == 0;
	}
	return granted && !denied(r->deny_subtrees, r->n_deny_subtrees, r->cwd);
}

/* Execute grants cover a grant when one names the same path or a subtree
 * holding it (an exact execute grant never covers a subtree grant). */
static bool exec_covers(const sandy_resolved *r, const sandy_rgrant *g)
{
	for (size_t i = 0; i < r->n_execs; i++) {
		const sandy_rexec *e = &r->execs[i];

		if (e->scope == SANDY_SCOPE_SUBTREE
			    ? sandy_path_within(e->path, g->path)
			    : g->scope == SANDY_SCOPE_EXACT &&
				      strcmp(e->path, g->path) == 0)
			return true;
	}
	return false;
}

bool sandy_resolved_restricts_exec(const sandy_resolved *r)
{
	for (size_t i = 0; i < r->n_grants; i++) {
		const sandy_rgrant *g = &r->grants[i];
		struct stat st;

		/* the seam grants /proc and /sys readable, never executable,
		 * and they hold no file a loader could map */
		if (exec_covers(r, g) || sandy_kernel_tree(g->path, false))
			continue;
		/* an exact grant of a directory or a character device maps
		 * no program; a block device holds content a loader can map,
		 * like a file (a swap of the object after this look fails
		 * closed at the pins) */
		if (g->scope == SANDY_SCOPE_EXACT &&
		    sandy_stat(AT_FDCWD, g->path, 0, &st) == 0 &&
		    (S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode)))
			continue;
		return true;
	}
	return false;
}
