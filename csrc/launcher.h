/* The launcher's failure protocol, shared by the launcher and the provider
 * so that ConfinedArgv.runnerFailureRules describe exactly what it does:
 * when any step fails before the target runs, the launcher writes ONE line
 *   "sandy-launcher: fatal: <Phase>: <why>"
 * on stderr, ended by " [run NONCE]" when the provider passed --nonce, and
 * exits with SANDY_LAUNCHER_EXIT_FAILURE. Nothing runs after. The nonce is
 * the provider's per-call secret: the command never sees the launcher's
 * argv, so it cannot print a line that passes for the launcher's. */
#ifndef SANDY_LAUNCHER_H
#define SANDY_LAUNCHER_H

#define SANDY_LAUNCHER_NAME "sandy-launcher"
#define SANDY_LAUNCHER_FATAL_PREFIX "sandy-launcher: fatal: "
#define SANDY_LAUNCHER_EXIT_FAILURE 125
#define SANDY_NONCE_MIN 16
#define SANDY_NONCE_MAX 64
/* The target could not be executed: the shell's conventions. */
#define SANDY_LAUNCHER_EXIT_NOEXEC 126
#define SANDY_LAUNCHER_EXIT_NOTFOUND 127

#endif
