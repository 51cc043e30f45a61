/*
 * struct report: every number of a run, computed once with its method and
 * whether it is known (report_build), then handed to independent
 * emitters that derive nothing: the human text (text.c), the summary CSV
 * (csvout.c), the JSON (jsonout.c) and the gates (gate.c).  With -r,
 * report_series summarizes the runs (stats.h).  See HACKING.md, "The
 * pipeline".
 */
#ifndef JOULESTAT_REPORT_H
#define JOULESTAT_REPORT_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "joulestat/account.h"
#include "joulestat/attrib.h"
#include "joulestat/jobinfo.h"
#include "joulestat/phase.h"
#include "joulestat/proctree.h"
#include "joulestat/schema.h"
#include "joulestat/source.h"
#include "joulestat/stats.h"

struct run;

struct state_report {
	int		 pstate;		/* 0..15, or PSTATE_UNKNOWN */
	int64_t		 time_ns;
	int64_t		 time_err_ns;		/* the truth is within time_ns +- this */
	bool		 is_coarse;		/* the time bound is over REPORT_COARSE of it */
	double		 share;			/* of the device's measured window */
	double		 energy_mj;
	double		 energy_err_mj;		/* valid with has_energy */
	bool		 has_energy;
	int64_t		 energy_ns;		/* the part of time_ns energy_mj covers */
	double		 avg_sm_mhz;		/* the clocks over the time in the state */
	double		 avg_gfx_mhz;
	bool		 has_sm;		/* avg_sm_mhz is known */
	bool		 has_gfx;		/* avg_gfx_mhz is known */
	double		 avg_mem_mhz;
	bool		 has_mem;		/* avg_mem_mhz is known */
};

/* A state's time bound above this share of its time gets a note. */
#define REPORT_COARSE		0.10

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
	char			(*notes)[DEVICE_NOTE_LEN]; /* dev's notes as this run ended */
	unsigned		 nnotes;
	const char		*backend;
	bool			 is_gone;	/* the backend failed mid-run */
	int64_t			 window_ns;	/* first to last valid reading of the energy's source */
	bool			 has_window;	/* ... some reading was valid */
	int64_t			 measured_ns;	/* the time energy_mj covers */
	bool			 has_measured;	/* method != ENERGY_NONE */
	int64_t			 span_ns;	/* first to last reading, lost ones too */
	int64_t			 driver_window_ns; /* what the driver's figures move by */
	bool			 has_driver_window; /* ... is known */
	bool			 is_short;	/* window_ns < driver_window_ns */
	bool			 is_partial;	/* measured_ns < span_ns: time was lost */
	/*
	 * The all-devices totals (gates, merge) add every device but one whose
	 * figure another already holds: a CPU package within an APU's SoC
	 * power (is_within), whose number is within.
	 */
	bool			 is_within;
	unsigned		 within;
	enum energy_method	 method;
	double			 energy_mj;	/* by method; valid when method != ENERGY_NONE */
	double			 energy_err_mj;	/* its bound: the truth is within energy_mj +- this */
	double			 alt_mj[4];	/* by each method, indexed by enum energy_method */
	double			 alt_err_mj[4];	/* their bounds */
	bool			 has_alt[4];
	int64_t			 alt_ns[4];	/* the time each of them covers */
	double			 avg_power_mw;
	bool			 has_avg_power;
	uint32_t		 peak_power_mw;
	bool			 has_peak;
	struct state_report	 states[ACCOUNT_NSTATES];
	size_t			 nstates;
	uint64_t		 state_intervals; /* intervals with a state at both ends */
	uint64_t		 state_changes;	/* ... whose two states differed */
	bool			 is_blind;	/* changes were frequent, and one that */
					/* came back between readings could not be seen */
	enum pstate_split	 pstate_split;	/* how changing intervals' counter energy was split */
	bool			 has_reasons;	/* clocks-event reasons were read at some ticks */
	int64_t			 reason_ns[THROTTLE_NREASONS];	/* time per enum throttle bit */
	int64_t			 reason_err_ns[THROTTLE_NREASONS]; /* ... and its bound */
	int64_t			 reason_cover_ns; /* the time the reasons were known */
	int64_t			 reason_viol_ns[2]; /* power and thermal reasons, as the */
	int64_t			 reason_viol_err_ns[2]; /* violation counters count them */
	bool			 has_throttle;	/* driver violation counters were read */
	int64_t			 throttle_power_ns; /* in this run */
	int64_t			 throttle_thermal_ns;
	uint64_t		 lost_samples;
	int64_t			 lost_ns;	/* span_ns without readings of the energy's source */
	int64_t			 gap_ns;	/* time without a good reading */
	int64_t			 bridged_ns;	/* of that, power interpolated across (no counter) */
	uint64_t		 counter_resets;
	enum idle_method	 idle_method;
	double			 idle_mw;
	double			 share_idle_mw;	/* what attribution takes: at most the mean power */
	bool			 has_above_idle;
	double			 above_idle_mj;	/* energy minus idle power over measured_ns */
	bool			 has_attrib;	/* per-process data shared the energy out */
	double			 workload_mj;	/* estimates: the tree's processes */
	double			 other_mj;	/* processes outside the tree */
	bool			 has_other;	/* ... when the backend could see them */
	double			 unattributed_mj; /* idle nobody claimed, dynamic nobody had */
	bool			 has_foreign;	/* per-process data was read */
	double			 foreign_sm_pct; /* mean load of processes outside the tree */
	double			 foreign_mem_pct;
	uint16_t		 foreign_sm_max;
	uint16_t		 foreign_npids_max; /* the most such pids the driver named at once */
	bool			 is_shared;	/* processes outside the tree used the device */
	struct proc_report	*procs;
	size_t			 nprocs;
};

/* One device over the occurrences of one phase name. */
struct phase_dev_report {
	enum energy_method	 method;	/* ENERGY_NONE: energy unknown */
	double			 energy_mj;	/* over all occurrences */
	double			 energy_err_mj;	/* its bound: the occurrences' bounds added */
	struct series_stat	 per_occ;	/* energy per occurrence, mJ */
	int64_t			 measured_ns;	/* the time energy_mj covers */
	int64_t			 span_ns;	/* the occurrences' spans, lost readings too */
	bool			 is_partial;	/* some occurrence's energy is (phase.h) */
	double			 avg_power_mw;	/* valid with has_avg_power */
	bool			 has_avg_power;
	double			 above_idle_mj;	/* with the device's idle reference */
	bool			 has_above_idle;
	uint32_t		 peak_power_mw;	/* valid with has_peak */
	bool			 has_peak;
	int64_t			 state_ns[ACCOUNT_NSTATES];
	double			 state_mj[ACCOUNT_NSTATES];
	int64_t			 state_err_ns[ACCOUNT_NSTATES];	/* their bounds, added */
	double			 state_err_mj[ACCOUNT_NSTATES];
	int64_t			 states_ns;	/* their sum: the device's time in the phase */
	bool			 has_states;
	double			 workload_mj;	/* attribution estimate; valid with has_workload */
	bool			 has_workload;
};

/* A phase name: its occurrences together (report_phases, phases.c). */
struct phase_report {
	char			 name[MARK_NAME_MAX + 1];
	size_t			 count;
	unsigned		 depth;		/* of its first occurrence */
	int64_t			 wall_ns;	/* over all occurrences */
	struct series_stat	 wall_per_occ;	/* seconds */
	int64_t			 user_ns;	/* the tree's CPU time, sampled */
	int64_t			 sys_ns;
	bool			 is_open_at_end; /* some occurrence ended with the run */
	struct phase_dev_report	*devs;		/* ndev, as in struct report */
};

/* A reading of the devices that took longer than this is reported. */
#define REPORT_STALL_NS		(1 * NSEC_PER_SEC)

struct report {
	unsigned	 index;			/* 1-based number of the run in a series */
	char		*command;		/* argv joined by spaces, as given */
	char		*command_quoted;	/* the same, shell-quoted for display */
	const struct jobinfo *where;		/* host, rank, job; NULL when unknown */
	int64_t		 start_unix_ns;		/* CLOCK_REALTIME of the first reading; 0 = unknown */
	int64_t		 t0_ns;			/* CLOCK_MONOTONIC of the same reading */
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
	bool		 has_tree;		/* a process not a zombie was seen: the */
	uint64_t	 peak_tree_rss_kib;	/* next three are known; largest sum at a tick, */
	bool		 has_tree_rss;		/* or the cgroup's memory.peak */
	enum tracker	 tracker;		/* how the tree was followed: cgroup or proc */
	uint64_t	 processes;
	uint64_t	 max_concurrent;
	pid_t		*leftover;		/* owned by the report */
	size_t		 nleftover;
	unsigned	 interval_ms;
	double		 w_sm;			/* attribution weights */
	double		 w_mem;
	uint64_t	 ticks;
	uint64_t	 missed;
	bool		 has_late;		/* ticks > 0: the lateness figures are known */
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
	/* Phases the workload marked: each occurrence, and each name's. */
	struct phase_occ *phase_occ;		/* owned; devs are ndev long */
	size_t		 nphase_occ;
	struct phase_report *phases;		/* in order of first occurrence */
	size_t		 nphases;
	uint64_t	 phase_marks;		/* lines read */
	uint64_t	 phase_bad;		/* lines that were not marks */
	char		 phase_first_bad[96];
	uint64_t	 phase_dropped;		/* past the nesting or count limits */
	/* The run's totals over its devices (add_totals in report.c). */
	double		 total_mj;		/* every device that measured energy */
	double		 total_err_mj;		/* its bound: the devices' bounds added */
	size_t		 total_ndev;		/* ... how many they were; 0: unknown */
	double		 total_workload_mj;	/* the attribution estimates of the tree */
	size_t		 total_workload_ndev;	/* ... over this many devices; 0: unknown */
	bool		 has_total;
	bool		 has_total_workload;
	/* What a result from another day needs to be compared with this one. */
	const char	*version;		/* joulestat's */
	const char	*visible;		/* the runtimes' device masks, "" for none */
};

/* Compute every figure of run once.  Release with report_free. */
void	report_build(struct report *rep, const struct run *run);
void	report_free(struct report *rep);

/* The phases of run into rep (phases.c); report_free releases them. */
void	report_phases(struct report *rep, const struct run *run);

/* The phase of rep named name, or NULL. */
const struct phase_report *report_phase(const struct report *rep, const char *name);

/* Where device number (devsel.h) is in rep->devs, or -1 when it was not measured. */
long	report_device_at(const struct report *rep, unsigned number);

/*
 * Whether run rep is in the statistics of a series and in what its gates
 * judge: it succeeded (exit status 0).  A run that failed or was
 * interrupted is in none (joulestat(1), GATES).
 */
bool	report_is_counted(const struct report *rep);

/*
 * Summarize reps[0..n) (n >= 1, the same devices in each), with a warning
 * for each outlier run and each figure that varies too much to trust its
 * mean.  Release with report_series_free (stats.h).
 */
void	report_series(struct series *s, const struct report *reps, size_t n);

#endif
