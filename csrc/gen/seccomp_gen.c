/* Build-time generator: compiles the eight seccomp filters of seccomp.c
 * (the same rule code the test builds run at run time) to BPF, and writes
 * them as C, so the launcher loads ready BPF and never links libseccomp.
 * It writes the programs of the architecture it runs on: libseccomp can
 * emit another architecture's program, but only for calls it can name on
 * the host, and calls newer than it (open_tree_attr) have no name. So the
 * aarch64 half is written by an aarch64 build of this file, run under
 * qemu-user on x86_64 (no system call of the target is made).
 *
 *   gcc -std=c11 -D_GNU_SOURCE -DSANDY_SECCOMP_GENERATOR \
 *       csrc/gen/seccomp_gen.c csrc/linux/seccomp.c csrc/core/error.c \
 *       -lseccomp -o seccomp-gen
 *   ./seccomp-gen > x86_64.part          this architecture's tables
 *   ./seccomp-gen --header x86_64.part aarch64.part \
 *       > csrc/linux/seccomp_filters.h   the header, parts in this order
 *
 * csrc/Makefile's seccomp-filters does exactly this, and
 * test/unit/native.test.js fails when the committed header differs. */
#include <errno.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/error.h"
#define SANDY_SECCOMP_WITH_LIBSECCOMP 1
#include "../linux/seccomp_build.h"

/* A classic BPF program holds at most this many instructions. */
#define BPF_MAXINSNS_GEN 4096u

/* The shipped architectures, as data: libseccomp's token, the name the
 * header's tables carry, and the compiler's macro that selects them. */
typedef struct gen_arch {
	uint32_t token;
	const char *name;
	const char *macro;
} gen_arch;

static const gen_arch arches[] = {
	{SCMP_ARCH_X86_64, "x86_64", "__x86_64__"},
	{SCMP_ARCH_AARCH64, "aarch64", "__aarch64__"},
};
#define N_ARCHES (sizeof(arches) / sizeof(arches[0]))

static const char *const variant_names[FILTER_VARIANTS] = {
	"network allowed, no subprocesses",
	"network blocked, no subprocesses",
	"network allowed, subprocesses allowed",
	"network blocked, subprocesses allowed",
	"network allowed, no subprocesses, host PIDs",
	"network blocked, no subprocesses, host PIDs",
	"network allowed, subprocesses allowed, host PIDs",
	"network blocked, subprocesses allowed, host PIDs",
};

/* libseccomp 2.5 exports only to a descriptor: use a memfd and read back. */
static long export_bpf(scmp_filter_ctx ctx, struct sock_filter *out)
{
	int fd = memfd_create("sandy-bpf", MFD_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	if (seccomp_export_bpf(ctx, fd) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	n = read(fd, out, BPF_MAXINSNS_GEN * sizeof(*out));
	close(fd);
	if (n <= 0 || n % (ssize_t)sizeof(*out) != 0)
		return -1;
	return n / (ssize_t)sizeof(*out);
}

static void print_program(const gen_arch *a, unsigned v,
			  const struct sock_filter *f, long n)
{
	printf("/* %s: %s */\n", a->name, variant_names[v]);
	printf("static const struct sock_filter sandy_seccomp_%s_%u[] = {\n",
	       a->name, v);
	for (long i = 0; i < n; i++)
		printf("\t{0x%04x, %u, %u, 0x%08x},\n", f[i].code, f[i].jt,
		       f[i].jf, f[i].k);
	printf("};\n\n");
}

static int emit_variant(const gen_arch *a, unsigned v, long *len)
{
	struct sock_filter *prog = calloc(BPF_MAXINSNS_GEN, sizeof(*prog));
	sandy_error err = {0};
	scmp_filter_ctx ctx;

	if (prog == NULL)
		return -1;
	ctx = sandy_seccomp_build(v, &err);
	if (ctx == NULL) {
		fprintf(stderr, "seccomp-gen: %s\n", err.message);
		free(prog);
		return -1;
	}
	*len = export_bpf(ctx, prog);
	seccomp_release(ctx);
	if (*len > 0)
		print_program(a, v, prog, *len);
	else
		fprintf(stderr, "seccomp-gen: export failed\n");
	free(prog);
	return *len > 0 ? 0 : -1;
}

/* This architecture's eight programs and its two tables, compiled only for
 * it (or for the interpreter test, which checks them all). */
static int emit_native(void)
{
	const struct scmp_version *ver = seccomp_version();
	uint32_t native = seccomp_arch_native();
	const gen_arch *a = NULL;
	long lens[FILTER_VARIANTS];

	for (size_t i = 0; i < N_ARCHES; i++)
		if (arches[i].token == native)
			a = &arches[i];
	if (a == NULL) {
		fprintf(stderr, "seccomp-gen: this architecture is not shipped: "
				"add it to the table\n");
		return 1;
	}
	/* The output must not depend on the kernel it is written on, and
	 * qemu-user has no seccomp for libseccomp to probe: claim API level 3
	 * (KILL_PROCESS exists; Linux 4.14, below the launcher's floor), the
	 * level every program here is written against. */
	if (seccomp_api_set(3) != 0) {
		fprintf(stderr, "seccomp-gen: libseccomp refused API level 3\n");
		return 1;
	}
	printf("/* %s, by libseccomp %u.%u.%u */\n", a->name, ver->major,
	       ver->minor, ver->micro);
	printf("#if defined(%s) || defined(SANDY_SECCOMP_ALL_ARCHES)\n\n",
	       a->macro);
	for (unsigned v = 0; v < FILTER_VARIANTS; v++)
		if (emit_variant(a, v, &lens[v]) != 0)
			return 1;
	printf("static const struct sock_filter *const "
	       "sandy_seccomp_%s_filters[%u] = {\n",
	       a->name, FILTER_VARIANTS);
	for (unsigned v = 0; v < FILTER_VARIANTS; v++)
		printf("\tsandy_seccomp_%s_%u,\n", a->name, v);
	printf("};\n\nstatic const unsigned short "
	       "sandy_seccomp_%s_lens[%u] = {\n",
	       a->name, FILTER_VARIANTS);
	for (unsigned v = 0; v < FILTER_VARIANTS; v++)
		printf("\t%ld,\n", lens[v]);
	printf("};\n\n#endif\n\n");
	return fflush(stdout) == 0 ? 0 : 1;
}

static int copy_part(const char *file)
{
	FILE *f = fopen(file, "r");
	char buf[4096];
	size_t n;

	if (f == NULL) {
		perror(file);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	n = (size_t)ferror(f);
	fclose(f);
	return n == 0 ? 0 : -1;
}

/* The header: every architecture's part, then the names the launcher
 * uses, bound to the architecture it is compiled for, or no build. */
static int emit_header(int n_parts, char **parts)
{
	if ((size_t)n_parts != N_ARCHES) {
		fprintf(stderr, "seccomp-gen: --header wants %zu parts\n",
			N_ARCHES);
		return 1;
	}
	printf("/* Generated by csrc/gen/seccomp_gen.c, one part per "
	       "architecture.\n * Do not edit: regenerate "
	       "(test/unit/native.test.js checks it is current).\n * Index bit 0: "
	       "network blocked; bit 1: subprocesses allowed;\n * bit 2: no PID "
	       "namespace (host processes by number). */\n");
	printf("#ifndef SANDY_SECCOMP_FILTERS_H\n#define SANDY_SECCOMP_FILTERS_H\n\n"
	       "#include <linux/filter.h>\n\n");
	for (int i = 0; i < n_parts; i++)
		if (copy_part(parts[i]) != 0)
			return 1;
	for (size_t i = 0; i < N_ARCHES; i++)
		printf("#%s defined(%s)\n"
		       "#define sandy_seccomp_filters sandy_seccomp_%s_filters\n"
		       "#define sandy_seccomp_filter_lens sandy_seccomp_%s_lens\n",
		       i == 0 ? "if" : "elif", arches[i].macro, arches[i].name,
		       arches[i].name);
	printf("#else\n#error \"no precompiled seccomp filters for this "
	       "architecture: add it to csrc/gen/seccomp_gen.c\"\n"
	       "#endif\n\n#endif\n");
	return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--header") == 0)
		return emit_header(argc - 2, argv + 2);
	if (argc > 1) {
		fprintf(stderr, "usage: seccomp-gen [--header PART...]\n");
		return 2;
	}
	return emit_native();
}
