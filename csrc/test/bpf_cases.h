/* The interpreter's vocabulary, shared by bpf_test.c and
 * bpf_cases_aarch64.c: a case is (architecture, call, arguments) and the
 * action the program must answer. */
#ifndef SANDY_BPF_CASES_H
#define SANDY_BPF_CASES_H

#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/resource.h>
#include <stdint.h>

#define ALLOW SECCOMP_RET_ALLOW
#define KILL SECCOMP_RET_KILL_PROCESS
#define ERR(e) (SECCOMP_RET_ERRNO | (e))
/* <linux/ioprio.h>'s "which" values */
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_WHO_PGRP 2
#define IOPRIO_WHO_USER 3
/* Sets of variants (seccomp_build.h's bits: 1 network blocked, 2
 * subprocesses allowed, 4 host PIDs) */
#define NOSUB (1u << 0 | 1u << 1 | 1u << 4 | 1u << 5) /* no subprocesses */
#define SUB (1u << 2 | 1u << 3 | 1u << 6 | 1u << 7)
#define NET_ON (1u << 0 | 1u << 2 | 1u << 4 | 1u << 6)
#define NET_OFF (1u << 1 | 1u << 3 | 1u << 5 | 1u << 7)
#define OWN_PIDS 0x0fu  /* the full level: a PID namespace of its own */
#define HOST_PIDS 0xf0u /* the Landlock-only level */
#define ALL (NOSUB | SUB)

typedef struct bpf_case {
	const char *name;
	unsigned variants; /* bit v: filter variant v */
	uint32_t arch;
	int nr;
	uint64_t args[6];
	uint32_t want;
} bpf_case;

/* bpf_cases_aarch64.c's table, with aarch64's numbers */
extern const bpf_case bpf_cases_aarch64[];
extern const size_t bpf_cases_aarch64_len;

#endif
