/*
 * struct report: every number of a run, computed once with its method and
 * validity (STYLE §8), then handed to independent emitters: the human text
 * (report.c) and CSV (csvout.c).  No emitter measures or derives anything.
 */
#ifndef JOULESTAT_REPORT_H
#define JOULESTAT_REPORT_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "joulestat/account.h"
#include "joulestat/attrib.h"
#include "joulestat/jobinfo.h"
#include "joulestat/source.h"

struct run;

enum outcome {
	OUTCOME_EXITED,		/* code = exit status */
	OUTCOME_SIGNALED,	/* code = signal number */
	OUTCOME_NOT_FOUND,	/* exec failed with ENOENT; code = errno */
	OUTCOME_CANNOT_EXEC,	/* exec failed otherwise; code = errno */
	OUTCOME_ATTACHED,	/* -p: the processes ended */
	OUTCOME_INTERRUPTED,	/* -p: a signal ended the measurement; code = signal */
};

struct state_report {
	int		 pstate;		/* 0..15, or PSTATE_UNKNOWN */
	int64_t		 time_ns;
	double		 share;			/* of the device's measured window */
	double		 energy_mj;
	bool		 has_energy;
	double		 avg_sm_mhz;
	bool		 has_sm;
};

/* Where a device's idle power came from. */
enum idle_method {
	IDLE_UNKNOWN,		/* no power readings: everything counts as dynamic */
	IDLE_BASELINE,		/* --idle-baseline: measured before the run */
	IDLE_GIVEN,		/* --idle-power */
	IDLE_MIN_SEEN,		/* the lowest power reading of the run */
};

struct proc_report {
	pid_t		 pid;
	char		 comm[PROCFS_COMM_MAX];
	double		 sm_pct;		/* time-weighted mean */
	double		 mem_pct;
	bool		 has_util;
	uint64_t	 max_gpu_mem_kib;
	bool		 is_between_ticks;
	double		 energy_mj;		/* attribution estimate; valid with has_attrib */
};

struct dev_report {
	const struct device	*dev;
	const char		*backend;
	bool			 is_gone;	/* the backend failed mid-run */
	int64_t			 window_ns;	/* first to last good reading */
	enum energy_method	 method;
	double			 energy_mj;	/* by method; valid when method != ENERGY_NONE */
	double			 alt_mj[4];	/* by each method, indexed by enum energy_method */
	bool			 has_alt[4];
	double			 avg_power_mw;
	bool			 has_avg_power;
	uint32_t		 peak_power_mw;
	bool			 has_peak;
	struct state_report	 states[ACCOUNT_NSTATES];
	size_t			 nstates;
	bool			 has_throttle;	/* driver violation counters were read */
	int64_t			 throttle_power_ns; /* in this run */
	int64_t			 throttle_thermal_ns;
	uint64_t		 lost_samples;
	int64_t			 lost_ns;
	uint64_t		 counter_resets;
	enum idle_method	 idle_method;
	double			 idle_mw;
	bool			 has_above_idle;
	double			 above_idle_mj;	/* energy minus idle power over the window */
	bool			 has_attrib;	/* per-process data shared the energy out */
	double			 workload_mj;	/* estimates: the tree's processes */
	double			 other_mj;	/* processes outside the tree */
	bool			 has_other;	/* ... when the backend could see them */
	double			 unattributed_mj; /* idle nobody claimed, dynamic nobody had */
	bool			 has_foreign;	/* per-process data was read */
	double			 foreign_sm_pct; /* mean load of processes outside the tree */
	double			 foreign_mem_pct;
	uint16_t		 foreign_sm_max;
	struct proc_report	*procs;
	size_t			 nprocs;
};

/* A reading of the devices that took longer than this is reported. */
#define REPORT_STALL_NS		(1 * NSEC_PER_SEC)

struct report {
	unsigned	 index;			/* 1-based number of the run in a series */
	char		*command;		/* argv joined by spaces, as given */
	char		*command_quoted;	/* the same, shell-quoted for display */
	const struct jobinfo *where;		/* host, rank, job; NULL when unknown */
	int64_t		 start_unix_ns;		/* CLOCK_REALTIME of the first reading; 0 = unknown */
	bool		 is_exclusive;		/* --exclusive held the devices */
	enum outcome	 outcome;
	int		 code;
	int		 exit_status;		/* what joulestat will exit with for the workload */
	size_t		 nattached;
	int64_t		 wall_ns;
	int64_t		 user_ns;
	int64_t		 sys_ns;
	bool		 is_cpu_sampled;	/* attach mode: from /proc, not rusage */
	uint64_t	 max_rss_kib;		/* largest single process (rusage) */
	bool		 has_max_rss;
	uint64_t	 peak_tree_rss_kib;	/* largest sum seen at a tick */
	uint64_t	 processes;
	uint64_t	 max_concurrent;
	pid_t		*leftover;		/* owned by the report */
	size_t		 nleftover;
	unsigned	 interval_ms;
	double		 w_sm;			/* attribution weights */
	double		 w_mem;
	uint64_t	 ticks;
	uint64_t	 missed;
	int64_t		 late_max_ns;
	int64_t		 late_p50_ns;
	int64_t		 late_p99_ns;
	int64_t		 sampler_cpu_ns;
	int64_t		 stall_max_ns;		/* the longest reading of the devices */
	uint64_t	 races;
	const char	*notes[16];		/* run-level notes ("nvml: not available: ...") */
	size_t		 nnotes;
	struct dev_report *devs;
	size_t		 ndev;
};

/* A device's figures across the runs of a series. */
struct dev_series {
	struct series_stat	 energy_j;
	struct series_stat	 above_idle_j;
	struct series_stat	 avg_power_w;
	struct series_stat	 workload_j;
	bool			 has_energy;
	bool			 has_above_idle;
	bool			 has_workload;
	struct series_stat	 state_s[ACCOUNT_NSTATES];	/* time per P-state slot */
	bool			 has_state[ACCOUNT_NSTATES];
};

#define SERIES_MAX_WARNINGS	16
#define SERIES_SPREAD_CV	0.10	/* warn above this coefficient of variation */
#define SERIES_OUTLIER_MIN_N	3	/* fewer runs have no outliers */
#define SERIES_OUTLIER_REL	0.05	/* nor does a run within 5% of the median */

/* The summary of repeated runs (-r), like perf stat -r and hyperfine. */
struct series {
	size_t			 n;
	struct series_stat	 wall_s;
	struct series_stat	 user_s;
	struct series_stat	 sys_s;
	struct dev_series	*devs;
	size_t			 ndev;
	char			 warnings[SERIES_MAX_WARNINGS][192];
	size_t			 nwarnings;
};

/* Summarize reps[0..n) (n >= 1, same devices in each).  Release with series_free. */
void	report_series(struct series *s, const struct report *reps, size_t n);
void	report_series_free(struct series *s);

/* Compute every figure of run once.  Release with report_free. */
void	report_build(struct report *rep, const struct run *run);
void	report_free(struct report *rep);

/* "killed by SIGTERM (signal 15)", "7", "not found": the outcome in words. */
void	report_outcome_text(const struct report *rep, char *buf, size_t size);

/*
 * The human report of one run, or with n > 1 the summary of a series
 * (series from report_series).  Returns 0, or -errno when writing failed.
 */
int	report_write_text(FILE *f, const struct report *reps, size_t n,
	    const struct series *series);

/*
 * The words the machine-readable forms (CSV, JSON, timeline) use for
 * methods and kinds; "" for unknown or none.
 */
const char *report_word_method(enum energy_method m);
const char *report_word_kind(enum power_kind k);
const char *report_word_idle(enum idle_method m);
const char *report_word_outcome(enum outcome o);

/*
 * The name of state pstate (0..15 or PSTATE_UNKNOWN) of dev, one word:
 * "P0", "DPM2", "deep-sleep", "awake", "RC6", "unknown".  Returns buf.
 */
const char *report_state_name(const struct device *dev, int pstate, char *buf, size_t size);

#endif
