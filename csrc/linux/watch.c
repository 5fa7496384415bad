/* The protected names that did not exist at confine (policy_argv.h's
 * --watch: a repository's commondir or config.worktree, which git reads
 * as soon as they exist), watched from the outer process, which stays
 * outside the sandbox (docs/protected-writes.md).
 *
 * Order, and why:
 *  1. Before any namespace (sandy_watch_open): each directory opened
 *     without following a symlink and checked to be the object confine
 *     saw; an inotify watch added on that very inode (through its
 *     descriptor's /proc/self/fd name), for names made or moved in; only
 *     then the name checked to be absent, so that nothing can appear
 *     unseen between the look and the watch. The directory's descriptor
 *     is closed again: the launcher refuses inherited directory
 *     descriptors, and the command must never hold one.
 *  2. In the outer process, once its supervised signals are blocked
 *     (sandy_watch_arm): the inotify descriptor signals SIGIO to it, which
 *     its sigwaitinfo loop takes with the others (processes.c). The inner
 *     supervisor closes its copy.
 *  3. At SIGIO (sandy_watch_tripped): the events are read; a watched name
 *     made or moved in, a watched directory moved or gone, or events lost
 *     trip the watch, and the outer process kills the whole run. A name
 *     made and removed again between two reads trips it all the same: the
 *     run ends on what it tried.
 *  4. Once the run is gone, however it ended (sandy_watch_present, then
 *     sandy_watch_remove): every watched name looked for again through
 *     its directory, opened again without following a symlink and
 *     checked to be the same object, since a run may make one and end
 *     before its signal is taken; one found is moved aside in its
 *     directory, atomically, whatever it holds, then removed as far as it
 *     can be. Nothing of the run is left to make one again.
 * inotify sees every change to the inode, through any mount of it, the
 * view's included. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

/* a name made or moved in; the directory itself moved or removed (the
 * view binds it onto itself, so neither should happen) */
#define WATCH_EVENTS                                                         \
	(IN_CREATE | IN_MOVED_TO | IN_MOVE_SELF | IN_DELETE_SELF | IN_ONLYDIR)

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

/* One watched name: its directory as confine saw it, watched, the name
 * absent. */
static int watch_one(sandy_watch *w, size_t i,
		     const struct sandy_launch_watch *l, sandy_error *err)
{
	struct sandy_watched *o = &w->w[i];
	char seen[48], self[64];
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
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	*o = (struct sandy_watched){.dev = st.st_dev, .ino = st.st_ino,
				    .dir = strdup(l->dir),
				    .name = strdup(l->name)};
	w->paths[i] = malloc(strlen(l->dir) + strlen(l->name) + 2);
	if (w->paths[i] != NULL)
		sprintf(w->paths[i], "%s/%s", l->dir, l->name);
	o->wd = o->dir == NULL || o->name == NULL || w->paths[i] == NULL ? -4
		: strcmp(seen, l->id) == 0
			? inotify_add_watch(w->fd, self, WATCH_EVENTS)
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
	w->n = 0;
}

int sandy_watch_open(const struct sandy_launch_watch *list, size_t n,
		     sandy_watch *out, sandy_error *err)
{
	*out = (sandy_watch){.fd = -1};
	if (n == 0)
		return 0;
	if (n > SANDY_WATCHES_MAX)
		return watch_fail(err, n, "too many");
	out->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (out->fd < 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "watch: inotify_init1 failed (errno %d)",
				  errno);
	for (out->n = 0; out->n < n; out->n++)
		if (watch_one(out, out->n, &list[out->n], err) != 0) {
			out->n++; /* its copies too */
			release(out);
			return -1;
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

/* The index of the watched name an event is about, w->n for one that
 * trips the watch as a whole, -1 for one that does not matter. */
static long event_index(const sandy_watch *w, const struct inotify_event *e)
{
	if (e->mask & (IN_Q_OVERFLOW | IN_IGNORED | IN_UNMOUNT | IN_MOVE_SELF |
		       IN_DELETE_SELF))
		return (long)w->n;
	for (size_t i = 0; i < w->n; i++)
		if (w->w[i].wd == e->wd && e->len > 0 &&
		    strcmp(e->name, w->w[i].name) == 0)
			return (long)i;
	return -1;
}

long sandy_watch_tripped(const sandy_watch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	long found = -1;
	ssize_t len;

	if (w == NULL || w->fd < 0)
		return -1;
	while ((len = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *e = (const void *)p;
			long i = event_index(w, e);

			if (found < 0 || (i >= 0 && i < found))
				found = i >= 0 ? i : found;
			p += sizeof(*e) + e->len;
		}
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
