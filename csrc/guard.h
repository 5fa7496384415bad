/* The launcher's guard mode, in front of a runner that passes inherited
 * descriptors through and has no Landlock of its own (bubblewrap):
 *
 *   LAUNCHER --sandy-guard-v1 [--nonce HEX] [--bind-root PATH DEV:INO]
 *            -- /ABSOLUTE/RUNNER [ARGS...]
 *
 * It refuses inherited descriptors the runner's view cannot contain (any
 * directory; a regular file or block device not open for writing, which
 * could be reopened for writing through /proc/self/fd on the host's
 * mount), enters a user + mount namespace of its own in which every mount
 * is read-only but /proc and /dev (guard_view.c), opens PATH there
 * without following symlinks, checks it is still the directory DEV:INO
 * that confine saw, and attaches a writable clone of it (the mounts
 * beneath it staying read-only) whose descriptor it leaves on
 * SANDY_GUARD_ROOT_FD for the runner (bubblewrap's --bind-fd, which
 * closes it). It adds read-only binds of its own uid's launcher copies,
 * moves glibc's loader variables out of its environment into bubblewrap's
 * --args descriptor (restored inside by --setenv, never on a command
 * line), passes this package's seccomp filter as --seccomp, then execs
 * RUNNER (docs/bwrap-guard.md). */
#ifndef SANDY_GUARD_H
#define SANDY_GUARD_H

#include "error.h"

#define SANDY_GUARD_MAGIC "--sandy-guard-v1"
#define SANDY_GUARD_ROOT_FD 1000
#define SANDY_GUARD_ROOT_FD_TEXT "1000"

/* The inherited descriptors. Returns 0 or -1 with *err. */
int sandy_guard_prepare(sandy_error *err);

/* The guard's own user + mount namespace (guard_view.c): every mount
 * read-only but /proc and /dev, and with root (its identity root_id as
 * confine saw it) a writable clone of the workspace, the mounts beneath
 * it read-only, on SANDY_GUARD_ROOT_FD. Entered after the runner's argv
 * is built: the checks of the launcher copies' owners must see the host's
 * ids, not a user namespace's (there root's files show as the overflow
 * uid, which is nobody's). root and root_id may be NULL (no workspace).
 * Returns 0 or -1 with *err. */
int sandy_guard_enter(const char *root, const char *root_id, sandy_error *err);

/* The runner's argv, with bubblewrap's words inserted last among its
 * options: with a root, those that keep each copy directory of this
 * process's own uid (copy_dirs.h; made when missing) read-only inside the
 * writable root (a root service may spawn the argv as another uid, whose
 * copies the provider could not name); always --args and --seccomp with
 * their descriptors. Takes the loader variables out of environ. NULL with
 * *err when the root's bind is missing, the root exposes such a directory
 * (sandy_refuse_writable_over), a descriptor cannot be written, or memory
 * is short. */
char **sandy_guard_runner_argv(char **runner, const char *root,
			       sandy_error *err);

#endif
