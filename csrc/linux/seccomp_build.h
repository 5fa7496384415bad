/* Shared by seccomp.c and its build-time generator seccomp_gen.c: which of
 * the filters a policy needs, and the one function that writes the
 * rules with libseccomp. */
#ifndef SANDY_SECCOMP_BUILD_H
#define SANDY_SECCOMP_BUILD_H

#define FILTER_NET_BLOCKED 1u
#define FILTER_SUBPROCESSES 2u
/* no PID or IPC namespace (the Landlock-only level): host processes by
 * number, the host's System V and POSIX IPC objects by key and name */
#define FILTER_HOST_PIDS 4u
#define FILTER_VARIANTS 8u

#ifdef SANDY_SECCOMP_WITH_LIBSECCOMP
#include <seccomp.h>

#include "../core/error.h"

/* The rules of one variant; NULL with *err set on failure. */
scmp_filter_ctx sandy_seccomp_build(unsigned variant, sandy_error *err);
#endif

#endif
