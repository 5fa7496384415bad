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

/* The launcher's probe report on the wire: the header line, one line per
 * field in this order, then the end line:
 *
 *   report := "sandy-probe-v1\n" { NAME "=" VALUE "\n" } "end\n"
 *
 * B fields are "0" or "1", I fields a decimal number 0..9999, T fields
 * printable ASCII (0x20..0x7e) shorter than the field. The encoder drops
 * other bytes of a T field; the decoder refuses any deviation: a missing,
 * extra or reordered line, or a value out of bounds.
 *
 * The one list of the measured facts: each is a member of
 * sandy_probe_report (bool, int, or char[SIZE] for T) and a property of
 * the addon's JS report at its JS place, the public API's spelling: a
 * property of the report ("kernelRelease"), one of an object the report
 * holds for a group ("bwrap.found"; a group's fields stand together), or
 * none ("": the judge's alone). csrc/gen/vocabulary_gen.c carries the
 * list to lib/vocabulary.js (PROBE_FIELDS) and types/probe-fields.d.ts. */
#define SANDY_PROBE_HEADER "sandy-probe-v1"
#define SANDY_PROBE_FIELDS(B, I, T)                                          \
	T(kernel_release, "kernelRelease", 128)                              \
	/* 0 when absent */                                                  \
	I(landlock_abi, "landlockAbi")                                       \
	/* a bitmask, 0 when unknown or absent */                            \
	I(landlock_errata, "landlockErrata")                                 \
	/* user+mount+IPC really created in a child */                       \
	B(user_namespaces, "userNamespaces")                                 \
	T(user_namespaces_detail, "userNamespacesDetail", SANDY_PROBE_TEXT)  \
	/* refused as an LSM refuses them (Ubuntu's AppArmor restriction):   \
	 * a step after the namespace was made (setgroups, the id maps,      \
	 * private propagation) with EPERM or EACCES, or unshare with EACCES */ \
	B(user_namespaces_denied, "userNamespacesDenied")                    \
	/* kernel.apparmor_restrict_unprivileged_userns is 1 (Ubuntu; absent \
	 * elsewhere: docs/apparmor.md) */                                   \
	B(user_namespaces_restricted, "userNamespacesRestricted")            \
	/* open_tree/move_mount/mount_setattr work: a trial view was built   \
	 * (only tried when user_namespaces) */                              \
	B(mount_api, "mountApi")                                             \
	/* the view's failing step and error, when it was tried and failed */ \
	T(mount_api_detail, "mountApiDetail", SANDY_PROBE_TEXT)              \
	/* pid 1 of a new PID namespace mounted a /proc of its own (only     \
	 * tried when user_namespaces) */                                    \
	B(pid_namespace, "pidNamespace")                                     \
	T(pid_namespace_detail, "pidNamespaceDetail", SANDY_PROBE_TEXT)      \
	B(openat2, "openat2")                                                \
	/* a filter really loaded in a child */                              \
	B(seccomp_filter, "seccompFilter")                                   \
	/* PR_SET_NO_NEW_PRIVS works */                                      \
	B(no_new_privs, "noNewPrivs")                                        \
	B(bwrap_found, "bwrap.found")                                        \
	T(bwrap_path, "bwrap.path", 256)                                     \
	T(bwrap_version, "bwrap.version", 64)                                \
	/* a trial sandbox exited 0 (linux/probe.c) */                       \
	B(bwrap_works, "bwrap.works")                                        \
	T(bwrap_detail, "bwrap.detail", SANDY_PROBE_TEXT)                    \
	/* real, effective or saved uid 0 */                                 \
	B(root_user, "")

typedef struct sandy_probe_report {
	char platform[16];      /* "linux", "darwin", ... */
	/* the measured facts, as the wire carries them */
#define SANDY_B(f, js) bool f;
#define SANDY_I(f, js) int f;
#define SANDY_T(f, js, size) char f[size];
	SANDY_PROBE_FIELDS(SANDY_B, SANDY_I, SANDY_T)
#undef SANDY_B
#undef SANDY_I
#undef SANDY_T
	bool sandbox_exec;      /* macOS: sandbox-exec enforces both profiles */
	char sandbox_exec_detail[SANDY_PROBE_TEXT]; /* why not */
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

/* macOS (darwin/probe.c): the workspace-write check of sandy_probe_run
 * again, in a scratch directory made inside root (a canonical workspace
 * root) and removed; NULL when it holds on root's volume and spelling,
 * else why (static text, no path). */
const char *sandy_probe_volume(const char *root);

/* The addon's question (addon/probe.c): sandy_probe_volume on macOS,
 * elsewhere a reason: the seatbelt backend is macOS only. */
const char *sandy_probe_volume_ask(const char *root);

/* The addon's probe (addon/probe.c): on Linux the launcher's report, or,
 * when launcher is NULL, every Linux backend unusable because of problem
 * (words a user can act on); elsewhere sandy_probe_run. Fills *r,
 * judged. */
void sandy_probe_ask(const char *launcher, const char *problem,
		     sandy_probe_report *r);

/* Writes the report's measured fields to buf; the length, or -1 when buf
 * is too small. */
int sandy_probe_encode(const sandy_probe_report *r, char *buf, size_t len);
/* Fills r's measured fields from text (platform "linux"); 0, or -1 when
 * the text is not a report. */
int sandy_probe_decode(const char *text, sandy_probe_report *r);

#endif
