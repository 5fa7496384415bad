/* The resolver's canonical spelling, whatever the libc: no path it returns
 * starts with "//", though musl's realpath keeps two leading slashes (from
 * the input or a link's target) where glibc's folds them (a deny spelled
 * "//ws/secret" would not be inside the grant "/ws" by string
 * comparison). Built by csrc/Makefile (c-tests) twice: with glibc, and
 * with musl, as the shipped launcher is; the musl build also checks that
 * its realpath does keep "//", so the fold is really exercised. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/policy.h"
#include "../core/resolve.h"
#include "tap.h"

static void check(bool ok, const char *what, const char *got)
{
	tap_ok(ok, "%s (%s)", what, got ? got : "-");
}

int main(void)
{
	char base[] = "/tmp/sandy-resolve-XXXXXX", buf[PATH_MAX];
	char d[64], f[64], link[64], target[64]; /* base is 26 bytes */
	char grant[PATH_MAX], deny[PATH_MAX], via[PATH_MAX];
	sandy_policy p;
	sandy_resolved r;
	sandy_error err = {0};
	char *raw;

	if (mkdtemp(base) == NULL)
		return 2;
	snprintf(d, sizeof(d), "%s/d", base);
	snprintf(f, sizeof(f), "%s/d/f", base);
	snprintf(link, sizeof(link), "%s/l", base);
	snprintf(target, sizeof(target), "/%s/d", base); /* "//tmp/.../d" */
	if (mkdir(d, 0755) != 0 || fclose(fopen(f, "w")) != 0 ||
	    symlink(target, link) != 0)
		return 2;

	raw = realpath(target, NULL);
#ifdef __GLIBC__
	check(raw != NULL && strncmp(raw, "//", 2) != 0,
	      "glibc: realpath folds a leading //", raw);
#else
	check(raw != NULL && strncmp(raw, "//", 2) == 0,
	      "musl: realpath keeps a leading // (the case the fold is for)",
	      raw);
#endif
	free(raw);

	snprintf(grant, sizeof(grant), "/%s", base); /* "//tmp/..." */
	snprintf(deny, sizeof(deny), "/%s", d);
	snprintf(via, sizeof(via), "%s/f", link); /* through a link to "//" */
	sandy_policy_init(&p, SANDY_NETWORK_ALLOW_ALL);
	if (sandy_policy_grant(&p, grant, strlen(grant), SANDY_ACCESS_READ,
			       SANDY_SCOPE_SUBTREE) != 0 ||
	    sandy_policy_deny_subtree(&p, deny, strlen(deny)) != 0 ||
	    sandy_policy_deny_write_exact(&p, via, strlen(via)) != 0)
		return 2;
	if (sandy_resolve(&p, "/", &r, &err) != 0) {
		check(false, "the policy resolves", err.message);
	} else {
		check(strcmp(r.grants[0].path, base) == 0,
		      "a grant spelled //x is /x", r.grants[0].path);
		check(strcmp(r.deny_subtrees[0].canonical, d) == 0,
		      "a deny spelled //x/d is /x/d", r.deny_subtrees[0].canonical);
		check(strcmp(r.deny_write_exact[0].canonical, f) == 0,
		      "a deny through a link to //x/d is /x/d/f",
		      r.deny_write_exact[0].canonical);
		snprintf(buf, sizeof(buf), "%s", r.deny_write_exact[0].lexical ? r.deny_write_exact[0].lexical : "");
		check(strncmp(buf, "//", 2) != 0, "and its lexical spelling has one leading slash", buf);
		sandy_resolved_free(&r);
	}
	sandy_policy_free(&p);
	unlink(link);
	unlink(f);
	rmdir(d);
	rmdir(base);
	return tap_done();
}
