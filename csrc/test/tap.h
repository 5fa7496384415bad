/* The C tests' one output: TAP, which tap parses when
 * test/unit/native.test.js runs each program (t.spawn):
 *
 *   output := "TAP version 14\n" { line } "1.." N "\n"
 *   line   := ("ok " | "not ok ") n " - " name [" # SKIP " reason] "\n"
 *           | "# " diagnostic "\n"
 *
 * n counts from 1; a name's '#' and '\' are escaped with '\' so that
 * nothing in it reads as a directive. A program reports through tap_ok
 * and tap_skip, ends with `return tap_done();` (0 when nothing failed),
 * and writes nothing else to stdout. Each line is flushed at once: the
 * programs fork, and a child must not inherit unwritten lines. */
#ifndef SANDY_TEST_TAP_H
#define SANDY_TEST_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_count, tap_failed;

/* Writes one result line: status, its number, the name from fmt, and a
 * skip's reason when why is not NULL. */
static void tap_line(bool ok, const char *why, const char *fmt, va_list ap)
{
	char name[512];

	vsnprintf(name, sizeof(name), fmt, ap);
	if (tap_count == 0)
		printf("TAP version 14\n");
	printf("%s %d - ", ok ? "ok" : "not ok", ++tap_count);
	for (const char *p = name; *p != '\0'; p++) {
		if (*p == '#' || *p == '\\')
			putchar('\\');
		putchar(*p == '\n' ? ' ' : *p);
	}
	if (why != NULL)
		printf(" # SKIP %s", why);
	putchar('\n');
	fflush(stdout);
}

/* One result: "ok n - NAME" or "not ok n - NAME"; returns ok. */
__attribute__((format(printf, 2, 3), unused))
static bool tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(ok, NULL, fmt, ap);
	va_end(ap);
	if (!ok)
		tap_failed++;
	return ok;
}

/* A check that could not run here, and why. */
__attribute__((format(printf, 2, 3), unused))
static void tap_skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(true, why, fmt, ap);
	va_end(ap);
}

/* tap_ok with a name that is no format. */
__attribute__((unused))
static bool tap_check(bool ok, const char *name)
{
	return tap_ok(ok, "%s", name);
}

/* A diagnostic line, "# TEXT", shown with the result before it. */
__attribute__((format(printf, 1, 2), unused))
static void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* The plan, last; the exit status. */
__attribute__((unused))
static int tap_done(void)
{
	if (tap_count == 0)
		printf("TAP version 14\n");
	printf("1..%d\n", tap_count);
	fflush(stdout);
	return tap_failed == 0 ? 0 : 1;
}

#endif
