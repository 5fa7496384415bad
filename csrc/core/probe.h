/* Host probe: measured facts, never assumptions. Each platform implements
 * sandy_probe_run() in its own directory (linux/probe.c, darwin/probe.c).
 * Every check that runs a program or a child has a timeout. */
#ifndef SANDY_PROBE_H
#define SANDY_PROBE_H

#include <stdbool.h>

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
	bool openat2;
	bool seccomp_filter;    /* a filter really loaded in a child */
	bool no_new_privs;      /* PR_SET_NO_NEW_PRIVS works */
	bool bwrap_found;
	char bwrap_path[256];
	char bwrap_version[64];
	bool bwrap_works;       /* `bwrap --ro-bind / / true` exited 0 */
	char bwrap_detail[SANDY_PROBE_TEXT];
	bool sandbox_exec;      /* macOS: /usr/bin/sandbox-exec present */
	bool root_user;         /* the calling process runs as uid 0 */
	sandy_backend_verdict backends[SANDY_BACKEND_COUNT];
} sandy_probe_report;

const char *sandy_backend_name(sandy_backend_id id);

/* Derives r->backends from the measured facts: the arbitration rules of
 * the design, in one platform-neutral place. Called by sandy_probe_run. */
void sandy_probe_judge(sandy_probe_report *r);

/* Fills *r. Never fails: a check that cannot run reports false with why. */
void sandy_probe_run(sandy_probe_report *r);

#endif
