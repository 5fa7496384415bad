/* The launcher's processes: what keeps a confined command's processes from
 * reaching any other process, and ends all of them with the command.
 *
 * Before its first fork the launcher wipes its own words from its argv
 * (sandy_procs_begin): every process below is a copy of it, and
 * /proc/PID/cmdline shows the argv to whoever sees the process, the nonce
 * among the words.
 *
 * The full level, in new user, mount, IPC and PID namespaces (apply.c's
 * steps 2 to 6):
 *   outer    the process the caller spawned, left in the host's PID
 *            namespace. It enters the namespaces, forks the init and then
 *            only waits: it passes on the signals a process sends it (a
 *            terminal's reach the whole foreground group, the command
 *            included, by themselves) and ends as the command ended, with
 *            its exit status or its signal, raised again with RLIMIT_CORE
 *            at 0 so that no core of the launcher lands in the caller's
 *            directory. No process inside can see it, signal it or change
 *            its limits, priority or affinity: those take process numbers
 *            of the command's own namespace.
 *   init     pid 1 of the new PID namespace. It mounts the namespace's own
 *            /proc (which only a process inside it can do, and only while
 *            a whole /proc is in view: before the root is switched), builds
 *            the view and restricts itself as the command will be (keyring,
 *            no_new_privs, Landlock, no capabilities). Then, after its last
 *            credential change, which would clear it, PR_SET_PDEATHSIG kills
 *            it when the outer process dies, and the outer process is
 *            checked to be still there; it becomes non-dumpable (its
 *            memory, where the nonce is, and its descriptors out of the
 *            command's reach) and forks the command. From then on it reaps
 *            every orphan, passes signals on to the command, and when the
 *            command ends it sends the command's wait status to the outer
 *            process and exits: the kernel then kills whatever is left in
 *            the namespace before the outer process sees the init end. The
 *            command cannot be pid 1 itself: pid 1 ignores every signal it
 *            has no handler for, a terminal's SIGINT included.
 *   command  loads seccomp (whose filter may forbid forks: last), gets the
 *            caller's signal mask back and execs the target.
 *
 * The Landlock-only level, without namespaces:
 *   outer    as above, in the command's PID namespace: it forks the reaper
 *            and only waits.
 *   reaper   a child subreaper, in a Landlock domain of its own that scopes
 *            signals and nothing else: kill(-1) from it reaches the
 *            processes of that domain and of the command's, nested in it,
 *            which are every process the command started, wherever they
 *            were reparented, and no other; the command's processes can
 *            neither signal nor trace it. It gets a signal of its own when
 *            the outer process dies (PR_SET_PDEATHSIG, after its last
 *            credential change, then the outer process checked to be still
 *            there), forks the command, leaves the caller's process group to
 *            it (a kill of that group must leave the reaper to sweep) and
 *            passes signals on to it. When
 *            the command ends, or the outer process does, it kills and
 *            reaps everything left and only then ends, sending the
 *            command's wait status to the outer process as the init does.
 *   command  restricts itself (its own domain, nested), loads seccomp, gets
 *            the caller's signal mask back and execs the target.
 *
 * The bubblewrap guard (guard.h), in its own user, mount and PID
 * namespaces, is the outer process and the init of the full level, and
 * bubblewrap is their command: bubblewrap reports its command's status
 * before its own pid 1 has emptied its PID namespace, and sets its death
 * signal only late in its setup; in the guard's PID namespace every
 * process of it ends before the guard sees bubblewrap end, and with the
 * guard. The signals passed on reach bubblewrap, which ends by them, and
 * the run with it: they never reach the command's handlers. (bubblewrap
 * cannot be pid 1 there: pid 1 ignores every signal it has no handler
 * for, so a run would not even end by them.)
 *
 * The supervisors take their signals with sigwaitinfo: blocked from the
 * start, so none is lost between the forks and none needs a handler. A
 * signal is passed on when a process sent it; one the kernel sent (a
 * terminal's, SI_KERNEL) reached the foreground group, the command
 * included, already. But a terminal's hangup is passed on, with SIGCONT:
 * a command stopped in a group of its own would never see it and outlive
 * the session. Stop signals are not taken: a terminal's reach the command
 * itself, and one sent to the launcher alone stops the launcher. The
 * outer process gives the terminal back at the end when it had it at the
 * start and a group of the command took it and ended with it (job
 * control would leave it to a group that no longer exists): to its own
 * group, or to the one its shell chose at the last SIGCONT (bg). A group
 * with a process left (the shell, a job it started meanwhile) keeps it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/end.h"
#include "../core/protocol.h"
#include "linux.h"

/* What the inner supervisor tells the outer process at its end. */
typedef struct inner_report {
	int status;        /* the command's wait status */
	bool lifted;       /* a mount that held a deny was gone: which */
	char section[24];
	size_t index;
} inner_report;

/* The signals a supervisor passes on to the command. */
static const int forwarded[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM,
				SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};

static void supervised_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
}

static int procs_fail(sandy_error *err, sandy_error_kind kind,
		      const char *what, int e)
{
	return sandy_fail(err, kind, "processes: %s failed (errno %d)", what,
			  e);
}

static bool watching(const sandy_procs *s)
{
	return s->watch != NULL && s->watch->fd >= 0;
}

/* The launcher's own words, once read, are nobody's business. The
 * target's words after them stay. */
static void wipe_words(const sandy_procs *s)
{
	for (size_t i = 0; i < s->n_words; i++)
		memset(s->words[i], 0, strlen(s->words[i]));
}

int sandy_procs_begin(sandy_procs *s, char **words, size_t n_words,
		      sandy_watch *watch, sandy_error *err)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t set;

	*s = (sandy_procs){.words = words, .n_words = n_words, .link = -1,
			   .tty = -1, .watch = watch,
			   .tripped = {SANDY_TRIP_NONE, 0}, .lifted = -1,
			   .end_signal = SIGKILL};
	wipe_words(s);
	for (int fd = 0; fd <= 2 && s->tty < 0; fd++)
		if (tcgetpgrp(fd) == getpgrp())
			s->tty = fd;
	s->fg = getpgrp();
	supervised_signals(&set);
	if (watching(s))
		sigaddset(&set, SIGIO);
	sigemptyset(&dfl.sa_mask);
	/* SIGCHLD ignored by the caller would reap the supervisors' children
	 * before they could */
	if (sigprocmask(SIG_BLOCK, &set, &s->caller_mask) != 0 ||
	    sigaction(SIGCHLD, &dfl, &s->caller_chld) != 0)
		return procs_fail(err, SANDY_ERR_PREPARATION_FAILED, "signals",
				  errno);
	if (sandy_watch_arm(watch) != 0)
		return procs_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "the watched names", errno);
	return 0;
}

int sandy_procs_command(const sandy_procs *s, sandy_error *err)
{
	if (sigaction(SIGCHLD, &s->caller_chld, NULL) != 0 ||
	    sigprocmask(SIG_SETMASK, &s->caller_mask, NULL) != 0)
		return procs_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "the caller's signal mask", errno);
	return 0;
}

/* Blocks until the child ends; its wait status. (Only when sigwaitinfo
 * cannot be used, which the signal set here never gives.) */
static int wait_plainly(pid_t child)
{
	int status;

	while (waitpid(child, &status, 0) != child)
		if (errno != EINTR)
			return SANDY_LAUNCHER_EXIT_FAILURE << 8;
	return status;
}

/* A SIGCONT from outside the sandbox (none inside can signal this
 * process: Landlock's scope) comes from job control: the shell that sent
 * it chose the terminal's foreground group just before (its own for bg,
 * this one's for fg). The same SIGCONT woke the command too, which may
 * have taken the terminal for a group of its own by the time this runs:
 * that is no choice from outside, and the sender's group is noted for it. */
static void note_foreground(sandy_procs *s, pid_t sender)
{
	pid_t fg = s->tty >= 0 ? tcgetpgrp(s->tty) : -1;
	pid_t chooser = sender > 0 ? getpgid(sender) : fg;

	if (fg > 0)
		s->fg = chooser > 0 && fg != getpgrp() ? chooser : fg;
}

/* The watch tripped: the whole run killed and waited for (the init of a
 * PID namespace ends only once every process in it has). */
static int end_run(pid_t child, sandy_procs *s, sandy_trip tripped)
{
	s->tripped = tripped;
	kill(child, s->end_signal);
	return wait_plainly(child);
}

void sandy_procs_hold(sandy_procs *s, const sandy_mounted *mounted, size_t n)
{
	s->mounted = mounted;
	s->n_mounted = n;
}

/* How often the inner supervisor looks at the mounts that hold denies. */
#define HOLD_CHECK_MS 100

/* Whether the mount that holds deny i is gone from its path: an object
 * there that is no mount's root is the host's, uncovered; a path that can
 * no longer be searched (a directory on it made unsearchable since the
 * first look) hides what is there from the look, not from a command
 * already inside. Nothing there opens nothing. */
static bool gone(const sandy_procs *s, size_t i)
{
	int root = sandy_mount_root(AT_FDCWD, s->mounted[i].path, 0);

	return root == 0 || (root < 0 && errno == EACCES);
}

/* The first mount that holds a deny and is gone from its path, or -1. */
static long first_lifted(const sandy_procs *s)
{
	for (size_t i = 0; s != NULL && i < s->n_mounted; i++)
		if (gone(s, i))
			return (long)i;
	return -1;
}

/* The first look, before the command starts, once this process has its
 * last credentials: a deny whose path this uid cannot search then (behind
 * another uid's directory) is as far out of the command's reach, and is
 * not looked at again. */
static void first_look(sandy_procs *s)
{
	sandy_mounted *kept = calloc(s->n_mounted + 1, sizeof(*kept));
	size_t n = 0;

	if (kept == NULL)
		return; /* every one looked at: a hidden one ends the run */
	for (size_t i = 0; i < s->n_mounted; i++)
		if (sandy_mount_root(AT_FDCWD, s->mounted[i].path, 0) >= 0 ||
		    errno != EACCES)
			kept[n++] = s->mounted[i];
	s->mounted = kept;
	s->n_mounted = n;
}

/* Nanoseconds of the monotonic clock. */
static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The time left until the next look at the mounts; when it has come, the
 * look (holder->lifted) and the next one's time. */
static struct timespec next_look(sandy_procs *holder, long long *due)
{
	long long left = *due - now_ns();

	if (left <= 0) {
		holder->lifted = first_lifted(holder);
		*due = now_ns() + HOLD_CHECK_MS * 1000000LL;
		left = HOLD_CHECK_MS * 1000000LL;
	}
	return (struct timespec){.tv_sec = left / 1000000000LL,
				 .tv_nsec = left % 1000000000LL};
}

/* Waits for the child, passing on to it each signal of the set that a
 * process sent, and reaping every other child that ends meanwhile (the
 * orphans an init or a subreaper inherits). Its wait status, or -1 when
 * the signal gone (0: none) came first. With terminal (the outer
 * process), notes who has the terminal at each SIGCONT, and ends the run
 * when a watched name appears. With holder (an init that holds mounts),
 * looks at them every HOLD_CHECK_MS, whatever signals come meanwhile (the
 * command can send them), and ends the run (every process of its
 * namespace) when one is gone. */
static int supervise(pid_t child, int gone, sandy_procs *terminal,
		     sandy_procs *holder)
{
	bool checking = holder != NULL && holder->n_mounted > 0;
	long long due = now_ns() + HOLD_CHECK_MS * 1000000LL;
	struct timespec tick;
	sigset_t set;
	siginfo_t si;
	int status, sig;
	sandy_trip tripped;
	pid_t p;

	supervised_signals(&set);
	if (gone != 0)
		sigaddset(&set, gone);
	if (terminal != NULL && watching(terminal))
		sigaddset(&set, SIGIO);
	for (;;) {
		if (checking) {
			tick = next_look(holder, &due);
			if (holder->lifted >= 0) {
				kill(-1, SIGKILL);
				return wait_plainly(child);
			}
		}
		sig = checking ? sigtimedwait(&set, &si, &tick)
			       : sigwaitinfo(&set, &si);
		if (sig < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (sig < 0)
			return wait_plainly(child);
		if (sig == SIGIO && terminal != NULL && watching(terminal)) {
			tripped = sandy_watch_tripped(terminal->watch);
			if (tripped.what != SANDY_TRIP_NONE)
				return end_run(child, terminal, tripped);
		} else if (sig == SIGCHLD) {
			while ((p = waitpid(-1, &status, WNOHANG)) > 0)
				if (p == child)
					return status;
		} else if (sig > 0 && sig == gone) {
			return -1;
		} else if (sig == SIGHUP && si.si_code == SI_KERNEL) {
			kill(child, SIGHUP);
			kill(child, SIGCONT);
		} else if (sig > 0 && si.si_code != SI_KERNEL) {
			if (sig == SIGCONT && terminal != NULL)
				note_foreground(terminal, si.si_pid);
			kill(child, sig);
		}
	}
}

/* ---- the outer process and the inner supervisor, both levels ------------ */

/* Forks the inner supervisor (the init, the reaper), linked to this
 * process by a socket: 0 in it, its pid here, -1 with *err. */
static pid_t fork_inner(sandy_procs *s, const char *name, sandy_error *err)
{
	int link[2];
	pid_t inner;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link) != 0)
		return procs_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "socketpair", errno);
	inner = fork();
	if (inner < 0) {
		int e = errno;

		close(link[0]);
		close(link[1]);
		return procs_fail(err, SANDY_ERR_ENFORCEMENT_FAILED, name, e);
	}
	close(link[inner == 0 ? 0 : 1]);
	s->link = link[inner == 0 ? 1 : 0];
	/* the watch is the outer process's alone */
	if (inner == 0)
		sandy_watch_close(s->watch);
	return inner;
}

pid_t sandy_procs_fork_init(sandy_procs *s, sandy_error *err)
{
	return fork_inner(s, "fork of the init", err);
}

/* The terminal back to the group last chosen outside (this process's,
 * or its shell's after bg), when a group of the command took it and
 * ended with the command (from a group in the background of its session:
 * SIGTTOU blocked). A group that still has a process keeps it: the
 * shell's, or a job the shell gave it to meanwhile. */
static void give_back_terminal(const sandy_procs *s)
{
	sigset_t ttou;
	pid_t fg;

	if (s->tty < 0)
		return;
	fg = tcgetpgrp(s->tty);
	if (fg <= 0 || fg == s->fg || kill(-fg, 0) == 0 || errno != ESRCH)
		return;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, NULL);
	tcsetpgrp(s->tty, s->fg);
}

/* Once the run is gone (nothing of it can make a name any more): what the
 * events left say, then every watched name that is there removed; whether
 * all of them could be. A name seen while the run went on but gone by now
 * was tried all the same: s->tripped says so. */
static bool remove_watched(sandy_procs *s)
{
	long i;
	bool all = true;

	if (!watching(s))
		return true;
	if (s->tripped.what == SANDY_TRIP_NONE)
		s->tripped = sandy_watch_tripped(s->watch);
	for (size_t k = 0; k <= s->watch->n; k++) {
		i = sandy_watch_present(s->watch);
		if (i < 0)
			break;
		if (s->tripped.what == SANDY_TRIP_NONE)
			s->tripped = (size_t)i == s->watch->n
				? (sandy_trip){SANDY_TRIP_LOST, 0}
				: (sandy_trip){SANDY_TRIP_MADE, (size_t)i};
		if ((size_t)i == s->watch->n ||
		    !sandy_watch_remove(s->watch, (size_t)i)) {
			all = false;
			break;
		}
	}
	return all;
}

static int replaced(sandy_error *err, const char *section, size_t index)
{
	return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
			  "a denied name was replaced during the run, %s[%zu]: "
			  "the run was ended",
			  section, index);
}

int sandy_procs_outer(sandy_procs *s, pid_t inner, sandy_error *err)
{
	int status;
	inner_report reported;
	bool removed;
	const sandy_trip *t = &s->tripped;

	status = supervise(inner, 0, s, NULL);
	give_back_terminal(s);
	removed = remove_watched(s);
	sandy_watch_release(s->watch);
	if (t->what == SANDY_TRIP_LOST)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "a watched directory was moved, or its events "
				  "were lost: the run was ended");
	if (t->what == SANDY_TRIP_REPLACED)
		return replaced(err, s->watch->held[t->index].section,
				s->watch->held[t->index].index);
	if (t->what == SANDY_TRIP_MADE)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "the command made a protected name, "
				  "watch[%zu]: the run was ended, the name %s",
				  t->index,
				  removed ? "removed" : "could not be removed");
	/* the command's status, when the inner supervisor lived to send it;
	 * else its own (its fatal line's 125, or the signal that killed it) */
	if (read(s->link, &reported, sizeof(reported)) == sizeof(reported)) {
		reported.section[sizeof(reported.section) - 1] = '\0';
		if (reported.lifted)
			return replaced(err, reported.section, reported.index);
		status = reported.status;
	}
	sandy_end_like(status);
}

/* The outer process holds its end of the link until it dies. */
static bool outer_gone(int link)
{
	struct pollfd p = {.fd = link, .events = POLLIN};

	return poll(&p, 1, 0) != 0;
}

/* In the inner supervisor, after its last credential change: sig when the
 * outer process dies, and the outer process still there. */
static int tie_to_outer(const sandy_procs *s, int sig, sandy_error *err)
{
	if (prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0)
		return procs_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "PR_SET_PDEATHSIG", errno);
	/* (unreachable: only the outer process's death between its fork and
	 * this check, which no test can time, leads here) */
	if (outer_gone(s->link))
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "processes: the launcher ended before the "
				  "command started");
	return 0;
}

/* Forks the command, which gets 0; -1 with *err. */
static pid_t fork_command(sandy_procs *s, sandy_error *err)
{
	pid_t command = fork();

	if (command < 0)
		return procs_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "fork of the command", errno);
	if (command == 0) {
		close(s->link);
		s->link = -1;
	}
	return command;
}

/* The command's wait status to the outer process, with the deny whose
 * mount was gone, and its exit status in the inner supervisor's own as
 * well, in case the link fails (and then, for a deny gone, its fatal
 * status: the outer process cannot tell which, but not that all went
 * well). */
static void __attribute__((noreturn)) report(const sandy_procs *s, int status)
{
	inner_report r = {.status = status, .lifted = s->lifted >= 0};

	if (r.lifted) {
		snprintf(r.section, sizeof(r.section), "%s",
			 s->mounted[s->lifted].section);
		r.index = s->mounted[s->lifted].index;
	}
	if (write(s->link, &r, sizeof(r)) != sizeof(r)) {
		if (r.lifted)
			_exit(SANDY_LAUNCHER_EXIT_FAILURE);
		if (WIFSIGNALED(status))
			_exit(128 + WTERMSIG(status));
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 0);
}

/* ---- the full level ---------------------------------------------------- */

int sandy_procs_init(sandy_procs *s, sandy_error *err)
{
	pid_t command;
	int status;

	if (tie_to_outer(s, SIGKILL, err) != 0)
		return -1;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return procs_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "PR_SET_DUMPABLE", errno);
	first_look(s);
	command = fork_command(s, err);
	if (command <= 0)
		return (int)command;
	status = supervise(command, 0, NULL, s);
	/* (the command may have ended in the moment between the host's change
	 * and its event, or before the next look) */
	if (s->lifted < 0)
		s->lifted = first_lifted(s);
	report(s, status);
}

/* ---- the Landlock-only level ------------------------------------------ */

/* The reaper learns of the outer process's death by this signal, which
 * nothing else sends it: the command cannot (Landlock), and the outer
 * process passes on none of this kind. */
#define OUTER_GONE SIGRTMIN

/* Kills every process of the reaper's domain and reaps them all: as a
 * subreaper it inherits every orphan, so no child left means none of them
 * is left. */
static void sweep(void)
{
	int status;

	do
		kill(-1, SIGKILL);
	while (waitpid(-1, &status, 0) > 0 || errno == EINTR);
}

static int become_reaper(sandy_procs *s, sandy_error *err)
{
	sigset_t gone;
	pid_t command;
	int status;

	sigemptyset(&gone);
	sigaddset(&gone, OUTER_GONE);
	if (sigprocmask(SIG_BLOCK, &gone, NULL) != 0)
		return procs_fail(err, SANDY_ERR_ENFORCEMENT_FAILED, "signals",
				  errno);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		return procs_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "PR_SET_CHILD_SUBREAPER", errno);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return procs_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "no_new_privs", errno);
	if (sandy_landlock_scope_signals(err) != 0 ||
	    tie_to_outer(s, OUTER_GONE, err) != 0)
		return -1;
	command = fork_command(s, err);
	if (command <= 0)
		return (int)command;
	/* out of the caller's process group, the command's: a kill of that
	 * group must leave the reaper to sweep */
	setpgid(0, 0);
	status = supervise(command, OUTER_GONE, NULL, NULL);
	sweep();
	if (status < 0)
		_exit(SANDY_LAUNCHER_EXIT_FAILURE); /* nobody to tell */
	report(s, status);
}

int sandy_procs_reaper(sandy_procs *s, sandy_error *err)
{
	pid_t reaper;

	reaper = fork_inner(s, "fork of the reaper", err);
	/* (the reaper ends its run by the signal it takes for the outer
	 * process's death: killed, it would leave the command's processes) */
	s->end_signal = OUTER_GONE;
	if (reaper > 0)
		return sandy_procs_outer(s, reaper, err);
	return reaper < 0 ? -1 : become_reaper(s, err);
}
