/*
 * Unit tests of the device's window (src/measure/window.c, HACKING.md,
 * "Measurement rules", Validity): from the first to the last valid reading
 * of the energy's source, lost time at either end outside it, the
 * P-states sharing out the window alone, and a device never read.
 * Expected values are worked out by hand in the comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/account.h"
#include "joulestat/util.h"
#include "joulestat/window.h"

#include "near.h"
#include "samples.h"

/*
 * A counter, P-state and power each second from 0 to 3 s, but the power
 * call fails at 1 s and 2 s: the counter gives 100 J a second (300 J),
 * the whole window is P0 with its energy, and the counter lost no time.
 * Power was read at 0 s and 3 s only, so no interval has power at both
 * ends: all 3 s lack readings of power.
 */
static void
test_power_fails_counter_stands(void **state)
{
	struct sample		s[4];
	struct dev_acct		a;
	enum energy_method	m;
	int			i;

	(void)state;
	for (i = 0; i < 4; i++) {
		s[i] = pwe(SEC(i), 100000, 1000 + 100000 * (uint64_t)i);
		s[i].valid |= M_PSTATE;
		s[i].pstate = 0;
	}
	s[1].valid &= ~M_POWER;
	s[2].valid &= ~M_POWER;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	account_finish(&a);
	assert_near(account_energy_mj(&a, &m), 300000, 0);
	assert_int_equal(m, ENERGY_COUNTER);
	assert_true(account_covered_ns(&a, ENERGY_COUNTER) == SEC(3));
	assert_true(account_lost_ns(&a, ENERGY_COUNTER) == 0);
	/* Power was read at 0 s and 3 s only: no interval has it at both ends. */
	assert_true(account_lost_ns(&a, ENERGY_TICKS) == SEC(3));
	assert_true(a.states[0].time_ns == SEC(3) && a.states[0].energy_ns == SEC(3));
	assert_near(a.states[0].energy_mj, 300000, 0);
	assert_true(a.states[ACCOUNT_STATE_UNKNOWN].time_ns == 0);
}

/*
 * Lost at 0 s, good at 1, 2 and 3 s, lost at 4 and 5 s: the span is 0 to
 * 5 s, the good window 1 to 3 s, and the counter's source is missing for
 * 1 s at the start and 2 s at the end, 3 s lost, wherever it falls.
 */
static void
test_lost_at_both_ends(void **state)
{
	const struct sample	s[] = {
		lost(0),
		pwe(SEC(1), 100000, 0),
		pwe(SEC(2), 100000, 100000),
		pwe(SEC(3), 100000, 200000),
		lost(SEC(4)),
		lost(SEC(5)),
	};
	struct dev_acct		a;
	enum energy_method	m;
	int64_t			from, to;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	account_finish(&a);
	assert_near(account_energy_mj(&a, &m), 200000, 0);
	assert_true(account_span_ns(&a) == SEC(5));
	assert_true(a.first_ns == SEC(1) && a.last_ns == SEC(3));
	assert_true(account_covered_ns(&a, ENERGY_COUNTER) == SEC(2));
	assert_true(account_lost_ns(&a, ENERGY_COUNTER) == SEC(3));
	assert_true(a.lost_ns == SEC(3));
	assert_true(a.is_lost_at_end);
	/* The window is the counter's first to last valid reading: 1 s to 3 s. */
	assert_true(window_of(&a, ENERGY_COUNTER, &from, &to));
	assert_true(from == SEC(1) && to == SEC(3));
}

/*
 * No counter; power read at 1, 2 and 3 s only, the P-state at 0 to 4 s,
 * except at 2 s.  The window is 1 s to 3 s (power); P0 gets its halves of
 * 1..2 and 2..3 (1 s), the unknown state the other halves (1 s): the
 * shares add up to the window, and the P0 time at 0..1 and 3..4 is
 * nobody's.  Energy: 100 W over 2 s, 200 J, half of it in each state.
 */
static void
test_window_of_power(void **state)
{
	struct sample		s[] = {
		ps_only(0, 0),
		pwp(SEC(1), 100000, 0),
		pw(SEC(2), 100000),
		pwp(SEC(3), 100000, 0),
		ps_only(SEC(4), 0),
	};
	struct dev_acct		a;
	struct state_part	p0, unk;
	enum energy_method	m;
	int64_t			from, to;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	account_finish(&a);
	assert_near(account_energy_mj(&a, &m), 200000, 0);
	assert_int_equal(m, ENERGY_TICKS);
	assert_true(window_of(&a, m, &from, &to));
	assert_true(from == SEC(1) && to == SEC(3));
	assert_true(account_covered_ns(&a, m) == SEC(2));
	assert_true(account_lost_ns(&a, m) == SEC(2));
	assert_true(states_time(&a) == SEC(4));
	window_state(&a, m, 0, &p0);
	window_state(&a, m, ACCOUNT_STATE_UNKNOWN, &unk);
	assert_true(p0.time_ns == SEC(1));
	assert_true(unk.time_ns == SEC(1));
	assert_near(p0.energy_mj, 100000, 1e-6);
	assert_near(unk.energy_mj, 100000, 1e-6);
	assert_true(p0.energy_ns == SEC(1) && unk.energy_ns == SEC(1));
	/* Without an energy, the window is the first source any reading read. */
	assert_true(window_of(&a, ENERGY_NONE, &from, &to));
	assert_true(from == SEC(1) && to == SEC(3));
}

/* A device that never answered: all its span is lost, and nothing is known. */
static void
test_never_read(void **state)
{
	const struct sample	s[] = { lost(0), lost(SEC(1)), lost(SEC(2)) };
	struct dev_acct		a;
	enum energy_method	m;
	int64_t			from, to;

	(void)state;
	memset(&a, 0, sizeof a);
	add_all(&a, s, ARRAY_SIZE(s), 0);
	account_finish(&a);
	assert_near(account_energy_mj(&a, &m), 0, 0);
	assert_int_equal(m, ENERGY_NONE);
	assert_true(account_span_ns(&a) == SEC(2));
	assert_true(account_lost_ns(&a, ENERGY_NONE) == SEC(2));
	/* No valid reading: no window, and all of the span without a good one. */
	assert_false(window_of(&a, ENERGY_NONE, &from, &to));
	assert_true(from == 0 && to == 0);
	assert_true(a.lost_ns == SEC(2));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_fails_counter_stands),
		cmocka_unit_test(test_lost_at_both_ends),
		cmocka_unit_test(test_never_read),
		cmocka_unit_test(test_window_of_power),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
