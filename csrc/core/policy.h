/* The Sandy policy model: caller intent only. Building a policy never touches
 * the filesystem; resolve.h turns it into effective rules. */
#ifndef SANDY_POLICY_H
#define SANDY_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "vocabulary.h"

/* Documented bounds (docs/backends.md, "Limits"). */
#define SANDY_DOC_MAX_BYTES 65536u        /* one more byte is TooLarge */
#define SANDY_SECTION_MAX_ENTRIES 256u    /* per document section */
#define SANDY_EFFECTIVE_RULES_MAX 1024u   /* after resolution, all kinds */
#define SANDY_PATH_MAX_BYTES 4095u        /* a path, before and after resolution */

/* The seam's confining modes (vocabulary.h), from 1: a zeroed field names
 * none. */
typedef enum sandy_mode {
	SANDY_MODE_NONE = 0,
#define SANDY_X(id, name) SANDY_MODE_##id,
	SANDY_MODE_MAP(SANDY_X)
#undef SANDY_X
} sandy_mode;

/* The enums are expanded from vocabulary.h, values and all. */
typedef enum sandy_access {
#define SANDY_X(id, value, word, js) SANDY_ACCESS_##id = value,
	SANDY_ACCESS_MAP(SANDY_X)
#undef SANDY_X
} sandy_access;

typedef enum sandy_scope {
#define SANDY_X(id, value, word, js) SANDY_SCOPE_##id = value,
	SANDY_SCOPE_MAP(SANDY_X)
#undef SANDY_X
} sandy_scope;

typedef enum sandy_network {
#define SANDY_X(id, value, word, js) SANDY_NETWORK_##id = value,
	SANDY_NETWORK_MAP(SANDY_X)
#undef SANDY_X
} sandy_network;

/* Paths carry their length: a path with an embedded NUL byte is kept as
 * given so that resolution can reject it instead of silently truncating. */
typedef struct sandy_path {
	char *bytes; /* NUL-terminated copy; may contain earlier NULs */
	size_t len;
} sandy_path;

typedef struct sandy_grant {
	sandy_path path;
	sandy_access access;
	sandy_scope scope;
} sandy_grant;

typedef struct sandy_exec_grant {
	sandy_path path;
	sandy_scope scope;
} sandy_exec_grant;

typedef struct sandy_policy {
	sandy_network network;
	bool allow_subprocesses;
	sandy_grant *grants;
	size_t n_grants;
	sandy_exec_grant *exec_grants;
	size_t n_exec_grants;
	sandy_path *deny_subtrees;
	size_t n_deny_subtrees;
	sandy_path *deny_write_exact;
	size_t n_deny_write_exact;
} sandy_policy;

/* The vocabulary's words (vocabulary.h), as the document and the launcher's
 * argv spell them. The parsers return 0, or -1 for any other word. */
const char *sandy_access_name(sandy_access a);
const char *sandy_scope_name(sandy_scope s);
const char *sandy_network_name(sandy_network n);
int sandy_access_parse(const char *word, sandy_access *out);
int sandy_scope_parse(const char *word, sandy_scope *out);
int sandy_network_parse(const char *word, sandy_network *out);

void sandy_policy_init(sandy_policy *p, sandy_network network);
void sandy_policy_free(sandy_policy *p);

/* Builders. Each copies the path; returns 0, or -1 when out of memory. */
int sandy_policy_grant(sandy_policy *p, const char *path, size_t len,
		       sandy_access access, sandy_scope scope);
int sandy_policy_allow_execute(sandy_policy *p, const char *path, size_t len,
			       sandy_scope scope);
int sandy_policy_deny_subtree(sandy_policy *p, const char *path, size_t len);
int sandy_policy_deny_write_exact(sandy_policy *p, const char *path,
				  size_t len);

#endif
