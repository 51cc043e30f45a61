/*
 * Pure arithmetic on device readings (HACKING.md, "Measurement rules"):
 * energy from a hardware
 * counter (deltas, wrap, reset), energy integrated from power (trapezoid
 * over the actual sample times, and over the driver's own samples when
 * there are any), and the split of time and energy by P-state.  No I/O,
 * no clocks: everything comes in through the samples.
 */
#ifndef JOULESTAT_ACCOUNT_H
#define JOULESTAT_ACCOUNT_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "joulestat/source.h"

/* P-states 0..15 and one slot for "unknown". */
#define ACCOUNT_NSTATES		(PSTATE_MAX + 2)
#define ACCOUNT_STATE_UNKNOWN	(PSTATE_MAX + 1)

struct pstate_acct {
	int64_t		time_ns;
	double		energy_mj;	/* counter deltas when a counter exists, else integrated */
	double		sm_mhz_ns;	/* SM clock integrated over clock_ns */
	int64_t		clock_ns;	/* time with a known SM clock */
};

struct dev_acct {
	bool		has_prev;
	bool		is_after_gap;	/* readings were lost since prev */
	struct sample	prev;		/* last good reading; points not kept */
	int64_t		first_ns;	/* first good reading */
	int64_t		start_ns;	/* first reading, good or lost */
	bool		has_start;
	int64_t		head_lost_ns;	/* lost before the first good reading */
	int64_t		last_ns;	/* last good reading */
	/* The last readings that had energy, and power: intervals are bridged over others. */
	bool		has_last_e;
	int64_t		last_e_ns;
	uint64_t	last_e_mj;
	bool		has_last_p;
	int64_t		last_p_ns;
	uint32_t	last_p_mw;
	/* Energy from the hardware counter. */
	bool		has_counter;
	double		counter_mj;
	uint64_t	counter_wraps;
	uint64_t	counter_resets;
	int64_t		counter_gap_ns;	/* intervals without a counter delta */
	int64_t		counter_ns;	/* time the counter's energy covers */
	/* Energy integrated from one power reading per tick. */
	bool		has_ticks_integral;
	double		ticks_mj;
	int64_t		ticks_ns;	/* time covered by the integral */
	/* Energy integrated from the driver's samples between ticks. */
	bool		has_points;
	double		points_mj;
	int64_t		points_ns;
	int64_t		last_point_ns;
	uint32_t	last_point_mw;
	/* Power figures. */
	bool		has_power;
	uint32_t	peak_power_mw;
	uint32_t	min_power_mw;	/* valid with has_power */
	bool		has_idle_power;	/* some reading showed the device idle */
	uint32_t	idle_min_mw;	/* the lowest power of those readings */
	/* P-state split; energy per state uses the same source as energy_mj(). */
	struct pstate_acct states[ACCOUNT_NSTATES];
	bool		has_states;
	/* Load of processes outside the workload's tree, integrated over time. */
	double		foreign_sm_pct_ns;
	double		foreign_mem_pct_ns;
	int64_t		foreign_ns;
	uint16_t	foreign_sm_max;
	uint16_t	foreign_npids_max;	/* the most pids outside the tree in one answer */
	/* Attribution: energy not yet shared, since the last per-process data. */
	double		attrib_seen_mj;	/* headline energy when last looked at */
	double		pending_mj;
	int64_t		pending_ns;
	int64_t		last_window_ns;	/* when per-process data last came */
	int64_t		data_period_ns;	/* the time its newest sample stands for */
	double		last_other_sm_pct;
	double		last_other_mem_pct;
	double		last_tree_sm_pct;	/* the workload's processes, summed */
	double		last_tree_mem_pct;
	double		other_a_mj;	/* processes outside the tree, see attrib_window */
	double		other_b_ns;
	bool		has_attrib;	/* some per-process data was shared out */
	bool		is_other_unknown; /* a window had no load of other processes */
	/* Readings that failed. */
	uint64_t	lost_samples;
	int64_t		last_lost_ns;	/* the latest lost reading */
	bool		is_lost_at_end;	/* lost until the last reading, by account_finish */
	int64_t		lost_ns;	/* time between a lost reading and the next good one */
	uint64_t	throttled_samples;
};

/* How the headline energy of a device was obtained. */
enum energy_method {
	ENERGY_NONE,
	ENERGY_COUNTER,			/* hardware energy counter deltas */
	ENERGY_POINTS,			/* integrated from the driver's power samples */
	ENERGY_TICKS,			/* integrated from one power reading per tick */
};

/*
 * Add one reading.  Lost readings (s->is_lost) only count time; the
 * interval before the next good reading is excluded from the integrals.
 * range_mj is the counter's wrap range (0 = never wraps).
 */
void	account_add(struct dev_acct *a, const struct sample *s, uint64_t range_mj);

/*
 * Close the integrals once, after the last reading: the last driver
 * sample's power stands until the last reading.  Idempotent.
 */
void	account_finish(struct dev_acct *a);

/*
 * Energy in mJ by the best method available, and that method; 0 and
 * ENERGY_NONE when nothing was measured.
 */
double	account_energy_mj(const struct dev_acct *a, enum energy_method *method);

/*
 * NVIDIA performance states from this one on are idle states (P8 is the
 * idle state of current GPUs; P12 on some).
 */
#define ACCOUNT_IDLE_PSTATE	8

/*
 * Whether reading s shows device dev visibly idle: zero utilization, or a
 * P-state the driver uses only when idle (P8 and above on NVIDIA, deep
 * sleep on AMD, RC6 on Intel).  Such readings are the only ones whose power
 * may serve as an idle reference; account_note_idle keeps the lowest.
 */
bool	account_is_idle_reading(const struct device *dev, const struct sample *s);
void	account_note_idle(struct dev_acct *a, const struct device *dev, const struct sample *s);

/*
 * The time the energy of method covers, and the time from the device's
 * first reading (good or lost) to its last: a headline energy whose
 * covered time is shorter than the span left time unmeasured (HACKING.md,
 * "Measurement rules", Validity).
 */
int64_t	account_covered_ns(const struct dev_acct *a, enum energy_method method);
int64_t	account_span_ns(const struct dev_acct *a);

/* Energy of an interval from a counter that may wrap or reset.  -1 on reset. */
double	account_counter_delta(uint64_t prev, uint64_t cur, uint64_t range_mj);

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
void	account_series(const double *v, size_t n, struct series_stat *out);

/*
 * The modified z-score of x (Iglewicz and Hoaglin): 0.6745 (x - median) /
 * MAD.  Above 3.5 in magnitude marks an outlier.  0 when MAD is 0.
 */
double	account_mzscore(const struct series_stat *st, double x);

#define ACCOUNT_OUTLIER_Z	3.5

#endif
