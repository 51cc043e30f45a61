/*
 * The exit status rule (include/joulestat/exitcode.h): the only code that
 * turns how things ended into a number.
 */
#include "joulestat/exitcode.h"

int
exitcode_of_run(enum outcome o, int code)
{
	switch (o) {
	case OUTCOME_EXITED:
		return code;
	case OUTCOME_SIGNALED:
		return EXIT_SIGNAL_BASE + code;
	case OUTCOME_NOT_FOUND:
		return EXIT_NOT_FOUND;
	case OUTCOME_CANNOT_EXEC:
		return EXIT_CANNOT_EXEC;
	case OUTCOME_ATTACHED:
	case OUTCOME_INTERRUPTED:
		break;
	}
	/* Attach mode: the processes were not ours to wait for. */
	return 0;
}

int
exitcode_of(const struct ending *e)
{
	if (e->is_setup_failed)
		return EXIT_TOOL;
	if (e->setup_signal != 0)
		return EXIT_SIGNAL_BASE + e->setup_signal;
	if (e->workload != 0)
		return e->workload;
	if (e->series_signal != 0)
		return EXIT_SIGNAL_BASE + e->series_signal;
	if (e->is_output_failed)
		return EXIT_TOOL;
	return e->is_gate_failed ? e->gate_code : 0;
}
