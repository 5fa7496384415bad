/* The seam's `bwrap` backend: bubblewrap behind the launcher's descriptor
 * guard (core/guard_argv.h), and its dialect. */
#ifndef SANDY_BACKENDS_BWRAP_H
#define SANDY_BACKENDS_BWRAP_H

#include <stddef.h>

#include "../core/guard_argv.h"
#include "../core/policy.h"
#include "backend.h"

/* One bubblewrap call: the launcher (as descriptor guard) and its nonce,
 * bubblewrap's path, the mode, the writable roots (as for
 * sandy_seam_policy) with the objects confine saw, and the canonical
 * directories that must stay read-only and unrenamable inside (the
 * launcher copies' directories), and the call's protections. */
typedef struct sandy_bwrap_call {
	const char *launcher;
	const char *nonce;
	const char *bwrap;
	sandy_mode mode;
	const sandy_writable_root *roots;
	size_t n_roots;
	const char *const *protect;
	size_t n_protect;
	sandy_seam_shield shield;
} sandy_bwrap_call;

/* The whole prefix, guard included, up to the command; NULL-terminated,
 * free with sandy_argv_free. */
char **sandy_bwrap_argv(const sandy_bwrap_call *c, size_t *count);

#endif
