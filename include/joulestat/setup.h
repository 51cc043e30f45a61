/*
 * Run set-up (HACKING.md, "The pipeline"): everything between the parsed
 * options and the first reading, and the tear-down after the last.
 */
#ifndef JOULESTAT_SETUP_H
#define JOULESTAT_SETUP_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include "joulestat/exclusive.h"
#include "joulestat/run.h"
#include "joulestat/signals.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

/* A run-level line of the report: "BACKEND: WHAT MSG". */
void	run_note(struct run *run, const char *backend, const char *what, const char *msg);

/*
 * Probe every backend of the table with sc; one that fails becomes a
 * note, not an error.  Every device selected is marked in sc->sel.
 */
void	setup_probe(struct run *run, const struct source_config *sc);

/* Close every backend and free everything the run holds. */
void	setup_close(struct run *run);

/*
 * After the last reading: close the integrals, let the backends add their
 * end-of-run figures, note the backends that stopped answering, and read
 * the run's cgroup (its CPU time and peak memory) before removing it.
 */
void	setup_finish(struct run *run);

/*
 * Remove the run's cgroup, if it has one, giving what still runs in it
 * back to joulestat's own; the tree is walked in /proc from then on.
 * Every way out of a run calls it (setup_finish, setup_reset, setup_close).
 */
void	setup_drop_cgroup(struct run *run);

/*
 * Counters that wrap (RAPL) or that the driver only extends when read
 * must be read at least every max_gap_ns: run->interval_ms becomes
 * interval_ms (-i) or shorter, and a note says so.
 */
void	setup_fit_interval(struct run *run, unsigned interval_ms);

/*
 * --lock-clocks: lock what can be locked as req says.  A device that
 * cannot be locked is a warning and a note in the report; with
 * is_required it undoes every lock and returns -1.  Else 0.
 */
int	setup_lock_clocks(struct run *run, const struct clock_lock *req, bool is_required);

/* Undo --lock-clocks on every device; harmless when nothing is locked. */
void	setup_unlock_clocks(struct run *run);

/*
 * --exclusive: wait up to wait_s (negative: for ever) for every measured
 * device.  Returns 0 when all are held, -1 after saying why not, or the
 * number of a signal that arrived on sigfd meanwhile.
 */
int	setup_take_devices(struct run *run, struct exclusive *ex, double wait_s, int sigfd);

/*
 * For --list-devices: the tracker a run would use here and why, into buf
 * (a cgroup is created and removed to find out).
 */
void	setup_describe_tracker(enum tracker tracker, const char *cgroup_root, char *buf,
	    size_t size);

/* Attach mode (-p): watch each of params.pids end and start the tree from them. */
int	setup_attach(struct run *run, struct errbuf *err);

/*
 * Launch mode: become a subreaper and fork the corked workload params.argv,
 * in a cgroup of its own where run->tracker and the kernel allow (else the
 * reason is a note, once, and the tree is walked in /proc).
 */
int	setup_launch(struct run *run, const struct sigstate *ss, struct errbuf *err);

/*
 * Once the workload was released: what the launch can do without it
 * waiting (the empty cgroups of joulestats that are gone are removed).
 */
void	setup_launched(struct run *run);

/* Forget everything of the previous run but the devices and the outputs. */
void	setup_reset(struct run *run);

/* How many devices the backends have, over all of them. */
size_t	setup_ndev(const struct run *run);

#endif
