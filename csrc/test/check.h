/* One check of a C test that needs no child process: a line "ok   WHAT"
 * or "FAIL WHAT" (read by test/unit/native.test.js), counted, and the closing
 * line "NAME: N passed, N failed, 0 skipped" with the exit status. */
#ifndef SANDY_TEST_CHECK_H
#define SANDY_TEST_CHECK_H

#include <stdbool.h>
#include <stdio.h>

static int passed, failed;

static void check(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (ok)
		passed++;
	else
		failed++;
}

static int check_summary(const char *name)
{
	printf("%s: %d passed, %d failed, 0 skipped\n", name, passed, failed);
	return failed == 0 ? 0 : 1;
}

#endif
