/* Landlock tests: every confined action is also run unconfined in a fresh
 * child, which must succeed (or at least not fail the same way), so a
 * test cannot pass with Landlock switched off. Built static by
 * csrc/Makefile (c-tests): the binary copies itself into the test tree to have
 * an executable that needs no libraries. */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "../linux/linux.h"
#include "harness.h"

#define RESTRICT_FAILED (-100001L)
#define MAXR 8

typedef struct tpol {
	sandy_resolved r;
	sandy_rgrant g[MAXR];
	sandy_rexec x[MAXR];
	sandy_rdeny ds[MAXR];
	sandy_rdeny dw[MAXR];
	int abi; /* 0: the kernel's */
} tpol;

typedef enum op_kind {
	OP_READ, OP_WRITE, OP_TRUNC, OP_CREATE, OP_UNLINK, OP_RENAME, OP_MKDIR,
	OP_LIST, OP_EXEC, OP_CONNECT, OP_BIND, OP_SIGNAL_PARENT,
	OP_ABSTRACT_CONNECT, OP_NOTHING,
} op_kind;

typedef struct op {
	op_kind kind;
	const char *path, *path2;
	int port;
} op;

typedef struct ll_run {
	const tpol *p; /* NULL: unconfined */
	op o;
} ll_run;

static char *base; /* the temporary tree, set once in main */

static char *at(const char *rel)
{
	char *s;

	if (asprintf(&s, "%s/%s", base, rel) < 0)
		exit(2);
	return s;
}

static void tp_init(tpol *t, sandy_network net)
{
	memset(t, 0, sizeof(*t));
	t->r.network = net;
	t->r.grants = t->g;
	t->r.execs = t->x;
	t->r.deny_subtrees = t->ds;
	t->r.deny_write_exact = t->dw;
}

static void tp_grant(tpol *t, const char *rel, sandy_access a, sandy_scope s)
{
	t->g[t->r.n_grants++] = (sandy_rgrant){at(rel), a, s, {0}};
}

static void tp_grant_abs(tpol *t, const char *abs, sandy_access a,
			 sandy_scope s)
{
	t->g[t->r.n_grants++] = (sandy_rgrant){strdup(abs), a, s, {0}};
}

static void tp_exec(tpol *t, const char *abs, sandy_scope s)
{
	t->x[t->r.n_execs++] = (sandy_rexec){strdup(abs), s, {0}};
}

static void tp_deny(tpol *t, const char *rel)
{
	t->ds[t->r.n_deny_subtrees++] = (sandy_rdeny){at(rel), NULL, {0}};
}

static void tp_deny_write(tpol *t, const char *rel)
{
	t->dw[t->r.n_deny_write_exact++] = (sandy_rdeny){at(rel), NULL, {0}};
}

static long fd_result(int fd)
{
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static long do_read(const char *p)
{
	char b;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	long rc;

	if (fd < 0)
		return -errno;
	rc = read(fd, &b, 1) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

static long do_write(const char *p)
{
	int fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	long rc;

	if (fd < 0)
		return -errno;
	rc = write(fd, "w", 1) == 1 ? 0 : -errno;
	close(fd);
	return rc;
}

static long do_list(const char *p)
{
	DIR *d = opendir(p);
	long n = 0;

	if (d == NULL)
		return -errno;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

static long do_exec(const char *p)
{
	char *argv[] = {(char *)p, "--exit0", NULL};
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execve(p, argv, (char *[]){NULL});
		_exit(errno);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -errno;
	if (!WIFEXITED(st))
		return -EINTR;
	return -(long)WEXITSTATUS(st); /* 0: the program ran and exited 0 */
}

static long do_inet(int port, bool connect_it)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long rc;

	if (fd < 0)
		return -errno;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect_it)
		rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	else
		rc = bind(fd, (struct sockaddr *)&a, sizeof(a));
	rc = rc == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

static socklen_t abstract_addr(struct sockaddr_un *a, int id)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "sandy-ll-%d", id);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   strlen(a->sun_path + 1));
}

static long do_abstract_connect(int id)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, id);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long rc;

	if (fd < 0)
		return -errno;
	rc = connect(fd, (struct sockaddr *)&a, len) == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

static long do_op(const op *o)
{
	switch (o->kind) {
	case OP_READ: return do_read(o->path);
	case OP_WRITE: return do_write(o->path);
	case OP_TRUNC: return fd_result(open(o->path, O_WRONLY | O_TRUNC));
	case OP_CREATE:
		return fd_result(open(o->path, O_WRONLY | O_CREAT | O_EXCL, 0644));
	case OP_UNLINK: return sysret(unlink(o->path));
	case OP_RENAME: return sysret(rename(o->path, o->path2));
	case OP_MKDIR: return sysret(mkdir(o->path, 0755));
	case OP_LIST: return do_list(o->path);
	case OP_EXEC: return do_exec(o->path);
	case OP_CONNECT: return do_inet(o->port, true);
	case OP_BIND: return do_inet(o->port, false);
	case OP_SIGNAL_PARENT: return sysret(kill(getppid(), 0));
	case OP_ABSTRACT_CONNECT: return do_abstract_connect(o->port);
	case OP_NOTHING: return 0;
	}
	return -EINVAL;
}

static long run_op(void *arg)
{
	const ll_run *run = arg;
	sandy_error err = {0};

	if (run->p != NULL) {
		sandy_host_facts f = {
			.landlock_abi = run->p->abi ? run->p->abi
						    : sandy_landlock_abi(),
			.with_view = false,
		};
		sandy_ll_plan lp;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    sandy_plan_landlock(&run->p->r, &f, &lp, &err) != 0 ||
		    sandy_landlock_restrict(&lp, &err) != 0) {
			fprintf(stderr, "restrict: %s: %s\n",
				sandy_error_kind_name(err.kind), err.message);
			return RESTRICT_FAILED - (long)err.kind;
		}
	}
	return do_op(&run->o);
}

/* The tree is restored between checks that mutate it, so each check
 * sees the same starting state. */
static void reset_tree(void);

static child_result confined(const tpol *p, op o)
{
	ll_run run = {p, o};

	reset_tree();
	return run_child(run_op, &run);
}

/* expect_errno 0: the confined action must succeed. */
static void expect(const char *what, const tpol *p, op o,
		   int expect_errno)
{
	child_result u = confined(NULL, o);
	child_result f = confined(p, o);
	char name[200], ubuf[64];
	bool ok;

	describe(ubuf, sizeof(ubuf), u);
	snprintf(name, sizeof(name), "%s [unconfined: %s]", what, ubuf);
	if (expect_errno == 0)
		ok = is_ok(f) && is_ok(u);
	else
		ok = is_errno(f, expect_errno) && is_ok(u);
	check(ok, name, f);
}

static void expect_restrict_error(const char *what,
				  const tpol *p, sandy_error_kind kind)
{
	child_result f = confined(p, (op){OP_NOTHING, NULL, NULL, 0});

	check(f.reported && f.value == RESTRICT_FAILED - (long)kind, what,
	      f);
}

static void must(int rc, const char *what)
{
	if (rc != 0) {
		perror(what);
		exit(2);
	}
}

static void put(const char *rel, const char *text)
{
	char *p = at(rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		must(-1, rel);
	close(fd);
	free(p);
}

static void dir(const char *rel)
{
	char *p = at(rel);

	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		must(-1, rel);
	free(p);
}

static void copy_self(const char *rel)
{
	char buf[65536];
	char *p = at(rel);
	int in = open("/proc/self/exe", O_RDONLY), out;
	ssize_t n;

	out = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0)
		must(-1, "copy self");
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			must(-1, "copy self");
	close(in);
	close(out);
	free(p);
}

static void copy_file(const char *from, const char *rel)
{
	char buf[65536];
	char *p = at(rel);
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	out = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0)
		must(-1, "copy");
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			must(-1, "copy");
	close(in);
	close(out);
	free(p);
}

static void reset_tree(void)
{
	static const char *const dirs[] = {
		"ro", "a", "a/secret", "a/secret/sub", "a/other", "w",
		"w/sub", "x", "x/d", "bin", "dyn", "big",
	};
	char cmd[600];

	/* Undo what the unconfined runs changed. */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && rm -rf a/new.txt a/other/new.txt a/other/moved "
		 "a/secret/new a/secret/sub/new.txt w/new.txt w/sub2 "
		 "w/sub/new.txt ro/new.txt x/new",
		 base);
	if (system(cmd) != 0)
		must(-1, "reset");
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		dir(dirs[i]);
	put("ro/f.txt", "ro");
	put("a/secret/s.txt", "secret");
	put("a/other/o.txt", "other");
	put("a/file.txt", "file");
	put("w/settings.json", "{}");
	put("w/adj.txt", "adj");
	put("w/sub/x.txt", "x");
	put("x/inner.txt", "inner");
}

static void make_tree(void)
{
	char tmpl[] = "/tmp/sandy-ll-XXXXXX";
	char *lnk;

	base = mkdtemp(tmpl);
	if (base == NULL)
		must(-1, "mkdtemp");
	base = strdup(base);
	reset_tree();
	copy_self("bin/prog");
	copy_file("/bin/true", "dyn/true");
	lnk = at("a/lnk");
	must(symlink("/etc", lnk), "symlink");
	free(lnk);
	for (int i = 0; i < 1100; i++) {
		char rel[32];

		snprintf(rel, sizeof(rel), "big/f%04d", i);
		put(rel, "");
	}
	dir("big/secret");
}

static op o1(op_kind k, const char *rel)
{
	return (op){k, at(rel), NULL, 0};
}

static op o2(op_kind k, const char *rel, const char *rel2)
{
	return (op){k, at(rel), at(rel2), 0};
}

static void test_read_only(void)
{
	tpol t;

	tp_init(&t, SANDY_NETWORK_ALLOW_ALL);
	tp_grant(&t, "ro", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	expect("read-only grant: read", &t, o1(OP_READ, "ro/f.txt"), 0);
	expect("read-only grant: write refused", &t,
	       o1(OP_WRITE, "ro/f.txt"), EACCES);
	expect("read-only grant: O_TRUNC refused", &t,
	       o1(OP_TRUNC, "ro/f.txt"), EACCES);
	expect("read-only grant: create refused", &t,
	       o1(OP_CREATE, "ro/new.txt"), EACCES);
	expect("outside every grant: read refused", &t,
	       o1(OP_READ, "a/file.txt"), EACCES);
}

/* Two overlapping grants around one deny; the deny beats both. */
static void deny_policy(tpol *t, bool base_first)
{
	tp_init(t, SANDY_NETWORK_ALLOW_ALL);
	if (base_first)
		tp_grant_abs(t, base, SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	tp_grant(t, "a", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_SUBTREE);
	tp_grant(t, "a/secret/sub", SANDY_ACCESS_READ_WRITE,
		 SANDY_SCOPE_SUBTREE);
	tp_deny(t, "a/secret");
	if (!base_first)
		tp_grant_abs(t, base, SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
}

static void test_deny_subtree(void)
{
	tpol t, t2;

	deny_policy(&t, true);
	deny_policy(&t2, false);
	expect("deny beneath grant: read refused", &t,
	       o1(OP_READ, "a/secret/s.txt"), EACCES);
	expect("deny beneath grant (other order): read refused", &t2,
	       o1(OP_READ, "a/secret/s.txt"), EACCES);
	expect("deny beneath grant: write refused", &t,
	       o1(OP_WRITE, "a/secret/s.txt"), EACCES);
	expect("deny beneath grant: unlink refused", &t,
	       o1(OP_UNLINK, "a/secret/s.txt"), EACCES);
	expect("grant inside a deny dropped", &t,
	       o1(OP_CREATE, "a/secret/sub/new.txt"), EACCES);
	expect("deny: sibling readable", &t, o1(OP_READ, "a/other/o.txt"),
	       0);
	expect("deny: sibling writable", &t,
	       o1(OP_WRITE, "a/other/o.txt"), 0);
	expect("deny: adjacent file writable", &t,
	       o1(OP_WRITE, "a/file.txt"), 0);
	expect("deny: create in a sibling dir", &t,
	       o1(OP_CREATE, "a/other/new.txt"), 0);
	expect("deny: grant root still listable", &t, o1(OP_LIST, "a"), 0);
	expect("deny: new entry beside the deny refused (fail closed)", &t,
	       o1(OP_CREATE, "a/new.txt"), EACCES);
	expect("deny: renaming the denied dir refused", &t,
	       o2(OP_RENAME, "a/secret", "a/other/moved"), EACCES);
	expect("deny: renaming the grant root's child dir refused", &t,
	       o2(OP_RENAME, "a/other", "a/secret/new"), EACCES);
	expect("deny: symlink entry does not grant its target", &t,
	       o1(OP_READ, "a/lnk/hostname"), EACCES);
	/* Documented: names inside a denied directory stay listable with
	 * Landlock alone (READ_DIR above it); the view hides them. */
	expect("deny: listing inside the deny (documented gap)", &t,
	       o1(OP_LIST, "a/secret"), 0);
}

static void test_deny_write_exact(void)
{
	tpol t;

	tp_init(&t, SANDY_NETWORK_ALLOW_ALL);
	tp_deny_write(&t, "w/settings.json");
	tp_grant(&t, "w", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_SUBTREE);
	expect("deny_write_exact: write refused", &t,
	       o1(OP_WRITE, "w/settings.json"), EACCES);
	expect("deny_write_exact: O_TRUNC refused", &t,
	       o1(OP_TRUNC, "w/settings.json"), EACCES);
	expect("deny_write_exact: still readable", &t,
	       o1(OP_READ, "w/settings.json"), 0);
	expect("deny_write_exact: unlink refused", &t,
	       o1(OP_UNLINK, "w/settings.json"), EACCES);
	expect("deny_write_exact: replace by rename refused", &t,
	       o2(OP_RENAME, "w/adj.txt", "w/settings.json"), EACCES);
	expect("deny_write_exact: adjacent file writable", &t,
	       o1(OP_WRITE, "w/adj.txt"), 0);
	expect("deny_write_exact: nested file writable", &t,
	       o1(OP_WRITE, "w/sub/x.txt"), 0);
	expect("deny_write_exact: create in a sibling dir", &t,
	       o1(OP_CREATE, "w/sub/new.txt"), 0);
	expect("deny_write_exact: ancestor rename refused", &t,
	       o2(OP_RENAME, "w/sub", "w/sub2"), EACCES);
}

static void test_exact_dir(void)
{
	tpol t;

	tp_init(&t, SANDY_NETWORK_ALLOW_ALL);
	tp_grant(&t, "x", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_EXACT);
	expect("exact dir: listable", &t, o1(OP_LIST, "x"), 0);
	expect("exact dir: contents not readable", &t,
	       o1(OP_READ, "x/inner.txt"), EACCES);
	expect("exact dir: no entries created", &t,
	       o1(OP_MKDIR, "x/new"), EACCES);
}

/* Measured: execve needs READ_FILE as well as EXECUTE (Landlock checks
 * the read-mode open exec performs), so an execute grant alone does not
 * launch; execute grants still add no reads (see landlock.c). */
static void test_execute(void)
{
	tpol t, tr, both, dyn, dyn_noread;
	char *bin = at("bin"), *prog = at("bin/prog");

	tp_init(&t, SANDY_NETWORK_ALLOW_ALL);
	tp_exec(&t, bin, SANDY_SCOPE_SUBTREE);
	expect("execute grant alone does not launch (needs read too)", &t,
	       o1(OP_EXEC, "bin/prog"), EACCES);
	expect("execute grant gives no read", &t, o1(OP_READ, "bin/prog"),
	       EACCES);
	tp_init(&tr, SANDY_NETWORK_ALLOW_ALL);
	tp_grant(&tr, "bin", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	expect("read grant gives no execute", &tr, o1(OP_EXEC, "bin/prog"),
	       EACCES);
	tp_init(&both, SANDY_NETWORK_ALLOW_ALL);
	tp_grant(&both, "bin", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	tp_exec(&both, prog, SANDY_SCOPE_EXACT);
	expect("exact execute + read runs a static binary", &both,
	       o1(OP_EXEC, "bin/prog"), 0);
	tp_init(&dyn, SANDY_NETWORK_ALLOW_ALL);
	tp_exec(&dyn, "/usr", SANDY_SCOPE_SUBTREE);
	tp_grant_abs(&dyn, "/usr", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	tp_grant_abs(&dyn, "/etc", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	tp_grant(&dyn, "dyn", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	tp_exec(&dyn, at("dyn"), SANDY_SCOPE_SUBTREE);
	expect("dynamic binary: execute + read of it and its libraries",
	       &dyn, o1(OP_EXEC, "dyn/true"), 0);
	tp_init(&dyn_noread, SANDY_NETWORK_ALLOW_ALL);
	tp_exec(&dyn_noread, "/usr", SANDY_SCOPE_SUBTREE);
	tp_grant(&dyn_noread, "dyn", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	tp_exec(&dyn_noread, at("dyn"), SANDY_SCOPE_SUBTREE);
	/* The kernel opens ld.so for exec, which needs READ_FILE: EACCES. */
	expect("dynamic binary: libraries executable but not readable",
	       &dyn_noread, o1(OP_EXEC, "dyn/true"), EACCES);
}

static int listen_tcp(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0)
		must(-1, "listen");
	*port = ntohs(a.sin_port);
	return fd;
}

static int listen_abstract(int id)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, id);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) != 0 ||
	    listen(fd, 16) != 0)
		must(-1, "abstract listen");
	return fd;
}

static void test_network_and_scopes(void)
{
	tpol blocked, open_net;
	int port, lfd = listen_tcp(&port);
	int afd = listen_abstract(getpid());
	op conn = {OP_CONNECT, NULL, NULL, port};
	op bind_op = {OP_BIND, NULL, NULL, 0};

	tp_init(&blocked, SANDY_NETWORK_BLOCK_ALL);
	tp_init(&open_net, SANDY_NETWORK_ALLOW_ALL);
	expect("network blocked: TCP connect to 127.0.0.1 refused",
	       &blocked, conn, EACCES);
	expect("network blocked: TCP bind refused", &blocked, bind_op,
	       EACCES);
	expect("network allowed: TCP connect works", &open_net, conn, 0);
	expect("signal to the parent refused (scoped)", &open_net,
	       (op){OP_SIGNAL_PARENT, NULL, NULL, 0}, EPERM);
	expect("abstract UNIX socket outside refused (scoped)", &open_net,
	       (op){OP_ABSTRACT_CONNECT, NULL, NULL, getpid()}, EPERM);
	close(lfd);
	close(afd);
}

static void test_failures(void)
{
	tpol t;

	tp_init(&t, SANDY_NETWORK_ALLOW_ALL);
	t.abi = 5;
	expect_restrict_error("ABI 5 is Unsupported", &t,
			      SANDY_ERR_UNSUPPORTED);
	t.abi = -1;
	expect_restrict_error("no Landlock is Unsupported", &t,
			      SANDY_ERR_UNSUPPORTED);
	tp_init(&t, SANDY_NETWORK_BLOCK_ALL);
	t.abi = 3;
	expect_restrict_error("blocked network on ABI 3 is Unsupported", &t,
			      SANDY_ERR_UNSUPPORTED);
	tp_init(&t, SANDY_NETWORK_ALLOW_ALL);
	tp_grant(&t, "big", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_SUBTREE);
	tp_deny(&t, "big/secret");
	expect_restrict_error("sibling expansion past the rule cap is "
				 "InvalidPolicy",
			      &t, SANDY_ERR_INVALID_POLICY);
	tp_init(&t, SANDY_NETWORK_ALLOW_ALL);
	tp_grant(&t, "no-such-dir", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	expect_restrict_error("missing grant path is EnforcementFailed", &t,
			      SANDY_ERR_ENFORCEMENT_FAILED);
}

int main(int argc, char **argv)
{
	char cmd[300];
	int rc;

	if (argc > 1 && strcmp(argv[1], "--exit0") == 0)
		return 0;
	if (!tap_ok(sandy_landlock_abi() >= 6, "Landlock ABI 6 or newer (%d)",
		    sandy_landlock_abi()))
		return tap_done();
	make_tree();
	test_read_only();
	test_deny_subtree();
	test_deny_write_exact();
	test_exact_dir();
	test_execute();
	test_network_and_scopes();
	test_failures();
	rc = tap_done();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
