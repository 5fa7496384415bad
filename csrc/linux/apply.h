/* Platform enforcement of a resolved policy on the calling process.
 * Preparation errors leave the process unchanged; an enforcement error can
 * leave it partly restricted, so the caller must exit without running
 * anything. */
#ifndef SANDY_APPLY_H
#define SANDY_APPLY_H

#include <stdbool.h>
#include <sys/types.h>

#include "../core/error.h"
#include "../core/policy_argv.h"
#include "../core/protocol.h"
#include "../core/resolve.h"


typedef enum sandy_apply_level {
	/* namespaces + descriptor-built view + Landlock + seccomp */
	SANDY_APPLY_FULL = 0,
	/* Landlock + seccomp only, for hosts without user namespaces */
	SANDY_APPLY_LANDLOCK_ONLY,
} sandy_apply_level;

/* The launcher's own words in its argv (argv[1] up to the target's),
 * wiped before its first fork, since /proc/PID/cmdline would show them,
 * the nonce included, in every process that stays beside the command
 * (the caller's copy of what it needs later, the temp areas' paths among
 * them, must be its own). */
typedef struct sandy_own_words {
	char **words;
	size_t n;
} sandy_own_words;

/* A deny held by a mount at path (a cover or read-only bind of the view,
 * of the guard's tree), as messages name it: the inner supervisor checks
 * that it is still there (processes.c). */
typedef struct sandy_mounted {
	const char *path;
	const char *section; /* static text */
	size_t index;
} sandy_mounted;

/* What the outer process watches (linux/watch.c): the protected names
 * that did not exist at confine (--watch), and the names on the way to
 * each deny the view holds. fd -1: nothing watched. */
typedef struct sandy_watch {
	int fd; /* inotify */
	size_t n; /* --watch names */
	struct sandy_watched {
		int wd;
		dev_t dev;
		ino_t ino;
		char *dir;  /* copies: the argv they come from is wiped */
		char *name;
	} w[SANDY_WATCHES_MAX];
	/* each dir/name, for the view's anchors (sandy_resolved) */
	char *paths[SANDY_WATCHES_MAX];
	/* the held denies, as messages name them, and each name on the way
	 * from a deny's grant down to it, in the directory watched as wd */
	struct sandy_held {
		const char *section; /* static text */
		size_t index;
	} *held;
	size_t n_held;
	struct sandy_held_name {
		int wd;
		size_t held;
		char *name;
		bool removal; /* its going trips too (a writable directory) */
		bool self;    /* so does its directory's own move or removal
			       * (no watch on the parent: passed over) */
	} *names;
	size_t n_names;
} sandy_watch;

/* Before any namespace: each directory still the object confine saw,
 * watched, and the name absent; 0, or -1 (PreparationFailed, naming
 * watch[i]) with nothing left open. n == 0 watches nothing. */
int sandy_watch_open(const struct sandy_launch_watch *list, size_t n,
		     sandy_watch *out, sandy_error *err);
/* Its descriptor closed (the inner supervisor's copy); the names stay,
 * the view's anchors among them. */
void sandy_watch_close(sandy_watch *w);

/* Returns only in the process that is to exec the target (0), or with a
 * failure (-1 and *err) in the one that must then end: the outer process
 * too, when the watch tripped (the run ended, EnforcementFailed). watch:
 * opened (sandy_watch_open), with --watch names at the full level only;
 * the full level adds the held denies' names to it. */
int sandy_apply(const sandy_resolved *r, sandy_apply_level level,
		const sandy_own_words *w, sandy_watch *watch,
		sandy_error *err);

/* Before the policy is resolved (linux/pins.c): each --deny-read the
 * launcher reaches, still the object confine saw, becomes a deny_subtree
 * of l's policy; one it cannot reach (gone, or behind another uid's
 * directory it may not search) is out of the command's reach too and is
 * left out; one behind a directory of its own uid's that it may not search
 * (a command of that uid could have made it so, and could undo it), one
 * that names another object, or one that cannot be opened for another
 * reason is PreparationFailed. */
int sandy_add_deny_reads(sandy_launch *l, sandy_error *err);

/* Before anything changes (linux/pins.c): each --pin still names the
 * object confine saw, and with --pinned every resolved entry matches the
 * pin of its key, whose object is recorded in the entry for the view to
 * find again. Returns 0 or -1 (PreparationFailed). */
int sandy_check_pins(const sandy_launch *l, sandy_resolved *r,
		     sandy_error *err);

/* Before sandy_apply: the launcher's own directory may not be writable by
 * the command. At the full level it joins r as a deny_write_exact (the
 * view makes it read-only and unrenamable); at the Landlock-only level a
 * read_write grant of it or of any directory above it is refused. */
int sandy_protect_self(sandy_resolved *r, sandy_apply_level level,
		       sandy_error *err);


#endif
