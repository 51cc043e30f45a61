/*
 * Unit tests of -r's statistics (stats.h): mean, standard deviation,
 * median, MAD and the outlier score of small known series; and their
 * bounds (series_bound): the mean's is the mean of the runs' bounds; a
 * median's, minimum's and maximum's contain that statistic of every set
 * of truths the runs' bounds allow, and are the run's own bound when the
 * runs' bounds are equal; a run without a bound makes them unknown.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>

#include <cmocka.h>

#include "joulestat/stats.h"
#include "joulestat/util.h"

#include "near.h"

#define EPS	1e-9

/* Mean, sample sd, median and MAD of a small known series. */
static void
test_series_stats(void **state)
{
	const double		v[] = { 10, 12, 11, 13, 40 };
	struct series_stat	st;

	(void)state;
	series_stats(v, ARRAY_SIZE(v), &st);
	assert_int_equal(st.n, 5);
	assert_near(st.mean, 17.2, 1e-12);
	/* Deviations -7.2 -5.2 -6.2 -4.2 22.8: squares sum to 654.8, / 4. */
	assert_near(st.sd, sqrt(654.8 / 4), 1e-12);
	assert_near(st.min, 10, 0);
	assert_near(st.max, 40, 0);
	assert_near(st.median, 12, 0);
	/* |v - 12| = 2 0 1 1 28: median 1. */
	assert_near(st.mad, 1, 0);
	assert_true(series_mzscore(&st, 40) > SERIES_OUTLIER_Z);
	assert_true(fabs(series_mzscore(&st, 13)) < SERIES_OUTLIER_Z);
}

static void
test_series_edge_cases(void **state)
{
	const double		one[] = { 5 }, same[] = { 3, 3, 3, 3 }, two[] = { 1, 2 };
	struct series_stat	st;

	(void)state;
	series_stats(one, 0, &st);
	assert_int_equal(st.n, 0);
	series_stats(one, 1, &st);
	assert_near(st.mean, 5, 0);
	assert_near(st.sd, 0, 0);
	series_stats(same, 4, &st);
	assert_near(st.mad, 0, 0);
	assert_near(series_mzscore(&st, 100), 0, 0);
	series_stats(two, 2, &st);
	assert_near(st.median, 1.5, 0);
	assert_near(st.sd, sqrt(0.5), 1e-12);
}

static void
test_equal_bounds(void **state)
{
	const double		v[4] = { 10.0, 14.0, NAN, 12.0 };
	const double		e[4] = { 0.5, 0.5, NAN, 0.5 };
	struct series_bound	b;

	(void)state;
	series_bound(v, e, 4, &b);
	assert_true(b.has);
	assert_float_equal(b.mean, 0.5, EPS);
	assert_float_equal(b.median, 0.5, EPS);
	assert_float_equal(b.min, 0.5, EPS);
	assert_float_equal(b.max, 0.5, EPS);
}

/*
 * Runs 10 +- 5, 11 +- 0, 12 +- 0: the truths may be 15, 11, 12, whose
 * median is 12, one off the measured 11, whose own run's bound is 0.
 */
static void
test_order_statistics(void **state)
{
	const double		v[3] = { 10.0, 11.0, 12.0 };
	const double		e[3] = { 5.0, 0.0, 0.0 };
	struct series_bound	b;

	(void)state;
	series_bound(v, e, 3, &b);
	assert_true(b.has);
	assert_float_equal(b.mean, 5.0 / 3, EPS);
	assert_float_equal(b.median, 1.0, EPS);	/* median of 15, 11, 12 is 12 */
	assert_float_equal(b.min, 5.0, EPS);	/* min of 5, 11, 12 is 5 */
	assert_float_equal(b.max, 3.0, EPS);	/* max of 15, 11, 12 is 15 */
}

static int
cmp_double(const void *a, const void *b)
{
	const double	*x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* Every truth the bounds allow (the corners) keeps each statistic within its bound. */
static void
test_contains_corners(void **state)
{
	const double		v[4] = { 3.0, 7.5, 4.0, 9.0 };
	const double		e[4] = { 1.0, 2.5, 0.2, 4.0 };
	double			t[4];
	struct series_bound	b;
	int			mask, i;
	double			lo, hi, x, y, med, tmed;

	(void)state;
	series_bound(v, e, 4, &b);
	med = (4.0 + 7.5) / 2;
	for (mask = 0; mask < 16; mask++) {
		lo = INFINITY;
		hi = -INFINITY;
		for (i = 0; i < 4; i++) {
			t[i] = v[i] + (mask & 1 << i ? e[i] : -e[i]);
			lo = fmin(lo, t[i]);
			hi = fmax(hi, t[i]);
		}
		/* The median of four: the mean of the two middle ones. */
		qsort(t, 4, sizeof t[0], cmp_double);
		x = t[1];
		y = t[2];
		tmed = (x + y) / 2;
		assert_true(fabs(lo - 3.0) <= b.min + EPS);
		assert_true(fabs(hi - 9.0) <= b.max + EPS);
		assert_true(fabs(tmed - med) <= b.median + EPS);
	}
	assert_float_equal(b.mean, (1.0 + 2.5 + 0.2 + 4.0) / 4, EPS);
}

static void
test_unknown(void **state)
{
	const double		v[3] = { 1.0, 2.0, 3.0 };
	const double		e[3] = { 0.1, NAN, 0.1 };
	const double		none[2] = { NAN, NAN };
	struct series_bound	b;

	(void)state;
	series_bound(v, e, 3, &b);
	assert_false(b.has);
	series_bound(none, none, 2, &b);
	assert_false(b.has);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_stats),
		cmocka_unit_test(test_series_edge_cases),
		cmocka_unit_test(test_equal_bounds),
		cmocka_unit_test(test_order_statistics),
		cmocka_unit_test(test_contains_corners),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
