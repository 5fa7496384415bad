/* confinePolicy's one crossing (addon/confine.h): the refusals with their
 * reasons, and the pins every resolved entry gets, read back by the
 * launcher's own decoder. The object lookup is injected, so a path that
 * vanishes between resolution and pinning is a case, not a race. No
 * kernel involved beyond resolving "/usr". Built by csrc/Makefile (c-tests). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../addon/confine.h"
#include "tap.h"

static void check(bool ok, const char *what, const sandy_error *err)
{
	if (!tap_check(ok, what) && err != NULL)
		tap_diag("%s", err->message);
}

static int fake_id(const char *path, char out[SANDY_PIN_ID_BYTES])
{
	sandy_pin_id(out, strlen(path), 7);
	return 0;
}

static int usr_gone(const char *path, char out[SANDY_PIN_ID_BYTES])
{
	return strcmp(path, "/usr") == 0 ? ENOENT : fake_id(path, out);
}

static int odd_errno(const char *path, char out[SANDY_PIN_ID_BYTES])
{
	(void)path;
	(void)out;
	return 200;
}

static bool refused(sandy_policy *p, const char *cwd, sandy_identify_fn id,
		    const char *want, sandy_error *err)
{
	size_t n;
	char **words = sandy_confine_argv(p, cwd, NULL, id, NULL, 0, &n, err);

	sandy_argv_free(words);
	return words == NULL && err->kind == SANDY_ERR_INVALID_POLICY &&
	       strcmp(err->message, want) == 0;
}

/* The words decode, with one pin per resolved entry in the launcher's
 * key spelling. */
static bool pinned_as_launcher_reads(sandy_policy *p, sandy_error *err)
{
	size_t n;
	char **words = sandy_confine_argv(p, "/usr", "0123456789abcdef",
					  fake_id, NULL, 0, &n, err);
	sandy_launch l;
	bool ok;

	if (words == NULL)
		return false;
	words[n] = NULL;
	/* the launcher's decoder wants the words after its path, then a
	 * target */
	{
		char *full[n + 3];

		memcpy(full, words, n * sizeof(*full));
		full[n] = "--";
		full[n + 1] = "/usr/bin/true";
		full[n + 2] = NULL;
		if (sandy_launch_from_argv((int)n + 2, full, &l, err) != 0) {
			sandy_argv_free(words);
			return false;
		}
	}
	ok = l.pinned && l.n_pins == 3 && strcmp(l.nonce, "0123456789abcdef") == 0 &&
	     strcmp(l.pins[0].key, "cwd") == 0 &&
	     strcmp(l.pins[0].path, "/usr") == 0 &&
	     strcmp(l.pins[0].id, "4:7") == 0 &&
	     strcmp(l.pins[1].key, "grants[0]:read:subtree") == 0 &&
	     strcmp(l.pins[2].key, "deny_subtrees[0]") == 0 &&
	     strcmp(l.pins[2].path, "/usr/share") == 0 &&
	     strcmp(l.pins[2].id, "10:7") == 0;
	sandy_launch_free(&l);
	sandy_argv_free(words);
	return ok;
}

/* fake_id gives /tmp "4:7" and /usr "4:7" too: only the read_write
 * grant's object counts. */
static bool writable_refused(sandy_error *err)
{
	const char *const ids[] = {"9:9", "4:7"};
	sandy_policy p;
	size_t n;
	char **words;
	bool ok;

	sandy_policy_init(&p, SANDY_NETWORK_BLOCK_ALL);
	sandy_policy_grant(&p, "/usr", 4, SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	words = sandy_confine_argv(&p, "/usr", NULL, fake_id, ids, 2, &n, err);
	ok = words != NULL;
	sandy_argv_free(words);
	sandy_policy_grant(&p, "/tmp", 4, SANDY_ACCESS_READ_WRITE,
			   SANDY_SCOPE_SUBTREE);
	words = sandy_confine_argv(&p, "/usr", NULL, fake_id, ids, 1, &n, err);
	ok = ok && words != NULL;
	sandy_argv_free(words);
	words = sandy_confine_argv(&p, "/usr", NULL, fake_id, ids, 2, &n, err);
	ok = ok && words == NULL && err->kind == SANDY_ERR_INVALID_POLICY &&
	     strcmp(err->message, "a writable grant holds the parent of a "
				  "launcher copy directory") == 0;
	sandy_policy_free(&p);
	return ok;
}

int main(void)
{
	sandy_policy p, elsewhere;
	sandy_error err = {0};

	sandy_policy_init(&p, SANDY_NETWORK_BLOCK_ALL);
	sandy_policy_grant(&p, "/usr", 4, SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	sandy_policy_deny_subtree(&p, "/usr/share", 10);
	check(refused(&p, "/usr", usr_gone,
		      "a resolved path cannot be pinned (ENOENT)", &err),
	      "a path gone between resolution and pinning is InvalidPolicy, "
	      "named by its code", &err);
	check(refused(&p, "/usr", odd_errno,
		      "a resolved path cannot be pinned (errno 200)", &err),
	      "an errno without a name is given as a number", &err);
	check(refused(&p, "/", fake_id,
		      "the working directory must be covered by a grant", &err),
	      "a working directory no grant covers is refused", &err);
	sandy_policy_init(&elsewhere, SANDY_NETWORK_BLOCK_ALL);
	sandy_policy_grant(&elsewhere, "relative", 8, SANDY_ACCESS_READ,
			   SANDY_SCOPE_SUBTREE);
	check(sandy_confine_argv(&elsewhere, "/usr", NULL, fake_id, NULL, 0,
				 &(size_t){0}, &err) == NULL &&
		      err.kind == SANDY_ERR_INVALID_POLICY,
	      "a resolution error is returned as it is", &err);
	check(writable_refused(&err),
	      "a read_write grant naming a refused object is refused, a read "
	      "one is not", &err);
	check(pinned_as_launcher_reads(&p, &err),
	      "every resolved entry is pinned in the launcher's spelling",
	      &err);
	sandy_policy_free(&p);
	sandy_policy_free(&elsewhere);
	return tap_done();
}
