/* The precompiled seccomp programs (csrc/linux/seccomp_filters.h), run by
 * a classic-BPF interpreter written here: (architecture, system call,
 * arguments) in, the action the kernel would take out. No kernel involved,
 * so every variant is checked for every case, including calls a test
 * process could not make safely (x32 numbers, i386 entry). Built by
 * scripts/c-tests.sh. */
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
#include "../linux/seccomp_filters.h"

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

#define ALLOW SECCOMP_RET_ALLOW
#define KILL SECCOMP_RET_KILL_PROCESS
#define ERR(e) (SECCOMP_RET_ERRNO | (e))
#define NOSUB (1u << 0 | 1u << 1) /* variants without subprocesses */
#define SUB (1u << 2 | 1u << 3)
#define NET_ON (1u << 0 | 1u << 2)
#define NET_OFF (1u << 1 | 1u << 3)
#define ALL (NOSUB | SUB)
#define X86_64 AUDIT_ARCH_X86_64

typedef struct bpf_case {
	const char *name;
	unsigned variants; /* bit v: filter variant v */
	uint32_t arch;
	int nr;
	uint64_t args[6];
	uint32_t want;
} bpf_case;

static const bpf_case cases[] = {
	{"read is allowed", ALL, X86_64, SYS_read, {0}, ALLOW},
	{"an i386 call kills", ALL, AUDIT_ARCH_I386, 3, {0}, KILL},
	{"an x32 number kills", ALL, X86_64, 0x40000000 | SYS_read, {0}, KILL},
	{"add_key", ALL, X86_64, SYS_add_key, {0}, ERR(EPERM)},
	{"keyctl", ALL, X86_64, SYS_keyctl, {0}, ERR(EPERM)},
	{"request_key", ALL, X86_64, SYS_request_key, {0}, ERR(EPERM)},
	{"mount", ALL, X86_64, SYS_mount, {0}, ERR(EPERM)},
	{"umount2", ALL, X86_64, SYS_umount2, {0}, ERR(EPERM)},
	{"pivot_root", ALL, X86_64, SYS_pivot_root, {0}, ERR(EPERM)},
	{"chroot", ALL, X86_64, SYS_chroot, {0}, ERR(EPERM)},
	{"open_tree", ALL, X86_64, 428, {0}, ERR(EPERM)},
	{"move_mount", ALL, X86_64, 429, {0}, ERR(EPERM)},
	{"fsopen", ALL, X86_64, 430, {0}, ERR(EPERM)},
	{"mount_setattr", ALL, X86_64, 442, {0}, ERR(EPERM)},
	{"open_tree_attr", ALL, X86_64, 467, {0}, ERR(EPERM)},
	{"unshare", ALL, X86_64, SYS_unshare, {0}, ERR(EPERM)},
	{"setns", ALL, X86_64, SYS_setns, {0}, ERR(EPERM)},
	{"ptrace", ALL, X86_64, SYS_ptrace, {0}, ERR(EPERM)},
	{"process_vm_writev", ALL, X86_64, SYS_process_vm_writev, {0},
	 ERR(EPERM)},
	{"pidfd_getfd", ALL, X86_64, 438, {0}, ERR(EPERM)},
	{"io_uring_setup", ALL, X86_64, 425, {0}, ERR(EPERM)},
	{"bpf", ALL, X86_64, SYS_bpf, {0}, ERR(EPERM)},
	{"userfaultfd", ALL, X86_64, SYS_userfaultfd, {0}, ERR(EPERM)},
	{"perf_event_open", ALL, X86_64, SYS_perf_event_open, {0}, ERR(EPERM)},
	{"uselib", ALL, X86_64, SYS_uselib, {0}, ERR(EPERM)},
	{"clone of a new user namespace", ALL, X86_64, SYS_clone,
	 {CLONE_NEWUSER | CLONE_THREAD}, ERR(EPERM)},
	{"clone of a new network namespace", ALL, X86_64, SYS_clone,
	 {CLONE_NEWNET}, ERR(EPERM)},
	{"clone of a thread", ALL, X86_64, SYS_clone,
	 {CLONE_VM | CLONE_THREAD | CLONE_SIGHAND}, ALLOW},
	{"clone of a process without subprocesses", NOSUB, X86_64, SYS_clone,
	 {SIGCHLD}, ERR(EPERM)},
	{"clone of a process with subprocesses", SUB, X86_64, SYS_clone,
	 {SIGCHLD}, ALLOW},
	{"fork without subprocesses", NOSUB, X86_64, SYS_fork, {0}, ERR(EPERM)},
	{"vfork with subprocesses", SUB, X86_64, SYS_vfork, {0}, ALLOW},
	{"clone3 is ENOSYS", ALL, X86_64, 435, {0}, ERR(ENOSYS)},
	{"TIOCSTI", ALL, X86_64, SYS_ioctl, {0, TIOCSTI}, ERR(EPERM)},
	{"TIOCSTI with high garbage", ALL, X86_64, SYS_ioctl,
	 {0, 0xdead000000000000ull | TIOCSTI}, ERR(EPERM)},
	{"TIOCLINUX", ALL, X86_64, SYS_ioctl, {0, 0x541C}, ERR(EPERM)},
	{"another ioctl", ALL, X86_64, SYS_ioctl, {0, TIOCGWINSZ}, ALLOW},
	{"execveat of an empty path", ALL, X86_64, SYS_execveat,
	 {3, 0, 0, 0, AT_EMPTY_PATH}, ERR(EPERM)},
	{"execveat of a path", ALL, X86_64, SYS_execveat,
	 {AT_FDCWD, 0, 0, 0, 0}, ALLOW},
	{"memfd_create", ALL, X86_64, SYS_memfd_create, {0, 0}, ERR(ENOSYS)},
	{"memfd_create sealed against execution", ALL, X86_64,
	 SYS_memfd_create, {0, 0x0008}, ERR(ENOSYS)},
	{"an AF_INET socket, network blocked", NET_OFF, X86_64, SYS_socket,
	 {AF_INET}, ERR(EACCES)},
	{"an AF_INET socket, network allowed", NET_ON, X86_64, SYS_socket,
	 {AF_INET}, ALLOW},
	{"an AF_UNIX socket, network blocked", NET_OFF, X86_64, SYS_socket,
	 {AF_UNIX}, ALLOW},
	{"AF_UNIX with high bits, network blocked", NET_OFF, X86_64,
	 SYS_socket, {(1ull << 32) | AF_UNIX}, ERR(EACCES)},
};

int main(void)
{
	int passed = 0, failed = 0;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const bpf_case *k = &cases[c];

		for (unsigned v = 0; v < FILTER_VARIANTS; v++) {
			struct seccomp_data d = {.nr = k->nr, .arch = k->arch};
			uint32_t got;

			if (!(k->variants & (1u << v)))
				continue;
			memcpy(d.args, k->args, sizeof(d.args));
			got = run(sandy_seccomp_filters[v],
				  sandy_seccomp_filter_lens[v], &d);
			if (got == k->want) {
				passed++;
				printf("ok   %s [variant %u]\n", k->name, v);
				continue;
			}
			failed++;
			printf("FAIL %s [variant %u]: action 0x%08x, want "
			       "0x%08x\n",
			       k->name, v, got, k->want);
		}
	}
	printf("bpf: %d passed, %d failed, 0 skipped\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
