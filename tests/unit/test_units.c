/*
 * Unit tests of the unit-suffix parser (src/lib/units.c; joulestat(1),
 * OPTIONS): every suffix scales to the base unit, a value printed with a
 * suffix reads back as the same quantity, and anything else is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "joulestat/units.h"
#include "near.h"

static double
q(const char *s, enum unit_kind kind, double bare)
{
	double	v = -1;

	if (parse_quantity(s, kind, bare, &v) != 0)
		fail_msg("'%s' was refused", s);
	return v;
}

static void
test_suffixes(void **state)
{
	(void)state;
	assert_near(q("10kJ", UNIT_JOULES, 1), 10000, 1e-9);
	assert_near(q("0.5Wh", UNIT_JOULES, 1), 1800, 1e-9);
	assert_near(q("2kWh", UNIT_JOULES, 1), 7.2e6, 1e-6);
	assert_near(q("250mJ", UNIT_JOULES, 1), 0.25, 1e-12);
	assert_near(q("1.5MJ", UNIT_JOULES, 1), 1.5e6, 1e-6);
	assert_near(q("12", UNIT_JOULES, 1), 12, 0);
	assert_near(q("2m", UNIT_SECONDS, 1), 120, 1e-9);
	assert_near(q("3min", UNIT_SECONDS, 1), 180, 1e-9);
	assert_near(q("1h", UNIT_SECONDS, 1), 3600, 1e-9);
	assert_near(q("100ms", UNIT_SECONDS, 1), 0.1, 1e-12);
	assert_near(q("250us", UNIT_SECONDS, 1), 250e-6, 1e-15);
	assert_near(q("5ns", UNIT_SECONDS, 1), 5e-9, 1e-18);
	assert_near(q("300mW", UNIT_WATTS, 1), 0.3, 1e-12);
	assert_near(q("0.3kW", UNIT_WATTS, 1), 300, 1e-9);
	/* A bare number is in the option's own unit: -i takes milliseconds. */
	assert_near(q("100", UNIT_SECONDS, 1e-3), 0.1, 1e-12);
	assert_near(q("1e3", UNIT_SECONDS, 1e-3), 1, 1e-12);
}

/* Every suffix of a kind: a value written with it reads back as the same quantity. */
static void
test_round_trip(void **state)
{
	static const struct {
		enum unit_kind	 kind;
		const char	*suffix;
		double		 scale;
	} units[] = {
		{ UNIT_JOULES, "mJ", 1e-3 }, { UNIT_JOULES, "J", 1 }, { UNIT_JOULES, "kJ", 1e3 },
		{ UNIT_JOULES, "MJ", 1e6 }, { UNIT_JOULES, "Wh", 3600 },
		{ UNIT_JOULES, "kWh", 3.6e6 }, { UNIT_SECONDS, "ns", 1e-9 },
		{ UNIT_SECONDS, "us", 1e-6 }, { UNIT_SECONDS, "ms", 1e-3 },
		{ UNIT_SECONDS, "s", 1 }, { UNIT_SECONDS, "m", 60 }, { UNIT_SECONDS, "min", 60 },
		{ UNIT_SECONDS, "h", 3600 }, { UNIT_WATTS, "mW", 1e-3 }, { UNIT_WATTS, "W", 1 },
		{ UNIT_WATTS, "kW", 1e3 },
	};
	static const double	values[] = { 0, 1, 0.5, 12.25, 1234.5678, 1e-3 };
	char			buf[64];
	size_t			i, k;
	double			base, v;

	(void)state;
	for (i = 0; i < sizeof units / sizeof units[0]; i++) {
		for (k = 0; k < sizeof values / sizeof values[0]; k++) {
			base = values[k] * units[i].scale;
			snprintf(buf, sizeof buf, "%.17g%s", base / units[i].scale, units[i].suffix);
			assert_int_equal(parse_quantity(buf, units[i].kind, 1, &v), 0);
			assert_near(v, base, base * 1e-15);
		}
	}
}

static void
test_refused(void **state)
{
	static const struct {
		enum unit_kind	 kind;
		const char	*s;
	} bad[] = {
		{ UNIT_JOULES, "10kj" }, { UNIT_JOULES, "10 kJ" }, { UNIT_JOULES, "10kW" },
		{ UNIT_JOULES, "kJ" }, { UNIT_JOULES, "" }, { UNIT_JOULES, "10J " },
		{ UNIT_JOULES, "10JJ" }, { UNIT_JOULES, "0x10J" }, { UNIT_JOULES, "+5J" },
		{ UNIT_JOULES, "infJ" }, { UNIT_JOULES, "nan" }, { UNIT_JOULES, "1e999J" },
		{ UNIT_SECONDS, "2d" }, { UNIT_SECONDS, "5S" }, { UNIT_SECONDS, "1 s" },
		{ UNIT_SECONDS, "3J" }, { UNIT_WATTS, "5MW" }, { UNIT_WATTS, "5Wh" },
	};
	size_t	i;
	double	v = 42;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (parse_quantity(bad[i].s, bad[i].kind, 1, &v) != -1)
			fail_msg("'%s' was accepted", bad[i].s);
		assert_near(v, 42, 0);
	}
	assert_int_equal(parse_quantity(NULL, UNIT_WATTS, 1, &v), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suffixes),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
