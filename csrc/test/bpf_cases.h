/* The interpreter's vocabulary, shared by bpf_test.c and
 * bpf_cases_aarch64.c: a case is (architecture, call, arguments) and the
 * action the program must answer. */
#ifndef SANDY_BPF_CASES_H
#define SANDY_BPF_CASES_H

#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>

#define ALLOW SECCOMP_RET_ALLOW
#define KILL SECCOMP_RET_KILL_PROCESS
#define ERR(e) (SECCOMP_RET_ERRNO | (e))
#define NOSUB (1u << 0 | 1u << 1) /* variants without subprocesses */
#define SUB (1u << 2 | 1u << 3)
#define NET_ON (1u << 0 | 1u << 2)
#define NET_OFF (1u << 1 | 1u << 3)
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
