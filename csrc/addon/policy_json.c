/* The strict version 1 policy document.
 *
 * cJSON alone is too lenient for a security boundary (it accepts trailing
 * data, some malformed numbers, raw control characters, invalid UTF-8 and
 * lone surrogates, truncates strings at \u0000, keeps duplicate keys and
 * reports no positions). So parsing runs in three passes:
 *
 *  1. scan: a grammar check of our own over the raw bytes (RFC 8259 exactly,
 *     plus UTF-8, surrogate pairing, no \u0000 and bounded depth). It
 *     records, in document pre-order, the byte offset of every value and
 *     of its key, so later errors can name exact positions.
 *  2. cJSON builds the tree from bytes the scan already accepted; the tree
 *     is checked against the scan's record so the two cannot disagree.
 *     (An unpatched cJSON older than Debian's 1.7.15-1+deb12u3 rejects
 *     numbers longer than 63 bytes, CVE-2023-26819: such a document then
 *     fails closed as Parse.)
 *  3. walk: the shape checks visit the tree in the same pre-order, each tree
 *     node paired with its record, and fill the policy.
 *
 * Error messages are fixed phrases that may name schema fields and entry
 * indices, never anything taken from the document. No filesystem access. */
#include "policy_json.h"

#include "../core/paths.h"

#include "cJSON.h" /* deps/cjson: scripts/fetch-cjson.sh */

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Containers nested deeper than a version 1 document could ever need are
 * refused, which also bounds the recursion of all three passes. */
#define MAX_DEPTH 16u
#define NO_KEY SIZE_MAX

/* ---- error positions ------------------------------------------------- */

/* 1-based line and column; the column counts bytes from the line start. */
static void locate(const uint8_t *src, size_t off, size_t *line,
		   size_t *column)
{
	size_t i, line_start = 0;

	*line = 1;
	for (i = 0; i < off; i++) {
		if (src[i] == '\n') {
			(*line)++;
			line_start = i + 1;
		}
	}
	*column = off - line_start + 1;
}

static int parse_error(sandy_doc_error *err, const uint8_t *src, size_t off,
		       const char *fmt, va_list ap)
{
	err->kind = SANDY_DOC_PARSE;
	locate(src, off, &err->line, &err->column);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	return -1;
}

/* ---- pass 1: grammar scan -------------------------------------------- */

/* One value of the document, in pre-order. */
typedef struct node {
	size_t key_off; /* opening quote of its key; NO_KEY in arrays/root */
	size_t val_off; /* first byte of the value */
	size_t span;    /* records in this subtree, itself included */
} node;

typedef struct node_table {
	node *v;
	size_t n, cap;
} node_table;

typedef struct scanner {
	const uint8_t *s;
	size_t len, pos;
	unsigned depth;
	node_table *nodes;
	size_t fail_off;
	const char *why; /* a fixed phrase */
} scanner;

static bool scan_value(scanner *sc, size_t key_off);

static bool scan_fail(scanner *sc, size_t off, const char *why)
{
	sc->fail_off = off;
	sc->why = why;
	return false;
}

/* The next byte, or -1 at the end of the input. */
static int peek(const scanner *sc)
{
	return sc->pos < sc->len ? sc->s[sc->pos] : -1;
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static void skip_ws(scanner *sc)
{
	int c;

	while ((c = peek(sc)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		sc->pos++;
}

static bool push_node(scanner *sc, size_t key_off, size_t *index)
{
	node_table *t = sc->nodes;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		node *grown = realloc(t->v, cap * sizeof(*grown));

		if (grown == NULL)
			return scan_fail(sc, sc->pos, "out of memory");
		t->v = grown;
		t->cap = cap;
	}
	t->v[t->n] = (node){ .key_off = key_off, .val_off = sc->pos, .span = 1 };
	*index = t->n++;
	return true;
}

/* One or more digits. */
static bool scan_digits(scanner *sc)
{
	if (!is_digit(peek(sc)))
		return scan_fail(sc, sc->pos, "expected a digit");
	while (is_digit(peek(sc)))
		sc->pos++;
	return true;
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool scan_number(scanner *sc)
{
	if (peek(sc) == '-')
		sc->pos++;
	if (peek(sc) == '0')
		sc->pos++;
	else if (!scan_digits(sc))
		return false;
	if (peek(sc) == '.') {
		sc->pos++;
		if (!scan_digits(sc))
			return false;
	}
	if (peek(sc) == 'e' || peek(sc) == 'E') {
		sc->pos++;
		if (peek(sc) == '+' || peek(sc) == '-')
			sc->pos++;
		if (!scan_digits(sc))
			return false;
	}
	return true;
}

static bool scan_literal(scanner *sc, const char *word)
{
	size_t i;

	for (i = 0; word[i] != '\0'; i++, sc->pos++)
		if (peek(sc) != (unsigned char)word[i])
			return scan_fail(sc, sc->pos, "invalid literal");
	return true;
}

/* One UTF-8 sequence (paths.h: RFC 3629, no overlongs, no surrogates, at
 * most U+10FFFF); points at the first byte that makes it invalid. */
static bool scan_utf8(scanner *sc)
{
	size_t bad = 0;
	size_t len = sandy_utf8_sequence((const char *)sc->s + sc->pos,
					 sc->len - sc->pos, &bad);

	if (len == 0)
		return scan_fail(sc, sc->pos + bad, "invalid UTF-8");
	sc->pos += len;
	return true;
}

static int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool scan_hex4(scanner *sc, unsigned *unit)
{
	int i, h;

	*unit = 0;
	for (i = 0; i < 4; i++, sc->pos++) {
		if ((h = hex_value(peek(sc))) < 0)
			return scan_fail(sc, sc->pos, "invalid \\u escape");
		*unit = *unit << 4 | (unsigned)h;
	}
	return true;
}

static bool is_high_surrogate(unsigned u)
{
	return u >= 0xD800 && u <= 0xDBFF;
}

static bool is_low_surrogate(unsigned u)
{
	return u >= 0xDC00 && u <= 0xDFFF;
}

/* \uXXXX, sc->pos just after the 'u'. A NUL would truncate the path
 * (strings are paths or schema words), and a surrogate must be paired:
 * both point at the escape's backslash. */
static bool scan_unicode_escape(scanner *sc, size_t backslash)
{
	unsigned unit;

	if (!scan_hex4(sc, &unit))
		return false;
	if (unit == 0)
		return scan_fail(sc, backslash, "NUL character in string");
	if (is_low_surrogate(unit))
		return scan_fail(sc, backslash, "unpaired surrogate");
	if (!is_high_surrogate(unit))
		return true;
	if (sc->pos + 1 >= sc->len || sc->s[sc->pos] != '\\' ||
	    sc->s[sc->pos + 1] != 'u')
		return scan_fail(sc, backslash, "unpaired surrogate");
	sc->pos += 2;
	if (!scan_hex4(sc, &unit))
		return false;
	if (!is_low_surrogate(unit))
		return scan_fail(sc, backslash, "unpaired surrogate");
	return true;
}

static bool scan_escape(scanner *sc)
{
	size_t backslash = sc->pos++;

	switch (peek(sc)) {
	case '"': case '\\': case '/': case 'b':
	case 'f': case 'n': case 'r': case 't':
		sc->pos++;
		return true;
	case 'u':
		sc->pos++;
		return scan_unicode_escape(sc, backslash);
	case -1:
		return scan_fail(sc, sc->pos, "unterminated string");
	default:
		return scan_fail(sc, sc->pos, "invalid escape");
	}
}

static bool scan_string(scanner *sc)
{
	int c;

	sc->pos++;
	for (;;) {
		c = peek(sc);
		if (c == -1)
			return scan_fail(sc, sc->pos, "unterminated string");
		if (c == '"') {
			sc->pos++;
			return true;
		}
		if (c == '\\') {
			if (!scan_escape(sc))
				return false;
		} else if (c < 0x20) {
			return scan_fail(sc, sc->pos,
					 "control character in string");
		} else if (c < 0x80) {
			sc->pos++;
		} else if (!scan_utf8(sc)) {
			return false;
		}
	}
}

static bool enter_container(scanner *sc)
{
	if (sc->depth == MAX_DEPTH)
		return scan_fail(sc, sc->pos, "nesting too deep");
	sc->depth++;
	sc->pos++;
	skip_ws(sc);
	return true;
}

/* Consumes the closing byte when it is next. */
static bool leave_container(scanner *sc, int close)
{
	if (peek(sc) != close)
		return false;
	sc->pos++;
	sc->depth--;
	return true;
}

static bool scan_member(scanner *sc)
{
	size_t key_off = sc->pos;

	if (peek(sc) != '"')
		return scan_fail(sc, sc->pos, "expected a string key");
	if (!scan_string(sc))
		return false;
	skip_ws(sc);
	if (peek(sc) != ':')
		return scan_fail(sc, sc->pos, "expected ':'");
	sc->pos++;
	skip_ws(sc);
	return scan_value(sc, key_off);
}

static bool scan_object(scanner *sc)
{
	if (!enter_container(sc))
		return false;
	if (leave_container(sc, '}'))
		return true;
	for (;;) {
		if (!scan_member(sc))
			return false;
		skip_ws(sc);
		if (leave_container(sc, '}'))
			return true;
		if (peek(sc) != ',')
			return scan_fail(sc, sc->pos, "expected ',' or '}'");
		sc->pos++;
		skip_ws(sc);
	}
}

static bool scan_array(scanner *sc)
{
	if (!enter_container(sc))
		return false;
	if (leave_container(sc, ']'))
		return true;
	for (;;) {
		if (!scan_value(sc, NO_KEY))
			return false;
		skip_ws(sc);
		if (leave_container(sc, ']'))
			return true;
		if (peek(sc) != ',')
			return scan_fail(sc, sc->pos, "expected ',' or ']'");
		sc->pos++;
		skip_ws(sc);
	}
}

static bool scan_token(scanner *sc)
{
	int c = peek(sc);

	switch (c) {
	case '{':
		return scan_object(sc);
	case '[':
		return scan_array(sc);
	case '"':
		return scan_string(sc);
	case 't':
		return scan_literal(sc, "true");
	case 'f':
		return scan_literal(sc, "false");
	case 'n':
		return scan_literal(sc, "null");
	case -1:
		return scan_fail(sc, sc->pos, "unexpected end of document");
	default:
		if (c == '-' || is_digit(c))
			return scan_number(sc);
		return scan_fail(sc, sc->pos, "expected a value");
	}
}

/* Records the value (sc->pos at its first byte), then its subtree. */
static bool scan_value(scanner *sc, size_t key_off)
{
	size_t index;

	if (!push_node(sc, key_off, &index) || !scan_token(sc))
		return false;
	sc->nodes->v[index].span = sc->nodes->n - index;
	return true;
}

static int scan_document(const uint8_t *src, size_t len, node_table *nodes,
			 sandy_doc_error *err)
{
	scanner sc = { .s = src, .len = len, .nodes = nodes };
	bool ok;

	skip_ws(&sc);
	ok = scan_value(&sc, NO_KEY);
	if (ok) {
		skip_ws(&sc);
		if (sc.pos != len)
			ok = scan_fail(&sc, sc.pos, "unexpected data after the document");
	}
	if (ok)
		return 0;
	err->kind = SANDY_DOC_PARSE;
	locate(src, sc.fail_off, &err->line, &err->column);
	snprintf(err->message, sizeof(err->message), "%s", sc.why);
	return -1;
}

/* ---- pass 2: the cJSON tree ------------------------------------------ */

/* Returns the record index after json's subtree, or NO_KEY when the tree
 * and the scan's record differ in shape (which would misplace errors). */
static size_t tree_match(const cJSON *json, const node_table *nodes,
			 size_t index)
{
	size_t next = index + 1;
	const cJSON *c;

	if (index >= nodes->n ||
	    (json->string != NULL) != (nodes->v[index].key_off != NO_KEY))
		return NO_KEY;
	if (cJSON_IsObject(json) || cJSON_IsArray(json))
		for (c = json->child; c != NULL && next != NO_KEY; c = c->next)
			next = tree_match(c, nodes, next);
	if (next != NO_KEY && next - index != nodes->v[index].span)
		return NO_KEY;
	return next;
}

static int fail_tree(sandy_doc_error *err, const uint8_t *src, size_t off,
		     const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = parse_error(err, src, off, fmt, ap);
	va_end(ap);
	return rc;
}

/* cJSON needs a NUL after the text to enforce that nothing follows it. */
static int build_tree(const uint8_t *src, size_t len, const node_table *nodes,
		      cJSON **root, sandy_doc_error *err)
{
	char *text = malloc(len + 1);
	const char *end = NULL;

	if (text == NULL)
		return fail_tree(err, src, 0, "out of memory");
	if (len > 0)
		memcpy(text, src, len);
	text[len] = '\0';
	*root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
	if (*root == NULL) {
		size_t off = end != NULL && end >= text && end <= text + len
				     ? (size_t)(end - text) : 0;

		free(text);
		return fail_tree(err, src, off, "document could not be parsed");
	}
	free(text);
	if (tree_match(*root, nodes, 0) != nodes->n)
		return fail_tree(err, src, 0, "document could not be parsed");
	return 0;
}

/* ---- pass 3: shape --------------------------------------------------- */

typedef struct walk {
	const uint8_t *src;
	size_t len;
	const node *nodes;
	sandy_policy *out;
	sandy_doc_error *err;
} walk;

/* A field reader: json is the member's value, index its record. */
typedef int (*field_reader)(walk *w, void *ctx, const cJSON *json,
			    size_t index);

typedef struct field {
	const char *name;
	field_reader read;
	bool required;
} field;

/* What an entry of grants or executable_grants collects before it is
 * added to the policy. */
typedef struct entry {
	char where[40]; /* "grants[12]": section and index only */
	const char *path;
	size_t path_len;
	sandy_access access;
	sandy_scope scope;
} entry;

__attribute__((format(printf, 3, 4)))
static int fail_at(walk *w, size_t off, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = parse_error(w->err, w->src, off, fmt, ap);
	va_end(ap);
	return rc;
}

static size_t key_off(const walk *w, size_t index)
{
	return w->nodes[index].key_off;
}

static size_t val_off(const walk *w, size_t index)
{
	return w->nodes[index].val_off;
}

static size_t next_sibling(const walk *w, size_t index)
{
	return index + w->nodes[index].span;
}

static int out_of_memory(walk *w)
{
	return fail_at(w, 0, "out of memory");
}

static size_t find_field(const field *fields, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(fields[i].name, name) == 0)
			return i;
	return n;
}

/* Members in document order: the first unknown or repeated key, or the
 * first bad value, is the error; a missing required field is reported at
 * the object's opening brace once all members have been seen. */
static int walk_object(walk *w, const cJSON *obj, size_t index,
		       const field *fields, size_t n_fields, void *ctx,
		       const char *where)
{
	unsigned seen = 0;
	size_t child = index + 1, f;
	const cJSON *c;

	for (c = obj->child; c != NULL; c = c->next, child = next_sibling(w, child)) {
		f = find_field(fields, n_fields, c->string);
		if (f == n_fields)
			return fail_at(w, key_off(w, child), "%s: unknown field", where);
		if (seen & (1u << f))
			return fail_at(w, key_off(w, child), "%s: duplicate key", where);
		seen |= 1u << f;
		if (fields[f].read(w, ctx, c, child) != 0)
			return -1;
	}
	for (f = 0; f < n_fields; f++)
		if (fields[f].required && !(seen & (1u << f)))
			return fail_at(w, val_off(w, index),
				       "%s: required field missing: %s", where,
				       fields[f].name);
	return 0;
}

static int read_string(walk *w, const cJSON *json, size_t index,
		       const char *where)
{
	if (!cJSON_IsString(json) || json->valuestring == NULL)
		return fail_at(w, val_off(w, index), "%s: expected a string", where);
	return 0;
}

/* Picks one of two vocabulary words (spelt by policy.c); *choice is 0 or
 * 1. */
static int read_word(walk *w, const cJSON *json, size_t index,
		     const char *where, const char *const words[2], int *choice)
{
	if (read_string(w, json, index, where) != 0)
		return -1;
	for (*choice = 0; *choice < 2; (*choice)++)
		if (strcmp(json->valuestring, words[*choice]) == 0)
			return 0;
	return fail_at(w, val_off(w, index), "%s: expected %s or %s", where,
		       words[0], words[1]);
}

/* A path: a non-empty string (the scan has ruled out NUL escapes, so its
 * length is strlen). */
static int read_path(walk *w, const cJSON *json, size_t index,
		     const char *where, const char **path, size_t *len)
{
	if (read_string(w, json, index, where) != 0)
		return -1;
	if (json->valuestring[0] == '\0')
		return fail_at(w, val_off(w, index), "%s: path must not be empty", where);
	*path = json->valuestring;
	*len = strlen(json->valuestring);
	return 0;
}

static int read_entry_path(walk *w, void *ctx, const cJSON *json, size_t index)
{
	entry *e = ctx;
	char where[64];

	snprintf(where, sizeof(where), "%s.path", e->where);
	return read_path(w, json, index, where, &e->path, &e->path_len);
}

static int read_entry_access(walk *w, void *ctx, const cJSON *json,
			     size_t index)
{
	const char *const words[2] = {sandy_access_name(SANDY_ACCESS_READ),
				      sandy_access_name(SANDY_ACCESS_READ_WRITE)};
	entry *e = ctx;
	char where[64];
	int choice;

	snprintf(where, sizeof(where), "%s.access", e->where);
	if (read_word(w, json, index, where, words, &choice) != 0)
		return -1;
	e->access = choice ? SANDY_ACCESS_READ_WRITE : SANDY_ACCESS_READ;
	return 0;
}

static int read_entry_scope(walk *w, void *ctx, const cJSON *json,
			    size_t index)
{
	const char *const words[2] = {sandy_scope_name(SANDY_SCOPE_EXACT),
				      sandy_scope_name(SANDY_SCOPE_SUBTREE)};
	entry *e = ctx;
	char where[64];
	int choice;

	snprintf(where, sizeof(where), "%s.scope", e->where);
	if (read_word(w, json, index, where, words, &choice) != 0)
		return -1;
	e->scope = choice ? SANDY_SCOPE_SUBTREE : SANDY_SCOPE_EXACT;
	return 0;
}

static const field grant_fields[] = {
	{ "path", read_entry_path, true },
	{ "access", read_entry_access, true },
	{ "scope", read_entry_scope, true },
};

static const field exec_grant_fields[] = {
	{ "path", read_entry_path, true },
	{ "scope", read_entry_scope, true },
};

/* A capability section must be an array. Its entry count is checked as
 * soon as the walk reaches it, before any of its entries is looked at: an
 * oversized section is TooManyCapabilities even when its entries are also
 * malformed, while a shape error earlier in the document still wins. */
static int open_section(walk *w, const cJSON *json, size_t index,
			const char *name)
{
	if (!cJSON_IsArray(json))
		return fail_at(w, val_off(w, index), "%s: expected an array", name);
	if ((size_t)cJSON_GetArraySize(json) > SANDY_SECTION_MAX_ENTRIES) {
		w->err->kind = SANDY_DOC_TOO_MANY_CAPABILITIES;
		snprintf(w->err->message, sizeof(w->err->message),
			 "%s: more than %u entries", name,
			 SANDY_SECTION_MAX_ENTRIES);
		return -1;
	}
	return 0;
}

/* Reads the entry objects of grants (access wanted) or executable_grants. */
static int read_entry_objects(walk *w, const cJSON *json, size_t index,
			      const char *name, bool is_grant)
{
	size_t child = index + 1, i = 0;
	const cJSON *c;
	entry e;

	if (open_section(w, json, index, name) != 0)
		return -1;
	for (c = json->child; c != NULL; c = c->next, child = next_sibling(w, child), i++) {
		memset(&e, 0, sizeof(e));
		snprintf(e.where, sizeof(e.where), "%s[%zu]", name, i);
		if (!cJSON_IsObject(c))
			return fail_at(w, val_off(w, child), "%s: expected an object", e.where);
		if (is_grant
			    ? walk_object(w, c, child, grant_fields, 3, &e, e.where)
			    : walk_object(w, c, child, exec_grant_fields, 2, &e, e.where))
			return -1;
		if ((is_grant
			     ? sandy_policy_grant(w->out, e.path, e.path_len, e.access, e.scope)
			     : sandy_policy_allow_execute(w->out, e.path, e.path_len, e.scope)) != 0)
			return out_of_memory(w);
	}
	return 0;
}

typedef int (*path_adder)(sandy_policy *p, const char *path, size_t len);

static int read_path_list(walk *w, const cJSON *json, size_t index,
			  const char *name, path_adder add)
{
	size_t child = index + 1, i = 0, len = 0;
	const cJSON *c;
	const char *path = NULL;
	char where[40];

	if (open_section(w, json, index, name) != 0)
		return -1;
	for (c = json->child; c != NULL; c = c->next, child = next_sibling(w, child), i++) {
		snprintf(where, sizeof(where), "%s[%zu]", name, i);
		if (read_path(w, c, child, where, &path, &len) != 0)
			return -1;
		if (add(w->out, path, len) != 0)
			return out_of_memory(w);
	}
	return 0;
}

/* Already checked before the walk (read first, see check_version). */
static int read_schema_version(walk *w, void *ctx, const cJSON *json,
			       size_t index)
{
	(void)w;
	(void)ctx;
	(void)json;
	(void)index;
	return 0;
}

static int read_network(walk *w, void *ctx, const cJSON *json, size_t index)
{
	const char *const words[2] = {
		sandy_network_name(SANDY_NETWORK_ALLOW_ALL),
		sandy_network_name(SANDY_NETWORK_BLOCK_ALL)};
	int choice;

	(void)ctx;
	if (read_word(w, json, index, "network", words, &choice) != 0)
		return -1;
	w->out->network = choice ? SANDY_NETWORK_BLOCK_ALL : SANDY_NETWORK_ALLOW_ALL;
	return 0;
}

static int read_allow_subprocesses(walk *w, void *ctx, const cJSON *json,
				   size_t index)
{
	(void)ctx;
	if (!cJSON_IsBool(json))
		return fail_at(w, val_off(w, index), "allow_subprocesses: expected a boolean");
	w->out->allow_subprocesses = cJSON_IsTrue(json);
	return 0;
}

/* Reads section s, named in errors by its document key. */
static int read_section(walk *w, const cJSON *json, size_t index,
			sandy_section s)
{
	const char *name = sandy_section_key(s);

	switch (s) {
	case SANDY_SECTION_GRANTS:
		return read_entry_objects(w, json, index, name, true);
	case SANDY_SECTION_EXECUTABLE_GRANTS:
		return read_entry_objects(w, json, index, name, false);
	case SANDY_SECTION_DENY_SUBTREES:
		return read_path_list(w, json, index, name,
				      sandy_policy_deny_subtree);
	case SANDY_SECTION_DENY_WRITE_EXACT:
		return read_path_list(w, json, index, name,
				      sandy_policy_deny_write_exact);
	case SANDY_SECTION_COUNT:
		break;
	}
	return fail_at(w, val_off(w, index), "document: unknown section");
}

/* A field reader per section (the field table holds one function per
 * field), so that the table below is expanded from the vocabulary. */
#define SECTION_READER(id, key, property, option)                            \
	static int read_##id(walk *w, void *ctx, const cJSON *json,           \
			     size_t index)                                    \
	{                                                                     \
		(void)ctx;                                                    \
		return read_section(w, json, index, SANDY_SECTION_##id);      \
	}
SANDY_SECTION_MAP(SECTION_READER)
#undef SECTION_READER

#define SECTION_FIELD(id, key, property, option) { key, read_##id, false },
static const field root_fields[] = {
	{ "schema_version", read_schema_version, true },
	{ "network", read_network, true },
	{ "allow_subprocesses", read_allow_subprocesses, false },
	SANDY_SECTION_MAP(SECTION_FIELD)
};
#undef SECTION_FIELD

/* The bytes a number token (already scanned) is made of. */
static bool is_number_byte(uint8_t c)
{
	return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' ||
	       c == 'E';
}

/* The version must be written as plain digits (no sign, fraction or
 * exponent) and fit in 32 bits; the raw bytes decide, not cJSON's double. */
static int read_version_number(walk *w, const cJSON *json, size_t index,
			       uint32_t *version)
{
	size_t at;
	uint64_t v = 0;
	uint8_t c;

	if (!cJSON_IsNumber(json))
		return fail_at(w, val_off(w, index), "schema_version: expected a non-negative integer");
	for (at = val_off(w, index); at < w->len && is_number_byte(c = w->src[at]); at++) {
		if (!is_digit(c))
			return fail_at(w, val_off(w, index), "schema_version: expected a non-negative integer");
		v = v * 10 + (uint64_t)(c - '0');
		if (v > UINT32_MAX)
			return fail_at(w, val_off(w, index), "schema_version: out of range");
	}
	*version = (uint32_t)v;
	return 0;
}

/* schema_version is read before anything else so that a document written
 * for another version is reported as such even when the rest of it is
 * unknown to this release. A repeated schema_version is ambiguous and so a
 * Parse error, not a version. */
static int check_version(walk *w, const cJSON *root)
{
	const cJSON *c, *found = NULL;
	size_t child = 1, found_index = 0;
	uint32_t version = 0;

	for (c = root->child; c != NULL; c = c->next, child = next_sibling(w, child)) {
		if (strcmp(c->string, "schema_version") != 0)
			continue;
		if (found != NULL)
			return fail_at(w, key_off(w, child), "document: duplicate key");
		found = c;
		found_index = child;
	}
	if (found == NULL)
		return fail_at(w, val_off(w, 0), "schema_version: required field missing");
	if (read_version_number(w, found, found_index, &version) != 0)
		return -1;
	if (version == SANDY_DOC_SCHEMA_VERSION)
		return 0;
	w->err->kind = SANDY_DOC_UNSUPPORTED_VERSION;
	w->err->version = version;
	snprintf(w->err->message, sizeof(w->err->message),
		 "unsupported schema_version");
	return -1;
}

static int walk_document(walk *w, const cJSON *root)
{
	if (!cJSON_IsObject(root))
		return fail_at(w, val_off(w, 0), "document: expected an object");
	if (check_version(w, root) != 0)
		return -1;
	return walk_object(w, root, 0, root_fields,
			   sizeof(root_fields) / sizeof(root_fields[0]), NULL,
			   "document");
}

/* ---- entry point ----------------------------------------------------- */

int sandy_policy_from_json(const uint8_t *src, size_t len, sandy_policy *out,
			   sandy_doc_error *err)
{
	node_table nodes = { 0 };
	cJSON *root = NULL;
	walk w;
	int rc;

	sandy_policy_init(out, SANDY_NETWORK_BLOCK_ALL);
	memset(err, 0, sizeof(*err));
	/* The size bound comes first: nothing looks at an oversized input. */
	if (len > SANDY_DOC_MAX_BYTES) {
		err->kind = SANDY_DOC_TOO_LARGE;
		snprintf(err->message, sizeof(err->message),
			 "document exceeds %u bytes", SANDY_DOC_MAX_BYTES);
		return -1;
	}
	if (src == NULL)
		src = (const uint8_t *)"";
	rc = scan_document(src, len, &nodes, err);
	if (rc == 0)
		rc = build_tree(src, len, &nodes, &root, err);
	if (rc == 0) {
		w = (walk){ .src = src, .len = len, .nodes = nodes.v, .out = out, .err = err };
		rc = walk_document(&w, root);
	}
	cJSON_Delete(root);
	free(nodes.v);
	if (rc == 0)
		return 0;
	sandy_policy_free(out);
	sandy_policy_init(out, SANDY_NETWORK_BLOCK_ALL);
	return -1;
}
