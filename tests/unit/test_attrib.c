/*
 * Unit tests of the attribution arithmetic and the per-process table in
 * src/measure/attrib.c (HACKING.md, "Measurement rules").  Expected values
 * are worked out by hand in the comments.
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
#include "joulestat/attrib.h"
#include "joulestat/proctree.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

#include "near.h"

#define SEC(x)	((int64_t)(x) * NSEC_PER_SEC)

/* The pid tests own one table, freed even when a test fails. */
static int
pid_setup(void **state)
{
	struct pid_acct_set	*set;

	if ((set = calloc(1, sizeof *set)) == NULL)
		return -1;
	*state = set;
	return 0;
}

static int
pid_teardown(void **state)
{
	attrib_pid_free(*state);
	free(*state);
	return 0;
}

static void
test_pid_same_key_same_entry(void **state)
{
	struct pid_acct_set	*set = *state;
	struct pid_acct		*p, *q;

	p = attrib_pid(set, 1, 4242, 123456);
	assert_non_null(p);
	assert_true(p->dev == 1 && p->pid == 4242 && p->starttime_ticks == 123456);
	assert_true(p->util_ns == 0 && p->sm_pct_ns == 0 && !p->is_between_ticks);
	p->util_ns = 77;
	q = attrib_pid(set, 1, 4242, 123456);
	assert_ptr_equal(p, q);
	assert_true(q->util_ns == 77);
	assert_int_equal(set->n, 1);

	/* A reused pid (new starttime) and another device are other entries. */
	q = attrib_pid(set, 1, 4242, 999999);
	assert_int_equal(set->n, 2);
	assert_true(q->starttime_ticks == 999999 && q->util_ns == 0);
	q = attrib_pid(set, 0, 4242, 123456);
	assert_int_equal(set->n, 3);
	assert_true(q->dev == 0 && q->util_ns == 0);
	assert_true(attrib_pid(set, 1, 4242, 123456)->util_ns == 77);
	attrib_pid_free(set);
	assert_null(set->v);
	assert_int_equal(set->n, 0);
}

/* Thousands of entries, with pid reuse and several devices, through growth. */
static void
test_pid_growth(void **state)
{
	enum { N = 6000 };
	struct pid_acct_set	*set = *state;
	struct pid_acct		*p;
	size_t			 i;

	for (i = 0; i < N; i++) {
		/* Half the keys share pid 42 and differ only in starttime. */
		p = attrib_pid(set, i % 3, i % 2 ? 42 : (pid_t)(1000 + i), i * 7);
		assert_int_equal(set->n, i + 1);
		p->util_ns = (int64_t)i;
	}
	for (i = 0; i < N; i++) {
		p = attrib_pid(set, i % 3, i % 2 ? 42 : (pid_t)(1000 + i), i * 7);
		if (p->util_ns != (int64_t)i)
			print_error("key %zu found entry %lld\n", i, (long long)p->util_ns);
		assert_true(p->util_ns == (int64_t)i);
		assert_int_equal(p->dev, i % 3);
	}
	assert_int_equal(set->n, N);
	/* The table stays at most half full. */
	assert_true(set->nslots >= 2 * set->n);
	attrib_pid_free(set);
}

/*
 * The worked example of the per-process power estimation study (approach
 * 2): 250 W, idle 30 W, processes at SM/mem 60/40, 30/80 and 10/10 draw
 * 220 x 54/109 + 18, 220 x 45/109 + 9 and 220 x 10/109 + 3 watts.
 */
static void
test_attrib_worked_example(void **state)
{
	const struct attrib_weights	w = { 0.7, 0.3 };
	const double			sm[] = { 60, 30, 10 }, mem[] = { 40, 80, 10 };
	double				a[3] = { 0 }, b[3] = { 0 };

	(void)state;
	attrib_window(&w, 250000, SEC(1), 0, sm, mem, 3, a, b);
	assert_near(attrib_energy(a[0], b[0], 30000), 220000.0 * 54 / 109 + 18000, 1e-6);
	assert_near(attrib_energy(a[1], b[1], 30000), 220000.0 * 45 / 109 + 9000, 1e-6);
	assert_near(attrib_energy(a[2], b[2], 30000), 220000.0 * 10 / 109 + 3000, 1e-6);
}

/*
 * A window of 300 J: 1 s busy (one participant, SM 60%) and 1 s in which
 * nobody was busy, at an idle power of 80 W: the gap's 80 J of idle is
 * nobody's, the rest (energy above idle, and the busy second's idle) the
 * participant's: 220 J.  Without an idle reference it gets all 300 J.
 */
static void
test_attrib_gap(void **state)
{
	const struct attrib_weights	w = { 0.7, 0.3 };
	const double			sm[] = { 60, 0 }, mem[] = { 30, 0 };
	double				a[2] = { 0 }, b[2] = { 0 };

	(void)state;
	attrib_window(&w, 300000, SEC(1), SEC(1), sm, mem, 2, a, b);
	assert_near(attrib_energy(a[0], b[0], 80000), 220000, 1e-6);
	assert_near(attrib_energy(a[1], b[1], 80000), 0, 1e-6);
	assert_near(attrib_energy(a[0], b[0], 0), 300000, 1e-6);
}

/* Idle power known only at the end: two windows give the sum of their estimates. */
static void
test_attrib_linear_in_idle(void **state)
{
	const struct attrib_weights	w = { 0.7, 0.3 };
	const double			sm1[] = { 50, 20 }, mem1[] = { 10, 0 };
	const double			sm2[] = { 0, 90 }, mem2[] = { 0, 60 };
	double				a[2] = { 0 }, b[2] = { 0 }, f0, want;

	(void)state;
	attrib_window(&w, 100000, SEC(1), 0, sm1, mem1, 2, a, b);
	attrib_window(&w, 300000, SEC(2), 0, sm2, mem2, 2, a, b);
	/* Window 1 for participant 0 at idle 40 W: (100 - 40) x f0 + 40 x 50 / 70. */
	f0 = (0.7 * 50 + 0.3 * 10) / (0.7 * 50 + 0.3 * 10 + 0.7 * 20);
	want = 60000 * f0 + 40000 * 50.0 / 70;
	assert_near(attrib_energy(a[0], b[0], 40000), want, 1e-6);
}

/* Nobody busy: nothing is attributed, whatever the idle power. */
static void
test_attrib_zero_utilization(void **state)
{
	const struct attrib_weights	w = { 0.7, 0.3 };
	const double			zero[] = { 0, 0 };
	double				a[2] = { 0 }, b[2] = { 0 };

	(void)state;
	attrib_window(&w, 500000, SEC(1), 0, zero, zero, 2, a, b);
	assert_near(attrib_energy(a[0], b[0], 0), 0, 0);
	assert_near(attrib_energy(a[1], b[1], 100000), 0, 0);
}

/* SM% adding up to more than 100 share idle energy by their share of the sum. */
static void
test_attrib_sm_over_100(void **state)
{
	const struct attrib_weights	w = { 1, 0 };
	const double			sm[] = { 90, 60 }, mem[] = { 0, 0 };
	double				a[2] = { 0 }, b[2] = { 0 }, total;

	(void)state;
	attrib_window(&w, 200000, SEC(1), 0, sm, mem, 2, a, b);
	total = attrib_energy(a[0], b[0], 80000) + attrib_energy(a[1], b[1], 80000);
	assert_near(total, 200000, 1e-6);
	assert_near(attrib_energy(a[0], b[0], 80000), 200000 * 0.6, 1e-6);
}

/*
 * A participant alone, partly busy (35% SM, 20% mem): all of the window's
 * energy, whatever idle power is assumed, even one above the power drawn.
 */
static void
test_attrib_alone_gets_all(void **state)
{
	const struct attrib_weights	w = { 0.7, 0.3 };
	const double			sm[] = { 35, 0 }, mem[] = { 20, 0 };
	const double			idle[] = { 0, 70000, 150000, 400000 };
	double				a[2] = { 0 }, b[2] = { 0 };
	size_t				i;

	(void)state;
	attrib_window(&w, 150000, SEC(1), 0, sm, mem, 2, a, b);
	for (i = 0; i < sizeof idle / sizeof idle[0]; i++) {
		assert_near(attrib_energy(a[0], b[0], idle[i]), 150000, 1e-6);
		assert_near(attrib_energy(a[1], b[1], idle[i]), 0, 1e-6);
	}
}

/*
 * The seed's worked example with SM adding up to less than 100: workload
 * 30% SM / 10% mem, one other process 20% / 30%; 250 W drawn, idle 70 W,
 * over 2 s.  Dynamic 360 J by score 24 : 23, idle 140 J by SM 30 : 20.
 */
static void
test_attrib_partly_busy_shared(void **state)
{
	const struct attrib_weights	w = { 0.7, 0.3 };
	const double			sm[] = { 30, 20 }, mem[] = { 10, 30 };
	double				a[2] = { 0 }, b[2] = { 0 };

	(void)state;
	attrib_window(&w, 500000, SEC(2), 0, sm, mem, 2, a, b);
	assert_near(attrib_energy(a[0], b[0], 70000), 360000.0 * 24 / 47 + 140000.0 * 30 / 50,
	    1e-6);
	assert_near(attrib_energy(a[1], b[1], 70000), 360000.0 * 23 / 47 + 140000.0 * 20 / 50,
	    1e-6);
	assert_near(attrib_energy(a[0], b[0], 70000) + attrib_energy(a[1], b[1], 70000), 500000,
	    1e-6);
}

/* Memory only, no SM at all: idle energy goes by score too, nothing is left over. */
static void
test_attrib_memory_only(void **state)
{
	const struct attrib_weights	w = { 0.7, 0.3 };
	const double			sm[] = { 0, 0 }, mem[] = { 30, 10 };
	double				a[2] = { 0 }, b[2] = { 0 };

	(void)state;
	attrib_window(&w, 100000, SEC(1), 0, sm, mem, 2, a, b);
	assert_near(attrib_energy(a[0], b[0], 60000), 75000, 1e-6);
	assert_near(attrib_energy(a[1], b[1], 60000), 25000, 1e-6);
}

/*
 * One reading at t seconds of a 100 W device (energy counter), through
 * the accounting and the attribution as src/run/reading.c does.
 */
static void
feed(struct attrib *at, struct dev_acct *a, struct sample *s, double t,
    const struct pid_usage_set *pids, int64_t *span)
{
	static const struct proctree	tree;

	s->t_ns = (int64_t)(t * 1e9);
	s->valid |= M_ENERGY;
	s->energy_mj = (uint64_t)(t * 100000);
	*span = a->has_prev ? s->t_ns - a->prev.t_ns : 0;
	account_add(a, s, 0);
	attrib_pids(at, &tree, pids, 0, 1, s, span);
	attrib_reading(at, 0, 1, s, span, a);
}

/* New per-process data from a driver sample that ends at to_s. */
static void
sample_data(struct sample *s, double t, double to_s, double period_s, unsigned other_sm)
{
	memset(s, 0, sizeof *s);
	s->valid = M_PID_UTIL | M_FOREIGN;
	s->pid_span_ns = (int64_t)(period_s * 1e9);
	s->pid_to_ns = (int64_t)(to_s * 1e9);
	s->npid_slots = 1;
	s->pid_slots[0].span_ns = s->pid_span_ns;
	s->pid_slots[0].foreign_sm_pct = other_sm;
	s->foreign_sm_pct = other_sm;
	(void)t;
}

/*
 * A driver sample describes the period before it: the energy after the
 * newest sample waits for the next one, a reading with nothing new holds
 * the newest period back too, and the end shares what is left as the
 * last data did.  The workload's pid at 50% SM, alone in the sample that
 * ends at 0.8 s, beside another process at 50% in the one that ends at
 * 1.8 s; 100 W throughout, idle 0:
 *   t=1.0: [0, 0.8] = 80 J to the pid, 20 J wait;
 *   t=1.5: nothing new, [0.8, 1.5] is within a period of the data: waits;
 *   t=2.0: [0.8, 1.8] = 100 J half to the pid, 20 J wait;
 *   close: the 20 J half to the pid.  The pid: 80 + 50 + 10 = 140 J.
 * Sharing each reading's energy by the data it brought would give 175 J.
 */
static void
test_attrib_samples_describe_the_past(void **state)
{
	struct attrib		at = { .weights = { 0.7, 0.3 } };
	struct dev_acct		a;
	struct sample		s;
	struct pid_usage	u = { .pid = 100, .sm_pct = 50, .has_util = true };
	struct pid_usage_set	pids = { &u, 1, 1 }, none = { NULL, 0, 0 };
	struct pid_acct		*p;
	int64_t			span;

	(void)state;
	memset(&a, 0, sizeof a);
	memset(&s, 0, sizeof s);
	feed(&at, &a, &s, 0, &none, &span);
	sample_data(&s, 1.0, 0.8, 1.0, 0);
	u.span_ns = SEC(1);
	feed(&at, &a, &s, 1.0, &pids, &span);
	assert_int_equal(at.pidacct.n, 1);
	p = &at.pidacct.v[0];
	assert_near(attrib_energy(p->attrib_a_mj, p->attrib_b_ns, 0), 80000, 1e-3);
	memset(&s, 0, sizeof s);
	s.is_pid_unchanged = true;
	feed(&at, &a, &s, 1.5, &none, &span);
	assert_near(attrib_energy(p->attrib_a_mj, p->attrib_b_ns, 0), 80000, 1e-3);
	sample_data(&s, 2.0, 1.8, 1.0, 50);
	feed(&at, &a, &s, 2.0, &pids, &span);
	assert_near(attrib_energy(p->attrib_a_mj, p->attrib_b_ns, 0), 130000, 1e-3);
	attrib_close(&at, &a, 0);
	assert_near(attrib_energy(p->attrib_a_mj, p->attrib_b_ns, 0), 140000, 1e-3);
	assert_near(attrib_energy(a.other_a_mj, a.other_b_ns, 0), 60000, 1e-3);
	attrib_free(&at);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attrib_worked_example),
		cmocka_unit_test(test_attrib_gap),
		cmocka_unit_test(test_attrib_linear_in_idle),
		cmocka_unit_test(test_attrib_zero_utilization),
		cmocka_unit_test(test_attrib_sm_over_100),
		cmocka_unit_test(test_attrib_alone_gets_all),
		cmocka_unit_test(test_attrib_partly_busy_shared),
		cmocka_unit_test(test_attrib_memory_only),
		cmocka_unit_test(test_attrib_samples_describe_the_past),
		cmocka_unit_test_setup_teardown(test_pid_same_key_same_entry, pid_setup,
		    pid_teardown),
		cmocka_unit_test_setup_teardown(test_pid_growth, pid_setup, pid_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
