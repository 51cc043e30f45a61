/*
 * Unit tests of how src/out/jsonout.c's document is written: strings full
 * of quotes, newlines and control characters must come back byte for
 * byte, bytes that are not UTF-8 must come back as U+FFFD, one per byte,
 * non-finite reals as null; a full disk, a stream not open for writing
 * and every failed allocation are errors, not silence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "jsonout_fixture.h"

static void
test_strings_round_trip(void **state)
{
	struct fixture	*fx = *state;

	write_and_parse(fx);
	assert_str_at(fx, ".runs[0].command", COMMAND);
	assert_str_at(fx, ".runs[0].devices[0].id", fx->dev.id);
	assert_str_at(fx, ".runs[0].devices[0].name", fx->dev.name);
	/* Control characters are escaped, never written raw. */
	assert_null(memchr(fx->out, '\x01', fx->outlen));
	assert_null(strstr(fx->out, "line\r"));

	/* No command (attach mode builds one, but an emitter must not crash). */
	fx->rep.command = NULL;
	write_and_parse(fx);
	assert_null_at(fx, ".runs[0].command");
}

static void
test_invalid_utf8(void **state)
{
	static const struct {
		const char	*in;
		const char	*want;
	} cases[] = {
		{ "caf\xe9 au lait", "caf\xef\xbf\xbd au lait" },		/* Latin-1 */
		{ "a\xff" "b", "a\xef\xbf\xbd" "b" },
		{ "\x80", "\xef\xbf\xbd" },					/* lone continuation */
		{ "js-\xe2\x82", "js-\xef\xbf\xbd\xef\xbf\xbd" },		/* cut mid-sequence */
		{ "\xe2\x82\xac \xe2\x82 \xe2\x82\xac",
		    "\xe2\x82\xac \xef\xbf\xbd\xef\xbf\xbd \xe2\x82\xac" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },			/* overlong '/' */
		{ "\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },	/* overlong */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },	/* surrogate */
		{ "\xf4\x90\x80\x80",						/* > U+10FFFF */
		    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },			/* U+10FFFF */
		{ "\xed\x9f\xbf", "\xed\x9f\xbf" },				/* U+D7FF */
		{ "\xef\xbf\xbd", "\xef\xbf\xbd" },				/* U+FFFD itself */
	};
	struct fixture	*fx = *state;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fx->rep.command = (char *)cases[i].in;
		snprintf(fx->proc.comm, sizeof fx->proc.comm, "%s", cases[i].in);
		snprintf(fx->dev.name, sizeof fx->dev.name, "%s", cases[i].in);
		write_and_parse(fx);
		assert_str_at(fx, ".runs[0].command", cases[i].want);
		assert_str_at(fx, ".runs[0].devices[0].name", cases[i].want);
		assert_str_at(fx, ".runs[0].devices[0].processes[0].process", cases[i].want);
	}
}

static void
test_non_finite_is_null(void **state)
{
	struct fixture	*fx = *state;

	fx->drep.avg_power_mw = NAN;
	fx->drep.states[0].share = INFINITY;
	fx->proc.sm_pct = -INFINITY;
	write_and_parse(fx);
	assert_null_at(fx, ".runs[0].devices[0].avg_power_w");
	assert_null_at(fx, ".runs[0].devices[0].pstates[0].share");
	assert_null_at(fx, ".runs[0].devices[0].processes[0].sm_pct");
	assert_real_at(fx, ".runs[0].devices[0].energy_j", 123.456789);
}

static void
test_write_errors(void **state)
{
	struct fixture	*fx = *state;
	FILE		*f;
	int		 rc;

	if ((f = fopen("/dev/full", "w")) != NULL) {
		rc = write_json(f, &fx->rep, 1, NULL, NULL);
		fclose(f);
		assert_int_equal(rc, -ENOSPC);
	}
	f = fopen("/dev/null", "r");
	assert_non_null(f);
	rc = write_json(f, &fx->rep, 1, NULL, NULL);
	fclose(f);
	assert_true(rc < 0);
}

static long	alloc_budget = -1;

static void *
failing_malloc(size_t size)
{
	if (alloc_budget == 0) {
		errno = ENOMEM;
		return NULL;
	}
	if (alloc_budget > 0)
		alloc_budget--;
	return malloc(size);
}

static void
test_out_of_memory(void **state)
{
	struct fixture	*fx = *state;
	char		*buf = NULL;
	size_t		 len = 0;
	long		 n;
	FILE		*f;
	int		 rc = -ENOMEM;

	for (n = 0; rc == -ENOMEM && n < 100000; n++) {
		f = open_memstream(&buf, &len);
		assert_non_null(f);
		json_set_alloc_funcs(failing_malloc, free);
		alloc_budget = n;
		rc = write_json(f, &fx->rep, 1, NULL, NULL);
		alloc_budget = -1;
		json_set_alloc_funcs(malloc, free);
		assert_int_equal(fclose(f), 0);
		if (rc != 0 && rc != -ENOMEM)
			print_error("budget %ld: %d\n", n, rc);
		assert_true(rc == 0 || rc == -ENOMEM);
		free(buf);
		buf = NULL;
	}
	assert_int_equal(rc, 0);
	assert_true(n > 50);
	/* The budget that sufficed gives the same document as no budget at all. */
	write_and_parse(fx);
	assert_int_equal(json_array_size(at(fx, ".runs[0].devices")), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_strings_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_utf8, setup, teardown),
		cmocka_unit_test_setup_teardown(test_non_finite_is_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
