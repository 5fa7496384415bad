/* Host probe: measured facts, never assumptions. On Linux the facts come
 * from the binary that enforces: the addon runs the launcher's probe mode
 * (SANDY_PROBE_MAGIC, linux/probe.c), which tries each step with the code
 * that enforces it in a short-lived child and prints the report in the
 * format below; a launcher that cannot run or answer leaves every backend
 * that needs it unusable. macOS has no launcher: darwin/probe.c measures
 * in the addon. Every check that runs a program or a child has a
 * timeout. */
#ifndef SANDY_PROBE_H
#define SANDY_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "vocabulary.h"

#define SANDY_PROBE_TEXT 512

typedef enum sandy_backend_id {
#define SANDY_X(id, name) SANDY_BACKEND_##id,
	SANDY_BACKEND_MAP(SANDY_X) /* from 0 (vocabulary.h) */
#undef SANDY_X
	SANDY_BACKEND_COUNT
} sandy_backend_id;

typedef struct sandy_backend_verdict {
	bool usable;
	/* "full" or "partial" when usable, "" otherwise */
	char enforcement[8];
	/* why, in words a user can act on */
	char reason[SANDY_PROBE_TEXT];
} sandy_backend_verdict;

typedef struct sandy_probe_report {
	char platform[16];      /* "linux", "darwin", ... */
	char kernel_release[128];
	int landlock_abi;       /* 0 when absent */
	int landlock_errata;    /* bitmask, 0 when unknown or absent */
	bool user_namespaces;   /* user+mount+IPC really created in a child */
	char user_namespaces_detail[SANDY_PROBE_TEXT];
	bool mount_api;         /* open_tree/move_mount/mount_setattr work */
	bool pid_namespace;     /* pid 1 of a new PID namespace mounted a
				 * /proc of its own (only tried when
				 * user_namespaces) */
	char pid_namespace_detail[SANDY_PROBE_TEXT];
	bool openat2;
	bool seccomp_filter;    /* a filter really loaded in a child */
	bool no_new_privs;      /* PR_SET_NO_NEW_PRIVS works */
	bool bwrap_found;
	char bwrap_path[256];
	char bwrap_version[64];
	bool bwrap_works;       /* a trial sandbox exited 0 (linux/probe.c) */
	char bwrap_detail[SANDY_PROBE_TEXT];
	bool sandbox_exec;      /* macOS: sandbox-exec enforces both profiles */
	char sandbox_exec_detail[SANDY_PROBE_TEXT]; /* why not */
	bool root_user;         /* real, effective or saved uid 0 */
	bool launcher_ok;       /* Linux: the launcher answered its probe */
	char launcher_detail[SANDY_PROBE_TEXT]; /* why not, and the fix */
	sandy_backend_verdict backends[SANDY_BACKEND_COUNT];
} sandy_probe_report;

const char *sandy_backend_name(sandy_backend_id id);

/* Derives r->backends from the measured facts: the arbitration rules of
 * the design, in one platform-neutral place. Called by sandy_probe_run. */
void sandy_probe_judge(sandy_probe_report *r);

/* The platform's measurement (linux/probe.c in the launcher's probe mode,
 * darwin/probe.c in the addon). Fills *r, judged. Never fails: a check that
 * cannot run reports false with why. */
void sandy_probe_run(sandy_probe_report *r);

/* The addon's probe (addon/probe.c): on Linux the launcher's report, or,
 * when launcher is NULL, every Linux backend unusable because of problem
 * (words a user can act on); elsewhere sandy_probe_run. Fills *r,
 * judged. */
void sandy_probe_ask(const char *launcher, const char *problem,
		     sandy_probe_report *r);

/* The launcher's probe report on the wire: the header line, one line per
 * field in this order, then the end line:
 *
 *   report := "sandy-probe-v1\n" { NAME "=" VALUE "\n" } "end\n"
 *
 * B fields are "0" or "1", I fields a decimal number 0..9999, T fields
 * printable ASCII (0x20..0x7e) shorter than the field. The encoder drops
 * other bytes of a T field; the decoder refuses any deviation: a missing,
 * extra or reordered line, or a value out of bounds. */
#define SANDY_PROBE_HEADER "sandy-probe-v1"
#define SANDY_PROBE_FIELDS(B, I, T)                                          \
	T(kernel_release) I(landlock_abi) I(landlock_errata)                 \
	B(user_namespaces) T(user_namespaces_detail) B(mount_api)           \
	B(pid_namespace) T(pid_namespace_detail)                            \
	B(openat2) B(seccomp_filter) B(no_new_privs) B(bwrap_found)         \
	T(bwrap_path) T(bwrap_version) B(bwrap_works) T(bwrap_detail)       \
	B(root_user)

/* Writes the report's measured fields to buf; the length, or -1 when buf
 * is too small. */
int sandy_probe_encode(const sandy_probe_report *r, char *buf, size_t len);
/* Fills r's measured fields from text (platform "linux"); 0, or -1 when
 * the text is not a report. */
int sandy_probe_decode(const char *text, sandy_probe_report *r);

#endif
