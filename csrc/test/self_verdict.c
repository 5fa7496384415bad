/* The C side of the exposure table (test/fixtures/exposure-cases.json):
 * asks csrc/linux/self.c, in the launcher's order, whether one read_write
 * grant may stand beside one protected directory of a uid.
 * csrc/Makefile builds it (c-drivers); test/unit/exposure-table.test.js
 * makes each row's tree on disk and asks lib/launcher-copy.js the same
 * question.
 *
 *   self_verdict UID full|landlock copy|launcher DIR GRANT
 *
 * copy: DIR is a candidate copy directory of UID: a grant that holds its
 * parent is refused (sandy_refuse_copy_parents), then DIR is protected
 * when it is UID's own (sandy_open_copy_dir). launcher: DIR holds the
 * running launcher, protected whoever owns it (sandy_protect_self's first
 * step). Prints "allowed", or "refused: KIND: MESSAGE"; exits 0, or 2 on
 * a usage error. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/sys.h"
#include "../linux/linux.h"

/* A candidate copy directory: its parents first, then the directory
 * itself where it is uid's (sandy_protect_self's order). */
static int protect_copy(sandy_resolved *r, sandy_apply_level level,
			const char *dir, uid_t uid, sandy_error *err)
{
	int fd;

	if (sandy_refuse_parent_of(r->grants[0].path, dir, err) != 0)
		return -1;
	fd = sandy_open_copy_dir(dir, uid);
	return fd < 0 ? 0 : sandy_protect_dir(r, level, dir, fd, uid, err);
}

/* The launcher's own directory, opened as self_dir opens it. */
static int protect_launcher_dir(sandy_resolved *r, sandy_apply_level level,
				const char *dir, uid_t uid, sandy_error *err)
{
	int fd = sandy_open_how(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC,
				RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);

	if (fd < 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "self_verdict: no directory there");
	return sandy_protect_dir(r, level, dir, fd, uid, err);
}

int main(int argc, char **argv)
{
	sandy_rgrant grant = {.access = SANDY_ACCESS_READ_WRITE};
	sandy_resolved r = {.grants = &grant, .n_grants = 1};
	sandy_error err = {0};
	bool landlock = argc == 6 && strcmp(argv[2], "landlock") == 0;
	bool copy = argc == 6 && strcmp(argv[3], "copy") == 0;
	sandy_apply_level level;
	uid_t uid;

	if (argc != 6 || (!landlock && strcmp(argv[2], "full") != 0) ||
	    (!copy && strcmp(argv[3], "launcher") != 0)) {
		fprintf(stderr, "usage: self_verdict UID full|landlock "
				"copy|launcher DIR GRANT\n");
		return 2;
	}
	grant.path = argv[5];
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	level = landlock ? SANDY_APPLY_LANDLOCK_ONLY : SANDY_APPLY_FULL;
	if ((copy ? protect_copy : protect_launcher_dir)(&r, level, argv[4],
							 uid, &err) != 0)
		printf("refused: %s: %s\n", sandy_error_kind_name(err.kind),
		       err.message);
	else
		printf("allowed\n");
	for (size_t i = 0; i < r.n_deny_write_exact; i++)
		free(r.deny_write_exact[i].canonical);
	free(r.deny_write_exact);
	return 0;
}
