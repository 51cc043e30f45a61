/*
 * The only list of joulestat's exit statuses (HACKING.md, "Exit status").
 * The convention is that of timeout(1) and env(1): the workload's own
 * status passes through, and the values 125-127 and 128+N are reserved.
 */
#ifndef JOULESTAT_EXITCODE_H
#define JOULESTAT_EXITCODE_H

enum exitcode {
	EXIT_GATE_DEFAULT	= 3,	/* a CI gate failed; the workload succeeded */
	EXIT_TOOL		= 125,	/* joulestat itself failed, or a usage error */
	EXIT_CANNOT_EXEC	= 126,	/* found but could not be executed */
	EXIT_NOT_FOUND		= 127,	/* the command was not found */
	EXIT_SIGNAL_BASE	= 128,	/* the workload died of signal N: 128 + N */
};

#endif
