/* --pin and --pinned (policy_argv.h): what confine resolved is what runs.
 * Each pinned path is opened without following any symlink (a deny's
 * symlink spelling is opened as the link itself) and must still be the
 * object confine saw; with --pinned, every entry the launcher's own
 * resolution produced must match the pin of the same key and path, so a
 * grant reached through a symlink that a confined run re-pointed since
 * confine (even onto another pinned path) fails closed instead of granting
 * its new target. The pinned objects are recorded in the entries, and the
 * view's own pinning must find them again (no window between the two
 * looks). Runs before anything changes; a mismatch is PreparationFailed,
 * a runner failure. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "linux.h"
#include "../core/sys.h"
#include "../core/stat.h"

/* The object a pin names now (opened without following any symlink),
 * or -1 with errno (ENOSYS: no openat2, which the contract requires). */
static int pin_identity(const struct sandy_launch_pin *p, sandy_identity *now)
{
	struct stat st;
	int fd = sandy_open_how(AT_FDCWD, p->path, O_PATH | O_NOFOLLOW | O_CLOEXEC,
				RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	int rc;

	if (fd < 0)
		return -1;
	rc = sandy_stat(fd, NULL, 0, &st);
	close(fd);
	if (rc != 0)
		return -1;
	*now = (sandy_identity){true, (unsigned long long)st.st_dev,
				(unsigned long long)st.st_ino};
	return 0;
}

static bool same_id(const sandy_identity *id, const char *text)
{
	char buf[SANDY_PIN_ID_BYTES];

	sandy_pin_id(buf, id->dev, id->ino);
	return strcmp(buf, text) == 0;
}

/* The pin of this key and path, or NULL. confine writes the pins in the
 * order the entries are looked for here (sandy_pins_each): the search
 * starts after the last pin found (*next), so that in that order each
 * takes one look, and it goes round to find one anywhere. */
static const struct sandy_launch_pin *find(const sandy_launch *l,
					    const char *key, const char *path,
					    size_t *next)
{
	for (size_t k = 0; k < l->n_pins; k++) {
		size_t i = (*next + k) % l->n_pins;

		if (strcmp(l->pins[i].key, key) == 0 &&
		    strcmp(l->pins[i].path, path) == 0) {
			*next = i + 1;
			return &l->pins[i];
		}
	}
	return NULL;
}

/* With --pinned, the entry named key (entry i of section) must be pinned
 * with this path; its pinned object becomes what later steps (the view's
 * own pinning) must find there too. */
static int match(const sandy_launch *l, const char *key, sandy_section s,
		 size_t i, const char *path, sandy_identity *expect,
		 size_t *next, sandy_error *err)
{
	const struct sandy_launch_pin *p = find(l, key, path, next);
	unsigned long long dev, ino;

	if (p == NULL)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "%s[%zu] is not what confine resolved",
				  sandy_section_key(s), i);
	/* (the id was just checked against the object: no second open) */
	if (expect != NULL && sscanf(p->id, "%llu:%llu", &dev, &ino) == 2)
		*expect = (sandy_identity){true, dev, ino};
	return 0;
}

static int match_denies(const sandy_launch *l, sandy_rdeny *d, size_t n,
			sandy_section s, size_t *next, sandy_error *err)
{
	char key[SANDY_PIN_KEY_BYTES], lexical[SANDY_PIN_KEY_BYTES];

	for (size_t i = 0; i < n; i++) {
		sandy_deny_pin_key(key, s, i, false);
		sandy_deny_pin_key(lexical, s, i, true);
		if (match(l, key, s, i, d[i].canonical, &d[i].expect, next,
			  err) != 0 ||
		    (d[i].lexical != NULL &&
		     match(l, lexical, s, i, d[i].lexical, NULL, next, err) !=
			     0))
			return -1;
	}
	return 0;
}

/* The pins of a section's entries ("grants[3]", not "...].lexical"). */
static size_t count_entries(const sandy_launch *l, const char *section)
{
	size_t n = 0, len = strlen(section);

	for (size_t i = 0; i < l->n_pins; i++) {
		const char *k = l->pins[i].key;

		if (strncmp(k, section, len) == 0 && k[len] == '[' &&
		    strchr(k, '.') == NULL)
			n++;
	}
	return n;
}

/* Every section has as many entries as confine resolved: two entries
 * merged into one since (a re-pointed link now naming what another entry
 * names) would otherwise keep one key while the merge changes its
 * access, or drop a deny. */
static int same_counts(const sandy_launch *l, const sandy_resolved *r,
		       sandy_error *err)
{
	const struct {
		const char *section;
		size_t n;
	} counts[] = {{SANDY_SECTION_KEY(GRANTS), r->n_grants},
		      {SANDY_SECTION_KEY(EXECUTABLE_GRANTS), r->n_execs},
		      {SANDY_SECTION_KEY(DENY_SUBTREES), r->n_deny_subtrees},
		      {SANDY_SECTION_KEY(DENY_WRITE_EXACT),
		       r->n_deny_write_exact}};

	for (size_t i = 0; i < sizeof(counts) / sizeof(*counts); i++)
		if (count_entries(l, counts[i].section) != counts[i].n)
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "%s: not what confine resolved",
					  counts[i].section);
	return 0;
}

int sandy_check_pins(const sandy_launch *l, sandy_resolved *r,
		     sandy_error *err)
{
	size_t next = 0;

	for (size_t i = 0; i < l->n_pins; i++) {
		sandy_identity now = {0};

		if (pin_identity(&l->pins[i], &now) != 0 && errno == ENOSYS)
			return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
					  "pins: openat2 is missing");
		if (!now.known || !same_id(&now, l->pins[i].id))
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "pin[%zu] changed since confine", i);
	}
	if (!l->pinned)
		return 0;
	if (same_counts(l, r, err) != 0)
		return -1;
	/* a grant's key carries its access and scope too, so entries merged
	 * and split since confine cannot keep every key while one gains
	 * access */
	for (size_t i = 0; i < r->n_grants; i++) {
		char key[SANDY_PIN_KEY_BYTES];

		sandy_grant_pin_key(key, i, &r->grants[i]);
		if (match(l, key, SANDY_SECTION_GRANTS, i, r->grants[i].path,
			  &r->grants[i].expect, &next, err) != 0)
			return -1;
	}
	for (size_t i = 0; i < r->n_execs; i++) {
		char key[SANDY_PIN_KEY_BYTES];

		sandy_exec_pin_key(key, i, &r->execs[i]);
		if (match(l, key, SANDY_SECTION_EXECUTABLE_GRANTS, i,
			  r->execs[i].path, &r->execs[i].expect, &next,
			  err) != 0)
			return -1;
	}
	if (match_denies(l, r->deny_subtrees, r->n_deny_subtrees,
			 SANDY_SECTION_DENY_SUBTREES, &next, err) != 0 ||
	    match_denies(l, r->deny_write_exact, r->n_deny_write_exact,
			 SANDY_SECTION_DENY_WRITE_EXACT, &next, err) != 0)
		return -1;
	if (find(l, "cwd", r->cwd, &next) == NULL)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "the working directory is not what confine "
				  "resolved");
	return 0;
}

bool sandy_blocked_by_own(const char *path)
{
	char prefix[SANDY_PATH_MAX_BYTES + 1];
	struct stat st;
	bool own = false;
	size_t len = strlen(path);

	if (len > SANDY_PATH_MAX_BYTES)
		return true;
	for (size_t i = 1; i <= len; i++) {
		int fd;

		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(prefix, path, i);
		prefix[i] = '\0';
		fd = sandy_open_how(AT_FDCWD, prefix,
				    O_PATH | O_NOFOLLOW | O_CLOEXEC,
				    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd < 0)
			break;
		own = sandy_stat(fd, NULL, 0, &st) == 0 && st.st_uid == geteuid();
		close(fd);
	}
	return own;
}

int sandy_deny_read_reached(const char *path, const char *id, size_t i,
			    sandy_error *err)
{
	struct sandy_launch_pin p = {"", path, id};
	sandy_identity now = {0};

	if (pin_identity(&p, &now) != 0) {
		if (errno == ENOENT ||
		    (errno == EACCES && !sandy_blocked_by_own(path)))
			return 0;
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "deny_reads[%zu]: cannot be opened (errno %d)",
				  i, errno);
	}
	if (!same_id(&now, id))
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "deny_reads[%zu] changed since confine", i);
	return 1;
}

int sandy_add_deny_reads(sandy_launch *l, sandy_error *err)
{
	for (size_t i = 0; i < l->n_deny_reads; i++) {
		const struct sandy_launch_read *d = &l->deny_reads[i];
		int rc = sandy_deny_read_reached(d->path, d->id, i, err);

		if (rc < 0)
			return -1;
		if (rc > 0 && sandy_policy_deny_subtree(&l->policy, d->path,
							strlen(d->path)) != 0)
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "deny_reads[%zu]: out of memory", i);
	}
	return 0;
}
