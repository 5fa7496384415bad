/* Ending a process as its child ended, for the programs that stand between
 * a caller and a command: the launcher's supervisors (linux/processes.c)
 * and `sandy run` (through the addon). A signal is raised again on this
 * process, with RLIMIT_CORE at 0 first: the command's own core, if it
 * dumped one, was its own, and one of this process (the launcher, or Node
 * holding hundreds of megabytes) would land in the caller's directory.
 * POSIX only: both programs build it. */
#ifndef SANDY_END_H
#define SANDY_END_H

/* Raises sig on this process with its default action and no core file;
 * returns only when that does not end the process (a signal whose default
 * is to be ignored). */
void sandy_raise_without_core(int sig);

/* Ends this process as the wait status says: _exit with its exit code, or
 * its signal as above (128 + the signal when that does not end it). */
void sandy_end_like(int status) __attribute__((noreturn));

#endif
