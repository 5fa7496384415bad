/* The namespace floor (bench/launch.js): the kernel work the sandy
 * backend's promises require and nothing of the launcher's own. New user,
 * mount, IPC and PID namespaces, the identity maps, private propagation,
 * the fork into the PID namespace, whose pid 1 mounts a fresh /proc and
 * forks the command, then waits for it as the outer process waits for
 * pid 1; each exit status passed on. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

static int put(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int waited(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char *argv[])
{
	char map[64];
	unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
	pid_t init, command;

	if (argc < 2)
		return 2;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID) != 0)
		return 125;
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (put("/proc/self/uid_map", map) != 0 ||
	    put("/proc/self/setgroups", "deny") != 0)
		return 125;
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (put("/proc/self/gid_map", map) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return 125;
	init = fork();
	if (init != 0)
		return waited(init);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) != 0)
		_exit(125);
	command = fork();
	if (command == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	_exit(waited(command));
}
