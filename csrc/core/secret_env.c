#include "secret_env.h"

#include <string.h>

#include "vocabulary.h"

typedef enum { MATCH_EXACT, MATCH_PREFIX, MATCH_SUFFIX } match_kind;

static const struct secret_name {
	match_kind match;
	const char *name;
} secret_names[] = {
#define SANDY_X(match, name, why) {MATCH_##match, name},
	SANDY_SECRET_ENV_MAP(SANDY_X)
#undef SANDY_X
};

/* ASCII only, as names are: strncasecmp would follow the locale (and is
 * not in every SDK the sources compile against). */
static bool same_ignoring_case(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char x = a[i] >= 'a' && a[i] <= 'z' ? (char)(a[i] - 'a' + 'A') : a[i];
		char y = b[i] >= 'a' && b[i] <= 'z' ? (char)(b[i] - 'a' + 'A') : b[i];

		if (x != y)
			return false;
	}
	return true;
}

static size_t name_length(const char *entry)
{
	return strcspn(entry, "=");
}

static bool matches(const struct secret_name *s, const char *name, size_t n)
{
	size_t len = strlen(s->name);

	if (s->match == MATCH_EXACT)
		return n == len && strncmp(name, s->name, n) == 0;
	if (s->match == MATCH_PREFIX)
		return n > len && strncmp(name, s->name, len) == 0;
	/* the suffix, or the whole name without its leading '_' */
	return (n > len && same_ignoring_case(name + n - len, s->name, len)) ||
	       (n == len - 1 && same_ignoring_case(name, s->name + 1, n));
}

bool sandy_env_secret(const char *entry)
{
	size_t n = name_length(entry);

	for (size_t i = 0; i < sizeof(secret_names) / sizeof(*secret_names);
	     i++)
		if (matches(&secret_names[i], entry, n))
			return true;
	return false;
}

static bool kept(const char *entry, const char *const *keep, size_t n_keep)
{
	size_t n = name_length(entry);

	for (size_t i = 0; i < n_keep; i++)
		if (strlen(keep[i]) == n && strncmp(entry, keep[i], n) == 0)
			return true;
	return false;
}

size_t sandy_env_scrub(char **env, const char *const *keep, size_t n_keep)
{
	size_t to = 0, from;

	for (from = 0; env[from] != NULL; from++)
		if (!sandy_env_secret(env[from]) ||
		    kept(env[from], keep, n_keep))
			env[to++] = env[from];
	env[to] = NULL;
	return from - to;
}

bool sandy_env_name_valid(const char *name)
{
	size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
				"vwxyz0123456789_");

	return n > 0 && n <= 255 && name[n] == '\0' &&
	       !(name[0] >= '0' && name[0] <= '9');
}
