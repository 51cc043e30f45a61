/*
 * Unit tests of the bounds in src/measure/account.c (HACKING.md,
 * "Measurement rules", Bounds): the counter's, the trapezoid's (and the
 * averaging window's), the P-state split of a counter delta at the
 * crossing instantaneous power implies, a change of state the readings
 * missed, and the time per clocks-event reason.  Each case plays a power
 * curve whose exact energy is worked out in its comment, and checks that
 * the figure is within its bound of it, and that the bound is not loose.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/account.h"
#include "joulestat/util.h"

#include "near.h"

#define MS(x)	((int64_t)(x) * NSEC_PER_MSEC)

/*
 * A piecewise-constant power curve: w[i] watts from at[i] ms until the next
 * step; the energy from 0 to t ms, in mJ, as an exact counter would read it
 * (truncated to whole mJ).
 */
struct curve {
	size_t	 n;
	int64_t	 at[8];
	double	 w[8];
	int	 pstate[8];
	unsigned mask[8];
};

static double
curve_mj(const struct curve *c, double t_ms)
{
	double	e = 0, hi;
	size_t	i;

	for (i = 0; i < c->n && (double)c->at[i] < t_ms; i++) {
		hi = i + 1 < c->n && (double)c->at[i + 1] < t_ms ? (double)c->at[i + 1] : t_ms;
		e += c->w[i] * (hi - (double)c->at[i]);	/* W x ms = mJ */
	}
	return e;
}

static size_t
curve_at(const struct curve *c, double t_ms)
{
	size_t	i = 0;

	while (i + 1 < c->n && (double)c->at[i + 1] <= t_ms)
		i++;
	return i;
}

/* The reading at t ms: instantaneous power, the counter, the P-state and the reasons. */
static struct sample
read_at(const struct curve *c, int64_t t_ms)
{
	struct sample	s;
	size_t		i = curve_at(c, (double)t_ms);

	memset(&s, 0, sizeof s);
	s.t_ns = MS(t_ms);
	s.valid = M_POWER | M_ENERGY | M_PSTATE | M_THROTTLE;
	s.power_mw = (uint32_t)lround(c->w[i] * 1000);
	s.energy_mj = (uint64_t)floor(curve_mj(c, (double)t_ms));
	s.pstate = c->pstate[i];
	s.throttle = c->mask[i];
	return s;
}

/* Readings every step_ms from 0 to end_ms into a fresh a. */
static void
play(struct dev_acct *a, const struct curve *c, int64_t step_ms, int64_t end_ms,
    enum power_kind kind, unsigned without)
{
	struct sample	s;
	int64_t		t;

	memset(a, 0, sizeof *a);
	a->power_kind = kind;
	for (t = 0; t <= end_ms; t += step_ms) {
		s = read_at(c, t);
		s.valid &= ~without;
		account_add(a, &s, 0);
	}
	account_finish(a);
}

/* The time and energy of state p in the curve over [0, end_ms]. */
static void
curve_state(const struct curve *c, int p, double end_ms, double *ms, double *mj)
{
	double	hi;
	size_t	i;

	*ms = *mj = 0;
	for (i = 0; i < c->n && (double)c->at[i] < end_ms; i++) {
		if (c->pstate[i] != p)
			continue;
		hi = i + 1 < c->n && (double)c->at[i + 1] < end_ms ? (double)c->at[i + 1] : end_ms;
		*ms += hi - (double)c->at[i];
		*mj += c->w[i] * (hi - (double)c->at[i]);
	}
}

/* |got - want| <= bound, and bound <= loose: the bound holds and is tight. */
static void
assert_bounded(const char *what, double got, double want, double bound, double loose)
{
	if (fabs(got - want) > bound || bound > loose)
		print_error("%s: %.6f vs %.6f, bound %.6f (at most %.6f)\n", what, got, want,
		    bound, loose);
	assert_true(fabs(got - want) <= bound);
	assert_true(bound <= loose);
}

/*
 * P0 at 300 W until 370 ms, then P8 at 50 W, read every 100 ms to 600 ms.
 * P0 has 370 ms and 111000 mJ, P8 230 ms and 11500 mJ.  The interval 300
 * to 400 ms holds the change: its counter delta, 300 x 70 + 50 x 30 =
 * 22500 mJ, with 300 W and 50 W at its ends, puts the crossing at 70 ms,
 * so the energies are exact to the counter's unit; the times are within
 * half the interval, 50 ms.
 */
static void
test_split_at_crossing(void **state)
{
	const struct curve	c = { 2, { 0, 370 }, { 300, 50 }, { 0, 8 }, { 0, 0 } };
	struct dev_acct		a;
	double			ms, mj;

	(void)state;
	play(&a, &c, 100, 600, POWER_KIND_INSTANT, 0);
	curve_state(&c, 0, 600, &ms, &mj);
	assert_bounded("P0 energy", a.states[0].energy_mj, mj,
	    account_state_energy_err_mj(&a, 0), 3);
	assert_bounded("P0 time", (double)a.states[0].time_ns / 1e6, ms,
	    (double)account_state_time_err_ns(&a, 0) / 1e6, 50);
	curve_state(&c, 8, 600, &ms, &mj);
	assert_bounded("P8 energy", a.states[8].energy_mj, mj,
	    account_state_energy_err_mj(&a, 8), 3);
	assert_bounded("P8 time", (double)a.states[8].time_ns / 1e6, ms,
	    (double)account_state_time_err_ns(&a, 8) / 1e6, 50);
	assert_true(a.hidden_ns == 0);
}

/*
 * The same change without the power readings: the delta is split in half,
 * and all of it (22500 mJ) could be either state's, so each bound is
 * the larger part, 11250 mJ, and still holds.
 */
static void
test_split_without_power(void **state)
{
	const struct curve	c = { 2, { 0, 370 }, { 300, 50 }, { 0, 8 }, { 0, 0 } };
	struct dev_acct		a;
	double			ms, mj;

	(void)state;
	play(&a, &c, 100, 600, POWER_KIND_INSTANT, M_POWER);
	curve_state(&c, 0, 600, &ms, &mj);
	assert_bounded("P0 energy", a.states[0].energy_mj, mj,
	    account_state_energy_err_mj(&a, 0), 11250 + 1);
	assert_near(account_state_energy_err_mj(&a, 0), 11250, 1);
}

/*
 * P8 at 50 W, P0 at 300 W from 50 ms, P8 again from 220 to 270 ms, P0
 * again: the readings at 200 and 300 ms both say P0 at 300 W, but the
 * counter's 17500 mJ (50 ms at 300 W and 50 ms at 50 W) is 175 W on
 * average, toward P8's power: the state changed between them.  That
 * interval (100 ms, 17500 mJ) widens both states' bounds, which then hold:
 * P8 has 100 ms where the split says 50.
 */
static void
test_hidden_change(void **state)
{
	const struct curve	c = { 4, { 0, 50, 220, 270 }, { 50, 300, 50, 300 },
				    { 8, 0, 8, 0 }, { 0, 0, 0, 0 } };
	struct dev_acct		a;
	double			ms, mj;

	(void)state;
	play(&a, &c, 100, 500, POWER_KIND_INSTANT, 0);
	assert_true(a.hidden_ns == MS(100));
	assert_near(a.hidden_mj, 17500, 1);
	curve_state(&c, 0, 500, &ms, &mj);
	assert_bounded("P0 time", (double)a.states[0].time_ns / 1e6, ms,
	    (double)account_state_time_err_ns(&a, 0) / 1e6, 150);
	assert_bounded("P0 energy", a.states[0].energy_mj, mj, account_state_energy_err_mj(&a, 0),
	    17500 + 10);
	curve_state(&c, 8, 500, &ms, &mj);
	assert_bounded("P8 time", (double)a.states[8].time_ns / 1e6, ms,
	    (double)account_state_time_err_ns(&a, 8) / 1e6, 150);
}

/*
 * One state whose power dips from 300 W to 250 W between two readings:
 * the counter disagrees with the readings, but there is no other state to
 * have changed to, so nothing widens the bound.
 */
static void
test_noise_not_hidden(void **state)
{
	const struct curve	c = { 3, { 0, 120, 170 }, { 300, 250, 300 }, { 0, 0, 0 },
				    { 0, 0, 0 } };
	struct dev_acct		a;

	(void)state;
	play(&a, &c, 100, 400, POWER_KIND_INSTANT, 0);
	assert_true(a.hidden_ns == 0);
	assert_true(account_state_time_err_ns(&a, 0) == 0);
}

/*
 * A lost reading at 200 ms: from 100 to 300 ms nothing says which state
 * held (the curve changes to P8 at 250 ms), so those 200 ms and their
 * energy (150 ms at 300 W and 50 at 50 W: 47500 mJ) count in every
 * state's bound, and P8's 350 ms and 17500 mJ are within it.
 */
static void
test_lost_widens(void **state)
{
	const struct curve	c = { 2, { 0, 250 }, { 300, 50 }, { 0, 8 }, { 0, 0 } };
	struct dev_acct		a;
	struct sample		s;
	double			ms, mj;
	int64_t			t;

	(void)state;
	memset(&a, 0, sizeof a);
	a.power_kind = POWER_KIND_INSTANT;
	for (t = 0; t <= 600; t += 100) {
		s = read_at(&c, t);
		if (t == 200) {
			memset(&s, 0, sizeof s);
			s.t_ns = MS(t);
			s.is_lost = true;
		}
		account_add(&a, &s, 0);
	}
	account_finish(&a);
	assert_true(a.hidden_ns == MS(200));
	curve_state(&c, 8, 600, &ms, &mj);
	assert_bounded("P8 time", (double)a.states[8].time_ns / 1e6, ms,
	    (double)account_state_time_err_ns(&a, 8) / 1e6, 200);
	assert_bounded("P8 energy", a.states[8].energy_mj, mj, account_state_energy_err_mj(&a, 8),
	    47500 + 1);
}

/*
 * Integrated from instantaneous readings every 100 ms: a step from 100 W to
 * 400 W at 250 ms is seen by the readings at 200 and 300 ms, so the
 * trapezoid gives that interval 25000 mJ where the truth is 5000 + 20000
 * = 25000 (exact at the middle); a step at 310 ms costs 300 W x 40 ms =
 * 12000 mJ of error at most 300 x 100 / 2 = 15000, the bound.
 */
static void
test_trapezoid_bound(void **state)
{
	const struct curve	c = { 2, { 0, 310 }, { 100, 400 }, { 0, 0 }, { 0, 0 } };
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	play(&a, &c, 100, 600, POWER_KIND_INSTANT, M_ENERGY);
	assert_int_equal(account_energy_mj(&a, &m) > 0, 1);
	assert_int_equal(m, ENERGY_TICKS);
	assert_bounded("readings", a.ticks_mj, curve_mj(&c, 600),
	    account_energy_err_mj(&a, ENERGY_TICKS), 15000);
	assert_near(account_energy_err_mj(&a, ENERGY_TICKS), 15000, 1e-6);
}

/*
 * Power read as a 1 s average: the bound adds one window of the larger of
 * the first and last readings' power, 400 W x 1 s here.
 */
static void
test_average_window(void **state)
{
	const struct curve	c = { 2, { 0, 310 }, { 100, 400 }, { 0, 0 }, { 0, 0 } };
	struct dev_acct		a;

	(void)state;
	play(&a, &c, 100, 600, POWER_KIND_AVERAGE_1S, M_ENERGY);
	assert_near(account_energy_err_mj(&a, ENERGY_TICKS), 15000 + 400000, 1e-6);
}

/*
 * The counter: its 1 mJ unit, and the peak power over the time the first
 * and last readings took (2 ms and 3 ms at 400 W: 2000 mJ).
 */
static void
test_counter_bound(void **state)
{
	const struct curve	c = { 2, { 0, 310 }, { 100, 400 }, { 0, 0 }, { 0, 0 } };
	struct dev_acct		a;
	struct sample		s;

	(void)state;
	memset(&a, 0, sizeof a);
	a.power_kind = POWER_KIND_INSTANT;
	s = read_at(&c, 0);
	s.read_ns = MS(2);
	account_add(&a, &s, 0);
	s = read_at(&c, 300);
	account_add(&a, &s, 0);
	s = read_at(&c, 600);
	s.read_ns = MS(3);
	account_add(&a, &s, 0);
	account_finish(&a);
	assert_near(account_energy_err_mj(&a, ENERGY_COUNTER), 1 + 2000, 1e-6);
	assert_bounded("counter", a.counter_mj, curve_mj(&c, 600),
	    account_energy_err_mj(&a, ENERGY_COUNTER), 2001);
}

/*
 * Reasons: idle until 150 ms, SW power cap from 150 ms, HW thermal with it
 * from 420 ms; read every 100 ms to 600 ms.  Idle has 150 ms (the split
 * says 150 exactly: 100 + half of 100), SW power cap 450 ms (the split
 * says 450), HW thermal 180 ms (the split says 150): each within half an
 * interval per change.  The power group counts SW power cap.
 */
static void
test_reasons(void **state)
{
	const struct curve	c = { 3, { 0, 150, 420 }, { 100, 300, 300 }, { 8, 0, 0 },
				    { THROTTLE_IDLE, THROTTLE_SW_POWER,
				      THROTTLE_SW_POWER | THROTTLE_HW_THERMAL } };
	struct dev_acct		a;

	(void)state;
	play(&a, &c, 100, 600, POWER_KIND_INSTANT, 0);
	assert_true(a.reason_cover_ns == MS(600));
	assert_bounded("idle", (double)a.reason_ns[0] / 1e6, 150,
	    (double)a.reason_err_ns[0] / 1e6, 50);
	assert_bounded("sw power cap", (double)a.reason_ns[2] / 1e6, 450,
	    (double)a.reason_err_ns[2] / 1e6, 50);
	assert_bounded("hw thermal", (double)a.reason_ns[6] / 1e6, 180,
	    (double)a.reason_err_ns[6] / 1e6, 50);
	assert_true(a.reason_ns[3] == 0 && a.reason_err_ns[3] == 0);
	assert_true(a.viol_ns[0] == a.reason_ns[2]);
	assert_true(a.viol_ns[1] == a.reason_ns[6]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_at_crossing),
		cmocka_unit_test(test_split_without_power),
		cmocka_unit_test(test_hidden_change),
		cmocka_unit_test(test_noise_not_hidden),
		cmocka_unit_test(test_lost_widens),
		cmocka_unit_test(test_trapezoid_bound),
		cmocka_unit_test(test_average_window),
		cmocka_unit_test(test_counter_bound),
		cmocka_unit_test(test_reasons),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
