/*
 * Unit tests of the exit status rule in src/lib/exitcode.c (HACKING.md,
 * "Exit status"; joulestat(1), EXIT STATUS): what each ending of a run
 * stands for, and which of set-up, workload, outputs and gates wins.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "joulestat/exitcode.h"

static void
test_run_outcomes(void **state)
{
	(void)state;
	assert_int_equal(exitcode_of_run(OUTCOME_EXITED, 0), 0);
	assert_int_equal(exitcode_of_run(OUTCOME_EXITED, 7), 7);
	assert_int_equal(exitcode_of_run(OUTCOME_SIGNALED, 9), 137);
	assert_int_equal(exitcode_of_run(OUTCOME_NOT_FOUND, 2), 127);
	assert_int_equal(exitcode_of_run(OUTCOME_CANNOT_EXEC, 13), 126);
	/* Attach mode: not our processes to take a status from. */
	assert_int_equal(exitcode_of_run(OUTCOME_ATTACHED, 0), 0);
	assert_int_equal(exitcode_of_run(OUTCOME_INTERRUPTED, 15), 0);
}

static void
test_precedence(void **state)
{
	struct ending	e = { .gate_code = 3 };

	(void)state;
	assert_int_equal(exitcode_of(&e), 0);
	e.is_gate_failed = true;
	assert_int_equal(exitcode_of(&e), 3);
	/* An output that failed hides a failed gate: the figures are not out. */
	e.is_output_failed = true;
	assert_int_equal(exitcode_of(&e), EXIT_TOOL);
	/* The workload's own status wins over both. */
	e.workload = 1;
	assert_int_equal(exitcode_of(&e), 1);
	/* Nothing ran: set-up's ending wins over everything. */
	e.setup_signal = 15;
	assert_int_equal(exitcode_of(&e), 143);
	e.is_setup_failed = true;
	assert_int_equal(exitcode_of(&e), EXIT_TOOL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_outcomes),
		cmocka_unit_test(test_precedence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
