/* The launcher's failure protocol, shared by the launcher and the provider
 * so that ConfinedArgv.runnerFailureRules describe exactly what it does:
 * when any step fails before the target runs, the launcher writes ONE line
 *   "sandy-launcher: fatal: <Phase>: <why>"
 * on stderr and exits with SANDY_LAUNCHER_EXIT_FAILURE. Nothing runs after. */
#ifndef SANDY_LAUNCHER_H
#define SANDY_LAUNCHER_H

#define SANDY_LAUNCHER_NAME "sandy-launcher"
#define SANDY_LAUNCHER_FATAL_PREFIX "sandy-launcher: fatal: "
#define SANDY_LAUNCHER_EXIT_FAILURE 125
/* The target could not be executed: the shell's conventions. */
#define SANDY_LAUNCHER_EXIT_NOEXEC 126
#define SANDY_LAUNCHER_EXIT_NOTFOUND 127

#endif
