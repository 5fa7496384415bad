/* The Linux backend's internal steps, one file each, called in order by
 * apply.c. Each returns 0, or -1 with *err set (never a path in it). */
#ifndef SANDY_LINUX_H
#define SANDY_LINUX_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../core/error.h"
#include "../core/resolve.h"
#include "apply.h"
#include "plan.h"

/* mount_view.c: descriptors pinned before any namespace change, so the
 * view is built from the objects that were resolved, not from names. */
typedef struct sandy_pin {
	int fd;          /* O_PATH|O_CLOEXEC, opened via openat2 */
	const char *path; /* borrowed from the resolved policy */
	unsigned long long dev, ino;
	bool is_dir;
	bool is_dev;     /* character or block device */
} sandy_pin;

typedef struct sandy_view {
	sandy_pin *grants;   /* one per r->grants[i] */
	sandy_pin *execs;    /* one per r->execs[i] */
	sandy_pin *denies;   /* deny_subtrees then deny_write_exact */
	size_t n_grants, n_execs, n_denies;
	/* the denies the build mounted (room for n_denies), for the init */
	sandy_mounted *mounted;
	size_t n_mounted;
} sandy_view;

int sandy_view_pin(const sandy_resolved *r, sandy_view *v, sandy_error *err);

/* mount_tree.c: the mount operations both views are made of (its opening
 * comment says the rules each keeps). */
/* Whether path at dfd (flags: AT_EMPTY_PATH, and never following a last
 * symlink) is a mount's root: 1, 0, or -1 with errno when it cannot be
 * examined. */
int sandy_mount_root(int dfd, const char *path, int flags);
/* The absolute path as one relative to a tree's root ("." for the root
 * itself). */
const char *sandy_tree_rel(const char *path);
/* path at dfd opened O_PATH and close-on-exec (flags added: O_DIRECTORY,
 * or 0) without following any symlink, magic links included; -1 with
 * errno (ENOSYS: no openat2). */
int sandy_open_no_symlinks(int dfd, const char *path, int flags);
/* A detached copy of the mount tree at fd, every mount beneath it
 * included, or -1 with errno. */
int sandy_tree_clone(int fd);
/* mount_setattr of the mount at path beneath dfd (flags: AT_EMPTY_PATH
 * for dfd's own, AT_RECURSIVE for every mount beneath it too,
 * AT_SYMLINK_NOFOLLOW): the attributes in set on, those in clr off, and
 * nothing else (no propagation, no id map). 0, or -1 with errno. */
int sandy_mount_attr(int dfd, const char *path, unsigned int flags,
		     unsigned long long set, unsigned long long clr);
/* A detached tree attached over the place target is (an O_PATH
 * descriptor), or at path beneath dfd. 0, or -1 with errno. */
int sandy_tree_attach(int tree, int target);
int sandy_tree_attach_at(int tree, int dfd, const char *path);
/* The call of sandy_tree_cover that failed, for the caller's words. */
typedef enum sandy_tree_step {
	SANDY_TREE_CLONE,
	SANDY_TREE_ATTR,
	SANDY_TREE_ATTACH,
	SANDY_TREE_STEPS
} sandy_tree_step;
/* fd's mount tree cloned, set (MOUNT_ATTR_*, or 0 for none) added to
 * every mount of the clone while it is detached, and the clone attached
 * over fd's own place: bound onto itself, the place cannot be renamed,
 * and with MOUNT_ATTR_RDONLY nothing in it written. The clone's
 * descriptor (the caller closes it; a walk may go on beneath it), or -1
 * with errno and, when failed is not NULL, the failing call in *failed. */
int sandy_tree_cover(int fd, unsigned long long set, sandy_tree_step *failed);
/* A detached tmpfs (mode, size or NULL, MOUNT_ATTR_*), or -1 with errno. */
int sandy_new_tmpfs(const char *mode, const char *size, unsigned int attr);
/* A temp area (the guard's /tmp, the view's --tmpfs): a detached empty
 * tmpfs of the kernel's default size, mode 1777, nosuid and nodev (exec
 * allowed: the seam promises execution everywhere), or -1 with errno. */
int sandy_new_temp_area(void);
/* Kernels before 6.15 refuse to clone out of a detached mount
 * (open_tree: EINVAL). A detached source of clones is staged: attached,
 * stacked on this namespace's "/", where no lookup by path reaches it,
 * cloned from, and unstaged (detached by its own descriptor) before
 * anything else is stacked there: nothing staged outlives the cloning.
 * 0, or -1 with errno. */
int sandy_stage(int tree);
int sandy_unstage(int tree);
/* n objects a deny is covered with, into trees[0..n): each a detached
 * empty directory (is_dir[i]) or empty file, mode 0, read-only, nosuid,
 * nodev, noexec, cloned from a tmpfs of their own, staged for the
 * cloning; no confined command opens them (it holds no capability, so
 * not even its uid 0 passes their modes: EACCES). A file's place takes
 * any non-directory: a socket, a device. 0, or -1 with errno and nothing
 * left open. */
int sandy_deny_objects(const bool *is_dir, size_t n, int *trees);
/* A detached procfs of this process's PID namespace, nosuid, nodev,
 * noexec and with the atime rule of the mount host_proc (the host's
 * /proc, pinned) lies on, or -1 with errno. */
int sandy_new_proc(int host_proc);
/* mkdir -p of the directories leading to the absolute path beneath the
 * directory root, then the node itself: a directory, or an empty file to
 * mount a file on. 0, or -1 with errno. */
int sandy_make_mountpoint(int root, const char *path, bool is_dir);

/* pins.c: whether the directory that keeps path out of reach (the last
 * prefix that opens, without symlinks: the search of it was refused) is
 * this uid's own, which a command of the same uid could have made
 * unsearchable and could undo. A path too long is taken as such. */
bool sandy_blocked_by_own(const char *path);
/* pins.c: protected read i (--deny-read PATH DEV:INO) as this uid finds it
 * now, with the host's ids (before any namespace): 1 reached and the
 * object confine saw; 0 out of reach (gone, or behind another uid's
 * directory it may not search), so out of the command's too; -1 with
 * *err when another object is there, its own uid's directory hides it,
 * or it cannot be opened for another reason. */
int sandy_deny_read_reached(const char *path, const char *id, size_t i,
			    sandy_error *err);
/* The watched names (apply.h's sandy_watch, linux/watch.c). Before any
 * namespace, each hold's names watched from its root down, then its
 * object checked to be the one expected (0, or -1 with PreparationFailed
 * naming the deny; watch.c's header says why in that order). In the
 * outer process once SIGIO is blocked, its descriptor signals SIGIO to it
 * (0, or -1 with errno); at each SIGIO, what the events pending say: a
 * watched name that appeared, a held deny whose name was replaced, or
 * that events were lost or a watched directory is gone; once the run is
 * gone, a name that appeared removed (whether it is gone). */
typedef struct sandy_trip {
	enum { SANDY_TRIP_NONE, SANDY_TRIP_MADE, SANDY_TRIP_REPLACED,
	       SANDY_TRIP_LOST } what;
	size_t index; /* MADE: watch[index]; REPLACED: held[index] */
} sandy_trip;
int sandy_watch_hold(sandy_watch *w, const sandy_hold *h, size_t n,
		     sandy_error *err);
int sandy_watch_arm(const sandy_watch *w);
sandy_trip sandy_watch_tripped(const sandy_watch *w);
bool sandy_watch_remove(const sandy_watch *w, size_t i);
/* Once the run is gone: the first watched name that is there, w->n when
 * a directory is not the one watched any more, or -1. */
long sandy_watch_present(const sandy_watch *w);
/* Once the verdict no longer needs it: its descriptor closed, the
 * instance's last close left to the kernel (watch.c, step 5). */
void sandy_watch_release(sandy_watch *w);

/* Inside the new mount namespace, as the view plan says (plan.h), from
 * v, pinned from the same resolved policy: tmpfs root, cloned trees,
 * attributes, pivot_root, old root detached, cwd re-entered. */
int sandy_view_build(const sandy_view_plan *p, sandy_view *v,
		     sandy_error *err);
void sandy_view_release(sandy_view *v);

/* descriptors.c: refuse (-1, PreparationFailed) when an open descriptor,
 * stdio included, is a directory or an O_PATH descriptor (it reaches the
 * host's mounts beneath a view, where chmod and the like are not
 * governed), or, for runners
 * without Landlock, a file open only for reading (it could be reopened
 * for writing through /proc/self/fd); and, under a policy that restricts
 * execution, any regular file or block device on a mount without noexec
 * (a loader could map it executable). */
int sandy_refuse_inherited_dirs(sandy_error *err);
int sandy_refuse_reopenable_files(sandy_error *err);
int sandy_refuse_executable_files(const sandy_resolved *r, sandy_error *err);

/* namespaces.c: user + mount + IPC + PID (+ network when the plan says
 * so), identity maps, private propagation. */
int sandy_namespaces_enter(const sandy_view_plan *p, sandy_error *err);
/* namespaces.c: user + mount + PID only, the same maps and propagation
 * (the bubblewrap guard's own namespaces, guard.c). */
int sandy_namespaces_enter_mounts(sandy_error *err);

/* self.c: an existing copy directory of uid (copy_dirs.h), a real
 * directory owned by it (a name another user squats is not ours to
 * protect), as an O_PATH descriptor, or -1. */
int sandy_open_copy_dir(const char *dir, uid_t uid);
/* self.c: refuses (-1, InvalidPolicy) a writable grant that shows the
 * protected directory dir under another name (a bind mount: the sandbox
 * protects dir by its path), or that holds dir's parent when uid owns it
 * (chmod there is not governed, and a loosened parent lets another user
 * swap dir). */
int sandy_refuse_writable_over(const char *grant, const char *dir, uid_t uid,
			       sandy_error *err);
/* self.c: refuses (-1, InvalidPolicy) a writable grant that is the parent
 * of the copy directory dir, made or not (its nearest ancestor that exists
 * when the parent does not), or a directory above that parent, by device
 * and inode along the parent's ".." chain; PreparationFailed when that
 * chain cannot be walked. */
int sandy_refuse_parent_of(const char *grant, const char *dir,
			   sandy_error *err);
/* self.c: the same for every candidate copy directory of uid
 * (copy_dirs.h). */
int sandy_refuse_copy_parents(const char *grant, uid_t uid, sandy_error *err);
/* self.c: one protected directory of uid, given as an open descriptor
 * (consumed). Landlock-only level: refused (-1, InvalidPolicy) when a
 * read_write grant of r is dir or a directory above it. Full level:
 * refused where sandy_refuse_writable_over refuses a read_write grant of
 * r, else it joins r as a deny_write_exact. */
int sandy_protect_dir(sandy_resolved *r, sandy_apply_level level,
		      const char *dir, int fd, uid_t uid, sandy_error *err);

/* processes.c: the launcher's processes (its opening comment says which
 * and why). Each split forks; the process that supervises never returns,
 * and the one that goes on to the command gets 0. */
typedef struct sandy_procs {
	sigset_t caller_mask;           /* the command gets it back */
	struct sigaction caller_chld;   /* SIGCHLD's disposition, likewise */
	char **words;                   /* the launcher's own argv words */
	size_t n_words;
	int link;                       /* the init's socket to the outer
					 * process, -1 elsewhere */
	int tty;                        /* stdio's terminal, whose foreground
					 * group this process's was, or -1 */
	pid_t fg;                       /* its foreground group as last chosen
					 * outside: this process's, then the
					 * one it had at a SIGCONT from outside
					 * (a shell's bg or fg) */
	sandy_watch *watch;             /* the outer process's watched names
					 * (linux/watch.c), or NULL */
	sandy_trip tripped;             /* what ended the run, if the watch
					 * did */
	const sandy_mounted *mounted;   /* the inner supervisor's: what holds
					 * denies, looked at while the command
					 * runs and once it has ended */
	size_t n_mounted;
	long lifted;                    /* the first of them gone, or -1 */
	int end_signal;                 /* what ends the inner supervisor's
					 * run when the watch trips */
} sandy_procs;

/* Before the first fork, nothing changed yet (PreparationFailed): the
 * caller's mask and SIGCHLD disposition kept, the supervised signals
 * blocked (sigwaitinfo takes them), SIGCHLD reported, and with a watch
 * (opened, or NULL) SIGIO too, which its descriptor then signals.
 * words[0..n) are wiped where a command could read them. */
int sandy_procs_begin(sandy_procs *s, char **words, size_t n_words,
		      sandy_watch *watch, sandy_error *err);
/* The full level, in the new namespaces: forks the init, which gets 0;
 * the outer process gets the init's pid and, having let go of what it
 * holds, becomes the outer supervisor. */
pid_t sandy_procs_fork_init(sandy_procs *s, sandy_error *err);
/* The outer process: ends as the command ended, or, when a watched name
 * appeared, kills the whole run, removes the name and returns -1 with
 * *err (EnforcementFailed, naming watch[i]). */
int sandy_procs_outer(sandy_procs *s, pid_t init, sandy_error *err);
/* In the process that becomes the inner supervisor, before it forks the
 * command: the mounts that hold denies at their paths (mounted[0..n),
 * kept until it ends). It looks at them every HOLD_CHECK_MS while the
 * command runs and once it has ended: one gone from its path (a change
 * the host made that no watch saw, a file system that revalidates names,
 * or the moment before a watched change's event) ends the run, and the
 * outer process fails naming the deny. */
void sandy_procs_hold(sandy_procs *s, const sandy_mounted *mounted, size_t n);
/* The full level, in the init once it is restricted: forks the command,
 * which gets 0. */
int sandy_procs_init(sandy_procs *s, sandy_error *err);
/* The Landlock-only level, before the command's restrictions: forks the
 * reaper (this process becomes the outer one), which forks the command,
 * which gets 0. */
int sandy_procs_reaper(sandy_procs *s, sandy_error *err);
/* In the command, before its exec: the caller's signal state back. */
int sandy_procs_command(const sandy_procs *s, sandy_error *err);

/* landlock.c: the ABI version and the errata bitmask, 0 when absent (a
 * test build may take the ABI as lower: SANDY_TEST_LANDLOCK_ABI_CAP) */
int sandy_landlock_abi(void);
int sandy_landlock_errata(void);
/* Restricts the calling thread as the Landlock plan says (plan.h, which
 * refused an ABI that cannot enforce the policy); no_new_privs must
 * already be set. The plan's with_view: the caller built the mount view,
 * which enforces the denies (landlock.c explains what changes). */
int sandy_landlock_restrict(const sandy_ll_plan *p, sandy_error *err);
/* A domain that scopes signals and nothing else (processes.c's reaper);
 * no_new_privs must already be set. */
int sandy_landlock_scope_signals(sandy_error *err);

/* seccomp.c: the last step before execve: the plan's filter variant
 * (seccomp_build.h's bits, sandy_plan_seccomp). */
int sandy_seccomp_load(unsigned variant, sandy_error *err);
/* seccomp.c: writes one filter (seccomp_build.h's variant bits) to fd as
 * a raw BPF program, for a runner that loads it itself (bwrap --seccomp). */
int sandy_seccomp_export(unsigned variant, int fd, sandy_error *err);

/* apply.c: 1 when the real, effective or saved uid is 0 (the
 * Landlock-only level refuses it), 0 when none is, -1 with errno. */
int sandy_runs_as_root(void);

/* loader_env.c: moves every variable glibc's loader honours only in
 * ordinary programs (LD_*, GLIBC_TUNABLES, ...) out of env, compacting it
 * in place, and writes them to fd as bubblewrap --args words
 * ("--setenv\0NAME\0VALUE\0"). */
int sandy_loader_vars_to_args(char **env, int fd, sandy_error *err);

#endif
