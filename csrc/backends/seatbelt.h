/* The seam's `seatbelt` backend: the sandbox-exec words for a mode, and its
 * dialect. Plain, platform-neutral C: built into the addon everywhere, so
 * the words are unit-tested on Linux (csrc/test/seatbelt_test.c), where no
 * Mac is.
 *
 *   /usr/bin/sandbox-exec -p PROFILE {-D NAME=VALUE} --
 *       /bin/sh -c SHIM ARG0 COMMAND [ARGS...]
 *
 * PROFILE is fixed text for the mode (sandy_seatbelt_profile); every path
 * reaches it as a -D parameter it names with (param "NAME"), never spliced
 * into the text, so no byte of a path can change the profile. The shim
 * starts the command, so that a missing one is the shell's 127 rather
 * than sandbox-exec's own failure (exit 71); it first unsets the secret
 * variables (vocabulary.h), and for workspace-write exports TMPDIR as the
 * call's own temp directory (ARG0). */
#ifndef SANDY_BACKENDS_SEATBELT_H
#define SANDY_BACKENDS_SEATBELT_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/policy.h"
#include "../core/protocol.h"
#include "backend.h"

#define SANDY_SANDBOX_EXEC "/usr/bin/sandbox-exec"

/* The parameters a profile may name: the root, the temp directory, each
 * protected read's, PROTECTED_0 and on, and each protected write's,
 * KEPT_0 and on. */
#define SANDY_SEATBELT_ROOT "WORKSPACE_ROOT"
#define SANDY_SEATBELT_TEMP "TEMP_DIR"
#define SANDY_SEATBELT_PROTECTED "PROTECTED_"
#define SANDY_SEATBELT_KEPT "KEPT_"

/* How a protected path is denied: a file's or socket's literal, a
 * directory's subpath; a socket's connect as well. */
typedef enum sandy_seatbelt_kind {
	SANDY_SEATBELT_FILE = 1,
	SANDY_SEATBELT_DIRECTORY,
	SANDY_SEATBELT_SOCKET,
} sandy_seatbelt_kind;

/* How a protected write is kept (workspace-write only): a file's literal
 * and a directory's subpath unwritable, and a directory above one, or
 * above a protected read, inside the workspace never removed or replaced
 * (renamed away, the object would leave its rule behind). At most
 * SANDY_SEATBELT_WRITES_MAX (core/protocol.h) in one call. */
typedef enum sandy_seatbelt_keep {
	SANDY_SEATBELT_KEEP_FILE = 1,
	SANDY_SEATBELT_KEEP_DIRECTORY,
	SANDY_SEATBELT_KEEP_ABOVE,
} sandy_seatbelt_keep;

/* Which secret-variable pattern a vocabulary.h entry is. */
typedef enum sandy_secret_match {
	SANDY_SECRET_EXACT,
	SANDY_SECRET_PREFIX,
	SANDY_SECRET_SUFFIX,
} sandy_secret_match;

/* One call: the mode; root and temp_dir, the canonical workspace root and
 * the call's temp directory, both used by workspace-write only (NULL
 * otherwise); the protected reads and writes (canonical, as Seatbelt
 * matches resolved paths) and the secret variables kept by name. */
typedef struct sandy_seatbelt_call {
	sandy_mode mode;
	const char *root;
	const char *temp_dir;
	const struct sandy_seatbelt_read {
		const char *path;
		sandy_seatbelt_kind kind;
	} *reads;
	size_t n_reads;
	const char *const *keep_env;
	size_t n_keep_env;
	const struct sandy_seatbelt_write {
		const char *path;
		sandy_seatbelt_keep keep;
	} *writes;
	size_t n_writes;
} sandy_seatbelt_call;

/* The fixed profile text for a confining mode with no protected path, or
 * NULL. */
const char *sandy_seatbelt_profile(sandy_mode mode);

/* The profile for c (malloc'd): the mode's allows, then one deny rule per
 * protected read and per protected write by its parameter, then the
 * tail; NULL for another mode, too many paths, a protected write outside
 * workspace-write, or no memory. */
char *sandy_seatbelt_profile_for(const sandy_seatbelt_call *c);

/* The shim (malloc'd): unsets every variable that matches the secret list
 * (vocabulary.h) but those c keeps, then for workspace-write exports
 * TMPDIR as ARG0, then execs the command. The kept names are valid names
 * (secret_env.h), the only text of c that reaches it; NULL otherwise. */
char *sandy_seatbelt_shim(const sandy_seatbelt_call *c);

/* The words before the command: NULL-terminated, malloc'd (free with
 * sandy_argv_free); *count gets their number. NULL for another mode, a
 * workspace-write call without both paths, a bad kept name, or no
 * memory. */
char **sandy_seatbelt_argv(const sandy_seatbelt_call *c, size_t *count);

#endif
