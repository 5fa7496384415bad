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

/* Refuses (-1, PreparationFailed) when any open descriptor, stdio
 * included, is a directory: it would reach the host's mounts beneath a
 * view. Also the whole job of the launcher's guard mode (launcher.h). */
int sandy_refuse_inherited_dirs(sandy_error *err);

#endif
