/* Everything the two programs (the addon inside Node, sandy-launcher in its
 * own process) agree on, in one header. The messages themselves are encoded
 * and decoded each in one file: policy_argv.c (a policy and its launch
 * options), guard_argv.c (the guard mode's words), probe.c (the probe
 * report). lib/vocabulary.js carries these numbers to JS (printed by
 * vocabulary_gen.c).
 *
 * Failure: when any step fails before the target runs, the launcher writes
 * ONE line
 *   "sandy-launcher: fatal: <Phase>: <why>"
 * on stderr, ended by " [run NONCE]" when the provider passed --nonce, and
 * exits with SANDY_LAUNCHER_EXIT_FAILURE. Nothing runs after. The nonce is
 * the provider's per-call secret: the command never sees the launcher's
 * argv, so it cannot print a line that passes for the launcher's.
 *
 * Modes, chosen by argv[1]:
 *   (none)              the usage, as a fatal line
 *   SANDY_GUARD_MAGIC   guard in front of bubblewrap (guard_argv.h)
 *   SANDY_PROBE_MAGIC   measure the host and print the report (probe.h)
 *   anything else       a policy to enforce (policy_argv.h) */
#ifndef SANDY_PROTOCOL_H
#define SANDY_PROTOCOL_H

#define SANDY_LAUNCHER_NAME "sandy-launcher"
#define SANDY_LAUNCHER_FATAL_PREFIX "sandy-launcher: fatal: "
#define SANDY_LAUNCHER_EXIT_FAILURE 125
/* The target could not be executed: the shell's conventions. */
#define SANDY_LAUNCHER_EXIT_NOEXEC 126
#define SANDY_LAUNCHER_EXIT_NOTFOUND 127
/* --nonce: lowercase hex digits, this many at least and at most */
#define SANDY_NONCE_MIN 16
#define SANDY_NONCE_MAX 64

#define SANDY_GUARD_MAGIC "--sandy-guard-v1"
/* The protected writes (the provider's protectWrites: git's hooks and
 * config, a home's start-up files) one workspace-write call carries at
 * most: the guard's --protect words, the launcher's deny_write_exact
 * entries, Seatbelt's deny rules. */
#define SANDY_PROTECTED_WRITES_MAX 240
/* --protect words at most (the launcher copies' directories and the
 * protected writes) */
#define SANDY_GUARD_PROTECT_MAX (16 + SANDY_PROTECTED_WRITES_MAX)
/* The protected names that did not exist at confine (a repository's
 * commondir, config.worktree) one workspace-write call watches at most:
 * the launcher's and the guard's --watch words. */
#define SANDY_WATCHES_MAX 240
/* The operator's writable roots (the provider's writableRoots, the CLI's
 * --allow-write) one workspace-write call carries at most, beside its
 * workspace: the guard's --bind-root words, the launcher's grants. */
#define SANDY_WRITABLE_ROOTS_MAX 8
/* The protected reads (the provider's protect presets and denyRead) one
 * call carries at most: the guard's --deny-read words, the launcher's
 * deny_subtrees. */
#define SANDY_DENY_READS_MAX 128
/* Seatbelt's kept paths one workspace-write call carries at most: the
 * protected writes and watched names, and the directories above them and
 * above the protected reads inside the workspace (backends/seatbelt.h).
 * The provider refuses a call over it before anything is made. */
#define SANDY_SEATBELT_WRITES_MAX                                            \
	(2 * SANDY_PROTECTED_WRITES_MAX + 4 * SANDY_DENY_READS_MAX)
#define SANDY_PROBE_MAGIC "--sandy-probe-v1"

/* Both levels need Landlock ABI 6 (Linux 6.12): signal and abstract UNIX
 * socket scoping. The probe judges backends by the same number. */
#define SANDY_LANDLOCK_MIN_ABI 6

#endif
