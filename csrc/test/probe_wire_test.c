/* The launcher's probe report on the wire (probe.h): a report survives the
 * round trip field by field; the decoder refuses every deviation; the
 * judge leaves every Linux backend unusable without the launcher's answer.
 * No kernel involved. Built by csrc/Makefile (c-tests). */
#include <stdio.h>
#include <string.h>

#include "../core/probe.h"
#include "tap.h"

static void sample(sandy_probe_report *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->kernel_release, sizeof(r->kernel_release), "6.18.0-test");
	r->landlock_abi = 7;
	r->landlock_errata = 3;
	r->user_namespaces = true;
	r->mount_api = true;
	r->pid_namespace = true;
	r->openat2 = true;
	r->seccomp_filter = true;
	r->no_new_privs = true;
	r->bwrap_found = true;
	snprintf(r->bwrap_path, sizeof(r->bwrap_path), "/usr/bin/bwrap");
	snprintf(r->bwrap_version, sizeof(r->bwrap_version), "0.8.0");
	r->bwrap_works = true;
}

static bool same_fields(const sandy_probe_report *a,
			const sandy_probe_report *b)
{
#define SAME_B(f, js) a->f == b->f &&
#define SAME_I(f, js) a->f == b->f &&
#define SAME_T(f, js, size) strcmp(a->f, b->f) == 0 &&
	return SANDY_PROBE_FIELDS(SAME_B, SAME_I, SAME_T) true;
#undef SAME_B
#undef SAME_I
#undef SAME_T
}

/* The encoded sample with its first occurrence of from replaced by to. */
static bool decodes_edited(const char *from, const char *to)
{
	sandy_probe_report r, out;
	char text[4096], edited[4096];
	const char *at;

	sample(&r);
	if (sandy_probe_encode(&r, text, sizeof(text)) < 0 ||
	    (at = strstr(text, from)) == NULL)
		return true; /* the case is broken: counts as accepted */
	snprintf(edited, sizeof(edited), "%.*s%s%s", (int)(at - text), text, to,
		 at + strlen(from));
	return sandy_probe_decode(edited, &out) == 0;
}

static const struct {
	const char *name, *from, *to;
} refusals[] = {
	{"another header", "sandy-probe-v1\n", "sandy-probe-v2\n"},
	{"no end line", "end\n", ""},
	{"text after the end line", "end\n", "end\nmore\n"},
	{"a missing field", "openat2=1\n", ""},
	{"an extra field", "openat2=1\n", "openat2=1\nextra=1\n"},
	{"two fields swapped", "openat2=1\nseccomp_filter=1\n", "seccomp_filter=1\nopenat2=1\n"},
	{"a boolean that is not 0 or 1", "openat2=1\n", "openat2=yes\n"},
	{"a negative number", "landlock_abi=7\n", "landlock_abi=-7\n"},
	{"a number of five digits", "landlock_abi=7\n", "landlock_abi=10000\n"},
	{"an empty number", "landlock_abi=7\n", "landlock_abi=\n"},
	{"a control byte in a text", "0.8.0", "0.8\t0"},
	{"a byte above ASCII in a text", "0.8.0", "0.8\xc3\xa9"},
	{"a field without its '='", "openat2=1\n", "openat2 1\n"},
	{"a carriage return", "openat2=1\n", "openat2=1\r\n"},
};

int main(void)
{
	sandy_probe_report r, out;
	char text[4096], small[64];
	int n;

	sample(&r);
	n = sandy_probe_encode(&r, text, sizeof(text));
	tap_check(n > 0 && (size_t)n == strlen(text), "the sample encodes");
	tap_check(sandy_probe_decode(text, &out) == 0 && same_fields(&r, &out) &&
		      strcmp(out.platform, "linux") == 0 && !out.launcher_ok,
	      "it decodes to the same fields, platform linux, not yet judged");
	tap_check(sandy_probe_encode(&r, small, sizeof(small)) == -1,
	      "a buffer too small is refused, not cut");
	snprintf(r.bwrap_detail, sizeof(r.bwrap_detail), "a\nb\x01" "c");
	tap_check(sandy_probe_encode(&r, text, sizeof(text)) > 0 &&
		      sandy_probe_decode(text, &out) == 0 &&
		      strcmp(out.bwrap_detail, "abc") == 0,
	      "the encoder drops bytes a text may not hold");
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		char what[128];

		snprintf(what, sizeof(what), "refused: %s", refusals[i].name);
		tap_check(!decodes_edited(refusals[i].from, refusals[i].to), what);
	}
	tap_check(decodes_edited("landlock_abi=7\n", "landlock_abi=9999\n"),
	      "accepted: the largest number");

	sample(&r);
	snprintf(r.platform, sizeof(r.platform), "linux");
	snprintf(r.launcher_detail, sizeof(r.launcher_detail), "no launcher");
	sandy_probe_judge(&r);
	tap_check(!r.backends[SANDY_BACKEND_SANDY].usable &&
		      !r.backends[SANDY_BACKEND_BWRAP].usable &&
		      !r.backends[SANDY_BACKEND_LANDLOCK].usable &&
		      strcmp(r.backends[SANDY_BACKEND_BWRAP].reason,
			     "no launcher") == 0,
	      "without the launcher's answer no Linux backend is usable");
	r.launcher_ok = true;
	sandy_probe_judge(&r);
	tap_check(r.backends[SANDY_BACKEND_SANDY].usable &&
		      r.backends[SANDY_BACKEND_BWRAP].usable,
	      "with it the same facts make sandy and bwrap usable");
	r.pid_namespace = false;
	snprintf(r.pid_namespace_detail, sizeof(r.pid_namespace_detail),
		 "masked");
	sandy_probe_judge(&r);
	tap_check(!r.backends[SANDY_BACKEND_SANDY].usable &&
		      strstr(r.backends[SANDY_BACKEND_SANDY].reason,
			     "PID namespace with a /proc of its own cannot be "
			     "made here (masked;") != NULL &&
		      r.backends[SANDY_BACKEND_BWRAP].usable,
	      "without a PID namespace of its own sandy is not usable, and "
	      "says why");
	r.pid_namespace = true;
	r.mount_api = false;
	snprintf(r.mount_api_detail, sizeof(r.mount_api_detail),
		 "view: open_tree of the new /proc failed (errno 22)");
	sandy_probe_judge(&r);
	tap_check(!r.backends[SANDY_BACKEND_SANDY].usable &&
		      strcmp(r.backends[SANDY_BACKEND_SANDY].reason,
			     "the mount view cannot be built here (view: "
			     "open_tree of the new /proc failed (errno 22))") ==
			      0 &&
		      !r.backends[SANDY_BACKEND_BWRAP].usable,
	      "a view that cannot be built is said with its failing step");
	r.mount_api_detail[0] = '\0';
	sandy_probe_judge(&r);
	tap_check(strstr(r.backends[SANDY_BACKEND_SANDY].reason,
			 "the mount API (open_tree, move_mount, mount_setattr) "
			 "does not work") != NULL,
	      "without a detail, the mount API is named");
	return tap_done();
}
