/*
 * Unit tests of the phase rules in src/measure/phase.c and the mark line
 * parser in src/lib/markline.c: which phases a mark ends, nesting, ends of
 * nothing, the nesting limit, and a phase's counter energy as the delta
 * between the readings at its marks.  Expected values are worked out by
 * hand in the comments.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/markline.h"
#include "joulestat/phase.h"
#include "joulestat/util.h"

#include "near.h"

#define MS(x)	((int64_t)(x) * NSEC_PER_MSEC)

/* One device with an energy counter: readings at t ms with counter e mJ. */
struct world {
	struct phases		ph;
	struct sample		s;
	const struct sample	*cur[1];
	uint64_t		range[1];
	double			a[1], b[1];
	struct phase_point	pt;
};

static void
reading(struct world *w, int64_t t_ms, uint64_t e_mj)
{
	memset(&w->s, 0, sizeof w->s);
	w->s.t_ns = MS(t_ms);
	w->s.valid = M_ENERGY;
	w->s.energy_mj = e_mj;
	w->s.pstate = PSTATE_UNKNOWN;
	phases_reading(&w->ph, 0, &w->s, 0, &(struct dev_acct){ .power_kind = POWER_KIND_INSTANT });
	w->cur[0] = &w->s;
	w->pt = (struct phase_point){ .t_ns = MS(t_ms), .cur = w->cur, .range_mj = w->range,
	    .attrib_a_mj = w->a, .attrib_b_ns = w->b };
}

static void
mark(struct world *w, const char *line)
{
	struct mark	m;
	const char	*why = NULL;

	assert_int_equal(markline_parse(line, strlen(line), &m, &why), 0);
	phases_mark(&w->ph, &m, &w->pt);
}

static int
setup(void **state)
{
	struct world	*w = calloc(1, sizeof *w);

	if (w == NULL)
		return -1;
	phases_init(&w->ph, 1);
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world	*w = *state;

	phases_free(&w->ph);
	free(w);
	return 0;
}

/* "phase b" ends a (begun by "phase") and what was begun inside it. */
static void
test_phase_ends_previous(void **state)
{
	struct world	*w = *state;

	reading(w, 0, 1000);
	mark(w, "phase a");
	reading(w, 100, 3000);
	mark(w, "begin inner");
	reading(w, 200, 6000);
	mark(w, "phase b");
	assert_int_equal(w->ph.nopen, 1);
	assert_string_equal(phases_current(&w->ph), "b");
	/* inner ended first (innermost), then a. */
	assert_int_equal(w->ph.nocc, 2);
	assert_string_equal(w->ph.occ[0].name, "inner");
	assert_int_equal(w->ph.occ[0].depth, 1);
	assert_string_equal(w->ph.occ[1].name, "a");
	/* a: counter 1000 -> 6000 mJ over 0..200 ms; inner: 3000 -> 6000. */
	assert_near(w->ph.occ[1].devs[0].energy_mj, 5000, 1e-9);
	assert_int_equal(w->ph.occ[1].devs[0].method, ENERGY_COUNTER);
	assert_near(w->ph.occ[0].devs[0].energy_mj, 3000, 1e-9);
	assert_int_equal(w->ph.occ[1].end_ns - w->ph.occ[1].begin_ns, MS(200));
}

/* "end NAME" ends the innermost NAME and what is inside it; bare "end" the innermost. */
static void
test_end_by_name_and_bare(void **state)
{
	struct world	*w = *state;

	reading(w, 0, 0);
	mark(w, "begin x");
	mark(w, "begin y");
	mark(w, "begin z");
	reading(w, 50, 100);
	mark(w, "end y");
	assert_int_equal(w->ph.nopen, 1);
	assert_int_equal(w->ph.nocc, 2);
	mark(w, "end");
	assert_int_equal(w->ph.nopen, 0);
	mark(w, "end");
	assert_int_equal(w->ph.bad, 1);
	assert_string_equal(w->ph.first_bad, "end with no phase open");
}

/* Past PHASES_DEPTH_MAX open phases a begin is dropped, and counted. */
static void
test_depth_limit(void **state)
{
	struct world	*w = *state;
	int		 i;

	reading(w, 0, 0);
	for (i = 0; i < PHASES_DEPTH_MAX + 3; i++)
		mark(w, "begin deep");
	assert_int_equal(w->ph.nopen, PHASES_DEPTH_MAX);
	assert_int_equal(w->ph.dropped, 3);
	reading(w, 10, 10);
	phases_end_all(&w->ph, &w->pt);
	assert_int_equal(w->ph.nocc, PHASES_DEPTH_MAX);
	assert_true(w->ph.occ[0].is_open_at_end);
}

/* The line parser: words, blanks, names it refuses. */
static void
test_markline(void **state)
{
	struct mark	m;
	const char	*why;

	(void)state;
	assert_int_equal(markline_parse("  phase   warm up \r", 19, &m, &why), 0);
	assert_int_equal(m.kind, MARK_PHASE);
	assert_string_equal(m.name, "warm up");
	assert_int_equal(markline_parse("end", 3, &m, &why), 0);
	assert_string_equal(m.name, "");
	assert_int_equal(markline_parse("begin", 5, &m, &why), -1);
	assert_int_equal(markline_parse("phase a:b", 9, &m, &why), -1);
	assert_int_equal(markline_parse("phase a,b", 9, &m, &why), -1);
	assert_int_equal(markline_parse("Phase a", 7, &m, &why), -1);
	assert_int_equal(markline_parse("phase a\0b", 9, &m, &why), -1);
	assert_true(markline_is_name("é", strlen("é")));
	assert_false(markline_is_name("a\tb", 3));
	char long_name[MARK_NAME_MAX + 2];
	memset(long_name, 'x', sizeof long_name);
	assert_true(markline_is_name(long_name, MARK_NAME_MAX));
	assert_false(markline_is_name(long_name, MARK_NAME_MAX + 1));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_phase_ends_previous, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_by_name_and_bare, setup, teardown),
		cmocka_unit_test_setup_teardown(test_depth_limit, setup, teardown),
		cmocka_unit_test(test_markline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
