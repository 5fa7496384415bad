/* libFuzzer target for the probe report's decoder (probe.h): the addon
 * reads what the launcher prints, so the decoder must survive any bytes.
 *
 * Beyond "no crash, no leak, no undefined behaviour" (the sanitizers), it
 * checks the contract on every input:
 *  - an accepted report is linux, not yet judged, its numbers in bounds and
 *    its texts printable and NUL-terminated inside their fields;
 *  - an accepted report, encoded again, decodes to the same fields (the
 *    input may spell a number with leading zeros, so it is compared by
 *    fields, not bytes);
 *  - a refused report leaves the caller's report untouched.
 * csrc/Makefile (fuzz) builds and runs it. */
#include "../csrc/core/probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                           \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "probe_report_fuzz: %s:%d: %s\n",     \
				__FILE__, __LINE__, #cond);                   \
			abort();                                              \
		}                                                             \
	} while (0)

static int printable(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n == size)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char text[8192], again[8192];
	sandy_probe_report r, before, round;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&r, 0xa5, sizeof(r));
	before = r;
	if (sandy_probe_decode(text, &r) != 0) {
		CHECK(memcmp(&r, &before, sizeof(r)) == 0);
		return 0;
	}
	CHECK(strcmp(r.platform, "linux") == 0 && !r.launcher_ok);
	CHECK(r.landlock_abi >= 0 && r.landlock_abi <= 9999);
	CHECK(r.landlock_errata >= 0 && r.landlock_errata <= 9999);
#define T(f, js, size) CHECK(printable(r.f, sizeof(r.f)));
#define N(f, js)
	SANDY_PROBE_FIELDS(N, N, T)
#undef T
#undef N
	CHECK(sandy_probe_encode(&r, again, sizeof(again)) > 0);
	CHECK(sandy_probe_decode(again, &round) == 0);
#define SAME(f, ...) CHECK(memcmp(&round.f, &r.f, sizeof(r.f)) == 0);
	SANDY_PROBE_FIELDS(SAME, SAME, SAME)
#undef SAME
	return 0;
}
