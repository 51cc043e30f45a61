/*
 * Unit tests of held stretches in the accounting (src/measure/account.c,
 * account_states.c; HACKING.md, "Measurement rules", Validity): readings
 * without power, or without the energy counter, whose energy comes with a
 * later reading and goes to the P-states of the time it covers; what a
 * counter reset or lost readings leave; and when the energy so far is
 * unknown meanwhile.  Expected values are worked out by hand in the
 * comments.
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
#include "samples.h"

/*
 * A power-only device whose sensors do not answer for 1.5 s (amdgpu while
 * runtime-suspended, or a driver busy): neither power nor the P-state is
 * read, at 100 ms readings.  The integral spans the stretch, and its
 * energy goes to the states that held its time, not to the last interval:
 * every state's power is over the time its energy covers.  Before: the
 * unknown state got half of 150 J over 50 ms (3107 W in a run).
 */
static void
test_power_gap_states(void **state)
{
	struct dev_acct		a;
	struct sample		s;
	enum energy_method	m;
	const struct pstate_acct *u, *z;
	uint32_t		after;
	int			t, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		/* 100 W on both sides, then 100 W before and 300 W after. */
		after = k == 0 ? 100000 : 300000;
		memset(&a, 0, sizeof a);
		for (t = 0; t <= 2400; t += 100) {
			if (t <= 400 || t >= 2000)
				s = pwp(MS(t), t <= 400 ? 100000 : after, 0);
			else {
				s = pw(MS(t), 0);
				s.valid = 0;
			}
			account_add(&a, &s, 0);
		}
		u = &a.states[ACCOUNT_STATE_UNKNOWN];
		z = &a.states[0];
		/* Half of 400..500, 500..1900, half of 1900..2000. */
		assert_true(u->time_ns == MS(1500));
		assert_true(u->energy_ns == u->time_ns);
		assert_true(z->energy_ns == z->time_ns);
		assert_near(states_energy(&a), account_energy_mj(&a, &m), 1e-6);
		assert_int_equal(m, ENERGY_TICKS);
		if (k == 0) {
			assert_near(u->energy_mj, 150000, 1e-6);
			assert_near(z->energy_mj, 90000, 1e-6);
		} else {
			/* Each state's power within what the readings around allow. */
			assert_in_range(u->energy_mj / 1.5, 100000, 300000);
			assert_in_range(z->energy_mj / ((double)z->time_ns / 1e9), 100000, 300000);
			/* 200 W apart over the 1.4 s held: 280 J either way. */
			assert_true(u->energy_err_mj >= 200000.0 * 1.4 - 1e-6);
		}
	}
}

/*
 * What is held waits only for the integral that spans it.  Before the
 * first power reading nothing is held (no integral will reach back); a
 * stretch after lost readings brings its energy into every state's bound,
 * as the lost time is.
 */
static void
test_power_gap_edges(void **state)
{
	struct sample	s1[] = { ps_only(0, 1), ps_only(SEC(1), 1), pwp(SEC(2), 100000, 0),
			    pwp(SEC(3), 100000, 0), ps_only(SEC(4), 0), pwp(SEC(5), 100000, 0) };
	struct sample	s2[] = { pw(0, 100000), lost(SEC(1)), pw(SEC(2), 0), pw(SEC(3), 100000) };
	struct dev_acct	a;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s1, ARRAY_SIZE(s1), 0);
	/* 2 s to 5 s at 100 W, all of it state 0's; state 1 never had power. */
	assert_near(a.states[0].energy_mj, 300000, 1e-6);
	assert_near(a.states[1].energy_mj, 0, 0);
	assert_true(a.states[0].energy_ns == SEC(3));
	s2[2].valid = 0;
	memset(&a, 0, sizeof a);
	add_all(&a, s2, ARRAY_SIZE(s2), 0);
	assert_true(a.hidden_ns == SEC(2));
	assert_near(a.hidden_mj, 200000, 1e-6);
	assert_near(states_energy(&a), 300000, 1e-6);
}

/*
 * 100 W at 0 and 1 s, the device asleep at 2 and 3 s (no power), 100 W at
 * 4 s.  The held stretch 1..3 s is asleep: the integral gives it 200 J,
 * of which half is counted and half is bound, so the truth, 200 to 400 J
 * as the card drew nothing or 100 W asleep, is within it.
 */
static void
test_power_gap_asleep(void **state)
{
	struct sample		s[] = { pw(0, 100000), pw(SEC(1), 100000), pw(SEC(2), 0),
				    pw(SEC(3), 0), pw(SEC(4), 100000) };
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	s[2].valid = s[3].valid = 0;
	s[2].is_asleep = s[3].is_asleep = true;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_near(account_energy_mj(&a, &m), 300000, 1e-6);
	assert_near(account_energy_err_mj(&a, m), 100000, 1e-6);
	assert_near(states_energy(&a), 300000, 1e-6);
	assert_true(a.states[ACCOUNT_STATE_UNKNOWN].energy_err_mj >= 100000 - 1e-6);
	/* Not asleep: all 400 J, the bound of a trapezoid between equal readings. */
	s[2].is_asleep = s[3].is_asleep = false;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_near(account_energy_mj(&a, &m), 400000, 1e-6);
	assert_near(account_energy_err_mj(&a, m), 0, 1e-6);
}

/*
 * A counter that fails at 2 and 3 s while power and the P-state answer:
 * P0 at 200 W until 1.5 s, then P8 at 50 W.  The delta at 4 s holds the
 * energy of 1 s to 4 s, shared by what the power readings show (before:
 * all of it went to P8, the state of the interval it arrived in: P0
 * 200 J, 133 W, and P8 225 J, 90 W).
 */
static void
test_counter_gap_states(void **state)
{
	struct sample	s[] = { pwe(0, 200000, 0), pwe(SEC(1), 200000, 200000),
			    pw(SEC(2), 50000), pw(SEC(3), 50000), pwe(SEC(4), 50000, 425000) };
	struct dev_acct	a;
	size_t		i;
	int		k;

	(void)state;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < ARRAY_SIZE(s); i++) {
			s[i].valid |= M_PSTATE;
			s[i].pstate = i < 2 ? 0 : 8;
			/* The second time, no power at all: shared by time. */
			if (k == 1)
				s[i].valid &= ~M_POWER;
		}
		memset(&a, 0, sizeof a);
		a.power_kind = POWER_KIND_INSTANT;
		add_all(&a, s, ARRAY_SIZE(s), 0);
		assert_near(states_energy(&a), 425000, 1e-6);
		assert_true(a.states[0].time_ns == MS(1500) && a.states[8].time_ns == MS(2500));
		if (k == 0) {
			assert_near(a.states[0].energy_mj, 300000, 1e-6);
			assert_near(a.states[8].energy_mj, 125000, 1e-6);
		} else {
			/* 1 s of P0 at 200 W, then 225 J over 0.5 s of P0 and 2.5 s of P8. */
			assert_near(a.states[0].energy_mj, 200000 + 225000.0 / 6, 1e-6);
			assert_near(a.states[8].energy_mj, 225000.0 * 5 / 6, 1e-6);
		}
		/* The truth within each state's bound, the bound never below 0. */
		assert_true(a.states[0].energy_err_mj >= 0 && a.states[8].energy_err_mj >= 0);
		assert_true(fabs(a.states[0].energy_mj - 300000) <=
		    account_state_energy_err_mj(&a, 0) + 1e-6);
		assert_true(fabs(a.states[8].energy_mj - 125000) <=
		    account_state_energy_err_mj(&a, 8) + 1e-6);
	}
}

/*
 * The counter resets after readings that missed it: nothing will bring the
 * held intervals' energy, so they take their power readings' trapezoids as
 * the reset interval does, and the counter's bound covers what power
 * readings cannot say (before: 500 J of 950, the held 2 s left out).
 */
static void
test_counter_reset_after_missed(void **state)
{
	struct sample		s[] = { pwe(0, 200000, 0), pwe(SEC(1), 200000, 200000),
				    pw(SEC(2), 200000), pw(SEC(3), 300000),
				    pwe(SEC(4), 300000, 5000) };
	struct dev_acct		a;
	enum energy_method	m;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	assert_int_equal(a.counter_resets, 1);
	/* 200 J counted, then 200, 250 and 300 J from power. */
	assert_near(account_energy_mj(&a, &m), 950000, 1e-6);
	assert_int_equal(m, ENERGY_COUNTER);
	assert_near(states_energy(&a), 950000, 1e-6);
	assert_true(account_covered_ns(&a, ENERGY_COUNTER) == SEC(4));
	/* 200 to 300 W over a second: anywhere from 200 to 300 J. */
	assert_true(account_energy_err_mj(&a, ENERGY_COUNTER) >= 50000 - 1e-6);
	assert_true(account_state_energy_err_mj(&a, ACCOUNT_STATE_UNKNOWN) >= 50000 - 1e-6);
}

/* account_energy_is_held for the method account_energy_mj picks, as the outputs ask. */
static bool
is_held(const struct dev_acct *a)
{
	enum energy_method	m;

	(void)account_energy_mj(a, &m);
	return account_energy_is_held(a, m);
}

/*
 * The energy so far is unknown while the readings its method needs fail
 * (the timeline writes it empty then), and known again once one comes:
 * the counter's for a counter, power's for a device with power alone.  A
 * device whose counter reads while its power fails is never held.
 */
static void
test_energy_held(void **state)
{
	struct sample	c[] = { pwe(0, 100000, 0), pwe(SEC(1), 100000, 100000), pw(SEC(2), 100000),
			    pw(SEC(3), 100000), pwe(SEC(4), 100000, 400000) };
	struct sample	p[] = { pw(0, 100000), pw(SEC(1), 100000), pw(SEC(2), 0), pw(SEC(3), 0),
			    pw(SEC(4), 100000) };
	struct sample	e[] = { pwe(0, 100000, 0), pwe(SEC(1), 100000, 100000),
			    pwe(SEC(2), 0, 200000), pwe(SEC(3), 100000, 300000) };
	struct dev_acct	a;
	size_t		i;

	(void)state;
	p[2].valid = p[3].valid = 0;
	e[2].valid = M_ENERGY;
	memset(&a, 0, sizeof a);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		account_add(&a, &c[i], 0);
		assert_int_equal(is_held(&a), i == 2 || i == 3);
	}
	memset(&a, 0, sizeof a);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		account_add(&a, &p[i], 0);
		assert_int_equal(is_held(&a), i == 2 || i == 3);
	}
	memset(&a, 0, sizeof a);
	for (i = 0; i < ARRAY_SIZE(e); i++) {
		account_add(&a, &e[i], 0);
		assert_false(is_held(&a));
	}
}

/*
 * Held for a counter delta, then the counter resets: what was held is
 * not the reset interval's power integral, and covers no time twice.  A
 * lost reading, then a missed counter: the delta's part for the lost
 * stretch is in the hidden bound.
 */
static void
test_counter_gap_edges(void **state)
{
	struct sample	s1[] = { pwe(0, 100000, 1000000), pwe(MS(100), 100000, 1010000),
			    pw(MS(200), 0), pwe(MS(300), 100000, 5000), pwe(MS(400), 100000, 15000) };
	struct sample	s2[] = { pwe(0, 100000, 0), lost(SEC(1)), pw(SEC(2), 100000),
			    pwe(SEC(3), 100000, 300000) };
	struct dev_acct	a;
	int		k;

	(void)state;
	s1[2].valid = 0;
	memset(&a, 0, sizeof a);
	add_all(&a, s1, ARRAY_SIZE(s1), 0);
	assert_int_equal(a.counter_resets, 1);
	for (k = 0; k < ACCOUNT_NSTATES; k++)
		assert_true(a.states[k].energy_ns <= a.states[k].time_ns);
	memset(&a, 0, sizeof a);
	add_all(&a, s2, ARRAY_SIZE(s2), 0);
	assert_true(a.hidden_ns == SEC(2));
	assert_near(a.hidden_mj, 200000, 1e-6);
	assert_near(states_energy(&a), 300000, 1e-6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_gap_states),
		cmocka_unit_test(test_power_gap_edges),
		cmocka_unit_test(test_power_gap_asleep),
		cmocka_unit_test(test_counter_gap_states),
		cmocka_unit_test(test_counter_reset_after_missed),
		cmocka_unit_test(test_energy_held),
		cmocka_unit_test(test_counter_gap_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
