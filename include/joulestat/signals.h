/*
 * Signals: joulestat takes every signal it handles through one signalfd,
 * so that no handler ever runs asynchronously (HACKING.md, "Code style").
 * The poll loop reads it while the workload runs; between runs and before
 * them, wait_for_signal() is the one way to wait for a deadline or a
 * signal that asks to stop.
 */
#ifndef JOULESTAT_SIGNALS_H
#define JOULESTAT_SIGNALS_H

#include <signal.h>
#include <stdint.h>

#include "joulestat/util.h"

/* Signal state saved before joulestat takes signals over, restored in the child. */
struct sigstate {
	sigset_t		old_mask;
	struct sigaction	old_pipe;
	int			sigfd;
};

/* The signals taken through the signalfd; blocked before any fork. */
void	signals_set(sigset_t *set);

/*
 * Block the signals of signals_set, open the signalfd on them and ignore
 * SIGPIPE, saving what was there in ss.  Returns 0, or -1 with a cause.
 */
int	signals_take(struct sigstate *ss, struct errbuf *err);

/*
 * Wait until the CLOCK_MONOTONIC time deadline_ns, or until a signal other
 * than SIGCHLD arrives on sigfd (a child that ends is not a reason to
 * stop waiting; it is reaped by the next run's loop).  Returns that
 * signal's number, or 0 at the deadline.  A deadline already past looks
 * once at what is pending.  A negative sigfd only waits.
 */
int	wait_for_signal(int sigfd, int64_t deadline_ns);

#endif
