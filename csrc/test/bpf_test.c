/* The precompiled seccomp programs (csrc/linux/seccomp_filters.h), run by
 * a classic-BPF interpreter written here: (architecture, system call,
 * arguments) in, the action the kernel would take out. No kernel involved,
 * so every variant is checked for every case, including calls a test
 * process could not make safely (x32 numbers, i386 entry), and the
 * aarch64 programs, which no kernel here could run, are checked the same
 * way (bpf_cases_aarch64.c). Built by csrc/Makefile (c-tests). */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "../linux/seccomp_build.h"
#define SANDY_SECCOMP_ALL_ARCHES 1 /* every architecture's programs */
#include "../linux/seccomp_filters.h"
#include "bpf_cases.h"
#include "tap.h"

#define BAD 0xffffffffu /* the interpreter's own verdict: invalid program */

/* Reads 32 bits of seccomp_data at off, as the kernel's checker allows:
 * aligned, inside the structure. */
static bool load_data(const struct seccomp_data *d, uint32_t off, uint32_t *out)
{
	if (off % 4 != 0 || off > sizeof(*d) - 4)
		return false;
	memcpy(out, (const char *)d + off, 4);
	return true;
}

static bool alu(uint16_t op, uint32_t *a, uint32_t v)
{
	switch (op) {
	case BPF_ADD: *a += v; return true;
	case BPF_SUB: *a -= v; return true;
	case BPF_MUL: *a *= v; return true;
	case BPF_DIV: if (v == 0) return false; *a /= v; return true;
	case BPF_MOD: if (v == 0) return false; *a %= v; return true;
	case BPF_AND: *a &= v; return true;
	case BPF_OR: *a |= v; return true;
	case BPF_XOR: *a ^= v; return true;
	case BPF_LSH: *a = v < 32 ? *a << v : 0; return true;
	case BPF_RSH: *a = v < 32 ? *a >> v : 0; return true;
	case BPF_NEG: *a = -*a; return true;
	default: return false;
	}
}

static bool jump_taken(uint16_t op, uint32_t a, uint32_t v)
{
	switch (op) {
	case BPF_JEQ: return a == v;
	case BPF_JGT: return a > v;
	case BPF_JGE: return a >= v;
	default: return (a & v) != 0; /* BPF_JSET */
	}
}

/* The classic BPF machine, with forward-only jumps as the kernel demands.
 * Returns the RET value, or BAD. */
static uint32_t run(const struct sock_filter *f, size_t len,
		    const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};

	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *i = &f[pc];
		uint16_t cls = BPF_CLASS(i->code);
		uint32_t v = BPF_SRC(i->code) == BPF_X ? x : i->k;

		switch (cls) {
		case BPF_LD:
			if (i->code == (BPF_LD | BPF_W | BPF_ABS)) {
				if (!load_data(d, i->k, &a))
					return BAD;
			} else if (i->code == (BPF_LD | BPF_IMM)) {
				a = i->k;
			} else if (i->code == (BPF_LD | BPF_MEM) &&
				   i->k < BPF_MEMWORDS) {
				a = mem[i->k];
			} else if (i->code == (BPF_LD | BPF_W | BPF_LEN)) {
				a = sizeof(*d);
			} else {
				return BAD;
			}
			break;
		case BPF_LDX:
			if (i->code == (BPF_LDX | BPF_IMM))
				x = i->k;
			else if (i->code == (BPF_LDX | BPF_MEM) &&
				 i->k < BPF_MEMWORDS)
				x = mem[i->k];
			else if (i->code == (BPF_LDX | BPF_W | BPF_LEN))
				x = sizeof(*d);
			else
				return BAD;
			break;
		case BPF_ST:
		case BPF_STX:
			if (i->k >= BPF_MEMWORDS)
				return BAD;
			mem[i->k] = cls == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			if (!alu(BPF_OP(i->code), &a, v))
				return BAD;
			break;
		case BPF_JMP:
			if (BPF_OP(i->code) == BPF_JA)
				pc += i->k;
			else
				pc += jump_taken(BPF_OP(i->code), a, v) ? i->jt
									: i->jf;
			break;
		case BPF_RET:
			return BPF_RVAL(i->code) == BPF_A ? a : i->k;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		default:
			return BAD;
		}
	}
	return BAD; /* fell off the end */
}

#define ARCH AUDIT_ARCH_X86_64
static const bpf_case bpf_cases_x86_64[] = {
	{"an i386 call kills", ALL, AUDIT_ARCH_I386, 3, {0}, KILL},
	{"an x32 number kills", ALL, ARCH, 0x40000000 | __NR_read, {0}, KILL},
#include "bpf_cases.inc"
};

/* One architecture's programs against its cases. */
static void check_arch(const char *arch, const struct sock_filter *const *f,
		       const unsigned short *lens, const bpf_case *cases,
		       size_t n)
{
	for (size_t c = 0; c < n; c++) {
		const bpf_case *k = &cases[c];

		for (unsigned v = 0; v < FILTER_VARIANTS; v++) {
			struct seccomp_data d = {.nr = k->nr, .arch = k->arch};
			uint32_t got;

			if (!(k->variants & (1u << v)))
				continue;
			memcpy(d.args, k->args, sizeof(d.args));
			got = run(f[v], lens[v], &d);
			if (!tap_ok(got == k->want, "%s: %s [variant %u]", arch,
				    k->name, v))
				tap_diag("action 0x%08x, want 0x%08x", got, k->want);
		}
	}
}

int main(void)
{
	check_arch("x86_64", sandy_seccomp_x86_64_filters,
		   sandy_seccomp_x86_64_lens, bpf_cases_x86_64,
		   sizeof(bpf_cases_x86_64) / sizeof(bpf_cases_x86_64[0]));
	check_arch("aarch64", sandy_seccomp_aarch64_filters,
		   sandy_seccomp_aarch64_lens, bpf_cases_aarch64,
		   bpf_cases_aarch64_len);
	return tap_done();
}
