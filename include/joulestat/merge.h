/*
 * joulestat merge FILE...: combine the summary CSVs of the ranks of one
 * job (joulestat(1), CLUSTERS) into one job total.  A device that several
 * ranks on one host measured over overlapping windows (same host and
 * device id) is one device and is counted once; the workload's attributed
 * energies, one per rank's own processes, add up.
 *
 * The work is split so that all of it but the files is pure: a summary's
 * text becomes a struct merge_rank (merge_parse_text, src/merge/read.c),
 * ranks are added to a struct merge_job (merge_job_add, src/merge/merge.c),
 * merge_job_total finds the distinct device measurements and the totals,
 * and three emitters (src/merge/mergeout.c) write the text report, the
 * CSV and the JSON.  The command itself, merge_main, is src/cli/cmd_merge.c.
 * Figures are in joules and seconds, times of day in CLOCK_REALTIME
 * seconds since the epoch, as in the summaries.
 */
#ifndef JOULESTAT_MERGE_H
#define JOULESTAT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "joulestat/util.h"

/*
 * One rank's measurement of one device.  With -r, every figure is the
 * mean over the numbered runs that have it (n_* of them); a has_* flag
 * that is false means unknown, never 0.
 */
struct merge_dev {
	char		*id;		/* device_id: GPU UUID, "package-0"; never "" */
	char		*name;		/* device_name; "" when unknown */
	char		*backend;	/* "nvml", "drm", "rapl"; "" when unknown */
	int64_t		 index;		/* the device column; -1 when unknown */
	double		 time_s;	/* the device's measured window, per run */
	double		 energy_j;
	double		 energy_err_j;	/* its bound, the mean of the runs' */
	double		 above_idle_j;
	double		 workload_j;	/* attributed to this rank's own processes */
	size_t		 n_time, n_energy, n_above_idle, n_workload;
	size_t		 n_energy_err;	/* runs with energy that gave its bound */
	double		 start_s;	/* the window over all runs: first start */
	double		 end_s;		/* ... and last end */
	bool		 has_window;
	bool		 is_partial;	/* a run's energy covers less than its window */
	bool		 is_within;	/* within another device's figure: not in totals */
};

/* One input file: one rank's summary. */
/* One phase on one device of a rank (the mean over its runs), from its "phase" rows. */
struct merge_phase {
	char		*name;
	char		*id;		/* device_id; "" for a run without devices */
	double		 energy_j;
	double		 energy_err_j;	/* its bound */
	double		 workload_j;
	double		 wall_s;
	size_t		 n_energy, n_workload, n_wall;
	size_t		 n_energy_err;
};

struct merge_rank {
	char		*file;		/* as given, for messages and the report */
	char		*host;		/* "" when the file does not say */
	char		*rank;		/* decimal; "" when no launcher set one */
	char		*job;		/* "" outside a batch job */
	int64_t		 rank_num;	/* rank as a number; -1 when "" */
	size_t		 nruns;		/* numbered runs ("run" rows 1..N) */
	double		 wall_s;	/* mean over the runs */
	double		 start_s;	/* the first run's start */
	double		 end_s;		/* the last run's end */
	bool		 has_wall;
	bool		 has_time;	/* start_s and end_s are known */
	struct merge_dev *devs;
	size_t		 ndev;
	struct merge_phase *phases;
	size_t		 nphases;
};

/*
 * One distinct measurement of a device: the ranks on one host that
 * measured it over overlapping windows.  Energy figures cover the union
 * of the members' windows: those of the member with the longest window
 * (kept), plus, where the others measured beyond it, their energy over
 * that time, pro-rated by its share of their window (is_extended);
 * workload adds up over members.
 */
struct merge_group {
	size_t		 kept_rank;	/* index into job ranks */
	size_t		 kept_dev;	/* index into that rank's devs */
	size_t		*members;	/* indices into job ranks, in rank order */
	size_t		 nmembers;
	double		 start_s, end_s; /* the union of the members' windows */
	bool		 has_window;
	double		 workload_j;
	bool		 has_workload;
	double		 energy_j, above_idle_j;	/* over the union */
	bool		 has_energy, has_above_idle;
	double		 energy_err_j;	/* energy_j's bound; valid with has_energy_err */
	bool		 has_energy_err;
	bool		 is_extended;	/* the union is longer than the kept window */
	bool		 is_partial;	/* kept's is partial, or a member beyond it lacks a figure */
};

/*
 * A job: its ranks, then (after merge_job_total) its distinct device
 * measurements and totals.  Sums are over the known figures; n_unknown_*
 * say how many devices had none, so a partial sum is never passed off
 * as whole.  Start zeroed: struct merge_job job = { 0 }.
 */
/* A phase name over the job (mergephase.c). */
struct merge_job_phase {
	const char	*name;		/* a rank's, which the job owns */
	size_t		 nranks;	/* ranks that had the phase */
	double		 energy_j;	/* over distinct device measurements, as the job's */
	size_t		 n_energy;	/* device measurements that had the phase's energy */
	double		 energy_err_j;	/* its bound: the sum of theirs */
	size_t		 n_energy_err;	/* ... of those that had one */
	double		 workload_j;	/* over the ranks, as the job's */
	size_t		 n_workload;
	double		 wall_max_s;	/* the longest of the ranks' phase times */
};

struct merge_job {
	struct merge_rank *ranks;	/* sorted by rank by merge_job_total */
	size_t		 nranks;
	size_t		 cap;
	struct merge_group *groups;	/* sorted by host, then device index */
	size_t		 ngroups;
	size_t		 nhosts;
	double		 start_s, end_s; /* first rank's start, last rank's end */
	bool		 has_time;
	double		 energy_j;	/* over distinct device measurements */
	double		 energy_err_j;	/* its bound: theirs added (worst case) */
	size_t		 n_energy_err;	/* measurements in energy_j with a bound */
	double		 above_idle_j;	/* the same */
	double		 workload_j;	/* over ranks: no deduplication */
	size_t		 n_energy, n_above_idle, n_workload; /* figures summed */
	size_t		 n_partial;	/* summed figures that cover less than their window */
	size_t		 n_within;	/* groups left out: within another's figure */
	struct merge_job_phase *phases;	/* in order of first appearance over the ranks */
	size_t		 nphases;
};

/*
 * The job's phases: each name over the ranks, its energy over the distinct
 * device measurements of the groups (each from the rank whose figures the
 * group kept), its workload energy over the ranks (mergephase.c).
 */
void	merge_job_phases(struct merge_job *job);

/* Add v to *sum and count it in *n, when has. */
void	merge_add_figure(double *sum, size_t *n, double v, bool has);

/*
 * A sum (or mean) of n figures, n_err of which gave their bound, has a
 * bound: the sum (or mean) of theirs, known only when all of them gave
 * one.  A summary written before bounds existed has none: unknown, never 0.
 */
bool	merge_has_bound(size_t n, size_t n_err);

/* "job 42", or "no job id" for the empty job of a run outside a batch job. */
const char *merge_job_words(const char *job, char *buf, size_t size);

/*
 * Read one rank's summary CSV from text[0..len) (any bytes) into r; file
 * names the input in messages.  Returns 0, or -1 with a one-line cause
 * that starts with file ("r1.csv: line 4: energy_j 'x' is not a
 * number").  r is zeroed first and owns what it holds: release it with
 * merge_rank_free, also after -1.
 */
int	merge_parse_text(struct merge_rank *r, const char *file, const char *text, size_t len,
	    struct errbuf *err);

/* merge_parse_text on the contents of the file path; a missing file is a cause. */
int	merge_load_file(struct merge_rank *r, const char *path, struct errbuf *err);

void	merge_rank_free(struct merge_rank *r);

/*
 * Add a rank to job.  The job ids of all ranks must be equal (all empty
 * is fine).  Returns 0 and takes over r's contents (r is zeroed), or -1
 * with a cause naming both files, r untouched.
 */
int	merge_job_add(struct merge_job *job, struct merge_rank *r, struct errbuf *err);

/*
 * Sort the ranks, group the device measurements and compute the totals.
 * Returns 0, or -1 with a cause when the same host and rank were given
 * twice.  Call once, after the last merge_job_add.
 */
int	merge_job_total(struct merge_job *job, struct errbuf *err);

void	merge_job_free(struct merge_job *job);

/*
 * The emitters, after merge_job_total: the text report, the merged CSV
 * (columns documented in mergeout.c) and the JSON document.  f stays open
 * and the caller's.  Each returns 0, or -errno when writing failed or
 * (JSON) memory ran out.
 */
int	merge_write_report(FILE *f, const struct merge_job *job);
int	merge_write_csv(FILE *f, const struct merge_job *job);
int	merge_write_json(FILE *f, const struct merge_job *job);

#endif
