/* Path containment and UTF-8 validation (paths.h). */
#include "paths.h"

#include <string.h>

bool sandy_path_within(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	/* no directory holds anything ("" would otherwise hold every
	 * absolute path) */
	if (n == 0)
		return false;
	/* "/" is the one canonical path that ends in a slash */
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(dir, path, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

bool sandy_path_canonical(const char *path)
{
	const char *c = path;

	if (path[0] != '/')
		return false;
	if (path[1] == '\0')
		return true;
	/* each component, after its slash: not empty, ".", or ".." */
	while (*c == '/') {
		size_t len = strcspn(c + 1, "/");

		if (len == 0 || (len == 1 && c[1] == '.') ||
		    (len == 2 && c[1] == '.' && c[2] == '.'))
			return false;
		c += 1 + len;
	}
	return true;
}

size_t sandy_utf8_sequence(const char *text, size_t n, size_t *bad)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		len = 0;
	/* the second byte's range shuts out overlongs (E0, F0), surrogates
	 * (ED) and code points past U+10FFFF (F4) */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; len != 0 && i < len; i++) {
		if (i >= n || s[i] < lo || s[i] > hi)
			break;
		lo = 0x80;
		hi = 0xbf;
	}
	if (len != 0 && i == len)
		return len;
	if (bad != NULL)
		*bad = len == 0 ? 0 : i;
	return 0;
}

bool sandy_utf8_valid(const char *s, size_t n)
{
	size_t i = 0, step;

	while (i < n) {
		step = sandy_utf8_sequence(s + i, n - i, NULL);
		if (step == 0)
			return false;
		i += step;
	}
	return true;
}
