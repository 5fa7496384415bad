/* sandy_on_kernel_fs (kernel_fs.h): the magic, the trees, the devices. */
#include "kernel_fs.h"

#include "paths.h"
#include "vocabulary.h"

bool sandy_kernel_tree(const char *path, bool programs)
{
#define SANDY_X(tree, maps)                                                  \
	if ((programs || !(maps)) && sandy_path_within(tree, path))           \
		return true;
	SANDY_KERNEL_TREE_MAP(SANDY_X)
#undef SANDY_X
	return false;
}

#ifdef __linux__
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include "stat.h"

static bool kernel_magic(unsigned long magic)
{
#define SANDY_X(m, name)                                                     \
	if (magic == (unsigned long)(m))                                      \
		return true;
	SANDY_KERNEL_FS_MAP(SANDY_X)
#undef SANDY_X
	return false;
}

static bool kernel_type(const char *type)
{
#define SANDY_X(m, name)                                                     \
	if (strcmp(type, name) == 0)                                          \
		return true;
	SANDY_KERNEL_FS_MAP(SANDY_X)
	SANDY_KERNEL_FS_NAMED_MAP(SANDY_X)
#undef SANDY_X
	return false;
}

/* mountinfo's escapes (\040 and the like) undone in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++, out++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) |
				      (s[3] - '0'));
			s += 3;
		} else {
			*out = *s;
		}
	}
	*out = '\0';
}

/* One line of /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTS
 * [TAGS...] - TYPE SOURCE SUPER". Whether it mounts, on device dev, a
 * kernel filesystem (by its type) or a tmpfs within a kernel tree. (Not
 * any mount there: a container runtime binds files of its disk into
 * /dev, which would make that whole disk count.) */
static bool kernel_mount(char *line, dev_t dev)
{
	char *field[5], *rest = line, *type;
	unsigned maj, min;

	for (int i = 0; i < 5; i++) {
		field[i] = strsep(&rest, " ");
		if (field[i] == NULL)
			return false;
	}
	type = rest != NULL ? strstr(rest, " - ") : NULL;
	if (type == NULL || sscanf(field[2], "%u:%u", &maj, &min) != 2 ||
	    makedev(maj, min) != dev)
		return false;
	type += 3;
	type[strcspn(type, " \n")] = '\0';
	unescape(field[4]);
	return kernel_type(type) ||
	       (strcmp(type, "tmpfs") == 0 && sandy_kernel_tree(field[4], true));
}

/* Whether any mount of a kernel filesystem, or within a kernel tree, is
 * on device dev. 1, 0, or -1 with errno. */
static int kernel_device(dev_t dev)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int found = 0, e = 0;

	if (f == NULL)
		return -1;
	for (;;) {
		if (getline(&line, &cap, f) < 0) {
			/* the end, or no line (ENOMEM, a read error) */
			if (!feof(f)) {
				e = errno != 0 ? errno : EIO;
				found = -1;
			}
			break;
		}
		if (kernel_mount(line, dev)) {
			found = 1;
			break;
		}
	}
	free(line);
	fclose(f);
	errno = e;
	return found;
}

int sandy_on_kernel_fs(const char *path)
{
	struct statfs fs;
	struct stat st;

	if (sandy_kernel_tree(path, true))
		return 1;
	if (statfs(path, &fs) != 0 || sandy_stat(AT_FDCWD, path, 0, &st) != 0)
		return -1;
	if (kernel_magic((unsigned long)fs.f_type))
		return 1;
	return kernel_device(st.st_dev);
}

#else

int sandy_on_kernel_fs(const char *path)
{
	(void)path;
	return 0;
}

#endif
