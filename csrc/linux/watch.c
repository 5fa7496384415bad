/* What the outer process watches, from outside the sandbox:
 * - the protected names that did not exist at confine (policy_argv.h's
 *   --watch: a repository's commondir or config.worktree, which git reads
 *   as soon as they exist; docs/protected-writes.md), and
 * - the names on the way to each deny (plan.h's sandy_hold, the guard's
 *   protected paths): the host's rename or removal of any of them
 *   detaches the view's mount on the object in every namespace, and the
 *   new object at the name would have the rights of the grant around it;
 *   at the Landlock-only level an object that existed at launch keeps its
 *   own rules wherever the host moves it (docs/deny-durability.md).
 *
 * Order, and why:
 *  1. Before any namespace (sandy_watch_open, sandy_watch_hold): each
 *     directory opened without following a symlink; an inotify watch added
 *     on that very inode (through its descriptor's /proc/self/fd name), for
 *     names made, removed or moved in or out; only then the name looked
 *     at, so that nothing can change unseen between the look and the
 *     watch. A --watch directory is checked to be the object confine saw
 *     and its name to be absent. A hold walks from its grant down, one
 *     name at a time, each directory watched before its next name is
 *     opened in it, and checks the object it ends on to be the one confine
 *     pinned: from then on, any change on the way is an event. (A
 *     directory this uid may not read cannot be watched: one of another
 *     uid's that this one may not write either is passed over, since only
 *     that uid or root can change its names, and the directory below it
 *     answers for its own move or removal; any other fails the launch.)
 *     The descriptors are closed again: the launcher refuses inherited
 *     directory descriptors, and the command must never hold one.
 *  2. In the outer process, once its supervised signals are blocked
 *     (sandy_watch_arm): the inotify descriptor signals SIGIO to it, which
 *     its sigwaitinfo loop takes with the others (processes.c). The inner
 *     supervisor closes its copy.
 *  3. At SIGIO (sandy_watch_tripped): the events are read; a watched name
 *     made or moved in, an object made or moved to a held name (or, in a
 *     directory the command may write, a held name removed or moved out:
 *     it could then make its own), a --watch directory moved or gone, or
 *     events lost trip the watch, and the outer process kills the whole
 *     run. It reads no further once one has: a command making events as
 *     fast as they are read must not keep it reading (WATCH_READS_MAX).
 *     A name made and removed again between two reads trips it all the
 *     same: the run ends on what it tried. Once the run is gone the
 *     events left are read too: a replacement the command outlived by a
 *     moment still fails it.
 *  4. Once the run is gone, however it ended (sandy_watch_present, then
 *     sandy_watch_remove): every --watch name looked for again through
 *     its directory, opened again without following a symlink and
 *     checked to be the same object, since a run may make one and end
 *     before its signal is taken; one found is moved aside in its
 *     directory, atomically, whatever it holds, then removed as far as it
 *     can be. Nothing of the run is left to make one again. A held name's
 *     new object is the host's, and stays.
 *  5. Then the descriptor is let go (sandy_watch_release). The last close
 *     of an instance that had watches waits for the kernel to free them
 *     (fsnotify's mark reaper, an SRCU grace period: up to 20 ms on the
 *     reference machine when launches follow each other, more than the
 *     rest of a launch), and the caller waits for this process's exit. So
 *     the instance is first registered as the one file of an io_uring
 *     that is closed at once: the ring's teardown, and with it the last
 *     close, runs in a kernel worker, which nobody waits for. No process
 *     of ours outlives the launcher for it. Where io_uring is refused (a
 *     container's seccomp profile, kernel.io_uring_disabled), the close
 *     is this process's own, only slower.
 * inotify sees every change to the inode, through any mount of it, the
 * view's included. Between the host's change and the run's end there is
 * a window (the kernel's delivery of one signal and a kill), measured by
 * bench/deny-window.js. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "linux.h"
#include "../core/sys.h"
#include "../core/stat.h"

/* Test builds only (csrc/Makefile's unwatched): the held denies' names
 * not watched, so that the suite sees what the inner supervisor's look at
 * their mounts does alone. A release build never defines it. */
#ifdef SANDY_TEST_UNWATCHED
#define WATCH_HOLDS 0
#else
#define WATCH_HOLDS 1
#endif

/* One mask for every directory (a second inotify_add_watch of an inode
 * replaces its mask): a name made, removed or moved in or out; the
 * directory itself moved or removed. */
#define WATCH_EVENTS                                                         \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF | \
	 IN_DELETE_SELF | IN_ONLYDIR)

static int watch_fail(sandy_error *err, size_t i, const char *what)
{
	return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED, "watch[%zu]: %s",
			  i, what);
}

static int open_dir(const char *dir)
{
	return sandy_open_how(AT_FDCWD, dir,
			      (unsigned long long)(O_PATH | O_DIRECTORY |
						   O_CLOEXEC),
			      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

/* The inotify instance, made at the first watch. */
static int watch_init(sandy_watch *w, sandy_error *err)
{
	if (w->fd >= 0 ||
	    (w->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) >= 0)
		return 0;
	/* (its own limit, not the descriptors' that die() names for EMFILE) */
	if (errno == EMFILE) {
		errno = 0;
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "watch: no inotify instance left for this "
				  "user (fs.inotify.max_user_instances)");
	}
	return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			  "watch: inotify_init1 failed (errno %d)", errno);
}

/* The directory open as fd watched (its wd, or -1 with errno). */
static int watch_dir(const sandy_watch *w, int fd)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	return inotify_add_watch(w->fd, self, WATCH_EVENTS);
}

/* One watched name: its directory as confine saw it, watched, the name
 * absent. */
static int watch_one(sandy_watch *w, size_t i,
		     const struct sandy_launch_watch *l, sandy_error *err)
{
	struct sandy_watched *o = &w->w[i];
	char seen[48];
	struct stat st;
	int fd = open_dir(l->dir);

	if (fd < 0)
		return watch_fail(err, i, "the directory cannot be opened");
	if (sandy_stat(fd, NULL, 0, &st) != 0) {
		close(fd);
		return watch_fail(err, i, "the directory cannot be examined");
	}
	snprintf(seen, sizeof(seen), "%" PRIu64 ":%" PRIu64,
		 (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	*o = (struct sandy_watched){.dev = st.st_dev, .ino = st.st_ino,
				    .dir = strdup(l->dir),
				    .name = strdup(l->name)};
	w->paths[i] = malloc(strlen(l->dir) + strlen(l->name) + 2);
	if (w->paths[i] != NULL)
		sprintf(w->paths[i], "%s/%s", l->dir, l->name);
	o->wd = o->dir == NULL || o->name == NULL || w->paths[i] == NULL ? -4
		: strcmp(seen, l->id) == 0
			? watch_dir(w, fd)
			: -2;
	if (o->wd >= 0 &&
	    sandy_stat(fd, l->name, AT_SYMLINK_NOFOLLOW, &st) == 0)
		o->wd = -3;
	close(fd);
	if (o->wd == -2)
		return watch_fail(err, i, "the directory changed since confine");
	if (o->wd == -3)
		return watch_fail(err, i, "the name exists since confine");
	if (o->wd == -4)
		return watch_fail(err, i, "out of memory");
	return o->wd < 0 ? watch_fail(err, i, "inotify_add_watch failed") : 0;
}

/* A watch that could not be opened: nothing of it kept. */
static void release(sandy_watch *w)
{
	sandy_watch_close(w);
	for (size_t i = 0; i < w->n; i++) {
		free(w->w[i].dir);
		free(w->w[i].name);
		free(w->paths[i]);
	}
	for (size_t i = 0; i < w->n_names; i++)
		free(w->names[i].name);
	free(w->names);
	free(w->held);
	w->n = w->n_names = w->n_held = 0;
	w->names = NULL;
	w->held = NULL;
}

int sandy_watch_open(const struct sandy_launch_watch *list, size_t n,
		     sandy_watch *out, sandy_error *err)
{
	*out = (sandy_watch){.fd = -1};
	if (n == 0)
		return 0;
	if (n > SANDY_WATCHES_MAX)
		return watch_fail(err, n, "too many");
	if (watch_init(out, err) != 0)
		return -1;
	for (out->n = 0; out->n < n; out->n++)
		if (watch_one(out, out->n, &list[out->n], err) != 0) {
			out->n++; /* its copies too */
			release(out);
			return -1;
		}
	return 0;
}

static int hold_fail(sandy_error *err, const sandy_hold *h, const char *what)
{
	return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED, "%s[%zu]: %s",
			  h->section, h->index, what);
}

/* A directory this uid may not read, so not watch (inotify needs read
 * permission), whose names only another uid can change: another's, and
 * not writable by this one. */
static bool others_only(int dir)
{
	struct stat st;

	return sandy_stat(dir, NULL, 0, &st) == 0 && st.st_uid != geteuid() &&
	       sys_faccessat2(dir, "", W_OK, AT_EMPTY_PATH | AT_EACCESS) != 0 &&
	       errno == EACCES;
}

/* The directory open as dir watched, and name in it noted as held k: 0; a
 * directory only another uid can change (a shared /home at 0711) left
 * unwatched: 1 (its own names' moves are then theirs to see: self). */
static int hold_name(sandy_watch *w, int dir, const char *name, size_t len,
		     size_t k, bool removal, bool self)
{
	struct sandy_held_name *more;
	int wd = watch_dir(w, dir);

	if (wd < 0)
		return errno == EACCES && others_only(dir) ? 1 : -1;
	more = realloc(w->names, (w->n_names + 1) * sizeof(*more));
	if (more == NULL)
		return -1;
	w->names = more;
	more[w->n_names] = (struct sandy_held_name){.wd = wd, .held = k,
						    .name = strndup(name, len),
						    .removal = removal,
						    .self = self};
	if (more[w->n_names].name == NULL)
		return -1;
	w->n_names++;
	return 0;
}

/* The length of p as a prefix of a path: 0 for "/". */
static size_t prefix_len(const char *p)
{
	return strcmp(p, "/") == 0 ? 0 : strlen(p);
}

/* Hold k: from its root down, each directory watched before the next name
 * is opened in it, the object at the end the one confine pinned. A name
 * in a directory the command may write trips the watch by going as well
 * (it could then make its own object there); elsewhere only an object
 * coming to it does. (The directories on the way and the writable one are
 * prefixes of the one path: the lengths say which holds which.) */
static int hold_one(sandy_watch *w, const sandy_hold *h, size_t k,
		    sandy_error *err)
{
	const char *s = h->path + prefix_len(h->root) + 1;
	size_t writable = h->writable != NULL ? prefix_len(h->writable)
					      : SIZE_MAX;
	int fd = open_dir(h->root), next, held = 0;
	struct stat st;
	bool same;

	if (fd < 0)
		return hold_fail(err, h, "its grant cannot be opened");
	while (*s != '\0') {
		const char *e = strchrnul(s, '/');
		size_t len = (size_t)(e - s);
		char name[NAME_MAX + 1];

		if (len <= NAME_MAX)
			held = hold_name(w, fd, s, len, k,
					 (size_t)(s - 1 - h->path) >= writable,
					 held == 1);
		if (len > NAME_MAX || held < 0) {
			close(fd);
			return hold_fail(err, h, "its way cannot be watched");
		}
		memcpy(name, s, len);
		name[len] = '\0';
		next = sandy_open_how(fd, name,
				      (unsigned long long)(O_PATH | O_NOFOLLOW |
							   O_CLOEXEC |
							   (*e ? O_DIRECTORY
							       : 0)),
				      RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
					      RESOLVE_NO_MAGICLINKS);
		close(fd);
		if (next < 0)
			return hold_fail(err, h, "the denied object is gone");
		fd = next;
		s = *e ? e + 1 : e;
	}
	same = sandy_stat(fd, NULL, 0, &st) == 0 &&
	       (!h->expect->known || ((unsigned long long)st.st_dev ==
					      h->expect->dev &&
				      (unsigned long long)st.st_ino ==
					      h->expect->ino));
	close(fd);
	return same ? 0
		    : hold_fail(err, h, "the denied object changed since "
					"confine");
}

int sandy_watch_hold(sandy_watch *w, const sandy_hold *h, size_t n,
		     sandy_error *err)
{
	if (n == 0 || !WATCH_HOLDS)
		return 0;
	if (watch_init(w, err) != 0)
		return -1;
	w->held = calloc(n, sizeof(*w->held));
	if (w->held == NULL)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "watch: out of memory");
	for (size_t k = 0; k < n; k++) {
		w->held[k] = (struct sandy_held){h[k].section, h[k].index};
		w->n_held = k + 1;
		if (hold_one(w, &h[k], k, err) != 0) {
			release(w);
			return -1;
		}
	}
	return 0;
}

int sandy_watch_arm(const sandy_watch *w)
{
	if (w == NULL || w->fd < 0)
		return 0;
	if (fcntl(w->fd, F_SETOWN, getpid()) != 0)
		return -1;
	return fcntl(w->fd, F_SETFL, O_ASYNC | O_NONBLOCK);
}

void sandy_watch_close(sandy_watch *w)
{
	if (w != NULL && w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
}

void sandy_watch_release(sandy_watch *w)
{
	struct io_uring_params params;
	int ring;

	if (w == NULL || w->fd < 0)
		return;
	memset(&params, 0, sizeof(params));
	ring = sys_io_uring_setup(1, &params);
	if (ring >= 0) {
		(void)sys_io_uring_register(ring, IORING_REGISTER_FILES, &w->fd,
					    1);
		close(ring);
	}
	sandy_watch_close(w);
}

/* Whether wd is a --watch name's directory. */
static bool watching_absent(const sandy_watch *w, int wd)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->w[i].wd == wd)
			return true;
	return false;
}

/* What one event says. A held name's directory moved or gone is its
 * parent's event (its own name going), or its grant's, which the view
 * mounts from its descriptor, but where the parent was passed over (self);
 * a file system unmounted on the host does not reach the view's copy of
 * the mount table. */
static sandy_trip event_trip(const sandy_watch *w,
			     const struct inotify_event *e)
{
	if ((e->mask & IN_Q_OVERFLOW) ||
	    ((e->mask & (IN_IGNORED | IN_UNMOUNT | IN_DELETE_SELF |
			 IN_MOVE_SELF)) &&
	     watching_absent(w, e->wd)))
		return (sandy_trip){SANDY_TRIP_LOST, 0};
	for (size_t i = 0; (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) &&
			   i < w->n_names;
	     i++)
		if (w->names[i].wd == e->wd && w->names[i].self)
			return (sandy_trip){SANDY_TRIP_REPLACED,
					    w->names[i].held};
	for (size_t i = 0; e->len > 0 && i < w->n; i++)
		if (w->w[i].wd == e->wd && strcmp(e->name, w->w[i].name) == 0)
			return (sandy_trip){SANDY_TRIP_MADE, i};
	for (size_t i = 0; e->len > 0 && i < w->n_names; i++)
		if (w->names[i].wd == e->wd &&
		    strcmp(e->name, w->names[i].name) == 0 &&
		    (w->names[i].removal ||
		     (e->mask & (IN_CREATE | IN_MOVED_TO))))
			return (sandy_trip){SANDY_TRIP_REPLACED,
					    w->names[i].held};
	return (sandy_trip){SANDY_TRIP_NONE, 0};
}

/* Reads of the queue in one call before a queue that never empties counts
 * as events lost: the command can make events in the directories it may
 * write faster than they are read, and must not hold the outer process in
 * this loop while it goes on. */
#define WATCH_READS_MAX 64

sandy_trip sandy_watch_tripped(const sandy_watch *w)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	sandy_trip found = {SANDY_TRIP_NONE, 0};
	ssize_t len;

	if (w == NULL || w->fd < 0)
		return found;
	for (int reads = 0; (len = read(w->fd, buf, sizeof(buf))) > 0;
	     reads++) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *e = (const void *)p;
			sandy_trip t = event_trip(w, e);

			/* the first that names what, else that one was lost */
			if (found.what == SANDY_TRIP_NONE ||
			    (found.what == SANDY_TRIP_LOST &&
			     t.what != SANDY_TRIP_NONE))
				found = t;
			p += sizeof(*e) + e->len;
		}
		/* a trip is acted on at once */
		if (found.what != SANDY_TRIP_NONE)
			return found;
		if (reads + 1 >= WATCH_READS_MAX)
			return (sandy_trip){SANDY_TRIP_LOST, 0};
	}
	return found;
}

/* The directory of watched name i as it was watched, opened again
 * without following a link; -1 when it cannot be, or is another. */
static int watched_dir(const sandy_watch *w, size_t i)
{
	struct stat st;
	int fd = open_dir(w->w[i].dir);

	if (fd >= 0 && (sandy_stat(fd, NULL, 0, &st) != 0 ||
			st.st_dev != w->w[i].dev || st.st_ino != w->w[i].ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

long sandy_watch_present(const sandy_watch *w)
{
	struct stat st;

	for (size_t i = 0; w != NULL && w->fd >= 0 && i < w->n; i++) {
		int fd = watched_dir(w, i), found;

		if (fd < 0)
			return (long)w->n;
		found = sandy_stat(fd, w->w[i].name, AT_SYMLINK_NOFOLLOW,
				   &st) == 0;
		close(fd);
		if (found)
			return (long)i;
	}
	return -1;
}

/* name in dir, whatever it is, never following a link: a directory with
 * everything beneath it (at most depth levels more). */
static int remove_at(int dir, const char *name, int depth)
{
	int fd, rc = 0;
	DIR *d;
	struct dirent *e;

	if (unlinkat(dir, name, 0) == 0 || errno == ENOENT)
		return 0;
	if ((errno != EISDIR && errno != EPERM) || depth == 0)
		return -1;
	fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			rc = remove_at(dirfd(d), e->d_name, depth - 1);
	closedir(d);
	return rc == 0 ? unlinkat(dir, name, AT_REMOVEDIR) : -1;
}

/* Moves name out of the way in its directory, under a name of its own
 * that nothing reads (atomic, whatever it holds), then removes that as
 * far as it can: a tree made too deep or too stubborn to remove stays,
 * harmless, under the other name. */
bool sandy_watch_remove(const sandy_watch *w, size_t i)
{
	char aside[64];
	int fd, rc = -1;

	if (i >= w->n || (fd = watched_dir(w, i)) < 0)
		return false;
	for (unsigned k = 0; rc != 0 && k < 100; k++) {
		snprintf(aside, sizeof(aside), ".sandy-removed-%ld-%u",
			 (long)getpid(), k);
		rc = sys_renameat2(fd, w->w[i].name, fd, aside,
				   RENAME_NOREPLACE);
		if (rc != 0 && errno != EEXIST)
			break;
	}
	if (rc == 0)
		(void)remove_at(fd, aside, 64);
	else if (errno == ENOENT)
		rc = 0;
	close(fd);
	return rc == 0;
}
