/*
 * The poll loop (HACKING.md, "The pipeline"): one thread, one epoll set of
 * a timerfd armed with absolute CLOCK_MONOTONIC deadlines, the signalfd for
 * child exits and signals, pidfds for attached processes, the cgroup's
 * events and the phase-mark FIFO.  Each tick
 * takes one reading (include/joulestat/reading.h).
 */
#ifndef JOULESTAT_LOOP_H
#define JOULESTAT_LOOP_H

#include "joulestat/run.h"
#include "joulestat/util.h"

/*
 * Run until the workload (and, with --descendants=wait or kill, its
 * descendants) has ended, or for attach mode until every attached process
 * has ended or a signal asks to stop.  The first reading must already have
 * been taken at run->t0_ns.  Returns 0, or -1 with a cause in err when the
 * loop itself failed; the workload is then still reaped before returning.
 */
int	loop_run(struct run *run, int sigfd, struct errbuf *err);

#endif
