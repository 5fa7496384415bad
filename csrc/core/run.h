/* Running a short-lived child with a deadline, for the probes: a forked
 * child that answers in a few bytes (the launcher's probe mode), or a
 * program whose output is captured (bubblewrap's trial; the addon running
 * the launcher's probe). Every child is reaped; one that outlives its
 * deadline is killed (with its process group, for programs). Built by both
 * programs: POSIX only. */
#ifndef SANDY_RUN_H
#define SANDY_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sandy_wait {
	SANDY_WAIT_EXITED,    /* status is valid */
	SANDY_WAIT_TIMED_OUT, /* killed and reaped */
	SANDY_WAIT_LOST       /* reaped by someone else (SIGCHLD ignored) */
} sandy_wait;

#define SANDY_RUN_CAPTURE 4096

typedef struct sandy_run_result {
	sandy_wait wait;
	int status;
	char out[SANDY_RUN_CAPTURE]; /* NUL-terminated, truncated */
	char err[SANDY_RUN_CAPTURE];
} sandy_run_result;

/* Runs argv (argv[0] an absolute path) with stdin on /dev/null, a fixed
 * environment (PATH=/usr/bin:/bin, LC_ALL=C) and both outputs captured,
 * in its own process group. false with why when it could not be started. */
bool sandy_run_program(char *const argv[], int timeout_ms,
		       sandy_run_result *res, char *why, size_t why_len);

/* An answer of up to SANDY_RUN_ANSWER bytes, written by fn in a forked
 * child in one write(2). fn may use anything the single-threaded caller
 * could (the launcher); false with why when no whole answer came. */
#define SANDY_RUN_ANSWER 256
typedef void (*sandy_child_fn)(char answer[SANDY_RUN_ANSWER], void *arg);
bool sandy_run_child(sandy_child_fn fn, void *arg, int timeout_ms,
		     char answer[SANDY_RUN_ANSWER], char *why, size_t why_len);

/* "timed out after N ms", "killed by signal N", "exit status N" */
void sandy_describe_end(sandy_wait w, int status, int timeout_ms, char *out,
			size_t len);

/* The first line of text, trimmed, control bytes dropped (it ends up in a
 * terminal table). */
void sandy_first_line(const char *text, char *out, size_t len);

#endif
