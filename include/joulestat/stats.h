/*
 * The statistics of a series of runs (-r, like perf stat -r and
 * hyperfine): each figure's mean, standard deviation, median and
 * extremes over the runs that have it, and the warnings that say when a
 * mean should not be trusted (an outlier run, a large spread).  Plain
 * arithmetic on numbers; report_series (report.h) feeds it the figures
 * of the runs.
 */
#ifndef JOULESTAT_STATS_H
#define JOULESTAT_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "joulestat/account.h"

/* Mean, sample standard deviation and range of a series of runs. */
struct series_stat {
	size_t	n;
	double	mean;
	double	sd;		/* sample (n - 1) standard deviation; 0 when n < 2 */
	double	min;
	double	max;
	double	median;
	double	mad;		/* median absolute deviation from the median */
};

/* Summarize v[0..n).  n may be 0 (all zero).  Does not modify v. */
void	series_stats(const double *v, size_t n, struct series_stat *out);

/*
 * The modified z-score of x (Iglewicz and Hoaglin): 0.6745 (x - median) /
 * MAD.  Above 3.5 in magnitude marks an outlier.  0 when MAD is 0.
 */
double	series_mzscore(const struct series_stat *st, double x);

#define SERIES_OUTLIER_Z	3.5

/*
 * The measurement bound of each statistic of a figure (not its spread):
 * the truth's mean is within mean +- mean_err, its median within median
 * +- median_err, and so on.  Known only when every run in the statistic
 * had its figure's bound (series_bound).
 */
struct series_bound {
	double	mean;		/* the mean of the runs' bounds */
	double	median;
	double	min;
	double	max;
	bool	has;
};

/* A device's figures across the runs of a series. */
struct dev_series {
	struct series_stat	 energy_j;
	struct series_bound	 energy_err_j;
	struct series_stat	 above_idle_j;
	struct series_stat	 avg_power_w;
	struct series_stat	 workload_j;
	bool			 has_energy;
	bool			 has_above_idle;
	bool			 has_workload;
	struct series_stat	 state_s[ACCOUNT_NSTATES];	/* time per P-state slot */
	struct series_bound	 state_err_s[ACCOUNT_NSTATES];	/* ... and its bound */
	bool			 has_state[ACCOUNT_NSTATES];
};

#define SERIES_MAX_WARNINGS	16
#define SERIES_SPREAD_CV	0.10	/* warn above this coefficient of variation */
#define SERIES_OUTLIER_MIN_N	3	/* fewer runs have no outliers */
#define SERIES_OUTLIER_REL	0.05	/* nor does a run within 5% of the median */

/* The summary of repeated runs. */
struct series {
	size_t			 n;		/* runs */
	size_t			 ncounted;	/* runs the statistics cover: those that succeeded */
	struct series_stat	 wall_s;
	struct series_stat	 user_s;
	struct series_stat	 sys_s;
	struct dev_series	*devs;
	size_t			 ndev;
	char			 warnings[SERIES_MAX_WARNINGS][192];
	size_t			 nwarnings;
};

/* Summarize v[0..n), one value per run; NaN where a run did not have the figure. */
void	series_figure(const double *v, size_t n, struct series_stat *out);

/*
 * The bounds of the statistics of v[0..n), where e[i] is the bound of
 * v[i] (the truth of run i is within v[i] +- e[i]; NaN: unknown).  The
 * mean's is the mean of the bounds (bounds are worst-case limits).  A
 * median, minimum or maximum is an order statistic, which moves no
 * further than its inputs: the truth's lies between the statistic of
 * v - e and that of v + e, and its bound is the farther of the two
 * from the statistic of v.  When the runs' bounds are equal, that is
 * the bound of the run (or the two middle runs) the figure came from.
 */
void	series_bound(const double *v, const double *e, size_t n, struct series_bound *out);

/*
 * Add to s's warnings the runs whose value in v[0..s->n) is an outlier
 * against st (by modified z-score; runs[i] is the number of the run of
 * v[i]), and a spread too large to trust the mean.  what names the
 * figure in the warning ("wall time").
 */
void	series_check(struct series *s, const double *v, const unsigned *runs, const char *what,
	    const struct series_stat *st);

/* Add a warning (printf-style) to s, when there is room. */
void	series_warn(struct series *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Release what report_series allocated in s. */
void	report_series_free(struct series *s);

#endif
