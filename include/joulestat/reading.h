/*
 * One reading of the process tree and of every device (src/run/reading.c).
 */
#ifndef JOULESTAT_READING_H
#define JOULESTAT_READING_H

#include <stdint.h>

#include "joulestat/run.h"
#include "joulestat/util.h"

/* The process tree is walked at most this often (the first and last readings always walk it). */
#define READING_TREE_GAP_NS	(100 * NSEC_PER_MSEC)

/*
 * Take one reading of the tree and of every device at time t_ns.  Used
 * for the first reading before exec, when the workload ends, and for the
 * last; per-process data is read whatever its schedule (sample.is_pid_due).
 */
void	reading_take(struct run *run, int64_t t_ns);

/*
 * The first reading of a run, reading_take's, but for a tree that is the
 * launched child alone (reading.c).
 */
void	reading_first(struct run *run, int64_t t_ns);

/* A tick's reading: every device, and the tree when READING_TREE_GAP_NS has passed. */
void	reading_tick(struct run *run, int64_t t_ns);

/*
 * After the last reading: close every device's integrals and attribution
 * windows, and let each backend add its end-of-run figures and the
 * processes that only its end-of-run accounting saw.
 */
void	reading_finish(struct run *run);

/*
 * --idle-baseline: read every device at the sampling interval for
 * seconds, before the workload runs, and keep each device's mean power in
 * backend->baseline_mw (NAN when it had no power or energy readings).
 * What its readings met (failed reads, ...) becomes the devices' notes,
 * "during --idle-baseline, ...", kept for every run, and run 1 counts
 * from 0.  A signal on sigfd ends it early: returns that signal's number (and
 * keeps no baseline), else 0.
 */
int	reading_idle_baseline(struct run *run, double seconds, int sigfd);

#endif
