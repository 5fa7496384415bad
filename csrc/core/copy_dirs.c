#include "copy_dirs.h"

#include <stdio.h>

/* Root's copies: root-owned, readable and executable by everyone, so a
 * root service can spawn the argv as another uid. Everyone else's: one
 * directory of its own in each shared temporary area (sticky, root-owned),
 * tried in this order because /tmp and /dev/shm are often noexec. */
static const char *const root_dirs[] = {"/var/cache/sandy-native"};
static const char *const user_dirs[] = {"/var/tmp/sandy-native-%lu",
					"/tmp/sandy-native-%lu",
					"/dev/shm/sandy-native-%lu"};

size_t sandy_copy_dirs(unsigned long uid,
		       char dirs[SANDY_COPY_DIRS_MAX][SANDY_COPY_DIR_BYTES])
{
	const char *const *list = uid == 0 ? root_dirs : user_dirs;
	size_t n = uid == 0 ? sizeof(root_dirs) / sizeof(*root_dirs)
			    : sizeof(user_dirs) / sizeof(*user_dirs);

	for (size_t i = 0; i < n; i++)
		snprintf(dirs[i], SANDY_COPY_DIR_BYTES, list[i], uid);
	return n;
}
