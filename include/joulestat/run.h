/*
 * struct run: the state of one measured run, passed explicitly from main
 * through the loop to the report (STYLE §11: no file-scope state).  The
 * loop fills it; report_build() turns it into numbers.
 */
#ifndef JOULESTAT_RUN_H
#define JOULESTAT_RUN_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "joulestat/account.h"
#include "joulestat/launch.h"
#include "joulestat/proctree.h"
#include "joulestat/source.h"
#include "joulestat/tickstats.h"
#include "joulestat/timeline.h"

struct config;

#define PIDFD_ENDED	(-1)	/* the attached process has ended */
#define PIDFD_POLLED	(-2)	/* no pidfd (kernel < 5.3): checked every tick */

/* One backend that probed successfully, and its devices. */
struct backend {
	const struct source_ops	*ops;
	struct device		*devs;
	size_t			 ndev;
	struct sample		*cur;		/* this tick's readings, one per device */
	struct dev_acct		*acct;		/* one per device */
	int64_t			*span_ns;	/* per device: time since its previous reading */
	double			*baseline_mw;	/* per device: measured idle power, or NAN */
	int64_t			*thr_power0_ns;	/* per device: violation counters at the */
	int64_t			*thr_thermal0_ns; /* end of the previous run (0 at first) */
	bool			 is_gone;	/* sample() returned -1 */
	struct errbuf		 why_gone;
};

struct run {
	const struct config	*cfg;
	unsigned		 interval_ms;	/* -i, or shorter when a counter needs it */
	bool			 is_attach;
	struct child		 child;		/* launch mode */
	int			*pidfds;	/* attach mode: one per -p pid, or PIDFD_* */
	size_t			 npidfds;
	struct proctree		 tree;
	struct backend		*backends;
	size_t			 nbackends;
	char			 notes[8][320];	/* "nvml: not available: ..." */
	unsigned		 nnotes;
	struct pid_usage_set	 pids;		/* scratch for one tick */
	struct pid_acct_set	 pidacct;	/* per device and pid, for the run */
	struct attrib_weights	 weights;
	struct share_scratch {			/* one attribution window's participants */
		size_t	*idx;			/* into pidacct.v; the last one is "others" */
		double	*sm;
		double	*mem;
		double	*a;
		double	*b;
		size_t	 cap;
		size_t	*cand;			/* pidacct entries with new data this reading */
		size_t	 ncand;
		size_t	 capcand;
		uint64_t window;		/* windows shared so far (from 1) */
	}			 scratch;
	struct tickstats	 ticks;
	struct timeline		*timeline;	/* --timeline, or NULL */
	bool			 is_late;	/* the reading being taken is late */
	int64_t			 stall_max_ns;	/* the longest time one reading of the devices took */
	int64_t			 t0_ns;		/* first reading, before exec */
	int64_t			 t0_unix_ns;	/* the same moment in CLOCK_REALTIME */
	int64_t			 t_end_ns;	/* main workload seen to end */
	int64_t			 tree_walk_ns;	/* when the tree was last walked */
	int			 signals_seen;	/* SIGINT/SIGTERM/... received */
	int			 last_signal;
	bool			 has_interrupt;	/* attach mode ended by a signal */
	struct rusage		 self_ru;	/* joulestat's own usage at the end */
	struct rusage		 self_ru0;	/* ... and at the start of this run */
	struct rusage		 children_ru0;	/* reaped children's usage before this run */
	unsigned		 index;		/* 1-based number of this run; 0 = warm-up */
	pid_t			*leftover;	/* descendants alive when the workload ended */
	size_t			 nleftover;
};

#endif
