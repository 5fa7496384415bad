/* Where the launcher's private copies live (docs/launcher-copy.md): a
 * function of the uid alone, written once for both programs. The addon
 * makes the copies in the first of these that works; the launcher keeps
 * every one of its own user's that exists read-only in its sandbox,
 * whoever started it (a root service may spawn the argv as another uid).
 * No home directory: a user-owned chain can be re-pointed by the user's
 * own confined commands, a root-owned one up to the last component
 * cannot. */
#ifndef SANDY_COPY_DIRS_H
#define SANDY_COPY_DIRS_H

#include <stddef.h>

#define SANDY_COPY_DIRS_MAX 3
#define SANDY_COPY_DIR_BYTES 48

/* Fills dirs with uid's candidates, best first; returns how many. */
size_t sandy_copy_dirs(unsigned long uid,
		       char dirs[SANDY_COPY_DIRS_MAX][SANDY_COPY_DIR_BYTES]);

/* bubblewrap's words that keep dir read-only and unrenamable inside a
 * writable bind of root: "--bind A A" for each directory strictly between
 * them (a mount point cannot be renamed), then "--ro-bind dir dir" (dir
 * may be root itself). Nothing when dir is not at or beneath root. Words
 * are appended at words[*n] (at most 3 * sandy_path_components(dir) + 3);
 * each A is a new allocation appended to owned[*n_owned] (at most
 * sandy_path_components(dir)). Returns 0, or -1 when out of memory. */
int sandy_bwrap_protect_words(const char *root, const char *dir,
			      const char **words, size_t *n, char **owned,
			      size_t *n_owned);

/* The number of '/' in p. */
size_t sandy_path_components(const char *p);

#endif
