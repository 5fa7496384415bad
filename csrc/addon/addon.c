/* N-API glue only: converts values between JS and the core, and throws.
 * Every N-API call goes through CHECK(), which throws a pending JS error
 * and returns NULL from the calling function when the call fails. */
#define NAPI_VERSION 8
#include <node_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/copy_dirs.h"
#include "../core/end.h"
#include "../core/error.h"
#include "../core/kernel_fs.h"
#include "../core/protocol.h"
#include "../core/policy.h"
#include "../core/policy_argv.h"
#include "policy_json.h"
#include "../core/probe.h"
#include "../core/resolve.h"
#include "confine.h"
#include "../backends/bwrap.h"
#include "../backends/sandy.h"
#include "../backends/seatbelt.h"

#define CHECK(call)                                                          \
	do {                                                                 \
		if ((call) != napi_ok) {                                     \
			throw_last_error(env);                               \
			return NULL;                                         \
		}                                                            \
	} while (0)

static void throw_last_error(napi_env env)
{
	const napi_extended_error_info *info = NULL;
	bool pending = false;

	napi_is_exception_pending(env, &pending);
	if (pending)
		return;
	napi_get_last_error_info(env, &info);
	napi_throw_error(env, "ESANDYNAPI",
			 info && info->error_message ? info->error_message
						     : "N-API call failed");
}

/* ---- JS -> C ---------------------------------------------------------- */

static napi_value get_prop(napi_env env, napi_value obj, const char *name)
{
	napi_value v;

	CHECK(napi_get_named_property(env, obj, name, &v));
	return v;
}

/* A policy path arrives as a Buffer holding its exact bytes (lib/ turns
 * strings into UTF-8 Buffers after rejecting lone surrogates). */
static napi_value get_path(napi_env env, napi_value v, const char **bytes,
			   size_t *len)
{
	void *data;

	CHECK(napi_get_buffer_info(env, v, &data, len));
	*bytes = *len ? data : "";
	return v;
}

static napi_value get_bool(napi_env env, napi_value v, bool *out)
{
	CHECK(napi_get_value_bool(env, v, out));
	return v;
}

static napi_value get_cstring(napi_env env, napi_value v, char *buf,
			      size_t size)
{
	size_t len;

	CHECK(napi_get_value_string_utf8(env, v, buf, size, &len));
	return v;
}

static napi_value get_length(napi_env env, napi_value arr, uint32_t *len)
{
	CHECK(napi_get_array_length(env, arr, len));
	return arr;
}

static napi_value get_element(napi_env env, napi_value arr, uint32_t i)
{
	napi_value v;

	CHECK(napi_get_element(env, arr, i, &v));
	return v;
}

static napi_value throw_oom(napi_env env)
{
	napi_throw_error(env, "ENOMEM", "out of memory");
	return NULL;
}

/* A vocabulary word of the JS shape lib/policy.js builds. JS validated it,
 * so an unknown word is a programming error: it throws. */
static napi_value get_word(napi_env env, napi_value obj, const char *name,
			   int (*parse)(const char *, void *), void *out)
{
	char word[16];
	napi_value v = get_prop(env, obj, name);

	if (v == NULL || get_cstring(env, v, word, sizeof(word)) == NULL)
		return NULL;
	if (parse(word, out) != 0) {
		napi_throw_range_error(env, "ESANDYARGS", "unknown policy word");
		return NULL;
	}
	return v;
}

static int parse_access(const char *word, void *out)
{
	return sandy_access_parse(word, out);
}

static int parse_scope(const char *word, void *out)
{
	return sandy_scope_parse(word, out);
}

static int parse_network(const char *word, void *out)
{
	return sandy_network_parse(word, out);
}

/* Reads one {path, access?, scope?} entry; access/scope NULL when the
 * section has none. */
static napi_value read_entry(napi_env env, napi_value e, const char **path,
			     size_t *len, sandy_access *access,
			     sandy_scope *scope)
{
	napi_value v = get_prop(env, e, "path");

	if (v == NULL || get_path(env, v, path, len) == NULL)
		return NULL;
	if (access != NULL &&
	    get_word(env, e, "access", parse_access, access) == NULL)
		return NULL;
	if (scope != NULL && get_word(env, e, "scope", parse_scope, scope) == NULL)
		return NULL;
	return e;
}

static int add_entry(sandy_policy *p, sandy_section s, const char *path,
		     size_t len, sandy_access access, sandy_scope scope)
{
	switch (s) {
	case SANDY_SECTION_GRANTS:
		return sandy_policy_grant(p, path, len, access, scope);
	case SANDY_SECTION_EXECUTABLE_GRANTS:
		return sandy_policy_allow_execute(p, path, len, scope);
	case SANDY_SECTION_DENY_SUBTREES:
		return sandy_policy_deny_subtree(p, path, len);
	case SANDY_SECTION_DENY_WRITE_EXACT:
		return sandy_policy_deny_write_exact(p, path, len);
	case SANDY_SECTION_COUNT:
		break;
	}
	return -1;
}

static napi_value read_section(napi_env env, napi_value obj, sandy_section s,
			       sandy_policy *p)
{
	napi_value arr = get_prop(env, obj, sandy_section_property(s));
	bool has_access = s == SANDY_SECTION_GRANTS;
	bool has_scope = has_access || s == SANDY_SECTION_EXECUTABLE_GRANTS;
	uint32_t n, i;

	if (arr == NULL || get_length(env, arr, &n) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		napi_value e = get_element(env, arr, i);
		const char *path;
		size_t len;
		sandy_access access = SANDY_ACCESS_READ;
		sandy_scope scope = SANDY_SCOPE_EXACT;

		if (e == NULL ||
		    read_entry(env, e, &path, &len, has_access ? &access : NULL,
			       has_scope ? &scope : NULL) == NULL)
			return NULL;
		if (add_entry(p, s, path, len, access, scope) != 0)
			return throw_oom(env);
	}
	return arr;
}

/* Fills *p (already initialised) from the JS shape lib/policy.js passes. */
static napi_value read_policy(napi_env env, napi_value obj, sandy_policy *p)
{
	napi_value v;
	int s;

	if (get_word(env, obj, "network", parse_network, &p->network) == NULL)
		return NULL;
	v = get_prop(env, obj, "allowSubprocesses");
	if (v == NULL || get_bool(env, v, &p->allow_subprocesses) == NULL)
		return NULL;
	for (s = 0; s < SANDY_SECTION_COUNT; s++)
		if (read_section(env, obj, (sandy_section)s, p) == NULL)
			return NULL;
	return obj;
}

/* ---- C -> JS ---------------------------------------------------------- */

static napi_value make_object(napi_env env)
{
	napi_value o;

	CHECK(napi_create_object(env, &o));
	return o;
}

static napi_value make_array(napi_env env, size_t n)
{
	napi_value a;

	CHECK(napi_create_array_with_length(env, n, &a));
	return a;
}

static napi_value make_string(napi_env env, const char *s)
{
	napi_value v;

	CHECK(napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v));
	return v;
}

static napi_value make_path(napi_env env, const sandy_path *path)
{
	napi_value v;

	CHECK(napi_create_string_utf8(env, path->bytes, path->len, &v));
	return v;
}

static napi_value make_number(napi_env env, double d)
{
	napi_value v;

	CHECK(napi_create_double(env, d, &v));
	return v;
}

static napi_value make_bool(napi_env env, bool b)
{
	napi_value v;

	CHECK(napi_get_boolean(env, b, &v));
	return v;
}

static napi_value set_prop(napi_env env, napi_value obj, const char *name,
			   napi_value v)
{
	if (v == NULL)
		return NULL;
	CHECK(napi_set_named_property(env, obj, name, v));
	return obj;
}

static napi_value set_element(napi_env env, napi_value arr, uint32_t i,
			      napi_value v)
{
	if (v == NULL)
		return NULL;
	CHECK(napi_set_element(env, arr, i, v));
	return arr;
}

/* {path, access?, scope?}: access/scope NULL when the section has none. */
static napi_value make_entry(napi_env env, napi_value path, const char *access,
			     const char *scope)
{
	napi_value o = make_object(env);

	if (o == NULL || set_prop(env, o, "path", path) == NULL)
		return NULL;
	if (access && set_prop(env, o, "access", make_string(env, access)) == NULL)
		return NULL;
	if (scope && set_prop(env, o, "scope", make_string(env, scope)) == NULL)
		return NULL;
	return o;
}

/* Sets obj[name] to an array of n elements, the i-th made by make(). */
typedef napi_value (*element_fn)(napi_env env, const void *items, size_t i);

static napi_value set_array(napi_env env, napi_value obj, const char *name,
			    const void *items, size_t n, element_fn make)
{
	napi_value a = make_array(env, n);
	size_t i;

	if (a == NULL || !set_prop(env, obj, name, a))
		return NULL;
	for (i = 0; i < n; i++)
		if (!set_element(env, a, i, make(env, items, i)))
			return NULL;
	return obj;
}

static napi_value grant_js(napi_env env, const void *items, size_t i)
{
	const sandy_grant *g = (const sandy_grant *)items + i;

	return make_entry(env, make_path(env, &g->path),
			  sandy_access_name(g->access), sandy_scope_name(g->scope));
}

static napi_value exec_js(napi_env env, const void *items, size_t i)
{
	const sandy_exec_grant *g = (const sandy_exec_grant *)items + i;

	return make_entry(env, make_path(env, &g->path), NULL,
			  sandy_scope_name(g->scope));
}

static napi_value path_js(napi_env env, const void *items, size_t i)
{
	return make_path(env, (const sandy_path *)items + i);
}

static napi_value policy_to_js(napi_env env, const sandy_policy *p)
{
	napi_value o = make_object(env);

	if (o == NULL ||
	    !set_prop(env, o, "network",
		      make_string(env, sandy_network_name(p->network))) ||
	    !set_prop(env, o, "allowSubprocesses",
		      make_bool(env, p->allow_subprocesses)) ||
	    !set_array(env, o, sandy_section_property(SANDY_SECTION_GRANTS),
		       p->grants, p->n_grants, grant_js) ||
	    !set_array(env, o,
		       sandy_section_property(SANDY_SECTION_EXECUTABLE_GRANTS),
		       p->exec_grants, p->n_exec_grants, exec_js) ||
	    !set_array(env, o,
		       sandy_section_property(SANDY_SECTION_DENY_SUBTREES),
		       p->deny_subtrees, p->n_deny_subtrees, path_js) ||
	    !set_array(env, o,
		       sandy_section_property(SANDY_SECTION_DENY_WRITE_EXACT),
		       p->deny_write_exact, p->n_deny_write_exact, path_js))
		return NULL;
	return o;
}

static napi_value rdeny_to_js(napi_env env, const sandy_rdeny *d)
{
	napi_value o = make_object(env);

	if (o == NULL ||
	    !set_prop(env, o, "canonical", make_string(env, d->canonical)))
		return NULL;
	if (d->lexical && !set_prop(env, o, "lexical", make_string(env, d->lexical)))
		return NULL;
	return o;
}

static napi_value rgrant_js(napi_env env, const void *items, size_t i)
{
	const sandy_rgrant *g = (const sandy_rgrant *)items + i;

	return make_entry(env, make_string(env, g->path),
			  sandy_access_name(g->access), sandy_scope_name(g->scope));
}

static napi_value rexec_js(napi_env env, const void *items, size_t i)
{
	const sandy_rexec *x = (const sandy_rexec *)items + i;

	return make_entry(env, make_string(env, x->path), NULL,
			  sandy_scope_name(x->scope));
}

static napi_value rdeny_js(napi_env env, const void *items, size_t i)
{
	return rdeny_to_js(env, (const sandy_rdeny *)items + i);
}

static napi_value resolved_to_js(napi_env env, const sandy_resolved *r)
{
	napi_value o = make_object(env);

	if (o == NULL || !set_prop(env, o, "cwd", make_string(env, r->cwd)) ||
	    !set_prop(env, o, "network",
		      make_string(env, sandy_network_name(r->network))) ||
	    !set_prop(env, o, "allowSubprocesses",
		      make_bool(env, r->allow_subprocesses)) ||
	    !set_prop(env, o, "coversCwd",
		      make_bool(env, sandy_resolved_covers_cwd(r))) ||
	    !set_array(env, o, sandy_section_property(SANDY_SECTION_GRANTS),
		       r->grants, r->n_grants, rgrant_js) ||
	    !set_array(env, o,
		       sandy_section_property(SANDY_SECTION_EXECUTABLE_GRANTS),
		       r->execs, r->n_execs, rexec_js) ||
	    !set_array(env, o,
		       sandy_section_property(SANDY_SECTION_DENY_SUBTREES),
		       r->deny_subtrees, r->n_deny_subtrees, rdeny_js) ||
	    !set_array(env, o,
		       sandy_section_property(SANDY_SECTION_DENY_WRITE_EXACT),
		       r->deny_write_exact, r->n_deny_write_exact, rdeny_js))
		return NULL;
	return o;
}

/* {error: {kind, message}}: lib/ turns it into a SandboxError. */
static napi_value sandbox_error_to_js(napi_env env, const sandy_error *err)
{
	napi_value o = make_object(env), e = make_object(env);

	if (o == NULL || e == NULL ||
	    !set_prop(env, e, "kind",
		      make_string(env, sandy_error_kind_name(err->kind))) ||
	    !set_prop(env, e, "message", make_string(env, err->message)) ||
	    !set_prop(env, o, "error", e))
		return NULL;
	return o;
}

static napi_value doc_error_to_js(napi_env env, const sandy_doc_error *err)
{
	napi_value o = make_object(env), e = make_object(env);

	if (o == NULL || e == NULL ||
	    !set_prop(env, e, "kind",
		      make_string(env, sandy_doc_error_kind_name(err->kind))) ||
	    !set_prop(env, e, "message", make_string(env, err->message)) ||
	    !set_prop(env, o, "error", e))
		return NULL;
	if (err->kind == SANDY_DOC_PARSE &&
	    (!set_prop(env, e, "line", make_number(env, (double)err->line)) ||
	     !set_prop(env, e, "column", make_number(env, (double)err->column))))
		return NULL;
	if (err->kind == SANDY_DOC_UNSUPPORTED_VERSION &&
	    !set_prop(env, e, "version", make_number(env, err->version)))
		return NULL;
	return o;
}

/* ---- exported functions ---------------------------------------------- */

static napi_value throw_missing(napi_env env)
{
	napi_throw_type_error(env, "ESANDYARGS", "missing argument");
	return NULL;
}

static napi_value get_args(napi_env env, napi_callback_info info, size_t want,
			   napi_value *argv)
{
	size_t argc = want;

	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc < want)
		return throw_missing(env);
	return argv[0];
}

/* parsePolicyJson(buffer) -> {policy} | {error} */
static napi_value parse_policy_json(napi_env env, napi_callback_info info)
{
	napi_value argv[1], out, result;
	void *data;
	size_t len;
	sandy_policy p;
	sandy_doc_error err;

	if (get_args(env, info, 1, argv) == NULL)
		return NULL;
	CHECK(napi_get_buffer_info(env, argv[0], &data, &len));
	if (sandy_policy_from_json(len ? data : (const void *)"", len, &p,
				   &err) != 0)
		return doc_error_to_js(env, &err);
	out = make_object(env);
	result = out ? set_prop(env, out, "policy", policy_to_js(env, &p)) : NULL;
	sandy_policy_free(&p);
	return result;
}

/* Shared by resolve and argv: reads (policy, cwdBuffer|null). */
static napi_value read_policy_and_cwd(napi_env env, napi_callback_info info,
				      sandy_policy *p, char **cwd)
{
	napi_value argv[2];
	napi_valuetype t;
	const char *bytes;
	size_t len;

	*cwd = NULL;
	sandy_policy_init(p, SANDY_NETWORK_BLOCK_ALL);
	if (get_args(env, info, 2, argv) == NULL)
		return NULL;
	if (read_policy(env, argv[0], p) == NULL)
		return NULL;
	CHECK(napi_typeof(env, argv[1], &t));
	if (t == napi_null || t == napi_undefined)
		return argv[0];
	if (get_path(env, argv[1], &bytes, &len) == NULL)
		return NULL;
	if (memchr(bytes, '\0', len) != NULL) {
		napi_throw_type_error(env, "ESANDYARGS", "cwd contains a NUL byte");
		return NULL;
	}
	*cwd = strndup(bytes, len);
	if (*cwd == NULL)
		return throw_oom(env);
	return argv[0];
}

/* resolvePolicy(policy, cwd) -> {resolved} | {error} */
static napi_value resolve_policy(napi_env env, napi_callback_info info)
{
	sandy_policy p;
	sandy_resolved r;
	sandy_error err;
	char *cwd;
	napi_value out = NULL;

	if (read_policy_and_cwd(env, info, &p, &cwd) == NULL) {
		sandy_policy_free(&p);
		return NULL;
	}
	if (sandy_resolve(&p, cwd, &r, &err) != 0) {
		out = sandbox_error_to_js(env, &err);
	} else {
		out = make_object(env);
		if (out)
			out = set_prop(env, out, "resolved",
				       resolved_to_js(env, &r));
		sandy_resolved_free(&r);
	}
	free(cwd);
	sandy_policy_free(&p);
	return out;
}

static napi_value words_to_js(napi_env env, char **words, size_t n)
{
	napi_value arr;
	size_t i;

	if (words == NULL)
		return throw_oom(env);
	arr = make_array(env, n);
	for (i = 0; arr != NULL && i < n; i++)
		arr = set_element(env, arr, i, make_string(env, words[i]));
	sandy_argv_free(words);
	return arr;
}

/* A nonce argument: a string the launcher accepts, or null for none.
 * Returns v (buf filled, or buf[0] = 0 for none), NULL after throwing. */
static napi_value get_nonce(napi_env env, napi_value v, char *buf, size_t size)
{
	napi_valuetype t;
	size_t len;

	buf[0] = '\0';
	CHECK(napi_typeof(env, v, &t));
	if (t == napi_null || t == napi_undefined)
		return v;
	CHECK(napi_get_value_string_utf8(env, v, buf, size, &len));
	if (!sandy_nonce_valid(buf)) {
		napi_throw_range_error(env, "ESANDYARGS", "malformed nonce");
		return NULL;
	}
	return v;
}

/* The objects no read_write grant may name (lib/confine.js: the parents
 * of the user's launcher copy directories): an array of at most
 * REFUSED_MAX "DEV:INO" strings, into ids. */
#define REFUSED_MAX 64
typedef struct id_list {
	char id[REFUSED_MAX][SANDY_PIN_ID_BYTES];
	const char *p[REFUSED_MAX];
	size_t n;
} id_list;

static napi_value bad_ids(napi_env env)
{
	napi_throw_range_error(env, "ESANDYARGS",
			       "refused objects: at most 64 dev:ino strings");
	return NULL;
}

/* DIGITS ":" DIGITS, as sandy_pin_id writes it */
static bool id_valid(const char *s)
{
	size_t dev = strspn(s, "0123456789");
	size_t ino = dev > 0 && s[dev] == ':' ? strspn(s + dev + 1,
						       "0123456789")
					      : 0;

	return ino > 0 && s[dev + 1 + ino] == '\0';
}

static napi_value get_ids(napi_env env, napi_value v, id_list *l)
{
	uint32_t len;
	size_t got;

	if (get_length(env, v, &len) == NULL)
		return NULL;
	if (len > REFUSED_MAX)
		return bad_ids(env);
	for (uint32_t i = 0; i < len; i++) {
		napi_value e = get_element(env, v, i);

		if (e == NULL)
			return NULL;
		/* (an element's getter may call in again: l is this call's) */
		if (l->n >= REFUSED_MAX)
			return bad_ids(env);
		CHECK(napi_get_value_string_utf8(env, e, l->id[l->n],
						 SANDY_PIN_ID_BYTES, &got));
		if (got + 1 >= SANDY_PIN_ID_BYTES || !id_valid(l->id[l->n]))
			return bad_ids(env);
		l->p[l->n] = l->id[l->n];
		l->n++;
	}
	return v;
}

/* confinePolicy(policy, cwd, nonce, refused) -> {argv: string[]} |
 * {error}: the launcher's words after its path, resolved, checked and
 * pinned in this one call (confine.h). */
static napi_value confine_policy(napi_env env, napi_callback_info info)
{
	napi_value argv[4], out = NULL;
	char nonce[SANDY_NONCE_MAX + 2];
	id_list refused = {.n = 0};
	sandy_policy p;
	sandy_error err = {0};
	char *cwd, **words;
	size_t n = 0;

	if (get_args(env, info, 4, argv) == NULL ||
	    get_nonce(env, argv[2], nonce, sizeof(nonce)) == NULL ||
	    get_ids(env, argv[3], &refused) == NULL)
		return NULL;
	if (read_policy_and_cwd(env, info, &p, &cwd) != NULL) {
		words = sandy_confine_argv(&p, cwd, nonce[0] ? nonce : NULL,
					   sandy_identify_nofollow, refused.p,
					   refused.n, &n, &err);
		if (words == NULL) {
			out = sandbox_error_to_js(env, &err);
		} else {
			out = make_object(env);
			if (out != NULL)
				out = set_prop(env, out, "argv",
					       words_to_js(env, words, n));
			else
				sandy_argv_free(words);
		}
	}
	free(cwd);
	sandy_policy_free(&p);
	return out;
}

static napi_value make_null(napi_env env)
{
	napi_value v;

	CHECK(napi_get_null(env, &v));
	return v;
}

static napi_value verdict_to_js(napi_env env, const sandy_backend_verdict *v)
{
	napi_value o = make_object(env);

	if (o == NULL || !set_prop(env, o, "usable", make_bool(env, v->usable)) ||
	    !set_prop(env, o, "enforcement",
		      v->usable ? make_string(env, v->enforcement)
				: make_null(env)) ||
	    !set_prop(env, o, "reason", make_string(env, v->reason)))
		return NULL;
	return o;
}

/* A string argument or null (*out NULL). A string that does not fit buf
 * is refused (RangeError) unless cut is true: then it is cut short (the
 * problem's words, which may quote a long install path). */
static napi_value get_string_or_null(napi_env env, napi_value v,
				     const char *name, char *buf, size_t size,
				     bool cut, const char **out)
{
	napi_valuetype t;
	size_t len;

	CHECK(napi_typeof(env, v, &t));
	*out = NULL;
	if (t == napi_null)
		return v;
	if (t != napi_string) {
		napi_throw_type_error(env, "ESANDYARGS", name);
		return NULL;
	}
	CHECK(napi_get_value_string_utf8(env, v, NULL, 0, &len));
	if (len >= size && !cut) {
		napi_throw_range_error(env, "ESANDYARGS", name);
		return NULL;
	}
	CHECK(napi_get_value_string_utf8(env, v, buf, size, &len));
	*out = buf;
	return v;
}

/* Whether a fact's JS place (probe.h, SANDY_PROBE_FIELDS) is one of a
 * group's ("bwrap.found") when grouped, one of its own otherwise; a fact
 * without a place is neither. */
static bool placed_in(const char *js, bool grouped)
{
	return js[0] != '\0' && (strchr(js, '.') != NULL) == grouped;
}

/* Sets o[js], or for "group.name" o[group][name], the group's object made
 * by its first fact. Returns o, NULL after throwing. */
static napi_value set_fact(napi_env env, napi_value o, const char *js,
			   napi_value v)
{
	const char *dot = strchr(js, '.');
	napi_value key, group;
	bool has;

	if (v == NULL)
		return NULL;
	if (dot == NULL)
		return set_prop(env, o, js, v);
	CHECK(napi_create_string_utf8(env, js, (size_t)(dot - js), &key));
	CHECK(napi_has_own_property(env, o, key, &has));
	if (has) {
		CHECK(napi_get_property(env, o, key, &group));
	} else {
		group = make_object(env);
		if (group == NULL)
			return NULL;
		CHECK(napi_set_property(env, o, key, group));
	}
	return set_prop(env, group, dot + 1, v) != NULL ? o : NULL;
}

/* The measured facts placed in a group, or those placed on their own, set
 * on the JS report o in SANDY_PROBE_FIELDS' order, each by its kind's
 * writer. Returns o, NULL after throwing. */
static napi_value facts_to_js(napi_env env, napi_value o,
			      const sandy_probe_report *r, bool grouped)
{
#define FACT(js, make, value)                                                \
	if (o != NULL && placed_in(js, grouped))                             \
		o = set_fact(env, o, js, make(env, value));
#define FACT_B(f, js) FACT(js, make_bool, r->f)
#define FACT_I(f, js) FACT(js, make_number, r->f)
#define FACT_T(f, js, size) FACT(js, make_string, r->f)
	SANDY_PROBE_FIELDS(FACT_B, FACT_I, FACT_T)
#undef FACT_B
#undef FACT_I
#undef FACT_T
#undef FACT
	return o;
}

/* probe(launcher, problem): the launcher's report (addon/probe.c), or,
 * with launcher null, every Linux backend unusable because of problem.
 * The measured facts are SANDY_PROBE_FIELDS', those on their own first,
 * then the groups; platform, sandboxExec (macOS, measured in the addon,
 * on no wire) and the backends' verdicts are the addon's own. Everything
 * per call: worker threads share this addon. */
static napi_value probe(napi_env env, napi_callback_info info)
{
	sandy_probe_report r;
	char path[SANDY_PATH_MAX_BYTES + 1], problem[SANDY_PROBE_TEXT];
	const char *launcher, *why;
	napi_value argv[2], o, backends;
	int i;

	if (get_args(env, info, 2, argv) == NULL ||
	    get_string_or_null(env, argv[0], "launcher must be a path or null",
			       path, sizeof(path), false, &launcher) == NULL ||
	    get_string_or_null(env, argv[1], "problem must be a string or null",
			       problem, sizeof(problem), true, &why) == NULL)
		return NULL;
	sandy_probe_ask(launcher, why, &r);
	o = make_object(env);
	backends = make_object(env);
	if (o == NULL || backends == NULL ||
	    !set_prop(env, o, "platform", make_string(env, r.platform)) ||
	    !facts_to_js(env, o, &r, false) ||
	    !set_prop(env, o, "sandboxExec", make_bool(env, r.sandbox_exec)) ||
	    !facts_to_js(env, o, &r, true))
		return NULL;
	for (i = 0; i < SANDY_BACKEND_COUNT; i++)
		if (!set_prop(env, backends, sandy_backend_name(i),
			      verdict_to_js(env, &r.backends[i])))
			return NULL;
	return set_prop(env, o, "backends", backends);
}

static napi_value limits(napi_env env, napi_callback_info info)
{
	napi_value o = make_object(env);

	(void)info;
	if (o == NULL ||
	    !set_prop(env, o, "documentBytes", make_number(env, SANDY_DOC_MAX_BYTES)) ||
	    !set_prop(env, o, "sectionEntries",
		      make_number(env, SANDY_SECTION_MAX_ENTRIES)) ||
	    !set_prop(env, o, "effectiveRules",
		      make_number(env, SANDY_EFFECTIVE_RULES_MAX)) ||
	    !set_prop(env, o, "pathBytes", make_number(env, SANDY_PATH_MAX_BYTES)))
		return NULL;
	return o;
}

/* ---- the seam's backends ---------------------------------------------- */

static napi_value list_to_js(napi_env env, const char *const *list)
{
	napi_value arr = make_array(env, 0);
	uint32_t i;

	for (i = 0; arr != NULL && list != NULL && list[i] != NULL; i++)
		arr = set_element(env, arr, i, make_string(env, list[i]));
	return arr;
}

static napi_value codes_to_js(napi_env env, const int *codes)
{
	napi_value arr = make_array(env, 0);
	uint32_t i;

	for (i = 0; arr != NULL && codes[i] != 0; i++)
		arr = set_element(env, arr, i, make_number(env, codes[i]));
	return arr;
}

static napi_value rule_to_js(napi_env env, const sandy_runner_rule *rule)
{
	napi_value o = make_object(env);

	if (o == NULL ||
	    !set_prop(env, o, "fatalSignatures",
		      list_to_js(env, rule->fatal_signatures)))
		return NULL;
	if (rule->allowed_exit_codes &&
	    !set_prop(env, o, "allowedExitCodes",
		      codes_to_js(env, rule->allowed_exit_codes)))
		return NULL;
	if (rule->informational_lines &&
	    !set_prop(env, o, "informationalLines",
		      list_to_js(env, rule->informational_lines)))
		return NULL;
	return o;
}

static napi_value get_backend(napi_env env, napi_value v, sandy_backend_id *id)
{
	char name[16];
	int i;

	if (get_cstring(env, v, name, sizeof(name)) == NULL)
		return NULL;
	for (i = 0; i < SANDY_BACKEND_COUNT; i++)
		if (strcmp(name, sandy_backend_name(i)) == 0) {
			*id = i;
			return v;
		}
	napi_throw_range_error(env, "ESANDYARGS", "unknown backend");
	return NULL;
}

/* A mechanism word, or null. */
static napi_value word_or_null(napi_env env, const char *w)
{
	return w == NULL ? make_null(env) : make_string(env, w);
}

static napi_value protections_to_js(napi_env env, const sandy_protections *p)
{
	napi_value o = make_object(env);

	if (o == NULL || !set_prop(env, o, "files", word_or_null(env, p->files)) ||
	    !set_prop(env, o, "sockets", word_or_null(env, p->sockets)) ||
	    !set_prop(env, o, "environment",
		      word_or_null(env, p->environment)) ||
	    !set_prop(env, o, "writes", word_or_null(env, p->writes)) ||
	    !set_prop(env, o, "replaced", word_or_null(env, p->replaced)))
		return NULL;
	return o;
}

/* backendDialect(name) -> {denialSignatures, runnerFailureRules,
 * protections} */
static napi_value backend_dialect(napi_env env, napi_callback_info info)
{
	napi_value argv[1], o, rules;
	sandy_backend_id id;
	const sandy_dialect *d;
	size_t i;

	if (get_args(env, info, 1, argv) == NULL ||
	    get_backend(env, argv[0], &id) == NULL)
		return NULL;
	d = sandy_backend_dialect(id);
	o = make_object(env);
	rules = make_array(env, d->n_rules);
	if (o == NULL || rules == NULL ||
	    !set_prop(env, o, "denialSignatures",
		      list_to_js(env, d->denial_signatures)) ||
	    !set_prop(env, o, "runnerFailureRules", rules) ||
	    !set_prop(env, o, "protections", protections_to_js(env, &d->protections)))
		return NULL;
	for (i = 0; i < d->n_rules; i++)
		if (!set_element(env, rules, i, rule_to_js(env, &d->rules[i])))
			return NULL;
	return o;
}

/* One absolute path, copied whole (never truncated) into a malloc'd *out;
 * NULL with an exception pending otherwise (bad() throws the caller's
 * message). */
static napi_value get_abs_path(napi_env env, napi_value v, char **out,
			       napi_value (*bad)(napi_env env))
{
	size_t n;

	CHECK(napi_get_value_string_utf8(env, v, NULL, 0, &n));
	if (n == 0 || n > SANDY_PATH_MAX_BYTES)
		return bad(env);
	if ((*out = malloc(n + 1)) == NULL)
		return throw_oom(env);
	CHECK(napi_get_value_string_utf8(env, v, *out, n + 1, &n));
	if ((*out)[0] != '/' || strlen(*out) != n)
		return bad(env);
	return v;
}

/* The protected paths (lib/provider.js): the launcher copies' directories
 * and the protected writes, an array of at most DIRS_MAX canonical
 * absolute paths; free with dirs_free() whatever get_dirs() returned.
 * (Room for the writable roots' paths too.) */
#define DIRS_MAX SANDY_GUARD_PROTECT_MAX
typedef struct dir_list {
	char *d[DIRS_MAX > SANDY_GUARD_ROOTS_MAX ? DIRS_MAX
						 : SANDY_GUARD_ROOTS_MAX];
	size_t n;
} dir_list;

static void dirs_free(dir_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->d[i]);
	l->n = 0;
}

static napi_value bad_dirs(napi_env env)
{
	char why[64];

	snprintf(why, sizeof(why), "protected paths: at most %d absolute paths",
		 DIRS_MAX);
	napi_throw_range_error(env, "ESANDYARGS", why);
	return NULL;
}

static napi_value get_dirs(napi_env env, napi_value v, dir_list *l)
{
	uint32_t len;

	if (get_length(env, v, &len) == NULL)
		return NULL;
	if (len > DIRS_MAX)
		return bad_dirs(env);
	for (uint32_t i = 0; i < len; i++) {
		napi_value e = get_element(env, v, i);

		if (e == NULL)
			return NULL;
		l->d[l->n] = NULL;
		if (get_abs_path(env, e, &l->d[l->n++], bad_dirs) == NULL)
			return NULL;
	}
	return v;
}

/* The writable roots (lib/provider.js): an array of 1 to
 * SANDY_GUARD_ROOTS_MAX [path, "dev:ino"] pairs, the workspace first, each
 * path canonical and absolute; free with roots_free() whatever
 * get_roots() returned. */
typedef struct root_list {
	dir_list paths;
	char id[SANDY_GUARD_ROOTS_MAX][48];
	sandy_writable_root r[SANDY_GUARD_ROOTS_MAX];
} root_list;

static void roots_free(root_list *l)
{
	dirs_free(&l->paths);
}

static napi_value bad_roots(napi_env env)
{
	napi_throw_range_error(env, "ESANDYARGS",
			       "writable roots: 1 to 9 pairs of an absolute "
			       "path and its dev:ino");
	return NULL;
}

/* One [path, "dev:ino"] pair: *path malloc'd (free it whatever this
 * returned), the id into id. */
static napi_value get_pair(napi_env env, napi_value e, char **path,
			   char id[48], napi_value (*bad)(napi_env env))
{
	uint32_t pair;
	napi_value p, i;

	*path = NULL;
	if (get_length(env, e, &pair) == NULL)
		return NULL;
	if (pair != 2)
		return bad(env);
	if ((p = get_element(env, e, 0)) == NULL ||
	    (i = get_element(env, e, 1)) == NULL ||
	    get_abs_path(env, p, path, bad) == NULL ||
	    get_cstring(env, i, id, 48) == NULL)
		return NULL;
	return e;
}

static napi_value get_roots(napi_env env, napi_value v, root_list *l)
{
	uint32_t len;

	if (get_length(env, v, &len) == NULL)
		return NULL;
	if (len == 0 || len > SANDY_GUARD_ROOTS_MAX)
		return bad_roots(env);
	for (uint32_t i = 0; i < len; i++) {
		napi_value e = get_element(env, v, i);

		if (e == NULL ||
		    get_pair(env, e, &l->paths.d[l->paths.n++], l->id[i],
			     bad_roots) == NULL)
			return NULL;
		l->r[i] = (sandy_writable_root){l->paths.d[i], l->id[i]};
	}
	return v;
}

/* A seam call's protections (lib/provider.js): reads, an array of at most
 * SANDY_DENY_READS_MAX [path, "dev:ino"] pairs (canonical, absolute);
 * keepEnv, an array of at most SANDY_KEEP_ENV_MAX variable names. Free
 * with shield_free() whatever get_shield() returned. */
typedef struct shield_list {
	char *path[SANDY_DENY_READS_MAX];
	char id[SANDY_DENY_READS_MAX][48];
	sandy_writable_root r[SANDY_DENY_READS_MAX];
	char name[SANDY_KEEP_ENV_MAX][256];
	const char *keep[SANDY_KEEP_ENV_MAX];
	sandy_seam_shield s;
} shield_list;

static void shield_free(shield_list *l)
{
	for (size_t i = 0; i < l->s.n_reads; i++)
		free(l->path[i]);
	l->s.n_reads = 0;
}

static napi_value bad_shield(napi_env env)
{
	napi_throw_range_error(env, "ESANDYARGS",
			       "protections: at most 128 pairs of an absolute "
			       "path and its dev:ino, at most 32 variable "
			       "names");
	return NULL;
}

static napi_value get_shield(napi_env env, napi_value reads, napi_value keep,
			     shield_list *l)
{
	uint32_t n_reads, n_keep;

	l->s = (sandy_seam_shield){l->r, 0, l->keep, 0, NULL, 0};
	if (get_length(env, reads, &n_reads) == NULL ||
	    get_length(env, keep, &n_keep) == NULL)
		return NULL;
	if (n_reads > SANDY_DENY_READS_MAX || n_keep > SANDY_KEEP_ENV_MAX)
		return bad_shield(env);
	for (uint32_t i = 0; i < n_reads; i++) {
		napi_value e = get_element(env, reads, i);

		if (e == NULL)
			return NULL;
		l->s.n_reads++;
		if (get_pair(env, e, &l->path[i], l->id[i], bad_shield) == NULL)
			return NULL;
		l->r[i] = (sandy_writable_root){l->path[i], l->id[i]};
	}
	for (uint32_t i = 0; i < n_keep; i++) {
		napi_value e = get_element(env, keep, i);

		if (e == NULL ||
		    get_cstring(env, e, l->name[i], sizeof(l->name[i])) == NULL)
			return NULL;
		if (!sandy_env_name_valid(l->name[i]))
			return bad_shield(env);
		l->keep[l->s.n_keep_env++] = l->name[i];
	}
	return reads;
}

/* An array of at most max tuples [absolute path, word] or [absolute
 * path, word, word] (arity 2 or 3), each string copied (malloc'd; a word
 * of at most 255 bytes); bad names what it takes. Free with tuples_free()
 * whatever get_tuples() returned. */
#define TUPLES_MAX SANDY_SEATBELT_WRITES_MAX
typedef struct tuple_list {
	char *path[TUPLES_MAX];
	char *word[TUPLES_MAX][2];
	size_t n;
} tuple_list;

static void tuples_free(tuple_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->path[i]);
		free(l->word[i][0]);
		free(l->word[i][1]);
	}
	l->n = 0;
}

static napi_value get_short_string(napi_env env, napi_value v, char **out,
				   napi_value (*bad)(napi_env env))
{
	size_t n;

	CHECK(napi_get_value_string_utf8(env, v, NULL, 0, &n));
	if (n == 0 || n > 255)
		return bad(env);
	if ((*out = malloc(n + 1)) == NULL)
		return throw_oom(env);
	CHECK(napi_get_value_string_utf8(env, v, *out, n + 1, &n));
	return strlen(*out) == n ? v : bad(env);
}

static napi_value get_tuples(napi_env env, napi_value v, uint32_t arity,
			     size_t max, napi_value (*bad)(napi_env env),
			     tuple_list *l)
{
	uint32_t len, got;

	if (get_length(env, v, &len) == NULL)
		return NULL;
	if (len > max)
		return bad(env);
	for (uint32_t i = 0; i < len; i++) {
		napi_value e = get_element(env, v, i), p;

		l->path[i] = l->word[i][0] = l->word[i][1] = NULL;
		l->n++;
		if (e == NULL || get_length(env, e, &got) == NULL)
			return NULL;
		if (got != arity)
			return bad(env);
		if ((p = get_element(env, e, 0)) == NULL ||
		    get_abs_path(env, p, &l->path[i], bad) == NULL)
			return NULL;
		for (uint32_t k = 1; k < arity; k++)
			if ((p = get_element(env, e, k)) == NULL ||
			    get_short_string(env, p, &l->word[i][k - 1],
					     bad) == NULL)
				return NULL;
	}
	return v;
}

/* The protected names to watch (lib/provider.js): at most
 * SANDY_WATCHES_MAX [dir, "dev:ino", name] triples, dir canonical and
 * absolute, name one component, into w. */
static napi_value bad_watches(napi_env env)
{
	napi_throw_range_error(env, "ESANDYARGS",
			       "watched names: at most 240 triples of an "
			       "absolute directory, its dev:ino and a name");
	return NULL;
}

static napi_value bad_watched_level(napi_env env)
{
	napi_throw_range_error(env, "ESANDYARGS",
			       "watched names: workspace-write at the full "
			       "level only");
	return NULL;
}

static napi_value get_watches(napi_env env, napi_value v, tuple_list *l,
			      struct sandy_launch_watch *w)
{
	if (get_tuples(env, v, 3, SANDY_WATCHES_MAX, bad_watches, l) == NULL)
		return NULL;
	for (size_t i = 0; i < l->n; i++) {
		if (!sandy_watch_name_valid(l->word[i][1]))
			return bad_watches(env);
		w[i] = (struct sandy_launch_watch){l->path[i], l->word[i][0],
						   l->word[i][1]};
	}
	return v;
}

/* The seam's mode: a word of SANDY_MODE_MAP. */
static napi_value get_mode(napi_env env, napi_value v, sandy_mode *mode)
{
	char word[24];

	if (get_cstring(env, v, word, sizeof(word)) == NULL)
		return NULL;
	*mode = SANDY_MODE_NONE;
#define SANDY_X(id, name)                                                    \
	if (strcmp(word, name) == 0)                                          \
		*mode = SANDY_MODE_##id;
	SANDY_MODE_MAP(SANDY_X)
#undef SANDY_X
	if (*mode == SANDY_MODE_NONE) {
		napi_throw_range_error(env, "ESANDYARGS", "unknown mode");
		return NULL;
	}
	return v;
}

/* Only workspace-write writes: read-only carries its workspace alone. */
static napi_value check_mode_roots(napi_env env, sandy_mode mode,
				   const root_list *roots)
{
	if (mode != SANDY_MODE_WORKSPACE_WRITE && roots->paths.n > 1) {
		napi_throw_range_error(env, "ESANDYARGS",
				       "writable roots need workspace-write");
		return NULL;
	}
	return make_null(env);
}

/* seamLauncherWords(mode, roots, landlockOnly, nonce, protect, reads,
 * keepEnv, watches) -> the launcher's words; each protected path is a
 * deny_write_exact, each protected read a deny_subtree pinned to its
 * "dev:ino"; for workspace-write each root is granted and pinned to its
 * "dev:ino"; the secret variables scrubbed but those kept; each watched
 * name a --watch */
static napi_value seam_launcher_words(napi_env env, napi_callback_info info)
{
	napi_value argv[8], out = NULL;
	tuple_list watches = {0};
	struct sandy_launch_watch watched[SANDY_WATCHES_MAX];
	char nonce[SANDY_NONCE_MAX + 2];
	bool landlock_only;
	sandy_seam_level level;
	sandy_mode mode;
	root_list roots = {0};
	dir_list protect = {0};
	shield_list shield = {0};
	sandy_policy p;
	sandy_error err;
	char **words;
	size_t n = 0;

	if (get_args(env, info, 8, argv) == NULL ||
	    get_mode(env, argv[0], &mode) == NULL ||
	    get_roots(env, argv[1], &roots) == NULL ||
	    check_mode_roots(env, mode, &roots) == NULL ||
	    get_bool(env, argv[2], &landlock_only) == NULL ||
	    get_nonce(env, argv[3], nonce, sizeof(nonce)) == NULL ||
	    get_dirs(env, argv[4], &protect) == NULL ||
	    get_shield(env, argv[5], argv[6], &shield) == NULL ||
	    get_watches(env, argv[7], &watches, watched) == NULL)
		goto done;
	shield.s.watches = watched;
	shield.s.n_watches = watches.n;
	level = landlock_only ? SANDY_SEAM_LANDLOCK_ONLY : SANDY_SEAM_FULL;
	if (watches.n > 0 &&
	    (level != SANDY_SEAM_FULL || mode != SANDY_MODE_WORKSPACE_WRITE)) {
		bad_watched_level(env);
		goto done;
	}
	if (sandy_seam_policy(mode, level, roots.r, roots.paths.n, &p, &err) != 0) {
		napi_throw_error(env, "ESANDYSEAM", err.message);
		goto done;
	}
	if (sandy_seam_protect(&p, (const char *const *)protect.d, protect.n,
			       &err) != 0) {
		sandy_policy_free(&p);
		napi_throw_error(env, "ESANDYSEAM", err.message);
		goto done;
	}
	words = sandy_seam_launcher_argv(&p, mode, level,
					 nonce[0] ? nonce : NULL, roots.r,
					 roots.paths.n, &shield.s, &n);
	sandy_policy_free(&p);
	out = words_to_js(env, words, n);
done:
	roots_free(&roots);
	dirs_free(&protect);
	shield_free(&shield);
	tuples_free(&watches);
	return out;
}

/* bwrapArgv(launcher, nonce, bwrapPath, mode, roots, protect, reads,
 * keepEnv, watches) -> the words before the command: the launcher as
 * guard, then bubblewrap's */
static napi_value bwrap_argv(napi_env env, napi_callback_info info)
{
	napi_value argv[9], out = NULL;
	tuple_list watches = {0};
	struct sandy_launch_watch watched[SANDY_WATCHES_MAX];
	char launcher[SANDY_PATH_MAX_BYTES + 2], nonce[SANDY_NONCE_MAX + 2];
	char bwrap[256];
	root_list roots = {0};
	dir_list protect = {0};
	shield_list shield = {0};
	sandy_bwrap_call c = {.launcher = launcher, .nonce = nonce,
			      .bwrap = bwrap};
	char **words;
	size_t n = 0;

	if (get_args(env, info, 9, argv) == NULL ||
	    get_cstring(env, argv[0], launcher, sizeof(launcher)) == NULL ||
	    get_nonce(env, argv[1], nonce, sizeof(nonce)) == NULL ||
	    get_cstring(env, argv[2], bwrap, sizeof(bwrap)) == NULL ||
	    get_mode(env, argv[3], &c.mode) == NULL ||
	    get_roots(env, argv[4], &roots) == NULL ||
	    check_mode_roots(env, c.mode, &roots) == NULL ||
	    get_dirs(env, argv[5], &protect) == NULL ||
	    get_shield(env, argv[6], argv[7], &shield) == NULL ||
	    get_watches(env, argv[8], &watches, watched) == NULL)
		goto done;
	if (nonce[0] == '\0') {
		napi_throw_type_error(env, "ESANDYARGS", "a nonce is required");
		goto done;
	}
	c.roots = roots.r;
	c.n_roots = roots.paths.n;
	c.protect = (const char *const *)protect.d;
	c.n_protect = protect.n;
	c.shield = shield.s;
	c.shield.watches = watched;
	c.shield.n_watches = watches.n;
	if (watches.n > 0 && c.mode != SANDY_MODE_WORKSPACE_WRITE) {
		bad_watched_level(env);
		goto done;
	}
	words = sandy_bwrap_argv(&c, &n);
	out = words_to_js(env, words, n);
done:
	roots_free(&roots);
	dirs_free(&protect);
	shield_free(&shield);
	tuples_free(&watches);
	return out;
}

/* A protected path's kind word for Seatbelt (lib/protect.js's kinds), or
 * 0. */
static sandy_seatbelt_kind seatbelt_kind(const char *word)
{
	return strcmp(word, "file") == 0	? SANDY_SEATBELT_FILE
	       : strcmp(word, "directory") == 0 ? SANDY_SEATBELT_DIRECTORY
	       : strcmp(word, "socket") == 0	? SANDY_SEATBELT_SOCKET
						: 0;
}

/* A protected write's keep word for Seatbelt (lib/provider.js), or 0. */
static sandy_seatbelt_keep seatbelt_keep(const char *word)
{
	return strcmp(word, "file") == 0	? SANDY_SEATBELT_KEEP_FILE
	       : strcmp(word, "directory") == 0 ? SANDY_SEATBELT_KEEP_DIRECTORY
	       : strcmp(word, "above") == 0	? SANDY_SEATBELT_KEEP_ABOVE
						: 0;
}

/* Seatbelt's protected writes: at most SANDY_SEATBELT_WRITES_MAX [path,
 * keep] pairs, into w. */
static napi_value bad_writes(napi_env env)
{
	napi_throw_range_error(env, "ESANDYARGS",
			       "protected writes: pairs of an absolute path and "
			       "'file', 'directory' or 'above'");
	return NULL;
}

static napi_value get_writes(napi_env env, napi_value v, tuple_list *l,
			     struct sandy_seatbelt_write *w)
{
	if (get_tuples(env, v, 2, SANDY_SEATBELT_WRITES_MAX, bad_writes, l) ==
	    NULL)
		return NULL;
	for (size_t i = 0; i < l->n; i++) {
		w[i] = (struct sandy_seatbelt_write){
			l->path[i], seatbelt_keep(l->word[i][0])};
		if (w[i].keep == 0)
			return bad_writes(env);
	}
	return v;
}

/* seatbeltArgv(mode, root, tempDir, reads, keepEnv, writes) -> the
 * sandbox-exec words before the command (backends/seatbelt.h); root and
 * tempDir null but for workspace-write; reads [path, kind] pairs, kind
 * 'file', 'directory' or 'socket'; writes [path, keep] pairs, keep 'file',
 * 'directory' or 'above', workspace-write only. Pure: the Linux addon has
 * it too, for the tests. */
static napi_value seatbelt_argv(napi_env env, napi_callback_info info)
{
	napi_value argv[6], out = NULL;
	char root_buf[SANDY_PATH_MAX_BYTES + 2], temp_buf[SANDY_PATH_MAX_BYTES + 2];
	struct sandy_seatbelt_read reads[SANDY_DENY_READS_MAX];
	shield_list shield = {0};
	tuple_list writes = {0};
	struct sandy_seatbelt_write kept[SANDY_SEATBELT_WRITES_MAX];
	sandy_seatbelt_call c = {.reads = reads, .writes = kept};
	char **words;
	size_t n = 0;

	if (get_args(env, info, 6, argv) == NULL ||
	    get_mode(env, argv[0], &c.mode) == NULL ||
	    get_string_or_null(env, argv[1], "seatbeltArgv: root", root_buf,
			       sizeof(root_buf), false, &c.root) == NULL ||
	    get_string_or_null(env, argv[2], "seatbeltArgv: tempDir",
			       temp_buf, sizeof(temp_buf), false,
			       &c.temp_dir) == NULL ||
	    get_shield(env, argv[3], argv[4], &shield) == NULL ||
	    get_writes(env, argv[5], &writes, kept) == NULL)
		goto done;
	c.n_writes = writes.n;
	/* (the pairs' second halves are kinds here, not ids) */
	for (size_t i = 0; i < shield.s.n_reads; i++) {
		reads[i].path = shield.s.reads[i].path;
		if ((reads[i].kind = seatbelt_kind(shield.s.reads[i].id)) == 0) {
			bad_shield(env);
			goto done;
		}
	}
	c.n_reads = shield.s.n_reads;
	c.keep_env = shield.s.keep_env;
	c.n_keep_env = shield.s.n_keep_env;
	if ((c.root != NULL && c.root[0] != '/') ||
	    (c.temp_dir != NULL && c.temp_dir[0] != '/')) {
		napi_throw_range_error(env, "ESANDYARGS",
				       "seatbeltArgv: absolute paths");
		goto done;
	}
	words = sandy_seatbelt_argv(&c, &n);
	if (words == NULL) {
		napi_throw_range_error(env, "ESANDYARGS",
				       "seatbeltArgv: workspace-write needs a "
				       "root and a temp directory, and only it "
				       "takes protected writes");
		goto done;
	}
	out = words_to_js(env, words, n);
done:
	shield_free(&shield);
	tuples_free(&writes);
	return out;
}

/* copyDirs(uid) -> where that uid's launcher copies live, best first */
static napi_value copy_dirs(napi_env env, napi_callback_info info)
{
	napi_value argv[1], arr;
	char dirs[SANDY_COPY_DIRS_MAX][SANDY_COPY_DIR_BYTES];
	uint32_t uid;
	size_t n;

	if (get_args(env, info, 1, argv) == NULL)
		return NULL;
	CHECK(napi_get_value_uint32(env, argv[0], &uid));
	n = sandy_copy_dirs(uid, dirs);
	arr = make_array(env, n);
	for (size_t i = 0; arr != NULL && i < n; i++)
		arr = set_element(env, arr, (uint32_t)i, make_string(env, dirs[i]));
	return arr;
}

/* onKernelFilesystem(path Buffer, canonical) -> whether it lies on a kernel
 * filesystem (kernel_fs.h): no workspace or writable root may. */
/* An absolute path without NUL from a string argument (malloc'd), or
 * NULL with a RangeError naming what (fn: "name: an absolute path"). */
static char *absolute_path(napi_env env, napi_value v, const char *what)
{
	const char *bytes;
	char *path;
	size_t len;

	if (get_path(env, v, &bytes, &len) == NULL)
		return NULL;
	if (len == 0 || bytes[0] != '/' || memchr(bytes, '\0', len) != NULL) {
		napi_throw_range_error(env, "ESANDYARGS", what);
		return NULL;
	}
	path = malloc(len + 1);
	if (path == NULL) {
		throw_oom(env);
		return NULL;
	}
	memcpy(path, bytes, len);
	path[len] = '\0';
	return path;
}

static napi_value on_kernel_filesystem(napi_env env, napi_callback_info info)
{
	napi_value argv[1];
	char *path;
	int on;

	if (get_args(env, info, 1, argv) == NULL ||
	    (path = absolute_path(env, argv[0],
				  "onKernelFilesystem: an absolute path")) == NULL)
		return NULL;
	on = sandy_on_kernel_fs(path);
	free(path);
	if (on < 0) {
		napi_throw_error(env, "ESANDYFS",
				 "cannot tell whether a directory lies on a kernel "
				 "filesystem (is /proc/self/mountinfo readable?)");
		return NULL;
	}
	return make_bool(env, on == 1);
}

/* seatbeltVolume(root) -> null when the workspace-write profile holds in a
 * scratch directory made inside root (macOS; core/probe.h), else why. */
static napi_value seatbelt_volume(napi_env env, napi_callback_info info)
{
	napi_value argv[1], out;
	const char *why;
	char *root;

	if (get_args(env, info, 1, argv) == NULL ||
	    (root = absolute_path(env, argv[0],
				  "seatbeltVolume: an absolute path")) == NULL)
		return NULL;
	why = sandy_probe_volume_ask(root);
	free(root);
	if (why == NULL) {
		napi_get_null(env, &out);
		return out;
	}
	return make_string(env, why);
}

/* raiseWithoutCore(signal): `sandy run` ends as its command did
 * (core/end.h); returns only when the signal does not end the process. */
static napi_value raise_without_core(napi_env env, napi_callback_info info)
{
	napi_value argv[1];
	int32_t sig;

	if (get_args(env, info, 1, argv) == NULL)
		return NULL;
	CHECK(napi_get_value_int32(env, argv[0], &sig));
	if (sig < 1 || sig > 64) {
		napi_throw_range_error(env, "ESANDYARGS",
				       "raiseWithoutCore: a signal number");
		return NULL;
	}
	sandy_raise_without_core(sig);
	return NULL;
}

static napi_value init(napi_env env, napi_value exports)
{
	static const napi_property_descriptor fns[] = {
		{"parsePolicyJson", NULL, parse_policy_json, NULL, NULL, NULL,
		 napi_enumerable, NULL},
		{"resolvePolicy", NULL, resolve_policy, NULL, NULL, NULL,
		 napi_enumerable, NULL},
		{"confinePolicy", NULL, confine_policy, NULL, NULL, NULL,
		 napi_enumerable, NULL},
		{"probe", NULL, probe, NULL, NULL, NULL, napi_enumerable, NULL},
		{"limits", NULL, limits, NULL, NULL, NULL, napi_enumerable,
		 NULL},
		{"backendDialect", NULL, backend_dialect, NULL, NULL, NULL,
		 napi_enumerable, NULL},
		{"seamLauncherWords", NULL, seam_launcher_words, NULL, NULL,
		 NULL, napi_enumerable, NULL},
		{"bwrapArgv", NULL, bwrap_argv, NULL, NULL, NULL,
		 napi_enumerable, NULL},
		{"seatbeltVolume", NULL, seatbelt_volume, NULL, NULL, NULL,
		 napi_enumerable, NULL},
		{"seatbeltArgv", NULL, seatbelt_argv, NULL, NULL, NULL,
		 napi_enumerable, NULL},
		{"copyDirs", NULL, copy_dirs, NULL, NULL, NULL, napi_enumerable,
		 NULL},
		{"raiseWithoutCore", NULL, raise_without_core, NULL, NULL, NULL,
		 napi_enumerable, NULL},
		{"onKernelFilesystem", NULL, on_kernel_filesystem, NULL, NULL,
		 NULL, napi_enumerable, NULL},
	};

	CHECK(napi_define_properties(env, exports, sizeof(fns) / sizeof(fns[0]),
				     fns));
	return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
