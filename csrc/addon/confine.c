/* confinePolicy's one crossing (confine.h): resolve, check the working
 * directory, pin, encode; a policy crosses from JS once per call. */
#include "confine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/resolve.h"
#include "../core/stat.h"

int sandy_identify_nofollow(const char *path, char out[SANDY_PIN_ID_BYTES])
{
	struct stat st;

	if (sandy_stat(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, &st) != 0)
		return errno;
	sandy_pin_id(out, (unsigned long long)st.st_dev,
		     (unsigned long long)st.st_ino);
	return 0;
}

typedef struct pin_slot {
	char key[SANDY_PIN_KEY_BYTES];
	char id[SANDY_PIN_ID_BYTES];
} pin_slot;

typedef struct pinning {
	sandy_identify_fn identify;
	struct sandy_launch_pin *pins;
	pin_slot *slots;
	size_t n, cap;
	int failed; /* the errno of the pin that failed */
} pinning;

static int pin_one(void *ctx, const char *key, const char *path)
{
	pinning *p = ctx;
	pin_slot *s;

	if (p->n == p->cap)
		return ENOMEM; /* (the count below is exact: never) */
	s = &p->slots[p->n];
	p->failed = p->identify(path, s->id);
	if (p->failed != 0)
		return p->failed;
	strncpy(s->key, key, sizeof(s->key) - 1);
	s->key[sizeof(s->key) - 1] = '\0';
	p->pins[p->n++] = (struct sandy_launch_pin){s->key, path, s->id};
	return 0;
}

/* cwd, each grant and executable grant, each deny and its spelling */
static size_t pin_count(const sandy_resolved *r)
{
	return 1 + r->n_grants + r->n_execs +
	       2 * (r->n_deny_subtrees + r->n_deny_write_exact);
}

static char **encode(const sandy_policy *p, const sandy_resolved *r,
		     const char *nonce, sandy_identify_fn identify,
		     size_t *count, sandy_error *err)
{
	char name[16];
	pinning pins = {.identify = identify, .cap = pin_count(r)};
	sandy_launch l = {.policy = *p, .cwd = r->cwd, .pinned = true,
			  .nonce = nonce};
	char **words = NULL;
	int rc;

	if (pins.cap > SANDY_PINS_MAX) {
		sandy_fail(err, SANDY_ERR_INVALID_POLICY, "too many pins");
		return NULL;
	}
	pins.pins = calloc(pins.cap, sizeof(*pins.pins));
	pins.slots = calloc(pins.cap, sizeof(*pins.slots));
	if (pins.pins == NULL || pins.slots == NULL) {
		sandy_fail(err, SANDY_ERR_PREPARATION_FAILED, "out of memory");
		goto out;
	}
	rc = sandy_pins_each(r, pin_one, &pins);
	if (rc != 0) {
		sandy_fail(err, SANDY_ERR_INVALID_POLICY,
			   "a resolved path cannot be pinned (%s)",
			   sandy_errno_name(rc, name));
		goto out;
	}
	l.pins = pins.pins;
	l.n_pins = pins.n;
	words = sandy_launch_to_argv(&l, count);
	if (words == NULL)
		sandy_fail(err, SANDY_ERR_PREPARATION_FAILED, "out of memory");
out:
	free(pins.pins);
	free(pins.slots);
	return words;
}

/* Whether a read_write grant names one of the refused objects (one that
 * cannot be identified is pinned below, and fails there). */
static bool writes_refused(const sandy_resolved *r, sandy_identify_fn identify,
			   const char *const *refused, size_t n_refused)
{
	char id[SANDY_PIN_ID_BYTES];

	for (size_t i = 0; i < r->n_grants; i++) {
		if (r->grants[i].access != SANDY_ACCESS_READ_WRITE ||
		    identify(r->grants[i].path, id) != 0)
			continue;
		for (size_t k = 0; k < n_refused; k++)
			if (strcmp(id, refused[k]) == 0)
				return true;
	}
	return false;
}

char **sandy_confine_argv(const sandy_policy *p, const char *cwd,
			  const char *nonce, sandy_identify_fn identify,
			  const char *const *refused, size_t n_refused,
			  size_t *count, sandy_error *err)
{
	sandy_resolved r;
	char **words = NULL;

	if (sandy_resolve(p, cwd, &r, err) != 0)
		return NULL;
	if (!sandy_resolved_covers_cwd(&r))
		sandy_fail(err, SANDY_ERR_INVALID_POLICY,
			   "the working directory must be covered by a grant");
	else if (writes_refused(&r, identify, refused, n_refused))
		sandy_fail(err, SANDY_ERR_INVALID_POLICY,
			   "a writable grant holds the parent of a launcher "
			   "copy directory");
	else
		words = encode(p, &r, nonce, identify, count, err);
	sandy_resolved_free(&r);
	return words;
}
