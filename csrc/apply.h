/* Platform enforcement of a resolved policy on the calling process.
 * Preparation errors leave the process unchanged; an enforcement error can
 * leave it partly restricted, so the caller must exit without running
 * anything. */
#ifndef SANDY_APPLY_H
#define SANDY_APPLY_H

#include "error.h"
#include "resolve.h"

/* Both levels need Landlock ABI 6 (Linux 6.12): signal and abstract UNIX
 * socket scoping. The probe judges backends by the same number. */
#define SANDY_LANDLOCK_MIN_ABI 6

typedef enum sandy_apply_level {
	/* namespaces + descriptor-built view + Landlock + seccomp */
	SANDY_APPLY_FULL = 0,
	/* Landlock + seccomp only, for hosts without user namespaces */
	SANDY_APPLY_LANDLOCK_ONLY,
} sandy_apply_level;

int sandy_apply(const sandy_resolved *r, sandy_apply_level level,
		sandy_error *err);


#endif
