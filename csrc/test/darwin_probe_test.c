/* The macOS probe's judgement (darwin/probe.c), run on Linux: its scratch
 * directory, the words it hands sandbox-exec and what it concludes from
 * what a run left. sandbox-exec is replaced by sandy_run_program below,
 * which acts as a Seatbelt would that enforces the profile, or one that
 * misses a given rule, or as a process in the workspace that swaps the
 * scratch's directories for links meanwhile. Each miss must be named, the
 * swap must delete nothing outside the scratch, and no scratch directory
 * may stay behind. Built by csrc/Makefile (c-tests). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "../core/probe.h"
#include "../core/run.h"

/* What the stand-in for sandbox-exec does. */
static enum act {
	OBEY,      /* writes land in the workspace and temp directory only */
	NOTHING,   /* no write lands (a profile that refuses the allow) */
	LEAK_OUT,  /* ... and a write outside lands too */
	LEAK_KEPT, /* ... and a write into the protected file */
	CASE,      /* ... and the kept name made in capitals, as a volume that
		    * tells case apart lets it be */
	LEAK_READ, /* ... and the protected file is read */
	FAIL,      /* sandbox-exec ends with 65 (a profile it cannot parse) */
	SWAP,      /* the scratch's directories swapped for links outside */
	ROOT_REMOVED, /* the root's own rule missed: it is removed */
} act;
static char outside[256];
/* the words of the last run: the -D definitions seen */
static bool saw_protected, saw_kept, saw_case;
/* whether the root and temp directory were empty when the run began */
static bool empty_at_start;

static bool is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = d != NULL;

	while (d != NULL && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = false;
	if (d != NULL)
		closedir(d);
	return empty;
}

/* A directory of the user's, with entries of the scratch's names, that a
 * process in the workspace renames into the scratch's place between
 * mkdtemp and the probe's open (mkdtemp below); none may be touched. */
static char userdata[300];
static bool swap_base;

char *mkdtemp(char *template)
{
	static char *(*real)(char *);
	char aside[4200];
	char *made;

	if (real == NULL)
		real = (char *(*)(char *))dlsym(RTLD_NEXT, "mkdtemp");
	made = real(template);
	if (made != NULL && swap_base) {
		snprintf(aside, sizeof(aside), "%s.aside", made);
		if (rename(made, aside) != 0 || rename(userdata, made) != 0)
			return NULL;
		/* (the probe removes only the name; put the data back after) */
	}
	return made;
}

static void touch(const char *dir, const char *name, const char *text)
{
	char p[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

bool sandy_run_program(char *const argv[], int timeout_ms,
		       sandy_run_result *res, char *why, size_t why_len)
{
	size_t n = 0;
	const char *ws, *tmp, *out;
	bool writes = false;

	(void)timeout_ms;
	(void)why;
	(void)why_len;
	while (argv[n] != NULL)
		n++;
	/* ... /bin/sh -c SCRIPT sh WS TMP OUT */
	ws = argv[n - 3];
	tmp = argv[n - 2];
	out = argv[n - 1];
	saw_protected = saw_kept = false;
	for (size_t i = 0; i + 1 < n; i++) {
		if (strcmp(argv[i], "-D") != 0)
			continue;
		writes |= strncmp(argv[i + 1], "WORKSPACE_ROOT=", 15) == 0;
		saw_protected |= strncmp(argv[i + 1], "PROTECTED_0=", 12) == 0 &&
				 strstr(argv[i + 1], "/out/secret") != NULL;
		saw_kept |= strncmp(argv[i + 1], "KEPT_0=", 7) == 0 &&
			    strstr(argv[i + 1], "/ws/kept") != NULL;
	}
	memset(res, 0, sizeof(*res));
	res->wait = SANDY_WAIT_EXITED;
	if (act == FAIL) {
		res->status = 65 << 8;
		return true;
	}
	if (act == SWAP) {
		const char *dirs[] = {ws, tmp, out};
		char victim[4200];

		snprintf(victim, sizeof(victim), "%s/victim", out);
		unlink(victim);
		for (int i = 0; i < 3; i++) {
			rmdir(dirs[i]);
			if (symlink(outside, dirs[i]) != 0)
				res->status = 1 << 8;
		}
		return true;
	}
	/* (what the script's first removal finds: a root and temp directory
	 * that are empty, so that only their rules can refuse it) */
	empty_at_start = is_empty(ws) && is_empty(tmp);
	if (act == ROOT_REMOVED) {
		rmdir(ws);
		return true;
	}
	if (writes && act != NOTHING) {
		touch(ws, "in", "x\n");
		touch(tmp, "in", "x\n");
	}
	if (act == LEAK_OUT)
		touch(out, "in", "x\n");
	if (act == LEAK_KEPT)
		touch(ws, "kept", "x\n");
	if (act == CASE)
		touch(ws, "KEPT", "x\n");
	saw_case = strstr(argv[n - 5], "\"$1/KEPT\"") != NULL;
	if (act == LEAK_READ)
		touch(ws, "read", "x\n");
	return true;
}

/* The names the scratch uses, each a file outside it that a swap would
 * lead a careless cleanup to. */
static const char *const bait[] = {"in", "link", "kept", "secret", "read",
				   "moved", "victim", NULL};

static bool bait_intact(void)
{
	char p[300];

	for (int i = 0; bait[i] != NULL; i++) {
		snprintf(p, sizeof(p), "%s/%s", outside, bait[i]);
		if (access(p, F_OK) != 0)
			return false;
	}
	return true;
}

static bool empty(const char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", dir);
	return system(cmd) == 0;
}

static void expect(enum act a, const char *parent, const char *want,
		   const char *what)
{
	const char *why;

	act = a;
	why = sandy_probe_volume(parent);
	tap_check(want == NULL ? why == NULL
			       : why != NULL && strstr(why, want) != NULL,
		  what);
	tap_check(empty(parent), "and no scratch directory is left behind");
}

/* The base swapped for a directory of user data between mkdtemp and
 * open: not held, and the data untouched. */
static void swapped_base(const char *parent)
{
	const char *const data[] = {"ws/kept", "ws/in", "ws/read", "out/victim",
				    "out/secret", "tmp/in", NULL};
	char p[400], cmd[1200];
	bool intact = true;
	const char *why;
	DIR *d;
	struct dirent *e;

	snprintf(userdata, sizeof(userdata), "%s-userdata", outside);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/ws' '%s/out' '%s/tmp'", userdata,
		 userdata, userdata);
	if (system(cmd) != 0)
		intact = false;
	for (int i = 0; data[i] != NULL; i++)
		touch(userdata, data[i], "user\n");
	act = OBEY;
	swap_base = true;
	why = sandy_probe_volume(parent);
	swap_base = false;
	/* the user's directory now sits at the scratch's name, with its data */
	d = opendir(parent);
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] != '.' || strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 || strstr(e->d_name, ".aside"))
			continue;
		for (int i = 0; data[i] != NULL; i++) {
			snprintf(p, sizeof(p), "%s/%s/%s", parent, e->d_name,
				 data[i]);
			intact = intact && access(p, F_OK) == 0;
		}
	}
	if (d != NULL)
		closedir(d);
	tap_check(why != NULL, "the base swapped for a directory with entries: not held");
	tap_check(intact, "and that directory's entries are untouched");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/.sandy-probe-* '%s'", parent, userdata);
	if (system(cmd) != 0)
		tap_check(false, "(cleanup)");
}

int main(void)
{
	char parent[] = "/tmp/sandy-darwin-probe-XXXXXX";
	char base[] = "/tmp/sandy-darwin-bait-XXXXXX";

	if (mkdtemp(parent) == NULL || mkdtemp(base) == NULL)
		return 1;
	snprintf(outside, sizeof(outside), "%s", base);
	for (int i = 0; bait[i] != NULL; i++)
		touch(outside, bait[i], "host\n");

	expect(OBEY, parent, NULL,
	       "a Seatbelt that enforces the profile: the check holds");
	tap_check(saw_protected && saw_kept,
		  "the check's profile holds a protected read and a protected "
		  "write, each by its parameter");
	expect(NOTHING, parent, "refused a write into the workspace",
	       "the workspace's allow missed: named");
	expect(LEAK_OUT, parent, "let a write outside the workspace land",
	       "a write outside that lands: named");
	expect(LEAK_KEPT, parent, "let a write into a protected path land",
	       "a protected write's deny missed: named");
	expect(CASE, parent, NULL,
	       "the kept name in capitals on a volume that tells case apart: "
	       "another name, held");
	tap_check(saw_case,
		  "the script tries the kept name in capitals (on a volume that "
		  "ignores case it is the kept name)");
	expect(LEAK_READ, parent, "let a protected file be read",
	       "a protected read's deny missed: named");
	expect(FAIL, parent, "did not run a profile to its end",
	       "sandbox-exec's own failure: named");
	expect(SWAP, parent, "",
	       "the scratch's directories swapped for links: not held");
	tap_check(bait_intact(),
		  "and nothing outside the scratch was deleted through the links");
	expect(ROOT_REMOVED, parent, "let the workspace or temp directory itself be removed",
	       "the root's own rule missed: named");
	tap_check(empty_at_start,
		  "the root and temp directory are empty when the run begins, so "
		  "their rules alone refuse their removal");
	tap_check(sandy_probe_volume("/nonexistent-sandy-dir") != NULL,
		  "a parent where no scratch can be made: not held");
	swapped_base(parent);

	rmdir(parent);
	for (int i = 0; bait[i] != NULL; i++) {
		char p[300];

		snprintf(p, sizeof(p), "%s/%s", outside, bait[i]);
		unlink(p);
	}
	rmdir(base);
	return tap_done();
}
