#include "policy_argv.h"

#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- encoding --------------------------------------------------------- */

typedef struct word_list {
	char **words;
	size_t n, cap;
	int failed;
} word_list;

static void push(word_list *w, const char *s, size_t len)
{
	char *copy;

	if (w->failed)
		return;
	if (memchr(s, '\0', len) != NULL) {
		w->failed = 1; /* a word cannot carry a NUL through execve */
		return;
	}
	if (w->n + 2 > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		char **grown = realloc(w->words, cap * sizeof(*grown));

		if (grown == NULL) {
			w->failed = 1;
			return;
		}
		w->words = grown;
		w->cap = cap;
	}
	copy = strndup(s, len);
	if (copy == NULL) {
		w->failed = 1;
		return;
	}
	w->words[w->n++] = copy;
	w->words[w->n] = NULL;
}

static void push_word(word_list *w, const char *s)
{
	push(w, s, strlen(s));
}

char **sandy_launch_to_argv(const sandy_launch *l, size_t *count)
{
	const sandy_policy *p = &l->policy;
	word_list w = {0};
	size_t i;

	push_word(&w, SANDY_ARGV_MAGIC);
	if (l->nonce != NULL) {
		push_word(&w, "--nonce");
		push_word(&w, l->nonce);
	}
	push_word(&w, "--network");
	push_word(&w, sandy_network_name(p->network));
	if (p->allow_subprocesses)
		push_word(&w, "--subprocesses");
	for (i = 0; i < p->n_grants; i++) {
		push_word(&w, sandy_section_option(SANDY_SECTION_GRANTS));
		push_word(&w, sandy_access_name(p->grants[i].access));
		push_word(&w, sandy_scope_name(p->grants[i].scope));
		push(&w, p->grants[i].path.bytes, p->grants[i].path.len);
	}
	for (i = 0; i < p->n_exec_grants; i++) {
		push_word(&w, sandy_section_option(
				  SANDY_SECTION_EXECUTABLE_GRANTS));
		push_word(&w, sandy_scope_name(p->exec_grants[i].scope));
		push(&w, p->exec_grants[i].path.bytes,
		     p->exec_grants[i].path.len);
	}
	for (i = 0; i < p->n_deny_subtrees; i++) {
		push_word(&w, sandy_section_option(SANDY_SECTION_DENY_SUBTREES));
		push(&w, p->deny_subtrees[i].bytes, p->deny_subtrees[i].len);
	}
	for (i = 0; i < p->n_deny_write_exact; i++) {
		push_word(&w, sandy_section_option(
				  SANDY_SECTION_DENY_WRITE_EXACT));
		push(&w, p->deny_write_exact[i].bytes,
		     p->deny_write_exact[i].len);
	}
	for (i = 0; i < l->n_tmpfs; i++) {
		push_word(&w, "--tmpfs");
		push_word(&w, l->tmpfs[i]);
	}
	if (l->landlock_only)
		push_word(&w, "--landlock-only");
	if (l->canonical)
		push_word(&w, "--canonical");
	if (l->cwd != NULL) {
		push_word(&w, "--cwd");
		push_word(&w, l->cwd);
	}
	for (i = 0; i < l->n_pins; i++) {
		push_word(&w, "--pin");
		push_word(&w, l->pins[i].key);
		push_word(&w, l->pins[i].path);
		push_word(&w, l->pins[i].id);
	}
	if (l->pinned)
		push_word(&w, "--pinned");
	for (i = 0; i < l->n_deny_reads; i++) {
		push_word(&w, "--deny-read");
		push_word(&w, l->deny_reads[i].path);
		push_word(&w, l->deny_reads[i].id);
	}
	if (l->scrub_env)
		push_word(&w, "--scrub-env");
	for (i = 0; i < l->n_keep_env; i++) {
		push_word(&w, "--keep-env");
		push_word(&w, l->keep_env[i]);
	}
	for (i = 0; i < l->n_watches; i++) {
		push_word(&w, "--watch");
		push_word(&w, l->watches[i].dir);
		push_word(&w, l->watches[i].id);
		push_word(&w, l->watches[i].name);
	}
	if (w.failed) {
		sandy_argv_free(w.words);
		return NULL;
	}
	*count = w.n;
	return w.words;
}

void sandy_argv_free(char **words)
{
	size_t i;

	if (words == NULL)
		return;
	for (i = 0; words[i] != NULL; i++)
		free(words[i]);
	free(words);
}

char **sandy_words_dup(const char *const *words, size_t *count)
{
	word_list w = {0};

	for (; *words != NULL; words++)
		push_word(&w, *words);
	if (w.failed) {
		sandy_argv_free(w.words);
		return NULL;
	}
	*count = w.n;
	return w.words;
}

/* ---- decoding --------------------------------------------------------- */

static int bad(sandy_error *err, const char *why)
{
	return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			  "malformed launcher arguments: %s", why);
}

static int add_pin(sandy_launch *l, const char *key, const char *path,
		   const char *id)
{
	struct sandy_launch_pin *more;

	if (l->n_pins >= SANDY_PINS_MAX)
		return -1;
	more = realloc(l->pins, (l->n_pins + 1) * sizeof(*more));
	if (more == NULL)
		return -1;
	l->pins = more;
	l->pins[l->n_pins++] = (struct sandy_launch_pin){key, path, id};
	return 0;
}

/* Whether opt is the option of section s (vocabulary.h). */
static bool is_option(const char *opt, sandy_section s)
{
	return strcmp(opt, sandy_section_option(s)) == 0;
}

/* Consumes one option at argv[*i]; returns 0, 1 at "--", or -1. */
static int parse_option(int argc, char *const argv[], int *i, sandy_launch *l,
			sandy_error *err)
{
	sandy_policy *p = &l->policy;
	const char *opt = argv[*i];
	int left = argc - *i - 1;
	sandy_access a;
	sandy_scope s;
	int rc = 0;

	if (strcmp(opt, "--") == 0)
		return 1;
	if (strcmp(opt, "--subprocesses") == 0) {
		p->allow_subprocesses = true;
	} else if (strcmp(opt, "--network") == 0 && left >= 1) {
		if (sandy_network_parse(argv[++*i], &p->network) != 0)
			return bad(err, "unknown network word");
	} else if (is_option(opt, SANDY_SECTION_GRANTS) && left >= 3) {
		if (sandy_access_parse(argv[*i + 1], &a) ||
		    sandy_scope_parse(argv[*i + 2], &s))
			return bad(err, "unknown grant word");
		rc = sandy_policy_grant(p, argv[*i + 3], strlen(argv[*i + 3]), a, s);
		*i += 3;
	} else if (is_option(opt, SANDY_SECTION_EXECUTABLE_GRANTS) && left >= 2) {
		if (sandy_scope_parse(argv[*i + 1], &s))
			return bad(err, "unknown scope word");
		rc = sandy_policy_allow_execute(p, argv[*i + 2],
						strlen(argv[*i + 2]), s);
		*i += 2;
	} else if (is_option(opt, SANDY_SECTION_DENY_SUBTREES) && left >= 1) {
		++*i;
		rc = sandy_policy_deny_subtree(p, argv[*i], strlen(argv[*i]));
	} else if (is_option(opt, SANDY_SECTION_DENY_WRITE_EXACT) && left >= 1) {
		++*i;
		rc = sandy_policy_deny_write_exact(p, argv[*i], strlen(argv[*i]));
	} else if (strcmp(opt, "--tmpfs") == 0 && left >= 1 &&
		   l->n_tmpfs < SANDY_TMPFS_MAX) {
		l->tmpfs[l->n_tmpfs++] = argv[++*i];
	} else if (strcmp(opt, "--landlock-only") == 0) {
		l->landlock_only = true;
	} else if (strcmp(opt, "--canonical") == 0) {
		l->canonical = true;
	} else if (strcmp(opt, "--nonce") == 0 && left >= 1 &&
		   l->nonce == NULL && sandy_nonce_valid(argv[*i + 1])) {
		l->nonce = argv[++*i];
	} else if (strcmp(opt, "--cwd") == 0 && left >= 1 && l->cwd == NULL) {
		l->cwd = strdup(argv[++*i]);
		rc = l->cwd == NULL ? -1 : 0;
	} else if (strcmp(opt, "--pin") == 0 && left >= 3) {
		rc = add_pin(l, argv[*i + 1], argv[*i + 2], argv[*i + 3]);
		*i += 3;
	} else if (strcmp(opt, "--pinned") == 0) {
		l->pinned = true;
	} else if (strcmp(opt, "--deny-read") == 0 && left >= 2 &&
		   l->n_deny_reads < SANDY_DENY_READS_MAX &&
		   argv[*i + 1][0] == '/') {
		l->deny_reads[l->n_deny_reads++] =
			(struct sandy_launch_read){argv[*i + 1], argv[*i + 2]};
		*i += 2;
	} else if (strcmp(opt, "--scrub-env") == 0) {
		l->scrub_env = true;
	} else if (strcmp(opt, "--keep-env") == 0 && left >= 1 &&
		   l->n_keep_env < SANDY_KEEP_ENV_MAX &&
		   sandy_env_name_valid(argv[*i + 1])) {
		l->keep_env[l->n_keep_env++] = argv[++*i];
	} else if (strcmp(opt, "--watch") == 0 && left >= 3 &&
		   l->n_watches < SANDY_WATCHES_MAX &&
		   argv[*i + 1][0] == '/' &&
		   sandy_watch_name_valid(argv[*i + 3])) {
		l->watches[l->n_watches++] = (struct sandy_launch_watch){
			argv[*i + 1], argv[*i + 2], argv[*i + 3]};
		*i += 3;
	} else {
		return bad(err, "unknown or incomplete option");
	}
	if (rc != 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "out of memory or too many pins");
	return 0;
}

int sandy_launch_from_argv(int argc, char *const argv[], sandy_launch *out,
			   sandy_error *err)
{
	/* 0 until an option ends the words: a bare version word is "missing
	 * --", never a failure without a reason */
	int i, rc = 0;

	memset(out, 0, sizeof(*out));
	if (argc < 1 || strcmp(argv[0], SANDY_ARGV_MAGIC) != 0) {
		bad(err, "missing version word");
		return -1;
	}
	for (i = 1; i < argc; i++) {
		rc = parse_option(argc, argv, &i, out, err);
		if (rc != 0)
			break;
	}
	if (rc == 1 && out->policy.network != 0) {
		out->target = i + 1;
		return 0;
	}
	if (rc == 0)
		bad(err, "missing \"--\"");
	else if (rc == 1)
		bad(err, "missing --network");
	sandy_launch_free(out);
	return -1;
}

bool sandy_nonce_valid(const char *nonce)
{
	size_t n = strspn(nonce, "0123456789abcdef");

	return nonce[n] == '\0' && n >= SANDY_NONCE_MIN && n <= SANDY_NONCE_MAX;
}

bool sandy_watch_name_valid(const char *name)
{
	return name[0] != '\0' && strchr(name, '/') == NULL &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

const char *sandy_launch_nonce(int argc, char *const argv[])
{
	for (int i = 0; i + 1 < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--nonce") == 0)
			return sandy_nonce_valid(argv[i + 1]) ? argv[i + 1] : NULL;
	return NULL;
}

void sandy_launch_free(sandy_launch *l)
{
	sandy_policy_free(&l->policy);
	free(l->cwd);
	free(l->pins);
	memset(l, 0, sizeof(*l));
}

/* ---- --pin keys (policy_argv.h) -------------------------------------- */

void sandy_grant_pin_key(char out[SANDY_PIN_KEY_BYTES], size_t i,
			 const sandy_rgrant *g)
{
	snprintf(out, SANDY_PIN_KEY_BYTES, "%s[%zu]:%s:%s",
		 sandy_section_key(SANDY_SECTION_GRANTS), i,
		 sandy_access_name(g->access), sandy_scope_name(g->scope));
}

void sandy_exec_pin_key(char out[SANDY_PIN_KEY_BYTES], size_t i,
			const sandy_rexec *x)
{
	snprintf(out, SANDY_PIN_KEY_BYTES, "%s[%zu]:%s",
		 sandy_section_key(SANDY_SECTION_EXECUTABLE_GRANTS), i,
		 sandy_scope_name(x->scope));
}

void sandy_deny_pin_key(char out[SANDY_PIN_KEY_BYTES], sandy_section s,
			size_t i, bool lexical)
{
	snprintf(out, SANDY_PIN_KEY_BYTES, "%s[%zu]%s", sandy_section_key(s),
		 i, lexical ? ".lexical" : "");
}

void sandy_pin_id(char out[SANDY_PIN_ID_BYTES], unsigned long long dev,
		  unsigned long long ino)
{
	snprintf(out, SANDY_PIN_ID_BYTES, "%llu:%llu", dev, ino);
}

static int each_deny(const sandy_rdeny *d, size_t n, sandy_section s,
		     sandy_pin_fn fn, void *ctx)
{
	char key[SANDY_PIN_KEY_BYTES];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		sandy_deny_pin_key(key, s, i, false);
		rc = fn(ctx, key, d[i].canonical);
		if (rc == 0 && d[i].lexical != NULL) {
			sandy_deny_pin_key(key, s, i, true);
			rc = fn(ctx, key, d[i].lexical);
		}
	}
	return rc;
}

int sandy_pins_each(const sandy_resolved *r, sandy_pin_fn fn, void *ctx)
{
	char key[SANDY_PIN_KEY_BYTES];
	int rc = fn(ctx, "cwd", r->cwd);

	for (size_t i = 0; rc == 0 && i < r->n_grants; i++) {
		sandy_grant_pin_key(key, i, &r->grants[i]);
		rc = fn(ctx, key, r->grants[i].path);
	}
	for (size_t i = 0; rc == 0 && i < r->n_execs; i++) {
		sandy_exec_pin_key(key, i, &r->execs[i]);
		rc = fn(ctx, key, r->execs[i].path);
	}
	if (rc == 0)
		rc = each_deny(r->deny_subtrees, r->n_deny_subtrees,
			       SANDY_SECTION_DENY_SUBTREES, fn, ctx);
	if (rc == 0)
		rc = each_deny(r->deny_write_exact, r->n_deny_write_exact,
			       SANDY_SECTION_DENY_WRITE_EXACT, fn, ctx);
	return rc;
}
