/* The seam's `seatbelt` backend as data: the sandbox-exec words for a mode.
 * Plain, platform-neutral C: built into the addon everywhere, so the words
 * are unit-tested on Linux (csrc/test/seatbelt_test.c), where no Mac is.
 *
 *   /usr/bin/sandbox-exec -p PROFILE {-D NAME=VALUE} --
 *       /bin/sh -c SHIM ARG0 COMMAND [ARGS...]
 *
 * PROFILE is fixed text for the mode (sandy_seatbelt_profile); every path
 * reaches it as a -D parameter it names with (param "NAME"), never spliced
 * into the text, so no byte of a path can change the profile. The shim
 * starts the command, so that a missing one is the shell's 127 rather
 * than sandbox-exec's own failure (exit 71); for workspace-write it also
 * exports TMPDIR as the call's own temp directory (ARG0). */
#ifndef SANDY_DARWIN_PLAN_H
#define SANDY_DARWIN_PLAN_H

#include <stddef.h>

#include "../addon/seam.h"

#define SANDY_SANDBOX_EXEC "/usr/bin/sandbox-exec"

/* The parameters a profile may name. */
#define SANDY_SEATBELT_ROOT "WORKSPACE_ROOT"
#define SANDY_SEATBELT_TEMP "TEMP_DIR"

/* The profile text for a confining mode, or NULL. */
const char *sandy_seatbelt_profile(sandy_mode mode);

/* The words before the command: NULL-terminated, malloc'd (free with
 * sandy_argv_free); *count gets their number. root and temp_dir: the
 * canonical workspace root and the call's temp directory, both used by
 * workspace-write only (NULL otherwise). NULL for another mode, a
 * workspace-write call without both paths, or no memory. */
char **sandy_seatbelt_argv(sandy_mode mode, const char *root,
			   const char *temp_dir, size_t *count);

#endif
