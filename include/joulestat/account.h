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
#include "joulestat/statepower.h"

/* P-states 0..15 and one slot for "unknown". */
#define ACCOUNT_NSTATES		(PSTATE_MAX + 2)
#define ACCOUNT_STATE_UNKNOWN	(PSTATE_MAX + 1)

struct pstate_acct {
	int64_t		time_ns;
	int64_t		time_err_ns;	/* half an interval per observed change of state */
	double		energy_mj;	/* counter deltas when a counter exists, else integrated */
	double		energy_err_mj;	/* the bound of the splits of changing intervals */
	bool		has_energy;	/* some interval of the state had a known energy */
	int64_t		energy_ns;	/* the part of time_ns whose energy is in energy_mj */
	double		sm_mhz_ns;	/* SM clock integrated over sm_clock_ns */
	int64_t		sm_clock_ns;	/* time with a known SM clock */
	double		gfx_mhz_ns;	/* graphics clock, the same way */
	int64_t		clock_ns;	/* time with a known graphics clock */
	double		mem_mhz_ns;	/* memory clock integrated over mem_clock_ns */
	int64_t		mem_clock_ns;	/* time with a known memory clock */
};

/* A P-state's figures over one stretch of time. */
struct state_part {
	int64_t		time_ns;
	int64_t		energy_ns;
	double		energy_mj;
};

/* The counter's unit: every backend's counter is read in whole mJ. */
#define ACCOUNT_COUNTER_QUANTUM_MJ	1.0

/* How the counter delta of an interval whose two ends differ in state was split. */
enum pstate_split {
	PSTATE_SPLIT_NONE,		/* no such interval had a counter delta */
	PSTATE_SPLIT_CROSSING,		/* at the crossing instantaneous power at both ends shows */
	PSTATE_SPLIT_STATE_POWER,	/* by each state's power estimated from the counter */
	PSTATE_SPLIT_END_POWER,		/* by the power readings at both ends, else in half */
	PSTATE_NSPLITS
};

struct dev_acct {
	enum power_kind	power_kind;	/* what the power readings mean; set by the caller */
	int64_t		counter_step_ns; /* device.counter_step_ns; set by the caller */
	int		first_slot;	/* the state of the first good reading */
	bool		has_prev;
	bool		is_after_gap;	/* readings were lost since prev */
	struct sample	prev;		/* last good reading; points not kept */
	int64_t		first_ns;	/* first good reading */
	int64_t		start_ns;	/* first reading, good or lost */
	bool		has_start;
	int64_t		head_lost_ns;	/* lost before the first good reading */
	int64_t		last_ns;	/* last good reading */
	int64_t		end_ns;		/* last reading, good or lost */
	unsigned	end_valid;	/* its valid bits; 0 when lost */
	/* By enum energy_method: time between two readings that both read its source. */
	int64_t		source_ns[4];
	/*
	 * By enum energy_method: the first and last readings that read its
	 * source (for the driver's samples, any good reading: their power is
	 * carried to both), and the P-states' figures before the first and
	 * after the last, which lie outside the window (window.h).
	 */
	bool		has_win[4];
	int64_t		win_from_ns[4];
	int64_t		win_to_ns[4];
	struct state_part win_head[4][ACCOUNT_NSTATES];
	struct state_part win_tail[4][ACCOUNT_NSTATES];
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
	double		counter_fill_err_mj;	/* bound of what resets left to power */
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
	int64_t		data_to_ns;	/* the newest time it describes */
	int64_t		idle_util_ns;	/* the last reading whose device utilization was 0 */
	int64_t		data_period_ns;	/* the time its newest sample stands for */
	double		last_other_sm_pct;
	double		last_other_mem_pct;
	double		last_tree_sm_pct;	/* the workload's processes, summed */
	double		last_tree_mem_pct;
	double		other_a_mj;	/* processes outside the tree, see attrib_window */
	double		other_b_ns;
	bool		has_attrib;	/* some per-process data was shared out */
	bool		is_idle_since_data;	/* polls since the last data found nobody busy */
	bool		is_data_sampled;	/* the last data was the driver's samples */
	bool		is_named_some;	/* an answer named processes, usable or not */
	bool		is_nobody_named;	/* an answer named nobody before any data */
	bool		is_pid_failed;	/* a per-process call failed */
	bool		is_other_unknown; /* a window had no load of other processes */
	/* Readings that failed. */
	uint64_t	lost_samples;
	int64_t		last_lost_ns;	/* the latest lost reading */
	bool		is_lost_at_end;	/* lost until the last reading, by account_finish */
	int64_t		lost_ns;	/* time between a lost reading and the next good one */
	int64_t		bridged_ns;	/* of that, integrated across without a counter */
	uint64_t	throttled_samples;
	/* Bounds (HACKING.md, "Measurement rules", Bounds). */
	int64_t		first_read_ns;	/* read_ns of the first good reading */
	int64_t		last_read_ns;	/* ... and of the last */
	uint32_t	first_p_mw;	/* the first power reading (valid with has_last_p) */
	uint32_t	first_point_mw;	/* the first driver sample's (with has_points) */
	double		ticks_err_mj;	/* sum of h |dP| / 2 over the readings */
	double		points_err_mj;	/* the same over the driver's samples */
	uint64_t	state_intervals;	/* intervals with a known state at both ends */
	uint64_t	state_changes;	/* ... of which the state differed */
	bool		can_see_hidden;	/* all of them had a counter and instantaneous power */
	int64_t		hidden_ns;	/* intervals whose counter shows a change the readings missed */
	double		hidden_mj;	/* ... and their energy */
	/* Each state's power from the counter, over intervals that stood for it (statepower.h). */
	struct state_power est[ACCOUNT_NSTATES];
	bool		is_state_held;	/* prev's state was also the one of the reading before it */
	/*
	 * Power alone, readings without it since the last with it: each
	 * state's time among them, whose energy the next power reading's
	 * integral brings (acct_give_pending).
	 */
	int64_t		pend_ns[ACCOUNT_NSTATES];
	int64_t		pend_total_ns;
	int64_t		pend_gap_ns;	/* ... of which after lost readings (hidden_ns) */
	int64_t		pend_asleep_ns;	/* ... of which up to a reading of a device asleep */
	/*
	 * With a counter, readings without it: each state's part of their
	 * energy as their power shows it (by time where power is missing),
	 * which shares the delta that brings it (acct_give_counter).
	 */
	double		pend_w[ACCOUNT_NSTATES];
	double		pend_gap_w;	/* ... of which after lost readings */
	double		pend_err_mj;	/* the bound of pend_w's trapezoids */
	bool		is_pend_by_time;
	bool		is_pend_counter;	/* what is held waits for a counter delta */
	uint64_t	split_n[PSTATE_NSPLITS];	/* changing intervals split each way */
	struct split_later later[STATEPOWER_LATER];	/* split again by account_finish */
	size_t		nlater;
	/* Time per clocks-event reason (enum throttle bit i), by the split rule. */
	int64_t		reason_ns[THROTTLE_NREASONS];
	int64_t		reason_err_ns[THROTTLE_NREASONS];
	int64_t		reason_cover_ns;	/* time with the reasons read at both ends */
	/* The same for what the violation counters count: power, then thermal reasons. */
	int64_t		viol_ns[2];
	int64_t		viol_err_ns[2];
};

/* The reasons that the driver's power and thermal violation counters count. */
#define ACCOUNT_VIOL_POWER	(THROTTLE_SW_POWER | THROTTLE_POWER_BRAKE)
#define ACCOUNT_VIOL_THERMAL	(THROTTLE_SW_THERMAL | THROTTLE_HW_THERMAL)

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
 * sample's power stands until the last good reading, and lost readings
 * after it count as lost time.  Idempotent.
 */
void	account_finish(struct dev_acct *a);

/*
 * Energy in mJ by the best method available, and that method; 0 and
 * ENERGY_NONE when nothing was measured.
 */
double	account_energy_mj(const struct dev_acct *a, enum energy_method *method);

/*
 * Whether the energy so far (by method, account_energy_mj's) is unknown
 * now: readings of what it counts failed, and their time waits for the
 * next good one's delta.  The figure then stands still where the device
 * did not.
 */
bool	account_energy_is_held(const struct dev_acct *a, enum energy_method method);

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
 * first reading (good or lost) to its last, good or lost: a headline energy whose
 * covered time is shorter than the span left time unmeasured, and is
 * partial (HACKING.md, "Measurement rules", Validity).
 */
int64_t	account_covered_ns(const struct dev_acct *a, enum energy_method method);
int64_t	account_span_ns(const struct dev_acct *a);

/*
 * The bound of the energy of method (mJ): the truth lies within
 * energy +- bound when power changes at most once between two readings
 * (HACKING.md, "Measurement rules", Bounds).
 */
double	account_energy_err_mj(const struct dev_acct *a, enum energy_method method);

/*
 * How the counter energy of the intervals in which the state changed was
 * split: the way most of them were, or PSTATE_SPLIT_NONE.
 */
enum pstate_split account_state_split(const struct dev_acct *a);

/* The bound of state slot's time and energy, hidden changes included. */
int64_t	account_state_time_err_ns(const struct dev_acct *a, int slot);
double	account_state_energy_err_mj(const struct dev_acct *a, int slot);

/*
 * The state changed in over a third of the intervals and nothing can show
 * a change and back between two readings (no counter with instantaneous
 * power): the readings cannot say where the window's time and energy went
 * (window_state_err).
 */
bool	account_is_blind(const struct dev_acct *a);

/*
 * The time of the span without readings of method's source (the counter,
 * the driver's samples, power), wherever it falls: at the start, between,
 * or at the end, whether or not a counter bridged it.
 */
int64_t	account_lost_ns(const struct dev_acct *a, enum energy_method method);

/* The validity bit of the reading that gives method its figures. */
unsigned	account_source_bit(enum energy_method method);

/* Energy of an interval from a counter that may wrap or reset.  -1 on reset. */
double	account_counter_delta(uint64_t prev, uint64_t cur, uint64_t range_mj);

/*
 * Whether the workload's share of device dev is known: per-process data
 * was shared out, and the workload used nothing that data cannot show
 * (device.is_use_unseen).
 */
static inline bool
account_share_known(const struct dev_acct *a, const struct device *dev)
{
	return a->has_attrib && !dev->is_use_unseen;
}

#endif
