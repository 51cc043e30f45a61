/*
 * Unit tests of the RAPL backend's pure code, src/sources/rapl_parse.c
 * (HACKING.md, "Measurement rules" and "Tests"): powercap zone names as intel_rapl_common.c
 * writes them, 64-bit energy values, the unwrapping of energy_uj at
 * max_energy_range_uj (checked against a counter simulated over many
 * wraps), and the read-at-least-every bound.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/util.h"

#include "../../src/sources/rapl_parse.h"

static void
test_names(void **state)
{
	struct rapl_name	n;

	(void)state;
	assert_int_equal(rapl_parse_name("package-0\n", &n), 0);
	assert_int_equal(n.kind, RAPL_PACKAGE);
	assert_int_equal(n.package, 0);
	assert_int_equal(n.die, -1);
	assert_int_equal(rapl_parse_name("package-13", &n), 0);
	assert_int_equal(n.package, 13);
	/* Multi-die parts: one zone per die. */
	assert_int_equal(rapl_parse_name("package-1-die-1\n", &n), 0);
	assert_int_equal(n.kind, RAPL_PACKAGE);
	assert_int_equal(n.package, 1);
	assert_int_equal(n.die, 1);
	assert_int_equal(rapl_parse_name("dram\n", &n), 0);
	assert_int_equal(n.kind, RAPL_DRAM);
	assert_int_equal(rapl_parse_name("core\n", &n), 0);
	assert_int_equal(n.kind, RAPL_CORE);
	assert_int_equal(rapl_parse_name("uncore\n", &n), 0);
	assert_int_equal(n.kind, RAPL_UNCORE);
	assert_int_equal(rapl_parse_name("psys\n", &n), 0);
	assert_int_equal(n.kind, RAPL_PSYS);
	assert_int_equal(rapl_parse_name("gpu\n", &n), 0);
	assert_int_equal(n.kind, RAPL_OTHER);
}

static void
test_names_garbage(void **state)
{
	static const char *const bad[] = {
		"", "\n", "package-", "package-\n", "package-x\n", "package-0x\n",
		"package--1\n", "package-0-die-\n", "package-0-die-x\n", "package-0-die-1x\n",
		"package-99999999999\n",
	};
	struct rapl_name	n;
	size_t			i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (rapl_parse_name(bad[i], &n) != -EINVAL)
			print_error("not refused: \"%s\"\n", bad[i]);
		assert_int_equal(rapl_parse_name(bad[i], &n), -EINVAL);
	}
}

static void
test_values(void **state)
{
	uint64_t	v;

	(void)state;
	assert_int_equal(rapl_parse_value("262143328850\n", &v), 0);
	assert_int_equal(v, 262143328850ull);
	assert_int_equal(rapl_parse_value("0\n", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rapl_parse_value("18446744073709551615\n", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(rapl_parse_value("18446744073709551616\n", &v), -ERANGE);
	assert_int_equal(rapl_parse_value("", &v), -EINVAL);
	assert_int_equal(rapl_parse_value("\n", &v), -EINVAL);
	assert_int_equal(rapl_parse_value(" 1\n", &v), -EINVAL);
	assert_int_equal(rapl_parse_value("1 \n", &v), -EINVAL);
	assert_int_equal(rapl_parse_value("-1\n", &v), -EINVAL);
	assert_int_equal(rapl_parse_value("1e6\n", &v), -EINVAL);
	/* A read that raced a writer and got half a number and its newline. */
	assert_int_equal(rapl_parse_value("12\n34\n", &v), -EINVAL);
}

static void
test_unwrap(void **state)
{
	(void)state;
	assert_int_equal(rapl_unwrap(100, 250, 1000), 150);
	assert_int_equal(rapl_unwrap(100, 100, 1000), 0);
	/* Past the top: 900 -> 1000 is 100, then 0 -> 150. */
	assert_int_equal(rapl_unwrap(900, 150, 1000), 250);
	assert_int_equal(rapl_unwrap(1000, 0, 1000), 0);
	/* Near the top of 64 bits. */
	assert_int_equal(rapl_unwrap(UINT64_MAX - 10, UINT64_MAX, UINT64_MAX), 10);
	assert_int_equal(rapl_unwrap(UINT64_MAX - 10, 5, UINT64_MAX), 15);
	/* No known range, or a value above it: a decrease is a reset. */
	assert_int_equal(rapl_unwrap(900, 150, 0), 0);
	assert_int_equal(rapl_unwrap(5000, 150, 1000), 0);
}

static void
test_unwrap_long_run(void **state)
{
	const uint64_t	range = 262143328850ull;	/* a real max_energy_range_uj */
	uint64_t	raw = range - 12345678, prev = raw, total = 0, truth = 0, step;
	int		i;

	(void)state;
	/* 10 000 readings 100 ms apart at 300 W: 30 J each, the counter wraps about 11 times. */
	srand(7);
	for (i = 0; i < 10000; i++) {
		step = 30000000 + (uint64_t)(rand() % 1000);
		truth += step;
		raw = (raw + step) % range;
		total += rapl_unwrap(prev, raw, range);
		prev = raw;
	}
	assert_int_equal(total, truth);
}

static void
test_max_gap(void **state)
{
	(void)state;
	/* 262 143 J at 165 W, with a factor of two: 794.37 s. */
	assert_int_equal(rapl_max_gap_ns(262143328850ull, 165000000), 794373723787);
	/* 65 536 J at 1 kW: 32.768 s. */
	assert_int_equal(rapl_max_gap_ns(65536000000ull, 1000000000), 32768000000);
	assert_int_equal(rapl_max_gap_ns(0, 165000000), 0);
	assert_int_equal(rapl_max_gap_ns(262143328850ull, 0), 0);
	assert_int_equal(rapl_max_gap_ns(UINT64_MAX, 1), INT64_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_names_garbage),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_unwrap),
		cmocka_unit_test(test_unwrap_long_run),
		cmocka_unit_test(test_max_gap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
