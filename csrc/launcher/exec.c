#include "exec.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_PATH "/bin:/usr/bin"
#define SHELL "/bin/sh"

/* execve, then the shell for a file without a "#!" line: the shell's argv
 * is the file and the arguments after argv[0], however many (the kernel
 * limits their bytes, not their number). */
static void exec_file(const char *file, char *const argv[])
{
	char **sh_argv;
	size_t n = 0;

	execve(file, argv, environ);
	if (errno != ENOEXEC)
		return;
	while (argv[n] != NULL)
		n++;
	sh_argv = n == 0 ? NULL : malloc((n + 2) * sizeof(*sh_argv));
	if (sh_argv == NULL) {
		errno = n == 0 ? ENOEXEC : ENOMEM;
		return;
	}
	sh_argv[0] = (char *)SHELL;
	sh_argv[1] = (char *)file;
	memcpy(&sh_argv[2], &argv[1], (n - 1) * sizeof(*argv));
	sh_argv[n + 1] = NULL;
	execve(SHELL, sh_argv, environ);
	free(sh_argv);
	errno = errno == ENOENT ? ENOEXEC : errno; /* no shell: still ENOEXEC */
}

/* Whether a failure in one $PATH directory lets the search go on. */
static bool try_next(int e)
{
	return e == ENOENT || e == ENOTDIR || e == ESTALE || e == ENODEV ||
	       e == ETIMEDOUT || e == EACCES;
}

void sandy_execvp(char *const argv[])
{
	static char full[PATH_MAX];
	const char *name = argv[0], *path = getenv("PATH"), *dir, *end;
	size_t name_len = strlen(name), dir_len;
	bool eacces = false;

	if (name_len == 0) {
		errno = ENOENT;
		return;
	}
	if (strchr(name, '/') != NULL) {
		exec_file(name, argv);
		return;
	}
	if (path == NULL)
		path = DEFAULT_PATH;
	for (dir = path;; dir = end + 1) {
		end = strchrnul(dir, ':');
		dir_len = (size_t)(end - dir);
		/* an element too long to join is passed over, as glibc does */
		if (dir_len + 1 + name_len + 1 <= sizeof(full)) {
			/* an empty element: the working directory */
			memcpy(full, dir, dir_len);
			full[dir_len] = '/';
			memcpy(full + dir_len + 1, name, name_len + 1);
			exec_file(dir_len == 0 ? full + 1 : full, argv);
			if (!try_next(errno))
				return;
			eacces = eacces || errno == EACCES;
		}
		if (*end == '\0')
			break;
	}
	errno = eacces ? EACCES : ENOENT;
}
