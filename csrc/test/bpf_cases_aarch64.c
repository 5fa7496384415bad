/* The interpreter's cases for aarch64's programs: the shared table with
 * the numbers of the kernel's generic system call table, which aarch64
 * uses, taken from the UAPI header rather than written by hand. This file
 * includes no libc header that would bring x86_64's numbers in. */
#include <asm-generic/unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "bpf_cases.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

#define ARCH AUDIT_ARCH_AARCH64
const bpf_case bpf_cases_aarch64[] = {
	/* a 32-bit (AArch32) task's calls are another ABI: killed */
	{"an AArch32 call kills", ALL, AUDIT_ARCH_ARM, 3, {0}, KILL},
#include "bpf_cases.inc"
};
const size_t bpf_cases_aarch64_len =
	sizeof(bpf_cases_aarch64) / sizeof(bpf_cases_aarch64[0]);
