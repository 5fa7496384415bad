#include "policy.h"

#include <stdlib.h>
#include <string.h>

/* The word lists of vocabulary.h as tables of (value, word). */
typedef struct word_entry {
	int value;
	const char *word;
} word_entry;

#define SANDY_X(id, value, word, js) {value, word},
static const word_entry access_words[] = {SANDY_ACCESS_MAP(SANDY_X)};
static const word_entry scope_words[] = {SANDY_SCOPE_MAP(SANDY_X)};
static const word_entry network_words[] = {SANDY_NETWORK_MAP(SANDY_X)};
#undef SANDY_X

#define N_WORDS(a) (sizeof(a) / sizeof((a)[0]))

/* A value no word names (never built by this code) is spelled as the
 * narrowest word, so that a stray value can only ever narrow a policy. */
static const char *name_of(const word_entry *words, size_t n, int value,
			   int narrowest)
{
	const char *fallback = "";
	size_t i;

	for (i = 0; i < n; i++) {
		if (words[i].value == value)
			return words[i].word;
		if (words[i].value == narrowest)
			fallback = words[i].word;
	}
	return fallback;
}

/* The value whose word is word; -1 when none is. */
static int parse_word(const word_entry *words, size_t n, const char *word,
		      int *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(word, words[i].word) == 0) {
			*out = words[i].value;
			return 0;
		}
	return -1;
}

const char *sandy_access_name(sandy_access a)
{
	return name_of(access_words, N_WORDS(access_words), a,
		       SANDY_ACCESS_READ);
}

const char *sandy_scope_name(sandy_scope s)
{
	return name_of(scope_words, N_WORDS(scope_words), s,
		       SANDY_SCOPE_EXACT);
}

const char *sandy_network_name(sandy_network n)
{
	return name_of(network_words, N_WORDS(network_words), n,
		       SANDY_NETWORK_BLOCK_ALL);
}

int sandy_access_parse(const char *word, sandy_access *out)
{
	int v;

	if (parse_word(access_words, N_WORDS(access_words), word, &v) != 0)
		return -1;
	*out = (sandy_access)v;
	return 0;
}

int sandy_scope_parse(const char *word, sandy_scope *out)
{
	int v;

	if (parse_word(scope_words, N_WORDS(scope_words), word, &v) != 0)
		return -1;
	*out = (sandy_scope)v;
	return 0;
}

int sandy_network_parse(const char *word, sandy_network *out)
{
	int v;

	if (parse_word(network_words, N_WORDS(network_words), word, &v) != 0)
		return -1;
	*out = (sandy_network)v;
	return 0;
}

void sandy_policy_init(sandy_policy *p, sandy_network network)
{
	memset(p, 0, sizeof(*p));
	p->network = network;
}

static void path_free(sandy_path *path)
{
	free(path->bytes);
	path->bytes = NULL;
	path->len = 0;
}

void sandy_policy_free(sandy_policy *p)
{
	size_t i;

	for (i = 0; i < p->n_grants; i++)
		path_free(&p->grants[i].path);
	for (i = 0; i < p->n_exec_grants; i++)
		path_free(&p->exec_grants[i].path);
	for (i = 0; i < p->n_deny_subtrees; i++)
		path_free(&p->deny_subtrees[i]);
	for (i = 0; i < p->n_deny_write_exact; i++)
		path_free(&p->deny_write_exact[i]);
	free(p->grants);
	free(p->exec_grants);
	free(p->deny_subtrees);
	free(p->deny_write_exact);
	memset(p, 0, sizeof(*p));
}

static int path_copy(sandy_path *dst, const char *src, size_t len)
{
	dst->bytes = malloc(len + 1);
	if (dst->bytes == NULL)
		return -1;
	memcpy(dst->bytes, src, len);
	dst->bytes[len] = '\0';
	dst->len = len;
	return 0;
}

/* Grows *array by one element of elem_size bytes; returns the new slot. */
static void *append_slot(void **array, size_t *count, size_t elem_size)
{
	void *grown = realloc(*array, (*count + 1) * elem_size);

	if (grown == NULL)
		return NULL;
	*array = grown;
	return (char *)grown + (*count)++ * elem_size;
}

int sandy_policy_grant(sandy_policy *p, const char *path, size_t len,
		       sandy_access access, sandy_scope scope)
{
	sandy_grant *g = append_slot((void **)&p->grants, &p->n_grants,
				     sizeof(*g));

	if (g == NULL)
		return -1;
	g->access = access;
	g->scope = scope;
	if (path_copy(&g->path, path, len) == 0)
		return 0;
	p->n_grants--;
	return -1;
}

int sandy_policy_allow_execute(sandy_policy *p, const char *path, size_t len,
			       sandy_scope scope)
{
	sandy_exec_grant *g = append_slot((void **)&p->exec_grants,
					  &p->n_exec_grants, sizeof(*g));

	if (g == NULL)
		return -1;
	g->scope = scope;
	if (path_copy(&g->path, path, len) == 0)
		return 0;
	p->n_exec_grants--;
	return -1;
}

static int append_path(sandy_path **array, size_t *count, const char *path,
		       size_t len)
{
	sandy_path *slot = append_slot((void **)array, count, sizeof(*slot));

	if (slot == NULL)
		return -1;
	if (path_copy(slot, path, len) == 0)
		return 0;
	(*count)--;
	return -1;
}

int sandy_policy_deny_subtree(sandy_policy *p, const char *path, size_t len)
{
	return append_path(&p->deny_subtrees, &p->n_deny_subtrees, path, len);
}

int sandy_policy_deny_write_exact(sandy_policy *p, const char *path,
				  size_t len)
{
	return append_path(&p->deny_write_exact, &p->n_deny_write_exact, path,
			   len);
}
