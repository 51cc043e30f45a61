/*
 * Unit tests of the energy and P-state arithmetic in src/measure/account.c
 * (HACKING.md, "Measurement rules"): counter deltas with wrap and reset, the
 * trapezoid over uneven ticks (exact for piecewise-linear power), the
 * choice of method, lost readings, the P-state split at boundaries, and
 * the driver's power samples with their head and tail.  The window of
 * valid readings: test_window.c.  Expected values are worked out by hand
 * in the comments.
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
#include "joulestat/stats.h"
#include "joulestat/util.h"
#include "joulestat/window.h"

#include "near.h"
#include "samples.h"

static void
test_counter_delta(void **state)
{
	(void)state;
	/* Forward, and standing still. */
	assert_near(account_counter_delta(100, 250, 0), 150, 0);
	assert_near(account_counter_delta(100, 100, 0), 0, 0);
	assert_near(account_counter_delta(0, UINT32_MAX, 1000), UINT32_MAX, 0);
	/* A counter without a range never wraps: backwards is a reset. */
	assert_near(account_counter_delta(250, 100, 0), -1, 0);
	assert_near(account_counter_delta(UINT64_MAX - 5, 10, 0), -1, 0);
	/* Near the top of its range and back near 0: a wrap. */
	assert_near(account_counter_delta(990, 5, 1000), 15, 0);
	assert_near(account_counter_delta(600, 50, 1000), 450, 0);
	assert_near(account_counter_delta(UINT64_MAX - 5, 10, UINT64_MAX), 15, 0);
	/* RAPL's 2^32 - 1 uJ range, in mJ: 262143 with a little past it. */
	assert_near(account_counter_delta(262000, 100, 262143), 243, 0);
	/* Back by less than half the range, or from above the range: a reset. */
	assert_near(account_counter_delta(400, 300, 1000), -1, 0);
	assert_near(account_counter_delta(500, 0, 1000), -1, 0);
	assert_near(account_counter_delta(501, 0, 1000), 499, 0);
	assert_near(account_counter_delta(2000, 5, 1000), -1, 0);
}

/*
 * Power rises linearly from 50 W to 150 W over the first second, then
 * falls linearly to 30 W at 1.6 s, read at uneven times that include the
 * knee.  Energy: (50 + 150) / 2 * 1 + (150 + 30) / 2 * 0.6 = 154 J.
 */
static void
test_trapezoid_uneven_exact(void **state)
{
	static const int64_t	ms[] = { 0, 13, 200, 500, 770, 1000, 1090, 1333, 1600 };
	struct dev_acct		a;
	struct sample		s;
	enum energy_method	m;
	uint32_t		mw;
	size_t			i;

	(void)state;
	memset(&a, 0, sizeof a);
	for (i = 0; i < ARRAY_SIZE(ms); i++) {
		if (ms[i] <= 1000)
			mw = (uint32_t)(50000 + 100 * ms[i]);
		else
			mw = (uint32_t)(150000 - 200 * (ms[i] - 1000));
		s = pw(MS(ms[i]), mw);
		account_add(&a, &s, 0);
	}
	assert_near(account_energy_mj(&a, &m), 154000, 1e-6);
	assert_int_equal(m, ENERGY_TICKS);
	assert_true(a.ticks_ns == MS(1600));
	assert_true(a.first_ns == 0 && a.last_ns == MS(1600));
	assert_int_equal(a.peak_power_mw, 150000);
	assert_true(a.has_power && !a.has_counter && !a.has_points);
	assert_true(a.lost_samples == 0 && a.lost_ns == 0);
	/* With no P-state reading, all of it is "unknown". */
	assert_true(a.states[ACCOUNT_STATE_UNKNOWN].time_ns == MS(1600));
	assert_near(states_energy(&a), 154000, 1e-6);
}

static void
test_nothing_measured(void **state)
{
	struct dev_acct		a;
	struct sample		s;
	enum energy_method	m = ENERGY_TICKS;

	(void)state;
	memset(&a, 0, sizeof a);
	assert_near(account_energy_mj(&a, &m), 0, 0);
	assert_int_equal(m, ENERGY_NONE);
	/* One reading is no interval. */
	s = pw(SEC(5), 100000);
	account_add(&a, &s, 0);
	assert_near(account_energy_mj(&a, &m), 0, 0);
	assert_int_equal(m, ENERGY_NONE);
	/* Readings without power or energy give time but no energy. */
	memset(&a, 0, sizeof a);
	s.valid = M_TEMP;
	account_add(&a, &s, 0);
	s.t_ns += SEC(1);
	account_add(&a, &s, 0);
	assert_near(account_energy_mj(&a, &m), 0, 0);
	assert_int_equal(m, ENERGY_NONE);
	assert_true(states_time(&a) == SEC(1));
}

/* The counter says 120 J, the readings say 200 J: the counter wins. */
static void
test_counter_preferred(void **state)
{
	const struct sample	s[] = {
		pwe(0, 100000, 7000),
		pwe(SEC(1), 100000, 57000),
		pwe(SEC(2), 100000, 127000),
	};
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_near(account_energy_mj(&a, &m), 120000, 0);
	assert_int_equal(m, ENERGY_COUNTER);
	assert_near(a.ticks_mj, 200000, 1e-9);
	assert_true(a.counter_wraps == 0 && a.counter_resets == 0);
	assert_near(states_energy(&a), 120000, 1e-9);
}

/* Range 1000 mJ: 900 -> 980 -> 30 -> 100 is 80 + 50 + 70 = 200 mJ, one wrap. */
static void
test_counter_wrap(void **state)
{
	const struct sample	s[] = {
		pwe(0, 1, 900),
		pwe(SEC(1), 1, 980),
		pwe(SEC(2), 1, 30),
		pwe(SEC(3), 1, 100),
	};
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 1000);
	assert_near(account_energy_mj(&a, &m), 200, 0);
	assert_int_equal(m, ENERGY_COUNTER);
	assert_true(a.counter_wraps == 1);
	assert_true(a.counter_resets == 0 && a.counter_gap_ns == 0);
}

/*
 * The counter goes 5000 -> 6000 -> 100 (reset) -> 600.  The reset
 * interval is filled from power, (10 W + 20 W) / 2 * 1 s = 15 J, so the
 * total is 1000 + 15000 + 500 mJ.
 */
static void
test_counter_reset_filled_from_power(void **state)
{
	const struct sample	s[] = {
		pwe(0, 10000, 5000),
		pwe(SEC(1), 10000, 6000),
		pwe(SEC(2), 20000, 100),
		pwe(SEC(3), 20000, 600),
	};
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_near(account_energy_mj(&a, &m), 16500, 1e-9);
	assert_int_equal(m, ENERGY_COUNTER);
	assert_true(a.counter_resets == 1);
	assert_true(a.counter_gap_ns == SEC(1));
	assert_true(a.counter_wraps == 0);
	assert_near(states_energy(&a), 16500, 1e-9);

	/* Without power to fill it, the reset interval adds nothing, but is counted. */
	memset(&a, 0, sizeof a);
	{
		struct sample	e[ARRAY_SIZE(s)];
		size_t		i;

		for (i = 0; i < ARRAY_SIZE(s); i++) {
			e[i] = s[i];
			e[i].valid = M_ENERGY;
		}
		add_all(&a, e, ARRAY_SIZE(e), 0);
	}
	assert_near(account_energy_mj(&a, &m), 1500, 0);
	assert_int_equal(m, ENERGY_COUNTER);
	assert_true(a.counter_resets == 1 && a.counter_gap_ns == SEC(1));
}

/*
 * 100 W for one second, two lost readings, then 300 W for one second, on
 * a device without a counter.  The interval around the lost readings
 * (1 s to 3 s) is bridged by the trapezoid between the readings around
 * it, and counted as bridged: 100 + 400 + 300 = 800 J over 4 s, 2 s of
 * them without readings.
 */
static void
test_lost_excluded(void **state)
{
	const struct sample	s[] = {
		pwp(0, 100000, 0),
		pwp(SEC(1), 100000, 0),
		lost(MS(2000)),
		lost(MS(2500)),
		pwp(SEC(3), 300000, 0),
		pwp(SEC(4), 300000, 0),
	};
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_near(account_energy_mj(&a, &m), 800000, 1e-9);
	assert_int_equal(m, ENERGY_TICKS);
	assert_true(a.ticks_ns == SEC(4));
	assert_true(a.bridged_ns == SEC(2));
	assert_true(a.lost_samples == 2);
	assert_true(a.lost_ns == SEC(2));
	/* The bridged energy is the unknown state's, known but estimated. */
	assert_near(a.states[ACCOUNT_STATE_UNKNOWN].energy_mj, 400000, 1e-9);
	assert_true(a.first_ns == 0 && a.last_ns == SEC(4));
	/* The gap's time is kept, under "unknown" P-state. */
	assert_true(a.states[0].time_ns == SEC(2));
	assert_true(a.states[ACCOUNT_STATE_UNKNOWN].time_ns == SEC(2));
	assert_true(states_time(&a) == a.last_ns - a.first_ns);
}

/*
 * A device that fails its very first reading and then answers: the two
 * good readings that follow have nothing lost between them, so their
 * interval is integrated like any other and no time inside the window
 * was lost.
 */
static void
test_lost_before_first_reading(void **state)
{
	const struct sample	s[] = {
		lost(0),
		pwp(SEC(1), 100000, 2),
		pwp(SEC(2), 100000, 2),
	};
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_true(a.lost_samples == 1);
	assert_near(account_energy_mj(&a, &m), 100000, 1e-9);
	assert_int_equal(m, ENERGY_TICKS);
	assert_true(a.ticks_ns == SEC(1));
	/* The second before the first good reading went unmeasured: lost time. */
	assert_true(a.lost_ns == SEC(1));
	assert_true(account_covered_ns(&a, m) == SEC(1));
	assert_true(account_span_ns(&a) == SEC(2));
	assert_true(a.states[2].time_ns == SEC(1));
}

static void
test_pstate_same_state(void **state)
{
	struct sample	s[] = {
		pwp(0, 20000, 2),
		pwp(MS(1500), 40000, 2),
	};
	struct dev_acct	a;

	(void)state;
	s[0].valid |= M_SM_CLOCK;
	s[0].sm_mhz = 1000;
	s[1].valid |= M_SM_CLOCK;
	s[1].sm_mhz = 1400;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_true(a.has_states);
	assert_true(a.states[2].time_ns == MS(1500));
	assert_near(a.states[2].energy_mj, 45000, 1e-9);
	assert_true(a.states[2].sm_clock_ns == MS(1500));
	assert_near(a.states[2].sm_mhz_ns / (double)a.states[2].sm_clock_ns, 1200, 1e-9);
	/* No graphics clock was read: none is known. */
	assert_true(a.states[2].clock_ns == 0);
	assert_true(states_time(&a) == MS(1500));
}

/*
 * P0 at 30 W, then P8 at 10 W, 1 s + 1 ns apart: P0 gets the first
 * 500000000 ns, P8 the other 500000001 ns.  Energy (30 + 10) / 2 W over
 * the interval is split by the end powers, 3/4 to P0 and 1/4 to P8.
 */
static void
test_pstate_different_states(void **state)
{
	const int64_t	dt = SEC(1) + 1;
	struct sample	s[] = {
		pwp(0, 30000, 0),
		pwp(dt, 10000, 8),
	};
	struct dev_acct	a;
	double		e = 20000.0 * (double)dt / 1e9;

	(void)state;
	s[0].valid |= M_SM_CLOCK;
	s[0].sm_mhz = 1980;
	s[1].valid |= M_SM_CLOCK;
	s[1].sm_mhz = 210;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_true(a.states[0].time_ns == 500000000);
	assert_true(a.states[8].time_ns == 500000001);
	assert_near(a.states[0].energy_mj, 0.75 * e, 1e-9);
	assert_near(a.states[8].energy_mj, 0.25 * e, 1e-9);
	assert_true(a.states[0].sm_clock_ns == 500000000);
	assert_near(a.states[0].sm_mhz_ns / (double)a.states[0].sm_clock_ns, 1980, 1e-9);
	assert_near(a.states[8].sm_mhz_ns / (double)a.states[8].sm_clock_ns, 210, 1e-9);
	assert_true(states_time(&a) == dt);

	/* With a counter, its delta is what gets split: 1000 mJ as 750 and 250. */
	memset(&a, 0, sizeof a);
	s[0].valid |= M_ENERGY;
	s[0].energy_mj = 40000;
	s[1].valid |= M_ENERGY;
	s[1].energy_mj = 41000;
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_near(a.states[0].energy_mj, 750, 1e-9);
	assert_near(a.states[8].energy_mj, 250, 1e-9);

	/* No power at either end: half each. */
	memset(&a, 0, sizeof a);
	s[0].power_mw = 0;
	s[1].power_mw = 0;
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_near(a.states[0].energy_mj, 500, 1e-9);
	assert_near(a.states[8].energy_mj, 500, 1e-9);
}

/* No P-state bit, PSTATE_UNKNOWN, or a number out of range: the unknown slot. */
static void
test_pstate_unknown_slot(void **state)
{
	struct sample	s[] = {
		pwp(0, 1000, 3),
		pw(SEC(1), 1000),
		pwp(SEC(2), 1000, PSTATE_UNKNOWN),
		pwp(SEC(3), 1000, PSTATE_MAX + 1),
		pwp(SEC(4), 1000, -7),
		pwp(SEC(5), 1000, PSTATE_MAX),
	};
	struct dev_acct	a;
	int		i;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_true(a.states[3].time_ns == MS(500));
	assert_true(a.states[PSTATE_MAX].time_ns == MS(500));
	assert_true(a.states[ACCOUNT_STATE_UNKNOWN].time_ns == MS(4000));
	for (i = 0; i < ACCOUNT_NSTATES; i++) {
		if (i != 3 && i != PSTATE_MAX && i != ACCOUNT_STATE_UNKNOWN)
			assert_true(a.states[i].time_ns == 0);
	}
	assert_true(states_time(&a) == SEC(5));
	assert_near(states_energy(&a), 5000, 1e-9);
}

/*
 * The driver's samples: 10 W at 0.1 s, 20 W at 0.4 s and 0.9 s, 40 W at
 * 1.5 s (0.9 s delivered twice), readings at 0, 1 and 2 s that say 5 W.
 * Head: the first sample's 10 W from the first reading, 10 * 0.1 = 1 J.
 * Trapezoids: 15 * 0.3 + 20 * 0.5 + 30 * 0.6 = 32.5 J.  Tail: the last
 * sample's 40 W until the last reading, 40 * 0.5 = 20 J.  Total 53.5 J.
 */
static const struct power_point POINTS_1[] = {
	{ MS(100), 10000 }, { MS(400), 20000 }, { MS(900), 20000 },
};
static const struct power_point POINTS_2[] = {
	{ MS(400), 99000 }, { MS(900), 20000 }, { MS(1500), 40000 },
};
static const struct power_point POINTS_0[] = {
	{ -MS(100), 999000 },
};

static void
add_points_run(struct dev_acct *a)
{
	struct sample	s[] = { pwp(0, 5000, 0), pwp(SEC(1), 5000, 0), pwp(SEC(2), 5000, 0) };
	size_t		i;

	s[0].points = POINTS_0;
	s[0].npoints = ARRAY_SIZE(POINTS_0);
	s[1].points = POINTS_1;
	s[1].npoints = ARRAY_SIZE(POINTS_1);
	s[2].points = POINTS_2;
	s[2].npoints = ARRAY_SIZE(POINTS_2);
	for (i = 0; i < ARRAY_SIZE(s); i++) {
		s[i].valid |= M_POWER_POINTS;
		account_add(a, &s[i], 0);
	}
	account_finish(a);
}

static void
test_points_head_tail(void **state)
{
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	memset(&a, 0, sizeof a);
	add_points_run(&a);
	assert_near(account_energy_mj(&a, &m), 53500, 1e-9);
	assert_int_equal(m, ENERGY_POINTS);
	/* The readings' own integral is kept beside it. */
	assert_near(a.ticks_mj, 10000, 1e-9);
	/* account_finish carried the last sample's power to the last reading. */
	assert_true(a.last_point_ns == SEC(2));
	assert_int_equal(a.last_point_mw, 40000);
}

/* account.h: "energy per state uses the same source as energy_mj()". */
static void
test_points_states_match_total(void **state)
{
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	memset(&a, 0, sizeof a);
	add_points_run(&a);
	assert_near(states_energy(&a), account_energy_mj(&a, &m), 1e-6);
}

/*
 * Driver samples every 100 ms, readings every 25 ms, a constant 100 W:
 * 40 J over 0.4 s by any method, and the P-states must not count the
 * intervals without a new driver sample twice.
 */
static void
test_points_slower_than_ticks(void **state)
{
	struct power_point	pts[4];
	struct dev_acct		a;
	struct sample		s;
	enum energy_method	m;
	int			i;

	(void)state;
	memset(&a, 0, sizeof a);
	for (i = 0; i <= 16; i++) {
		s = pwp(MS(25 * i), 100000, 0);
		s.valid |= M_POWER_POINTS;
		if (i > 0 && i % 4 == 0) {
			pts[i / 4 - 1].t_ns = MS(25 * i);
			pts[i / 4 - 1].power_mw = 100000;
			s.points = &pts[i / 4 - 1];
			s.npoints = 1;
		}
		account_add(&a, &s, 0);
	}
	account_finish(&a);
	assert_near(account_energy_mj(&a, &m), 40000, 1e-6);
	assert_int_equal(m, ENERGY_POINTS);
	assert_true(a.states[0].time_ns == MS(400));
	assert_near(a.states[0].energy_mj, 40000, 1e-6);
}

static void
test_throttle_and_peak(void **state)
{
	struct sample	s[] = { pw(0, 5000), pw(SEC(1), 250000), pw(SEC(2), 7000) };
	struct dev_acct	a;

	(void)state;
	s[1].throttle = THROTTLE_SW_POWER;
	s[2].throttle = THROTTLE_HW_THERMAL | THROTTLE_OTHER;
	s[1].valid |= M_THROTTLE;
	s[2].valid |= M_THROTTLE;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_int_equal(a.peak_power_mw, 250000);
	assert_true(a.throttled_samples == 2);
}

/* A reading whose energy call failed: the next counter delta covers it. */
static void
test_counter_bridges_failed_read(void **state)
{
	struct sample		s[] = { pwe(0, 100000, 5000), pw(SEC(1), 100000),
				    pwe(SEC(2), 100000, 205000) };
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_near(account_energy_mj(&a, &m), 200000, 0);
	assert_int_equal(m, ENERGY_COUNTER);
	assert_int_equal(a.counter_resets, 0);
}

/* A reading whose power call failed: the trapezoid spans it. */
static void
test_power_bridges_failed_read(void **state)
{
	struct sample		s[] = { pw(0, 100000), pw(SEC(1), 0), pw(SEC(2), 300000) };
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	s[1].valid = 0;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	/* (100 + 300) / 2 W over 2 s. */
	assert_near(account_energy_mj(&a, &m), 400000, 1e-9);
	assert_int_equal(m, ENERGY_TICKS);
	assert_true(a.ticks_ns == SEC(2));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_delta),
		cmocka_unit_test(test_trapezoid_uneven_exact),
		cmocka_unit_test(test_nothing_measured),
		cmocka_unit_test(test_counter_preferred),
		cmocka_unit_test(test_counter_wrap),
		cmocka_unit_test(test_counter_reset_filled_from_power),
		cmocka_unit_test(test_lost_excluded),
		cmocka_unit_test(test_lost_before_first_reading),
		cmocka_unit_test(test_pstate_same_state),
		cmocka_unit_test(test_pstate_different_states),
		cmocka_unit_test(test_pstate_unknown_slot),
		cmocka_unit_test(test_points_head_tail),
		cmocka_unit_test(test_points_states_match_total),
		cmocka_unit_test(test_points_slower_than_ticks),
		cmocka_unit_test(test_throttle_and_peak),
		cmocka_unit_test(test_counter_bridges_failed_read),
		cmocka_unit_test(test_power_bridges_failed_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
