#include "probe.h"

#include "protocol.h"

#include <stdio.h>
#include <string.h>


const char *sandy_backend_name(sandy_backend_id id)
{
#define SANDY_X(id, name) [SANDY_BACKEND_##id] = name,
	static const char *const names[SANDY_BACKEND_COUNT] = {
		SANDY_BACKEND_MAP(SANDY_X)};
#undef SANDY_X

	return id < SANDY_BACKEND_COUNT ? names[id] : "unknown";
}

/* Appends "; why" (or "why" first) to a reason, truncating safely. */
static void add_reason(sandy_backend_verdict *v, const char *why)
{
	size_t used = strlen(v->reason);

	snprintf(v->reason + used, sizeof(v->reason) - used, "%s%s",
		 used ? "; " : "", why);
}

static void set_usable(sandy_backend_verdict *v, sandy_enforcement enforcement,
		       const char *why)
{
	v->usable = true;
	snprintf(v->enforcement, sizeof(v->enforcement), "%s",
		 sandy_enforcement_name(enforcement));
	snprintf(v->reason, sizeof(v->reason), "%s", why);
}

static bool is_linux(const sandy_probe_report *r)
{
	return strcmp(r->platform, "linux") == 0;
}

static void check_landlock_abi(const sandy_probe_report *r,
			       sandy_backend_verdict *v)
{
	char buf[SANDY_PROBE_TEXT];

	if (r->landlock_abi >= SANDY_LANDLOCK_MIN_ABI)
		return;
	snprintf(buf, sizeof(buf),
		 "Landlock ABI %d found, %d needed (Linux 6.12 or later, with "
		 "landlock in the lsm= boot list)",
		 r->landlock_abi, SANDY_LANDLOCK_MIN_ABI);
	add_reason(v, buf);
}

static void judge_sandy(const sandy_probe_report *r, sandy_backend_verdict *v)
{
	if (!is_linux(r)) {
		add_reason(v, "the sandy launcher runs on Linux only");
		return;
	}
	check_landlock_abi(r, v);
	if (!r->user_namespaces)
		add_reason(v, "cannot create user+mount+IPC namespaces "
			      "(enable unprivileged user namespaces, or allow "
			      "them for this program in AppArmor/SELinux)");
	if (!r->mount_api)
		add_reason(v, "the mount API (open_tree, move_mount, "
			      "mount_setattr) does not work (Linux 5.12 or later)");
	if (!r->openat2)
		add_reason(v, "openat2 is missing (Linux 5.6 or later)");
	if (!r->seccomp_filter)
		add_reason(v, "seccomp filters cannot be loaded");
	if (!r->no_new_privs)
		add_reason(v, "no_new_privs cannot be set");
	if (v->reason[0] == '\0')
		set_usable(v, SANDY_ENFORCEMENT_FULL,
			   "namespaces, descriptor-built view, Landlock and "
			   "seccomp all work here");
}

static void judge_bwrap(const sandy_probe_report *r, sandy_backend_verdict *v)
{
	char buf[SANDY_PROBE_TEXT * 2];

	if (!is_linux(r)) {
		add_reason(v, "bubblewrap runs on Linux only");
	} else if (!r->bwrap_found) {
		add_reason(v, "bubblewrap not found in /usr/bin, /bin, "
			      "/usr/local/bin (install the bubblewrap package)");
	} else if (!r->bwrap_works) {
		snprintf(buf, sizeof(buf),
			 "bubblewrap is installed but cannot create its "
			 "sandbox here: %s", r->bwrap_detail);
		add_reason(v, buf);
	} else if (!r->user_namespaces || !r->mount_api ||
		   !r->seccomp_filter) {
		/* the guard's own namespace (guard_view.c), and the filter
		 * bubblewrap loads for it */
		add_reason(v, "the launcher's guard in front of bubblewrap "
			      "needs user+mount namespaces, the mount API "
			      "and seccomp filters (enable unprivileged user "
			      "namespaces; Linux 5.12 or later)");
	} else {
		set_usable(v, SANDY_ENFORCEMENT_FULL,
			   "bwrap --ro-bind / / true works");
	}
}

static void judge_landlock(const sandy_probe_report *r,
			   sandy_backend_verdict *v)
{
	if (!is_linux(r)) {
		add_reason(v, "Landlock is a Linux mechanism");
		return;
	}
	check_landlock_abi(r, v);
	if (!r->seccomp_filter)
		add_reason(v, "seccomp filters cannot be loaded");
	if (!r->no_new_privs)
		add_reason(v, "no_new_privs cannot be set");
	/* The launcher refuses uid 0 at this level (apply.c): chmod and chown
	 * would reach every file root owns. */
	if (r->root_user)
		add_reason(v, "the Landlock-only level does not confine uid 0 "
			      "(chmod and chown are not governed without a "
			      "view); run as another user");
	if (v->reason[0] == '\0')
		/* Landlock never governs chmod, chown, utime or xattr changes,
		 * so some promised file effects stay ungoverned. */
		set_usable(v, SANDY_ENFORCEMENT_PARTIAL,
			   "Landlock and seccomp without a private view: "
			   "chmod, chown, utime and xattr changes are not "
			   "governed");
}

static void judge_seatbelt(const sandy_probe_report *r,
			   sandy_backend_verdict *v)
{
	if (strcmp(r->platform, "darwin") != 0)
		add_reason(v, "Seatbelt exists on macOS only");
	else if (!r->sandbox_exec)
		add_reason(v, "/usr/bin/sandbox-exec is missing");
	else
		set_usable(v, SANDY_ENFORCEMENT_FULL,
			   "/usr/bin/sandbox-exec is present");
}

void sandy_probe_judge(sandy_probe_report *r)
{
	memset(r->backends, 0, sizeof(r->backends));
	judge_sandy(r, &r->backends[SANDY_BACKEND_SANDY]);
	judge_bwrap(r, &r->backends[SANDY_BACKEND_BWRAP]);
	judge_landlock(r, &r->backends[SANDY_BACKEND_LANDLOCK]);
	judge_seatbelt(r, &r->backends[SANDY_BACKEND_SEATBELT]);
}
