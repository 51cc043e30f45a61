/*
 * Unit tests of the sampler's lateness statistics in src/measure/tickstats.c:
 * counts, the exact maximum, an empty histogram, and quantiles of known
 * distributions against the exact nearest-rank quantile computed here
 * from the same values.  tickstats.h promises quantiles within 6.25%, never below.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/tickstats.h"
#include "joulestat/util.h"

#define TOLERANCE	0.0625

/* The values of one distribution, sorted, and the histogram built from them. */
struct dist {
	int64_t			*v;
	size_t			 n;
	struct tickstats	 ts;
};

static int
cmp_i64(const void *x, const void *y)
{
	const int64_t	*a = x, *b = y;

	return (*a > *b) - (*a < *b);
}

static void
dist_finish(struct dist *d)
{
	size_t	i;

	memset(&d->ts, 0, sizeof d->ts);
	for (i = 0; i < d->n; i++)
		tickstats_add(&d->ts, d->v[i], 0);
	qsort(d->v, d->n, sizeof *d->v, cmp_i64);
}

/* Nearest rank: the smallest value with at least q * n values at or below it. */
static int64_t
exact_quantile(const struct dist *d, double q)
{
	size_t	rank = (size_t)ceil(q * (double)d->n);

	if (rank == 0)
		rank = 1;
	return d->v[rank - 1];
}

/* The largest relative error over q = 0.001, 0.002, ..., 1; also where. */
static double
worst_error(const struct dist *d, double *worst_q, int64_t *worst_exact, int64_t *worst_got)
{
	double	err, worst = 0, q;
	int64_t	want, got;
	int	k;

	for (k = 1; k <= 1000; k++) {
		q = k / 1000.0;
		want = exact_quantile(d, q);
		got = tickstats_quantile(&d->ts, q);
		err = want > 0 ? fabs((double)(got - want)) / (double)want : (double)got;
		if (err > worst) {
			worst = err;
			*worst_q = q;
			*worst_exact = want;
			*worst_got = got;
		}
	}
	return worst;
}

static void
assert_within_tolerance(const struct dist *d, const char *name)
{
	double	q = 0, err;
	int64_t	want = 0, got = 0;

	err = worst_error(d, &q, &want, &got);
	if (err > TOLERANCE)
		print_error("%s: q=%.3f exact %lld got %lld: %.2f%% off\n", name, q,
		    (long long)want, (long long)got, 100 * err);
	assert_true(err <= TOLERANCE);
}

/* Every reported quantile is an upper edge: never below the exact one. */
static void
assert_never_below(const struct dist *d)
{
	int64_t	want, got;
	int	k;

	for (k = 1; k <= 1000; k++) {
		want = exact_quantile(d, k / 1000.0);
		got = tickstats_quantile(&d->ts, k / 1000.0);
		if (got < want)
			print_error("q=%.3f: %lld below exact %lld\n", k / 1000.0, (long long)got,
			    (long long)want);
		assert_true(got >= want);
		/* One sixteenth of an octave is the widest a bucket gets. */
		assert_true((double)got <= (double)want * (1 + 1.0 / TICKSTATS_SUB));
	}
}

static void
dist_free(struct dist *d)
{
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

/* Each distribution test owns one struct dist, freed even when it fails. */
static int
dist_setup(void **state)
{
	struct dist	*d;

	if ((d = calloc(1, sizeof *d)) == NULL)
		return -1;
	*state = d;
	return 0;
}

static int
dist_teardown(void **state)
{
	dist_free(*state);
	free(*state);
	return 0;
}

/* Uniform lateness 1 ns .. n ns, each once. */
static void
dist_uniform(struct dist *d, size_t n)
{
	size_t	i;

	dist_free(d);
	d->n = n;
	d->v = calloc(n, sizeof *d->v);
	assert_non_null(d->v);
	for (i = 0; i < n; i++)
		d->v[i] = (int64_t)(i + 1);
	dist_finish(d);
}

/* Exponential lateness with the given mean, by its inverse CDF at even steps. */
static void
dist_exponential(struct dist *d, size_t n, double mean_ns)
{
	size_t	i;

	dist_free(d);
	d->n = n;
	d->v = calloc(n, sizeof *d->v);
	assert_non_null(d->v);
	for (i = 0; i < n; i++)
		d->v[i] = (int64_t)llround(-mean_ns * log(1 - ((double)i + 0.5) / (double)n));
	dist_finish(d);
}

/* Log-uniform lateness from 10 us to 50 ms: a timer on a busy machine. */
static void
dist_log_uniform(struct dist *d, size_t n)
{
	size_t	i;

	dist_free(d);
	d->n = n;
	d->v = calloc(n, sizeof *d->v);
	assert_non_null(d->v);
	for (i = 0; i < n; i++)
		d->v[i] = (int64_t)llround(1e4 * pow(5000.0, (double)i / (double)(n - 1)));
	dist_finish(d);
}

static void
test_empty(void **state)
{
	struct tickstats	ts;

	(void)state;
	memset(&ts, 0, sizeof ts);
	assert_int_equal(tickstats_quantile(&ts, 0.5), 0);
	assert_int_equal(tickstats_quantile(&ts, 0.99), 0);
	assert_int_equal(tickstats_quantile(&ts, 1.0), 0);
	assert_true(ts.ticks == 0 && ts.missed == 0 && ts.late_max_ns == 0);
}

static void
test_counts_and_missed(void **state)
{
	struct tickstats	ts;

	(void)state;
	memset(&ts, 0, sizeof ts);
	tickstats_add(&ts, 1000, 0);
	tickstats_add(&ts, 2000, 3);
	tickstats_add(&ts, 500, 0);
	tickstats_add(&ts, 100, 1);
	assert_true(ts.ticks == 4);
	assert_true(ts.missed == 4);
	assert_true(ts.late_max_ns == 2000);
}

static void
test_max_exact(void **state)
{
	static const int64_t	late[] = { 5, 123456789, 17, 1000001, 987654321, 3 };
	struct tickstats	ts;
	size_t			i;

	(void)state;
	memset(&ts, 0, sizeof ts);
	for (i = 0; i < ARRAY_SIZE(late); i++)
		tickstats_add(&ts, late[i], 0);
	assert_true(ts.late_max_ns == 987654321);
	/* The 1-quantile is the maximum itself, not its bucket's edge. */
	assert_int_equal(tickstats_quantile(&ts, 1.0), 987654321);
}

static void
test_negative_is_on_time(void **state)
{
	struct tickstats	ts;

	(void)state;
	memset(&ts, 0, sizeof ts);
	tickstats_add(&ts, -5000, 0);
	tickstats_add(&ts, 0, 0);
	assert_true(ts.ticks == 2);
	assert_true(ts.late_max_ns == 0);
	assert_int_equal(tickstats_quantile(&ts, 0.5), 0);
	assert_int_equal(tickstats_quantile(&ts, 1.0), 0);
}

static void
test_small_values_exact(void **state)
{
	struct tickstats	ts;
	int64_t			v;

	(void)state;
	memset(&ts, 0, sizeof ts);
	for (v = 1; v <= 16; v++)
		tickstats_add(&ts, v, 0);
	for (v = 1; v <= 16; v++)
		assert_int_equal(tickstats_quantile(&ts, (double)v / 16), v);
}

static void
test_constant_exact(void **state)
{
	static const int64_t	values[] = { 1, 999, 1024, 65537, 100000000, 59999999999 };
	struct tickstats	ts;
	size_t			i, k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(values); i++) {
		memset(&ts, 0, sizeof ts);
		for (k = 0; k < 1000; k++)
			tickstats_add(&ts, values[i], 0);
		assert_true(tickstats_quantile(&ts, 0.5) == values[i]);
		assert_true(tickstats_quantile(&ts, 0.99) == values[i]);
	}
}

static void
test_upper_edge_property(void **state)
{
	struct dist	*d = *state;

	dist_uniform(d, 100000);
	assert_never_below(d);
	dist_exponential(d, 50000, 250000);
	assert_never_below(d);
	dist_log_uniform(d, 50000);
	assert_never_below(d);
}

static void
test_quantiles_uniform(void **state)
{
	struct dist	*d = *state;

	dist_uniform(d, 100000);
	assert_within_tolerance(d, "uniform 1..100000 ns");
}

static void
test_quantiles_exponential(void **state)
{
	struct dist	*d = *state;

	dist_exponential(d, 50000, 250000);
	assert_within_tolerance(d, "exponential, mean 250 us");
}

static void
test_quantiles_log_uniform(void **state)
{
	struct dist	*d = *state;

	dist_log_uniform(d, 50000);
	assert_within_tolerance(d, "log-uniform 10 us..50 ms");
}

/* The example the sampler cares about: p99 of mostly small lateness. */
static void
test_p99_two_modes(void **state)
{
	struct tickstats	ts;
	int			i;

	(void)state;
	memset(&ts, 0, sizeof ts);
	for (i = 0; i < 9900; i++)
		tickstats_add(&ts, 50000 + i, 0);
	for (i = 0; i < 100; i++)
		tickstats_add(&ts, 20000000 + 1000 * i, 0);
	/* Nearest rank 9900 is 59899 ns; rank 9901 is the first slow tick. */
	assert_true(fabs((double)tickstats_quantile(&ts, 0.99) - 59899) <= TOLERANCE * 59899);
	assert_true(fabs((double)tickstats_quantile(&ts, 0.995) - 20049000) <=
	    TOLERANCE * 20049000);
	assert_true(tickstats_quantile(&ts, 1.0) == 20099000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_counts_and_missed),
		cmocka_unit_test(test_max_exact),
		cmocka_unit_test(test_negative_is_on_time),
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_constant_exact),
		cmocka_unit_test_setup_teardown(test_upper_edge_property, dist_setup,
		    dist_teardown),
		cmocka_unit_test_setup_teardown(test_quantiles_uniform, dist_setup,
		    dist_teardown),
		cmocka_unit_test_setup_teardown(test_quantiles_exponential, dist_setup,
		    dist_teardown),
		cmocka_unit_test_setup_teardown(test_quantiles_log_uniform, dist_setup,
		    dist_teardown),
		cmocka_unit_test(test_p99_two_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
