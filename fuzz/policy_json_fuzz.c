/* libFuzzer target for the version 1 policy document parser.
 *
 * Beyond "no crash, no leak, no undefined behaviour" (the sanitizers), it
 * checks the parser's contract on every input:
 *  - failure leaves the policy empty and reports a known kind; a Parse
 *    position lies inside the document (or just past its end);
 *  - success yields only bounded sections of non-empty, NUL-free paths
 *    and valid enum values;
 *  - an accepted policy, written back as a document, parses to the same
 *    policy (the parser and a serializer agree on the format).
 * csrc/Makefile (fuzz) builds and runs it. */
#include "../csrc/addon/policy_json.h"

#include "cJSON.h" /* deps/cjson: scripts/fetch-cjson.sh */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                           \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "policy_json_fuzz: %s:%d: %s\n",      \
				__FILE__, __LINE__, #cond);                   \
			abort();                                              \
		}                                                             \
	} while (0)

static int is_empty(const sandy_policy *p)
{
	return p->grants == NULL && p->n_grants == 0 &&
	       p->exec_grants == NULL && p->n_exec_grants == 0 &&
	       p->deny_subtrees == NULL && p->n_deny_subtrees == 0 &&
	       p->deny_write_exact == NULL && p->n_deny_write_exact == 0 &&
	       !p->allow_subprocesses;
}

static void check_error(const uint8_t *data, size_t size,
			const sandy_doc_error *err)
{
	size_t line = 1, i;

	CHECK(strlen(err->message) < sizeof(err->message));
	switch (err->kind) {
	case SANDY_DOC_TOO_LARGE:
		CHECK(size > SANDY_DOC_MAX_BYTES);
		return;
	case SANDY_DOC_PARSE:
		for (i = 0; i < size; i++)
			line += data[i] == '\n';
		CHECK(err->line >= 1 && err->line <= line);
		CHECK(err->column >= 1 && err->column <= size + 1);
		return;
	case SANDY_DOC_UNSUPPORTED_VERSION:
		CHECK(err->version != SANDY_DOC_SCHEMA_VERSION);
		return;
	case SANDY_DOC_TOO_MANY_CAPABILITIES:
		return;
	case SANDY_DOC_OK:
		break;
	}
	CHECK(!"unknown error kind");
}

static void check_path(const sandy_path *p)
{
	CHECK(p->bytes != NULL && p->len > 0);
	CHECK(strlen(p->bytes) == p->len);
}

static void check_policy(const sandy_policy *p)
{
	size_t i;

	CHECK(p->network == SANDY_NETWORK_ALLOW_ALL ||
	      p->network == SANDY_NETWORK_BLOCK_ALL);
	CHECK(p->n_grants <= SANDY_SECTION_MAX_ENTRIES);
	CHECK(p->n_exec_grants <= SANDY_SECTION_MAX_ENTRIES);
	CHECK(p->n_deny_subtrees <= SANDY_SECTION_MAX_ENTRIES);
	CHECK(p->n_deny_write_exact <= SANDY_SECTION_MAX_ENTRIES);
	for (i = 0; i < p->n_grants; i++) {
		check_path(&p->grants[i].path);
		CHECK(p->grants[i].access == SANDY_ACCESS_READ ||
		      p->grants[i].access == SANDY_ACCESS_READ_WRITE);
		CHECK(p->grants[i].scope == SANDY_SCOPE_EXACT ||
		      p->grants[i].scope == SANDY_SCOPE_SUBTREE);
	}
	for (i = 0; i < p->n_exec_grants; i++) {
		check_path(&p->exec_grants[i].path);
		CHECK(p->exec_grants[i].scope == SANDY_SCOPE_EXACT ||
		      p->exec_grants[i].scope == SANDY_SCOPE_SUBTREE);
	}
	for (i = 0; i < p->n_deny_subtrees; i++)
		check_path(&p->deny_subtrees[i]);
	for (i = 0; i < p->n_deny_write_exact; i++)
		check_path(&p->deny_write_exact[i]);
}

static const char *scope_word(sandy_scope s)
{
	return s == SANDY_SCOPE_SUBTREE ? "subtree" : "exact";
}

static cJSON *entry_json(const sandy_path *path, const char *access,
			 sandy_scope scope)
{
	cJSON *o = cJSON_CreateObject();

	CHECK(o != NULL);
	CHECK(cJSON_AddStringToObject(o, "path", path->bytes) != NULL);
	if (access != NULL)
		CHECK(cJSON_AddStringToObject(o, "access", access) != NULL);
	CHECK(cJSON_AddStringToObject(o, "scope", scope_word(scope)) != NULL);
	return o;
}

static cJSON *path_list_json(cJSON *doc, const char *name,
			     const sandy_path *paths, size_t n)
{
	cJSON *a = cJSON_AddArrayToObject(doc, name);
	size_t i;

	CHECK(a != NULL);
	for (i = 0; i < n; i++)
		CHECK(cJSON_AddItemToArray(a, cJSON_CreateString(paths[i].bytes)));
	return a;
}

/* The policy as a version 1 document, written by cJSON. */
static char *policy_document(const sandy_policy *p)
{
	cJSON *doc = cJSON_CreateObject(), *a;
	char *text;
	size_t i;

	CHECK(doc != NULL);
	CHECK(cJSON_AddNumberToObject(doc, "schema_version", 1) != NULL);
	CHECK(cJSON_AddStringToObject(doc, "network",
				      p->network == SANDY_NETWORK_ALLOW_ALL
					      ? "allow_all" : "block_all"));
	CHECK(cJSON_AddBoolToObject(doc, "allow_subprocesses",
				    p->allow_subprocesses));
	CHECK((a = cJSON_AddArrayToObject(doc, "grants")) != NULL);
	for (i = 0; i < p->n_grants; i++)
		CHECK(cJSON_AddItemToArray(
			a, entry_json(&p->grants[i].path,
				      p->grants[i].access == SANDY_ACCESS_READ_WRITE
					      ? "read_write" : "read",
				      p->grants[i].scope)));
	CHECK((a = cJSON_AddArrayToObject(doc, "executable_grants")) != NULL);
	for (i = 0; i < p->n_exec_grants; i++)
		CHECK(cJSON_AddItemToArray(
			a, entry_json(&p->exec_grants[i].path, NULL,
				      p->exec_grants[i].scope)));
	path_list_json(doc, "deny_subtrees", p->deny_subtrees,
		       p->n_deny_subtrees);
	path_list_json(doc, "deny_write_exact", p->deny_write_exact,
		       p->n_deny_write_exact);
	text = cJSON_PrintUnformatted(doc);
	CHECK(text != NULL);
	cJSON_Delete(doc);
	return text;
}

static int same_path(const sandy_path *a, const sandy_path *b)
{
	return a->len == b->len && memcmp(a->bytes, b->bytes, a->len) == 0;
}

static void check_equal(const sandy_policy *a, const sandy_policy *b)
{
	size_t i;

	CHECK(a->network == b->network);
	CHECK(a->allow_subprocesses == b->allow_subprocesses);
	CHECK(a->n_grants == b->n_grants);
	CHECK(a->n_exec_grants == b->n_exec_grants);
	CHECK(a->n_deny_subtrees == b->n_deny_subtrees);
	CHECK(a->n_deny_write_exact == b->n_deny_write_exact);
	for (i = 0; i < a->n_grants; i++) {
		CHECK(same_path(&a->grants[i].path, &b->grants[i].path));
		CHECK(a->grants[i].access == b->grants[i].access);
		CHECK(a->grants[i].scope == b->grants[i].scope);
	}
	for (i = 0; i < a->n_exec_grants; i++) {
		CHECK(same_path(&a->exec_grants[i].path, &b->exec_grants[i].path));
		CHECK(a->exec_grants[i].scope == b->exec_grants[i].scope);
	}
	for (i = 0; i < a->n_deny_subtrees; i++)
		CHECK(same_path(&a->deny_subtrees[i], &b->deny_subtrees[i]));
	for (i = 0; i < a->n_deny_write_exact; i++)
		CHECK(same_path(&a->deny_write_exact[i], &b->deny_write_exact[i]));
}

/* Only documents that fit the size bound can be written back and stay
 * under it, so the round trip runs for those. */
static void check_round_trip(const sandy_policy *p)
{
	char *text = policy_document(p);
	size_t len = strlen(text);
	sandy_policy again;
	sandy_doc_error err;

	if (len <= SANDY_DOC_MAX_BYTES) {
		CHECK(sandy_policy_from_json((const uint8_t *)text, len, &again,
					     &err) == 0);
		check_equal(p, &again);
		sandy_policy_free(&again);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sandy_policy p;
	sandy_doc_error err;

	if (sandy_policy_from_json(data, size, &p, &err) != 0) {
		CHECK(is_empty(&p));
		check_error(data, size, &err);
		return 0;
	}
	CHECK(err.kind == SANDY_DOC_OK);
	check_policy(&p);
	check_round_trip(&p);
	sandy_policy_free(&p);
	return 0;
}
