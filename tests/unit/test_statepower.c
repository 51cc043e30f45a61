/*
 * Unit tests of src/measure/statepower.c: each P-state's power from the
 * counter's deltas over intervals that stood for it, and the split of a
 * changing interval's delta at the crossing those powers imply.  A GPU
 * at 300 W in P0 and 50 W in P8 read every 100 ms: an interval that
 * spends x ms in P0, then 100 - x in P8, has a counter delta of
 * 300 x + 50 (100 - x) mJ, of which 300 x belong to P0.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/account.h"
#include "joulestat/statepower.h"

#include "near.h"

static void
fill(struct state_power *p0, struct state_power *p8, double p0_lo_w, double p0_hi_w)
{
	memset(p0, 0, sizeof *p0);
	memset(p8, 0, sizeof *p8);
	/* Three 100 ms intervals in each state; P0's power within [lo, hi]. */
	statepower_add(p0, p0_lo_w * 100, 0.1);
	statepower_add(p0, p0_hi_w * 100, 0.1);
	statepower_add(p0, (p0_lo_w + p0_hi_w) / 2 * 100, 0.1);
	statepower_add(p8, 50 * 100, 0.1);
	statepower_add(p8, 50 * 100, 0.1);
	statepower_add(p8, 50 * 100, 0.1);
}

/* Constant power in each state: the crossing is exact, for every x. */
static void
test_exact_crossing(void **state)
{
	struct state_power	p0, p8;
	double			ea, err, x;

	(void)state;
	fill(&p0, &p8, 300, 300);
	assert_near(statepower_mw(&p0), 300000, 1e-6);
	for (x = 0; x <= 100; x += 12.5) {
		assert_true(statepower_split(&p0, &p8, 300 * x + 50 * (100 - x), 0.1, 0, &ea,
		    &err));
		assert_near(ea, 300 * x, 1e-6);
		/* The counter's quantum at both ends of every interval, no more. */
		assert_true(err >= 0 && err <= 0.04 * 300 * 100 + 4);
		/* The other way round: P8, then P0. */
		assert_true(statepower_split(&p8, &p0, 50 * x + 300 * (100 - x), 0.1, 0, &ea,
		    &err));
		assert_near(ea, 50 * x, 1e-6);
	}
}

/*
 * P0's power anywhere in [280, 300] W: the truth of any such interval is
 * within the bound, and the bound is of the size the range allows (at
 * most 20 W x 100 ms plus the margin and the quantum), not all or none.
 */
static void
test_bound_holds(void **state)
{
	struct state_power	p0, p8;
	double			ea, err, x, w;

	(void)state;
	fill(&p0, &p8, 280, 300);
	for (w = 280; w <= 300; w += 5) {
		for (x = 5; x <= 95; x += 15) {
			assert_true(statepower_split(&p0, &p8, w * x + 50 * (100 - x), 0.1,
			    0.0002, &ea, &err));
			if (!(fabs(ea - w * x) <= err))
				fail_msg("P0 at %.0f W for %.0f ms: %.1f mJ vs %.1f, bound %.1f",
				    w, x, ea, w * x, err);
			assert_true(err < 0.1 * 300 * 100);
		}
	}
}

/* States whose powers overlap cannot be told apart by the counter; nor a state never seen. */
static void
test_cannot_tell(void **state)
{
	struct state_power	a, b, none;
	double			ea = -1, err = -1;

	(void)state;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	memset(&none, 0, sizeof none);
	statepower_add(&a, 100 * 100, 0.1);
	statepower_add(&b, 101 * 100, 0.1);
	assert_false(statepower_split(&a, &b, 100 * 50 + 101 * 50, 0.1, 0, &ea, &err));
	assert_false(statepower_split(&a, &none, 100 * 50, 0.1, 0, &ea, &err));
	assert_near(ea, -1, 0);
	assert_near(statepower_mw(&none), -1, 0);
}

/* A delta beyond both powers (a change the readings missed): all or none at most. */
static void
test_all_or_none(void **state)
{
	struct state_power	p0, p8;
	double			ea, err, e = 400 * 100;

	(void)state;
	fill(&p0, &p8, 300, 300);
	assert_true(statepower_split(&p0, &p8, e, 0.1, 0, &ea, &err));
	assert_true(ea >= 0 && ea <= e);
	assert_true(err <= fmax(ea, e - ea) + 1e-9);
}

/* Split again at the end: the part moves to what the estimates say. */
static void
test_resplit(void **state)
{
	struct state_power	est[ACCOUNT_NSTATES];
	struct split_later	l = { 300 * 30 + 50 * 70, 0.1, 0, (300 * 30 + 50 * 70) / 2.0,
	    (300 * 30 + 50 * 70) / 2.0, 0, 8 };
	double			d_ea, d_err;

	(void)state;
	memset(est, 0, sizeof est);
	assert_false(statepower_resplit(est, &l, &d_ea, &d_err));
	fill(&est[0], &est[8], 300, 300);
	assert_true(statepower_resplit(est, &l, &d_ea, &d_err));
	assert_near(l.ea_mj, 300 * 30, 1e-6);
	assert_near(d_ea, 300 * 30 - (300 * 30 + 50 * 70) / 2.0, 1e-6);
	assert_true(d_err < 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_crossing),
		cmocka_unit_test(test_bound_holds),
		cmocka_unit_test(test_cannot_tell),
		cmocka_unit_test(test_all_or_none),
		cmocka_unit_test(test_resplit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
