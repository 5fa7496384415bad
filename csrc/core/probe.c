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

/* Why the launcher's namespaces cannot be made: Ubuntu's AppArmor
 * restriction, when its sysctl is set and an LSM refused the trial, with
 * the one remedy there is today and its cost (docs/apparmor.md: no
 * profile for the launcher alone is offered); else what to look at. */
static const char *userns_reason(const sandy_probe_report *r)
{
	if (r->user_namespaces_restricted && r->user_namespaces_denied)
		return "AppArmor restricts unprivileged user namespaces here "
		       "(kernel.apparmor_restrict_unprivileged_userns=1); `sudo "
		       "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` "
		       "lifts it, for every program (docs/apparmor.md: no "
		       "profile for the launcher alone yet)";
	return "cannot create user+mount+IPC namespaces (enable unprivileged "
	       "user namespaces, or allow them for this program in "
	       "AppArmor/SELinux)";
}

/* Every Linux backend runs the launcher: as itself, or as bubblewrap's
 * guard. Without its answer no fact below was measured. */
static bool launcher_answered(const sandy_probe_report *r,
			      sandy_backend_verdict *v)
{
	if (!r->launcher_ok)
		add_reason(v, r->launcher_detail);
	return r->launcher_ok;
}

static void judge_sandy(const sandy_probe_report *r, sandy_backend_verdict *v)
{
	char buf[SANDY_PROBE_TEXT * 2];

	if (!is_linux(r)) {
		add_reason(v, "the sandy launcher runs on Linux only");
		return;
	}
	if (!launcher_answered(r, v))
		return;
	check_landlock_abi(r, v);
	if (!r->user_namespaces)
		add_reason(v, userns_reason(r));
	if (r->user_namespaces && !r->pid_namespace) {
		snprintf(buf, sizeof(buf),
			 "a PID namespace with a /proc of its own cannot be "
			 "made here (%s; a host whose /proc has parts masked, "
			 "as container runtimes do, refuses it)",
			 r->pid_namespace_detail);
		add_reason(v, buf);
	}
	if (!r->mount_api && r->mount_api_detail[0] != '\0') {
		snprintf(buf, sizeof(buf),
			 "the mount view cannot be built here (%s)",
			 r->mount_api_detail);
		add_reason(v, buf);
	} else if (!r->mount_api) {
		add_reason(v, "the mount API (open_tree, move_mount, "
			      "mount_setattr) does not work (Linux 5.12 or later)");
	}
	if (!r->openat2)
		add_reason(v, "openat2 is missing (Linux 5.6 or later)");
	if (!r->seccomp_filter)
		add_reason(v, "seccomp filters cannot be loaded");
	if (!r->no_new_privs)
		add_reason(v, "no_new_privs cannot be set");
	if (v->reason[0] == '\0')
		set_usable(v, SANDY_ENFORCEMENT_FULL,
			   "namespaces (a PID namespace of its own among them), "
			   "descriptor-built view, Landlock and seccomp all "
			   "work here");
}

static void judge_bwrap(const sandy_probe_report *r, sandy_backend_verdict *v)
{
	char buf[SANDY_PROBE_TEXT * 2];

	if (!is_linux(r)) {
		add_reason(v, "bubblewrap runs on Linux only");
	} else if (!launcher_answered(r, v)) {
		return;
	} else if (!r->user_namespaces) {
		snprintf(buf, sizeof(buf),
			 "the launcher's guard in front of bubblewrap needs "
			 "user namespaces: %s", userns_reason(r));
		add_reason(v, buf);
	} else if (!r->bwrap_found) {
		add_reason(v, "bubblewrap not found in /usr/bin, /bin, "
			      "/usr/local/bin (install the bubblewrap package)");
	} else if (!r->bwrap_works) {
		snprintf(buf, sizeof(buf),
			 "bubblewrap is installed but cannot create its "
			 "sandbox here: %s", r->bwrap_detail);
		add_reason(v, buf);
	} else if (!r->mount_api || !r->seccomp_filter) {
		/* the guard's own namespace (guard_view.c), and the filter
		 * bubblewrap loads for it */
		add_reason(v, "the launcher's guard in front of bubblewrap "
			      "needs the mount API and seccomp filters "
			      "(Linux 5.12 or later)");
	} else {
		set_usable(v, SANDY_ENFORCEMENT_FULL,
			   "a trial bwrap sandbox with user and PID "
			   "namespaces and a /proc of its own works");
	}
}

static void judge_landlock(const sandy_probe_report *r,
			   sandy_backend_verdict *v)
{
	if (!is_linux(r)) {
		add_reason(v, "Landlock is a Linux mechanism");
		return;
	}
	if (!launcher_answered(r, v))
		return;
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
			   "governed; without a PID namespace the host's "
			   "processes stay listed in /proc (none can be "
			   "signalled, traced, limited or reprioritised)");
}

static void judge_seatbelt(const sandy_probe_report *r,
			   sandy_backend_verdict *v)
{
	if (strcmp(r->platform, "darwin") != 0)
		add_reason(v, "Seatbelt exists on macOS only");
	else if (!r->sandbox_exec)
		add_reason(v, r->sandbox_exec_detail[0] != '\0'
				      ? r->sandbox_exec_detail
				      : "/usr/bin/sandbox-exec was not tried");
	else
		/* system services stay reachable through mach-lookup, and the
		 * profile has been checked here by the probe's own writes
		 * only (docs/backends.md, "macOS") */
		set_usable(v, SANDY_ENFORCEMENT_PARTIAL,
			   "/usr/bin/sandbox-exec enforced both profiles on "
			   "the probe's writes; system services stay reachable");
}

void sandy_probe_judge(sandy_probe_report *r)
{
	memset(r->backends, 0, sizeof(r->backends));
	judge_sandy(r, &r->backends[SANDY_BACKEND_SANDY]);
	judge_bwrap(r, &r->backends[SANDY_BACKEND_BWRAP]);
	judge_landlock(r, &r->backends[SANDY_BACKEND_LANDLOCK]);
	judge_seatbelt(r, &r->backends[SANDY_BACKEND_SEATBELT]);
}

/* ---- the report on the wire (probe.h) --------------------------------- */

typedef struct writer {
	char *buf;
	size_t len, used;
	bool full;
} writer;

static void put(writer *w, const char *name, const char *value)
{
	int n = snprintf(w->buf + w->used, w->len - w->used, "%s%s%s\n",
			 name, name[0] ? "=" : "", value);

	if (n < 0 || (size_t)n >= w->len - w->used)
		w->full = true;
	else
		w->used += (size_t)n;
}

static void put_bool(writer *w, const char *name, bool b)
{
	put(w, name, b ? "1" : "0");
}

static void put_int(writer *w, const char *name, int i)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", i < 0 ? 0 : i > 9999 ? 9999 : i);
	put(w, name, num);
}

static void put_text(writer *w, const char *name, const char *text)
{
	char clean[SANDY_PROBE_TEXT];
	size_t n = 0;

	for (; *text && n + 1 < sizeof(clean); text++)
		if (*text >= 0x20 && *text <= 0x7e)
			clean[n++] = *text;
	clean[n] = '\0';
	put(w, name, clean);
}

int sandy_probe_encode(const sandy_probe_report *r, char *buf, size_t len)
{
	writer w = {buf, len, 0, len == 0};

	if (w.full)
		return -1;
	put(&w, "", SANDY_PROBE_HEADER);
#define ENC_B(f, js) put_bool(&w, #f, r->f);
#define ENC_I(f, js) put_int(&w, #f, r->f);
#define ENC_T(f, js, size) put_text(&w, #f, r->f);
	SANDY_PROBE_FIELDS(ENC_B, ENC_I, ENC_T)
#undef ENC_B
#undef ENC_I
#undef ENC_T
	put(&w, "", "end");
	return w.full ? -1 : (int)w.used;
}

/* The next line, which must be NAME=VALUE (or exactly NAME when value is
 * NULL); *value points into text, its length in *n. */
static bool take(const char **text, const char *name, const char **value,
		 size_t *n)
{
	size_t k = strlen(name);
	const char *line = *text, *end = strchr(line, '\n');

	if (end == NULL)
		return false;
	*text = end + 1;
	if (value == NULL)
		return (size_t)(end - line) == k && strncmp(line, name, k) == 0;
	if (strncmp(line, name, k) != 0 || line[k] != '=')
		return false;
	*value = line + k + 1;
	*n = (size_t)(end - *value);
	return true;
}

static bool get_bool(const char **text, const char *name, bool *out)
{
	const char *v;
	size_t n;

	if (!take(text, name, &v, &n) || n != 1 || (v[0] != '0' && v[0] != '1'))
		return false;
	*out = v[0] == '1';
	return true;
}

static bool get_int(const char **text, const char *name, int *out)
{
	const char *v;
	size_t n, i;
	int x = 0;

	if (!take(text, name, &v, &n) || n == 0 || n > 4)
		return false;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		x = x * 10 + (v[i] - '0');
	}
	*out = x;
	return true;
}

static bool get_text(const char **text, const char *name, char *out,
		     size_t size)
{
	const char *v;
	size_t n, i;

	if (!take(text, name, &v, &n) || n >= size)
		return false;
	for (i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			return false;
	memcpy(out, v, n);
	out[n] = '\0';
	return true;
}

int sandy_probe_decode(const char *text, sandy_probe_report *r)
{
	sandy_probe_report d;

	memset(&d, 0, sizeof(d));
	snprintf(d.platform, sizeof(d.platform), "linux");
	if (!take(&text, SANDY_PROBE_HEADER, NULL, NULL))
		return -1;
#define DEC_B(f, js) if (!get_bool(&text, #f, &d.f)) return -1;
#define DEC_I(f, js) if (!get_int(&text, #f, &d.f)) return -1;
#define DEC_T(f, js, size) if (!get_text(&text, #f, d.f, sizeof(d.f))) return -1;
	SANDY_PROBE_FIELDS(DEC_B, DEC_I, DEC_T)
#undef DEC_B
#undef DEC_I
#undef DEC_T
	if (!take(&text, "end", NULL, NULL) || *text != '\0')
		return -1;
	*r = d;
	return 0;
}
