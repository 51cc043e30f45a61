/*
 * struct run: the state of one measured run, passed explicitly from the
 * run command through set-up and the loop to the report (no file-scope
 * state).  The loop fills it; report_build() turns it into numbers.
 */
#ifndef JOULESTAT_RUN_H
#define JOULESTAT_RUN_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "joulestat/account.h"
#include "joulestat/attrib.h"
#include "joulestat/jobinfo.h"
#include "joulestat/launch.h"
#include "joulestat/marks.h"
#include "joulestat/phase.h"
#include "joulestat/proctree.h"
#include "joulestat/source.h"
#include "joulestat/tickstats.h"

struct run;

/* What to do with descendants still running when the main workload ends. */
enum descendants {
	DESCENDANTS_LEAVE,	/* report them and exit; they keep running */
	DESCENDANTS_WAIT,	/* keep measuring until the whole tree is gone */
	DESCENDANTS_KILL,	/* SIGTERM, then SIGKILL after a grace period */
};

#define IDLE_ALL_DEVICES	(-1)

/* --idle-power: watts for one device (by its number, devsel.h) or for all. */
struct idle_power {
	int	device;		/* IDLE_ALL_DEVICES or a device number */
	double	watts;
};

/* What the command line asked of a run that the report needs to say. */
struct run_params {
	char *const		*argv;		/* launch mode: the workload, argc words */
	int			 argc;
	const pid_t		*pids;		/* attach mode: the -p pids */
	size_t			 npids;
	const struct idle_power	*idle;		/* --idle-power */
	size_t			 nidle;
	bool			 is_exclusive;	/* --exclusive */
	const struct jobinfo	*job;		/* host, rank, job */
	const char		*visible;	/* the runtimes' device masks, for the report */
	unsigned		 closed_std;	/* fds 0-2 the workload gets closed, as joulestat did */
};

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
	unsigned		*nnotes0;	/* per device: its notes before finish, or UINT_MAX */
	bool			 is_gone;	/* sample() returned -1 */
	struct errbuf		 why_gone;
};

struct run {
	struct run_params	 params;
	unsigned		 interval_ms;	/* -i, or shorter when a counter needs it */
	bool			 is_attach;
	enum descendants	 descendants;	/* what the end of the workload means */
	struct child		 child;		/* launch mode */
	int			*pidfds;	/* attach mode: one per -p pid, or PIDFD_* */
	size_t			 npidfds;
	struct proctree		 tree;
	enum tracker		 tracker;	/* --tracker: what was asked */
	enum tracker		 tracker_used;	/* what this run used: cgroup or proc */
	const char		*cgroup_root;	/* JOULESTAT_CGROUP_ROOT, or NULL: found */
	struct cgroup		 cgroup;	/* this run's, while tree.cg points to it */
	bool			 is_cgroup_refused; /* the kernel said no once: /proc from then on */
	bool			 is_clock_locked; /* --lock-clocks took effect, not undone yet */
	bool			 has_cg_cpu;	/* the cgroup's cpu.stat at the end: */
	int64_t			 cg_user_ns;	/* every process that ever ran in it */
	int64_t			 cg_sys_ns;
	bool			 has_cg_peak;	/* its memory.peak at the end */
	uint64_t		 cg_peak_kib;
	struct backend		*backends;
	size_t			 nbackends;
	char			 notes[8][320];	/* "nvml: not available: ..." */
	unsigned		 nnotes;
	struct pid_usage_set	 pids;		/* scratch for one tick */
	struct attrib		 attrib;	/* the processes' shares, for the run */
	struct tickstats	 ticks;
	/* Called after each reading of each backend, warm-ups too (the timeline, -I), or NULL. */
	void			(*on_reading)(void *arg, const struct run *run,
				    const struct backend *b, size_t dev_base);
	void			*on_reading_arg;
	bool			 is_late;	/* the reading being taken is late */
	int64_t			 stall_max_ns;	/* the longest time one reading of the devices took */
	int64_t			 last_read_ns;	/* the last reading of the devices: when, */
	int64_t			 last_read_end_ns; /* when it was done, */
	int64_t			 last_read_took_ns; /* and how long it took */
	struct marks		 marks;		/* the phase-mark FIFO */
	struct phases		 phases;	/* this run's phases */
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
	struct rusage		 excluded_ru;	/* ... and of earlier runs' reaped during it */
	unsigned		 index;		/* 1-based number of this run; 0 = warm-up */
	pid_t			*leftover;	/* descendants alive when the workload ended */
	size_t			 nleftover;
	int			*inherited_fds;	/* open when joulestat started: the workload's */
	size_t			 ninherited_fds;
};

#endif
