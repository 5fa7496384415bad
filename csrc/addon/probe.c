/* The addon's probe (probe.h). On Linux it asks the launcher, the binary
 * that enforces: `LAUNCHER --sandy-probe-v1` prints the measured report,
 * which is decoded and judged here. A launcher the caller could not verify
 * (problem), or one that cannot be started, fails, or prints anything but
 * a report, leaves every Linux backend unusable with the reason and the
 * fix. Elsewhere the platform's own measurement runs in this process. */
#include "../core/probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "../core/protocol.h"
#include "../core/run.h"

/* The launcher's children have 2 s each and bubblewrap 3 s per run. */
#define LAUNCHER_PROBE_TIMEOUT_MS 15000
#define FIX "run `npm rebuild sandy-native`"

static void unusable(sandy_probe_report *r, const char *what,
		     const char *detail)
{
	snprintf(r->launcher_detail, sizeof(r->launcher_detail),
		 "the sandy launcher %s%s%s; " FIX, what, detail[0] ? ": " : "",
		 detail);
}

/* On the heap, per call: worker threads share this addon, and the
 * captured output is 8 KiB. */
static void ask(const char *launcher, sandy_probe_report *r)
{
	sandy_run_result *res = malloc(sizeof(*res));
	char *argv[] = {(char *)launcher, SANDY_PROBE_MAGIC, NULL};
	char why[SANDY_PROBE_TEXT], line[SANDY_PROBE_TEXT];

	if (res == NULL) {
		unusable(r, "cannot be started", "out of memory");
		return;
	}
	if (!sandy_run_program(argv, LAUNCHER_PROBE_TIMEOUT_MS, res, why,
			       sizeof(why))) {
		unusable(r, "cannot be started", why);
	} else if (res->wait != SANDY_WAIT_EXITED || !WIFEXITED(res->status) ||
		   WEXITSTATUS(res->status) != 0) {
		sandy_describe_end(res->wait, res->status,
				   LAUNCHER_PROBE_TIMEOUT_MS, why, sizeof(why));
		sandy_first_line(res->err, line, sizeof(line));
		if (line[0] != '\0' &&
		    strlen(why) + 2 + strlen(line) < sizeof(why))
			strcat(strcat(why, ": "), line);
		unusable(r, "did not answer its probe", why);
	} else if (sandy_probe_decode(res->out, r) != 0) {
		unusable(r, "answered its probe with something else than a "
			    "report (a launcher of another version?)", "");
	} else {
		r->launcher_ok = true;
	}
	free(res);
}

void sandy_probe_ask(const char *launcher, const char *problem,
		     sandy_probe_report *r)
{
#ifdef __linux__
	struct utsname u;

	memset(r, 0, sizeof(*r));
	snprintf(r->platform, sizeof(r->platform), "linux");
	if (launcher != NULL)
		ask(launcher, r);
	else
		snprintf(r->launcher_detail, sizeof(r->launcher_detail), "%s",
			 problem != NULL ? problem
					 : "the sandy launcher is unusable; " FIX);
	/* the report names the kernel whatever the launcher did */
	if (!r->launcher_ok && uname(&u) == 0)
		snprintf(r->kernel_release, sizeof(r->kernel_release), "%s",
			 u.release);
	sandy_probe_judge(r);
#else
	(void)launcher;
	(void)problem;
	sandy_probe_run(r);
#endif
}

const char *sandy_probe_volume_ask(const char *root)
{
#ifdef __linux__
	(void)root;
	return "is macOS only";
#else
	return sandy_probe_volume(root);
#endif
}
