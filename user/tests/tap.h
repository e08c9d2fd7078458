/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Minimal TAP producer for the unit tests: plan printed at the end. */
#ifndef IBASYNC_TAP_H
#define IBASYNC_TAP_H

#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

/* __attribute__((unused)): not every test uses every helper */
static __attribute__((unused)) int tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static __attribute__((unused)) int tap_ok(int cond, const char *fmt, ...)
{
	char desc[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	/* one line per result: descriptions may quote output lines */
	for (char *p = desc; *p; p++)
		if (*p == '\n')
			*p = ' ';
	printf("%sok %d - %s\n", cond ? "" : "not ", ++tap_n, desc);
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

static __attribute__((unused)) void tap_skip(const char *why)
{
	printf("ok %d - # SKIP %s\n", ++tap_n, why);
}

static __attribute__((unused)) int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#define OK(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

#endif
