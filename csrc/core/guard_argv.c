#include "guard_argv.h"

#include <string.h>

#include "paths.h"
#include "policy_argv.h"

size_t sandy_guard_words(const char *launcher, const sandy_guard_args *g,
			 const char *words[SANDY_GUARD_WORDS_MAX])
{
	size_t n = 0;

	if (g->n_protect > SANDY_GUARD_PROTECT_MAX ||
	    g->n_roots > SANDY_GUARD_ROOTS_MAX ||
	    g->n_deny_reads > SANDY_DENY_READS_MAX ||
	    g->n_keep_env > SANDY_KEEP_ENV_MAX ||
	    g->n_watches > SANDY_WATCHES_MAX ||
	    ((g->n_protect > 0 || g->n_watches > 0) && g->n_roots == 0))
		return 0;
	for (size_t i = 0; i < g->n_keep_env; i++)
		if (!sandy_env_name_valid(g->keep_env[i]))
			return 0;
	for (size_t i = 0; i < g->n_watches; i++)
		if (!sandy_watch_name_valid(g->watches[i].name) ||
		    !sandy_path_canonical(g->watches[i].dir))
			return 0;
	for (size_t i = 0; i < g->n_roots; i++)
		if (!sandy_path_canonical(g->roots[i].path))
			return 0;
	for (size_t i = 0; i < g->n_protect; i++)
		if (!sandy_path_canonical(g->protect[i]))
			return 0;
	for (size_t i = 0; i < g->n_deny_reads; i++)
		if (!sandy_path_canonical(g->deny_reads[i].path))
			return 0;
	words[n++] = launcher;
	words[n++] = SANDY_GUARD_MAGIC;
	if (g->nonce != NULL) {
		words[n++] = "--nonce";
		words[n++] = g->nonce;
	}
	for (size_t i = 0; i < g->n_roots; i++) {
		words[n++] = "--bind-root";
		words[n++] = g->roots[i].path;
		words[n++] = g->roots[i].id;
	}
	for (size_t i = 0; i < g->n_protect; i++) {
		words[n++] = "--protect";
		words[n++] = g->protect[i];
	}
	for (size_t i = 0; i < g->n_deny_reads; i++) {
		words[n++] = "--deny-read";
		words[n++] = g->deny_reads[i].path;
		words[n++] = g->deny_reads[i].id;
	}
	if (g->scrub_env)
		words[n++] = "--scrub-env";
	for (size_t i = 0; i < g->n_keep_env; i++) {
		words[n++] = "--keep-env";
		words[n++] = g->keep_env[i];
	}
	for (size_t i = 0; i < g->n_watches; i++) {
		words[n++] = "--watch";
		words[n++] = g->watches[i].dir;
		words[n++] = g->watches[i].id;
		words[n++] = g->watches[i].name;
	}
	words[n++] = "--";
	return n;
}

int sandy_guard_from_argv(int argc, char *const argv[], sandy_guard_args *g,
			  sandy_error *err)
{
	int i = 2;

	memset(g, 0, sizeof(*g));
	if (argc < 2 || strcmp(argv[1], SANDY_GUARD_MAGIC) != 0)
		goto malformed;
	if (i + 1 < argc && strcmp(argv[i], "--nonce") == 0) {
		if (!sandy_nonce_valid(argv[i + 1]))
			goto malformed;
		g->nonce = argv[i + 1];
		i += 2;
	}
	while (i + 2 < argc && strcmp(argv[i], "--bind-root") == 0 &&
	       sandy_path_canonical(argv[i + 1]) &&
	       g->n_roots < SANDY_GUARD_ROOTS_MAX) {
		g->roots[g->n_roots++] =
			(sandy_writable_root){argv[i + 1], argv[i + 2]};
		i += 3;
	}
	while (i + 1 < argc && strcmp(argv[i], "--protect") == 0 &&
	       sandy_path_canonical(argv[i + 1]) &&
	       g->n_roots > 0 && g->n_protect < SANDY_GUARD_PROTECT_MAX) {
		g->protect[g->n_protect++] = argv[i + 1];
		i += 2;
	}
	while (i + 2 < argc && strcmp(argv[i], "--deny-read") == 0 &&
	       sandy_path_canonical(argv[i + 1]) &&
	       g->n_deny_reads < SANDY_DENY_READS_MAX) {
		g->deny_reads[g->n_deny_reads++] =
			(sandy_writable_root){argv[i + 1], argv[i + 2]};
		i += 3;
	}
	if (i < argc && strcmp(argv[i], "--scrub-env") == 0) {
		g->scrub_env = true;
		i++;
	}
	while (i + 1 < argc && strcmp(argv[i], "--keep-env") == 0 &&
	       g->n_keep_env < SANDY_KEEP_ENV_MAX &&
	       sandy_env_name_valid(argv[i + 1])) {
		g->keep_env[g->n_keep_env++] = argv[i + 1];
		i += 2;
	}
	while (i + 3 < argc && strcmp(argv[i], "--watch") == 0 &&
	       g->n_roots > 0 && g->n_watches < SANDY_WATCHES_MAX &&
	       sandy_path_canonical(argv[i + 1]) &&
	       sandy_watch_name_valid(argv[i + 3])) {
		g->watches[g->n_watches++] = (struct sandy_launch_watch){
			argv[i + 1], argv[i + 2], argv[i + 3]};
		i += 4;
	}
	if (i + 1 >= argc || strcmp(argv[i], "--") != 0 ||
	    !sandy_path_canonical(argv[i + 1]))
		goto malformed;
	g->runner = i + 1;
	return 0;
malformed:
	return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			  "malformed guard arguments");
}
