/*
 * joulestat's exit statuses, and the one rule that picks one (HACKING.md,
 * "Exit status"; joulestat(1), EXIT STATUS).  The convention is that of
 * timeout(1) and env(1): the workload's own status passes through, and
 * the values 125-127 and 128+N are reserved.
 */
#ifndef JOULESTAT_EXITCODE_H
#define JOULESTAT_EXITCODE_H

#include <stdbool.h>

enum exitcode {
	EXIT_NOT_OFFERED	= 2,	/* --list-devices --require: the machine lacks it */
	EXIT_GATE_DEFAULT	= 3,	/* a CI gate failed; the workload succeeded */
	EXIT_TOOL		= 125,	/* joulestat itself failed, or a usage error */
	EXIT_CANNOT_EXEC	= 126,	/* found but could not be executed */
	EXIT_NOT_FOUND		= 127,	/* the command was not found */
	EXIT_SIGNAL_BASE	= 128,	/* the workload died of signal N: 128 + N */
};

/* How one run of the workload ended. */
enum outcome {
	OUTCOME_EXITED,		/* code = exit status */
	OUTCOME_SIGNALED,	/* code = signal number */
	OUTCOME_NOT_FOUND,	/* exec failed with ENOENT; code = errno */
	OUTCOME_CANNOT_EXEC,	/* exec failed otherwise; code = errno */
	OUTCOME_ATTACHED,	/* -p: the processes ended */
	OUTCOME_INTERRUPTED,	/* -p: a signal ended the measurement; code = signal */
};

/* The status a run that ended as o (with its code) stands for. */
int	exitcode_of_run(enum outcome o, int code);

/* How a whole command ended. */
struct ending {
	bool	is_setup_failed; /* joulestat could not set up or start a run */
	int	setup_signal;	/* a signal ended set-up before the workload ran */
	int	workload;	/* the series' status: exitcode_of_run of its last run */
	int	series_signal;	/* a signal ended the series between or after runs */
	bool	is_output_failed;
	bool	is_gate_failed;
	int	gate_code;	/* --gate-exit-code */
};

/*
 * joulestat's exit status.  Set-up that failed wins, since nothing ran.
 * Then the workload's status always wins; then a signal that interrupted
 * the series (128+N); joulestat's own failure (125) is only reported when
 * the workload itself succeeded, and a failed gate only when neither the
 * workload nor joulestat failed.
 */
int	exitcode_of(const struct ending *e);

#endif
