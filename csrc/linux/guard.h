/* The launcher's guard mode, in front of a runner that passes inherited
 * descriptors through and has no Landlock of its own (bubblewrap); its
 * words are core/guard_argv.h's. It refuses inherited descriptors the
 * runner's view cannot contain (any
 * directory; a regular file or block device not open for writing, which
 * could be reopened for writing through /proc/self/fd on the host's
 * mount); checks its own uid's launcher copies (with the host's ids);
 * moves glibc's loader variables out of its environment into bubblewrap's
 * --args descriptor (restored inside by --setenv, never on a command
 * line) and passes this package's seccomp filter as --seccomp; then
 * enters a user + mount namespace of its own (guard_view.c) in which
 * every mount is read-only, a private tmpfs is on /tmp, and each
 * --bind-root PATH, opened without following symlinks and checked to be
 * the directory DEV:INO that confine saw, is a writable clone whose mounts
 * stay read-only, with each --protect DIR and each of its own uid's copies
 * beneath it read-only and unrenamable, and each --deny-read PATH
 * covered by an empty read-only object; with --scrub-env, the secret
 * variables are out of its environment first; and runs RUNNER, which binds that
 * tree as it stands (docs/bwrap-guard.md), as its child: the guard ends
 * only once every process of the runner has (linux/processes.c). */
#ifndef SANDY_GUARD_H
#define SANDY_GUARD_H

#include <stddef.h>

#include "../core/error.h"
#include "../core/guard_argv.h"
#include "../core/protocol.h"
#include "apply.h"


/* The inherited descriptors, then the guard's own uid's launcher copies
 * that exist (sandy_open_copy_dir), each refused where a writable root
 * exposes it (sandy_refuse_writable_over) and appended to protect[*n]
 * (room for SANDY_COPY_DIRS_MAX more). Before the namespace: the owner
 * checks must see the host's ids (in a user namespace root's files show
 * as the overflow uid, which is nobody's). n_roots may be 0 (no
 * workspace). Returns 0 or -1 with *err. */
int sandy_guard_prepare(const sandy_writable_root *roots, size_t n_roots,
			const char **protect, size_t *n, sandy_error *err);

/* Before the namespace, with the host's ids (in a user namespace another
 * uid's directory shows as the overflow uid, which may be this one): the
 * protected reads this uid reaches and that are still the objects confine
 * saw are kept in g, in order, those out of its reach dropped (the
 * command's uid cannot reach them either); -1 with *err as
 * sandy_deny_read_reached says (linux/linux.h). */
int sandy_guard_reached_reads(sandy_guard_args *g, sandy_error *err);

/* The runner's argv with --args and --seccomp and their descriptors
 * inserted last among bubblewrap's options (before its "--"); takes the
 * loader variables out of environ. NULL with *err when there is no "--",
 * a descriptor cannot be written, or memory is short. */
char **sandy_guard_runner_argv(char **runner, sandy_error *err);

/* The guard's own namespace (guard_view.c), as the mode's comment says,
 * for g's roots (none: no workspace) and protected reads, with protect
 * (g's and the guard's own copies), and the directories of watch's names
 * (opened) bound onto themselves. Returns 0 or -1 with *err. */
int sandy_guard_enter(const sandy_guard_args *g, const char *const *protect,
		      size_t n_protect, const sandy_watch *watch,
		      sandy_mounted *mounted, size_t *n_mounted,
		      sandy_error *err);

/* Before the namespace: the names on the way to each path the guard's
 * tree holds with a mount, watched (linux.h's sandy_watch_hold): each
 * protected path beneath a root from the outermost root holding it (a
 * root's own way, renamed, leaves a read-only directory there), each
 * protected read from "/" (one left at its path would be readable), but
 * one the private /tmp hides (none), or one in a root inside it (from
 * that root, attached inside the tmpfs); the roots are what the command
 * may write. */
int sandy_guard_hold(const sandy_guard_args *g, const char *const *protect,
		     size_t n_protect, sandy_watch *watch, sandy_error *err);

/* Once in that namespace: wipes words[0..n) (its argv: the nonce is
 * there) and forks the init of its PID namespace, which forks the
 * runner's process; that one gets 0 and is to exec the runner, the others
 * stay as their supervisors and never return (linux/processes.c) but for
 * the outer one when a name of watch (opened, or NULL) appeared. -1 with
 * *err. */
int sandy_guard_fork_runner(char **words, size_t n, sandy_watch *watch,
			    const sandy_mounted *mounted, size_t n_mounted,
			    sandy_error *err);

#endif
