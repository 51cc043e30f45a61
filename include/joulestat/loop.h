/*
 * The tick loop (DESIGN §2): one thread, one poll() on a timerfd armed
 * with absolute CLOCK_MONOTONIC deadlines, a signalfd for child exits and
 * signals, and pidfds for attached processes.  Each tick refreshes the
 * process tree and reads every device once.
 */
#ifndef JOULESTAT_LOOP_H
#define JOULESTAT_LOOP_H

#include <signal.h>

#include "joulestat/run.h"
#include "joulestat/util.h"

/* The process tree is walked at most this often (the first and last readings always walk it). */
#define LOOP_TREE_GAP_NS	(100 * NSEC_PER_MSEC)

/* The signals the loop takes through its signalfd; block them before fork. */
void	loop_signal_set(sigset_t *set);

/*
 * Take one reading of the tree and of every device at time t_ns.  Used
 * for the first reading before exec, by every tick, and for the last.
 */
void	loop_sample(struct run *run, int64_t t_ns);

/*
 * Run until the workload (and, with --descendants=wait or kill, its
 * descendants) has ended, or for attach mode until every attached process
 * has ended or a signal asks to stop.  The first reading must already have
 * been taken at run->t0_ns.  Returns 0, or -1 with a cause in err when the
 * loop itself failed; the workload is then still reaped before returning.
 */
int	loop_run(struct run *run, int sigfd, struct errbuf *err);

/*
 * --idle-baseline: read every device at the sampling interval for
 * seconds, before the workload runs, and keep each device's mean power in
 * backend->baseline_mw (NAN when it had no power or energy readings).
 * A signal on sigfd ends it early: returns that signal's number (and
 * keeps no baseline), else 0.
 */
int	loop_baseline(struct run *run, double seconds, int sigfd);

/*
 * After the last reading: close every device's integrals, and let each
 * backend add its end-of-run figures and the processes that only its
 * end-of-run accounting saw.
 */
void	loop_finish(struct run *run);

#endif
