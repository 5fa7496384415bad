#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/policy_argv.h"

/* Reads, execution and network as the host allows (macOS has no small
 * closed read set: the dyld shared cache, frameworks and toolchains must
 * stay readable); every file write refused, and every hard link and clone
 * (Seatbelt checks neither as a write: a link in the workspace to a host
 * file would write that file, and a clone is checked against its source
 * only; review of issue 16, H3); the data of a few devices writable but
 * never the nodes themselves (removed, chmod'ed); no mount or unmount, and
 * no disk image mounted for it by diskarbitrationd (a mount over a host
 * directory replaces what is there); no job handed to launchd, no program
 * opened through Launch Services (by lsopen or its services) or registered
 * with it, no Apple event sent and no preference written through cfprefsd
 * (each would act outside the sandbox: H1); no task port of a process
 * outside the sandbox (code injected there would run unconfined); no
 * input pushed into a terminal (TIOCSTI: the shell that resumes would run
 * it) and no terminal revoked; signals only within the sandbox. In SBPL
 * a later rule wins over an earlier one, so the terminal rule, which
 * narrows the default's file-ioctl, comes last. Other system services stay
 * reachable through mach-lookup (README.md, "macOS"). ioctl-command needs
 * macOS 13: an older sandbox-exec cannot parse the profile, and the probe
 * fails closed. */
#define BASE                                                                 \
	"(version 1)\n"                                                      \
	"(allow default)\n"                                                  \
	"(deny file-write* file-link file-clone)\n"                          \
	"(deny file-mount file-mount-update file-unmount file-revoke)\n"     \
	"(deny job-creation lsopen appleevent-send user-preference-write)\n" \
	"(deny mach-lookup\n"                                                \
	"  (global-name \"com.apple.DiskArbitration.diskarbitrationd\")\n"   \
	"  (global-name \"com.apple.coreservices.launchservicesd\")\n"       \
	"  (global-name \"com.apple.coreservices.quarantine-resolver\")\n"   \
	"  (global-name \"com.apple.lsd.modifydb\"))\n"                      \
	"(deny mach-priv-task-port)\n"                                       \
	"(allow mach-priv-task-port (target same-sandbox))\n"                \
	"(allow file-write-data\n"                                           \
	"  (literal \"/dev/null\") (literal \"/dev/zero\")\n"                \
	"  (literal \"/dev/tty\") (regex #\"^/dev/fd/[0-9]+$\"))\n"          \
	"(deny signal)\n"                                                    \
	"(allow signal (target same-sandbox))\n"

/* After every allow of a mode (file-ioctl stays the default's). */
#define TAIL "(deny file-ioctl (ioctl-command TIOCSTI))\n"

static const char *const profiles[] = {
	[SANDY_MODE_READ_ONLY] = BASE TAIL,
	/* the workspace and the call's temp directory, both by parameter, and
	 * never the two directories themselves removed or replaced (a root
	 * swapped for a link would widen the next call: H2) */
	[SANDY_MODE_WORKSPACE_WRITE] =
		BASE "(allow file-write*\n"
		     "  (subpath (param \"" SANDY_SEATBELT_ROOT "\"))\n"
		     "  (subpath (param \"" SANDY_SEATBELT_TEMP "\")))\n"
		     "(deny file-write-unlink file-write-create\n"
		     "  (literal (param \"" SANDY_SEATBELT_ROOT "\"))\n"
		     "  (literal (param \"" SANDY_SEATBELT_TEMP "\")))\n" TAIL,
};

const char *sandy_seatbelt_profile(sandy_mode mode)
{
	return mode == SANDY_MODE_READ_ONLY || mode == SANDY_MODE_WORKSPACE_WRITE
		       ? profiles[mode]
		       : NULL;
}

/* "NAME=VALUE", malloc'd. */
static char *define(const char *name, const char *value)
{
	size_t n = strlen(name) + 1 + strlen(value) + 1;
	char *s = malloc(n);

	if (s != NULL)
		snprintf(s, n, "%s=%s", name, value);
	return s;
}

char **sandy_seatbelt_argv(sandy_mode mode, const char *root,
			   const char *temp_dir, size_t *count)
{
	const char *profile = sandy_seatbelt_profile(mode);
	bool writes = mode == SANDY_MODE_WORKSPACE_WRITE;
	char *root_def = NULL, *temp_def = NULL;
	const char *words[16];
	size_t n = 0;
	char **out = NULL;

	if (profile == NULL || (writes && (root == NULL || temp_dir == NULL)))
		return NULL;
	words[n++] = SANDY_SANDBOX_EXEC;
	words[n++] = "-p";
	words[n++] = profile;
	if (writes) {
		root_def = define(SANDY_SEATBELT_ROOT, root);
		temp_def = define(SANDY_SEATBELT_TEMP, temp_dir);
		if (root_def == NULL || temp_def == NULL)
			goto done;
		words[n++] = "-D";
		words[n++] = root_def;
		words[n++] = "-D";
		words[n++] = temp_def;
	}
	words[n++] = "--";
	words[n++] = "/bin/sh";
	words[n++] = "-c";
	if (writes) {
		words[n++] = "TMPDIR=\"$0\"; export TMPDIR; exec \"$@\"";
		words[n++] = temp_dir;
	} else {
		words[n++] = "exec \"$@\"";
		words[n++] = "sandy-native";
	}
	words[n] = NULL;
	out = sandy_words_dup(words, count);
done:
	free(root_def);
	free(temp_def);
	return out;
}
