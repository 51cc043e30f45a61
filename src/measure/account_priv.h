/*
 * What the two halves of the accounting share, and nothing else includes:
 *
 *	account.c		energy: counter deltas, integrated power, the
 *				driver's samples, lost readings; the figures
 *	account_states.c	the P-state split of each interval and its bounds
 */
#ifndef JOULESTAT_ACCOUNT_PRIV_H
#define JOULESTAT_ACCOUNT_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "joulestat/account.h"

static inline int
acct_state_slot(const struct sample *s)
{
	if ((s->valid & M_PSTATE) && s->pstate >= 0 && s->pstate <= PSTATE_MAX)
		return s->pstate;
	return ACCOUNT_STATE_UNKNOWN;
}

static inline bool
acct_has_both(const struct sample *a, const struct sample *b, unsigned bit)
{
	return (a->valid & bit) && (b->valid & bit);
}

/* Power integrated over dt_ns between readings of a_mw and b_mw: the trapezoid (mJ). */
double	acct_trapezoid_mj(double a_mw, double b_mw, int64_t dt_ns);
/* Its bound: exact when power changes once, monotonically, between the two readings. */
double	acct_trapezoid_err_mj(double a_mw, double b_mw, int64_t dt_ns);
/*
 * What a counter value can lag behind at power p_mw: a counter that moves
 * every counter_step_ns reads the value of its last move, one step's
 * energy behind at most; with its unit, its quantum.
 */
double	acct_counter_step_mj(const struct dev_acct *a, double p_mw);
double	acct_counter_quantum_mj(const struct dev_acct *a, double p_mw);
/* What averaged power gains and loses at the ends: at most one window of the larger. */
double	acct_average_window_mj(const struct dev_acct *a, double first_mw, double last_mw);
/*
 * The interval p..s to the P-states at its ends, with its energy e when
 * has_e (is_counter: the counter's delta); is_known: its energy is in the
 * states' sums, given here or elsewhere.
 */
void	acct_split_states(struct dev_acct *a, const struct sample *p, const struct sample *s,
	    double e, bool has_e, bool is_counter, bool is_known);
/*
 * The interval just split had no energy and power alone will bring it:
 * hold the time it gave each state (since before) for acct_give_pending,
 * asleep_ns of it up to a reading of the device asleep.
 */
void	acct_hold_pending(struct dev_acct *a, const struct state_part *before, int64_t asleep_ns);
/* What was held will not be brought by a power reading's integral: let it go. */
void	acct_drop_pending(struct dev_acct *a);
/*
 * The interval p..s just split has no counter reading at s: hold each
 * state's part of its energy as the power at its ends shows it, for the
 * delta that will bring it.
 */
void	acct_hold_counter(struct dev_acct *a, const struct sample *p, const struct sample *s,
	    const struct state_part *before);
/*
 * Counter delta d of the interval p..s also holds what was held: give the
 * held intervals' states their share of it.  Returns the interval's own.
 */
double	acct_give_counter(struct dev_acct *a, const struct sample *p, const struct sample *s,
	    double d);
/*
 * The counter reset while a delta was awaited: no delta will bring the
 * held intervals' energy, so each state takes what its power readings
 * gave (by time, nothing is known and nothing is given).  Returns the
 * energy given, and its bound in *err (mJ).
 */
double	acct_give_reset(struct dev_acct *a, double *err);
/*
 * The power reading s ends a stretch without power that began with the
 * reading of from_mw at from_ns: give the part of its integral up to
 * to_ns (power taken as linear between the two readings) to the states
 * that held that time, by their share of it.  The time the device slept
 * drew between none and that power: half of its part is taken off the
 * integral and put in the bound.  Returns the part before the cut (mJ).
 */
double	acct_give_pending(struct dev_acct *a, int64_t from_ns, uint32_t from_mw, int64_t to_ns,
	    const struct sample *s);
/* Time per clocks-event reason, and per group the violation counters count. */
void	acct_add_reasons(struct dev_acct *a, const struct sample *p, const struct sample *s);

#endif
