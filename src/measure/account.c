/*
 * Energy and P-state arithmetic (HACKING.md, "Measurement rules"), pure: readings in, sums out.
 *
 * Energy: hardware counter deltas when the device has a counter (wrap at
 * its range; a counter that goes backwards without a plausible wrap is a
 * reset, and that interval, with the held ones before it that missed the
 * counter, falls back to integrated power).  Power is
 * always integrated too: a trapezoid over our own reading times, and over
 * the driver's samples when the backend delivers them.
 *
 * The P-state split of each interval is in account_states.c.
 *
 * Every figure has a bound (HACKING.md, "Measurement rules", Bounds).
 */
#include "joulestat/account.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"
#include "joulestat/window.h"

#include "account_priv.h"

double
account_counter_delta(uint64_t prev, uint64_t cur, uint64_t range_mj)
{
	if (cur >= prev)
		return (double)(cur - prev);
	/* Backwards: a wrap only when the counter has a range and was near its top. */
	if (range_mj != 0 && prev <= range_mj && prev - cur > range_mj / 2)
		return (double)(range_mj - prev + cur);
	return -1;
}

/*
 * Power read as a trailing average reaches back before the first reading
 * and stops short of the last: integrated, it gains up to a window of the
 * first reading's power and loses up to a window of the last's, and the
 * energy of a window after a change of state is seen partly before it.
 * A window holds at most its average times its length.  The window is a
 * second for NVIDIA's averages and is taken as one for a firmware's; 0
 * for instantaneous power.
 */
double
acct_average_window_mj(const struct dev_acct *a, double first_mw, double last_mw)
{
	if (a->power_kind != POWER_KIND_AVERAGE_1S && a->power_kind != POWER_KIND_AVERAGE_FW)
		return 0;
	return max_d(first_mw, last_mw) * 1.0;
}

/*
 * Give energy e of the stretch [t0, t1] to the P-states of the interval
 * prev..s by the split rule: up to the interval's middle it belongs to the
 * state at prev, after it to the state at s.  A driver sample may lag a
 * reading; what lies before prev is given to prev's state.
 */
static void
spread_energy(struct dev_acct *a, const struct sample *p, const struct sample *s,
    int64_t t0, int64_t t1, double e)
{
	int64_t	mid = p->t_ns + (s->t_ns - p->t_ns) / 2, before;
	int	sp = acct_state_slot(p), sc = acct_state_slot(s);

	if (a->is_after_gap)
		sp = sc = ACCOUNT_STATE_UNKNOWN;
	if (sp == sc || t1 <= mid || t1 <= t0) {
		a->states[t1 <= mid || sp == sc ? sp : sc].energy_mj += e;
		a->states[t1 <= mid || sp == sc ? sp : sc].has_energy = true;
		return;
	}
	before = t0 < mid ? mid - t0 : 0;
	a->states[sp].energy_mj += e * (double)before / (double)(t1 - t0);
	a->states[sc].energy_mj += e * (double)(t1 - t0 - before) / (double)(t1 - t0);
	a->states[sp].has_energy = a->states[sc].has_energy = true;
}

/* Power integrated over dt_ns between readings of a_mw and b_mw: the trapezoid (mJ). */
double
acct_trapezoid_mj(double a_mw, double b_mw, int64_t dt_ns)
{
	return (a_mw + b_mw) / 2 * (double)dt_ns / 1e9;
}

/*
 * Its bound: exact when power changes once, monotonically, between the
 * two readings (HACKING.md, "Measurement rules", Bounds).
 */
double
acct_trapezoid_err_mj(double a_mw, double b_mw, int64_t dt_ns)
{
	return fabs(b_mw - a_mw) / 2 * (double)dt_ns / 1e9;
}

double
acct_counter_step_mj(const struct dev_acct *a, double p_mw)
{
	return p_mw * (double)a->counter_step_ns / 1e9;
}

double
acct_counter_quantum_mj(const struct dev_acct *a, double p_mw)
{
	return ACCOUNT_COUNTER_QUANTUM_MJ + acct_counter_step_mj(a, p_mw);
}

/*
 * Integrate the driver's own power samples that are new in s (trapezoid
 * between samples; before the first one, its power stands from first_ns).
 * When is_spread, their energy also goes to the P-states.  Returns the
 * energy added.
 */
static double
add_points(struct dev_acct *a, const struct sample *p, const struct sample *s, bool is_spread)
{
	const struct power_point	*pt;
	double				 e, sum = 0;
	int64_t				 t0;
	size_t				 i;

	for (i = 0; i < s->npoints; i++) {
		pt = &s->points[i];
		if (pt->t_ns < a->first_ns || (a->has_points && pt->t_ns <= a->last_point_ns))
			continue;
		t0 = a->has_points ? a->last_point_ns : a->first_ns;
		if (!a->has_points) {
			e = (double)pt->power_mw * (double)(pt->t_ns - t0) / 1e9;
			a->first_point_mw = pt->power_mw;
		} else {
			e = acct_trapezoid_mj(a->last_point_mw, pt->power_mw, pt->t_ns - t0);
			a->points_err_mj += acct_trapezoid_err_mj(a->last_point_mw, pt->power_mw,
			    pt->t_ns - t0);
		}
		if (is_spread && p != NULL)
			spread_energy(a, p, s, t0, pt->t_ns, e);
		a->has_points = true;
		a->last_point_ns = pt->t_ns;
		a->last_point_mw = pt->power_mw;
		a->points_ns = pt->t_ns - a->first_ns;
		sum += e;
	}
	a->points_mj += sum;
	return sum;
}

/*
 * Integrate power from the last reading that had it to s (a reading
 * without power does not break the integral; a lost device does, unless
 * it has no counter to fall back on: then the power is interpolated
 * across the lost readings, and that time is counted as bridged).
 * Returns the energy added, or -1 when there is none to add.
 */
static double
add_ticks(struct dev_acct *a, const struct sample *s)
{
	double	e = -1;
	bool	is_bridge = a->is_after_gap && !a->has_last_e;

	if (!(s->valid & M_POWER))
		return -1;
	if (!a->has_last_p)
		a->first_p_mw = s->power_mw;
	if (is_bridge && a->has_last_p)
		a->bridged_ns += s->t_ns - a->last_p_ns;
	if (a->has_last_p && (!a->is_after_gap || is_bridge)) {
		e = acct_trapezoid_mj(a->last_p_mw, s->power_mw, s->t_ns - a->last_p_ns);
		a->ticks_err_mj += acct_trapezoid_err_mj(a->last_p_mw, s->power_mw,
		    s->t_ns - a->last_p_ns);
		a->ticks_mj += e;
		a->ticks_ns += s->t_ns - a->last_p_ns;
		a->has_ticks_integral = true;
	}
	a->has_last_p = true;
	a->last_p_ns = s->t_ns;
	a->last_p_mw = s->power_mw;
	return e;
}

#define COUNTER_NONE	(-1.0)	/* no counter reading to take a delta from */
#define COUNTER_RESET	(-2.0)	/* the counter went back: a reset, not a delta */

/* The counter's delta since the last reading that had one. */
static double
add_counter(struct dev_acct *a, const struct sample *s, uint64_t range_mj)
{
	double	d = COUNTER_NONE;

	if (!(s->valid & M_ENERGY))
		return COUNTER_NONE;
	if (a->has_last_e) {
		d = account_counter_delta(a->last_e_mj, s->energy_mj, range_mj);
		if (d < 0) {
			d = COUNTER_RESET;
			a->counter_resets++;
			a->counter_gap_ns += s->t_ns - a->last_e_ns;
		} else if (s->energy_mj < a->last_e_mj)
			a->counter_wraps++;
		a->has_counter = true;
	}
	a->has_last_e = true;
	a->last_e_ns = s->t_ns;
	a->last_e_mj = s->energy_mj;
	return d;
}

/*
 * The energy of one interval for the P-state split, by the best method
 * for it: the counter delta (since the last reading that had one); else
 * the driver's samples, already spread over the P-states as they arrive
 * (*is_spread); else the readings' trapezoid.  False when the interval's
 * energy is unknown.
 */
static bool
interval_energy(struct dev_acct *a, const struct sample *p, const struct sample *s,
    uint64_t range_mj, double *e, bool *is_spread, bool *is_counter)
{
	int64_t	from_ns = a->has_last_e ? a->last_e_ns : p->t_ns;
	double	d, ticks_e, points_e, ticks_err = a->ticks_err_mj, points_err = a->points_err_mj;
	bool	had_e = a->has_last_e;

	d = add_counter(a, s, range_mj);
	ticks_e = add_ticks(a, s);
	ticks_err = a->ticks_err_mj - ticks_err;
	/* Not while a counter reading is only missed: its next delta brings the energy. */
	*is_spread = (d == COUNTER_RESET || !had_e) && (s->valid & M_POWER_POINTS);
	points_e = add_points(a, p, s, *is_spread);
	points_err = a->points_err_mj - points_err;
	*is_counter = d >= 0;
	if (d >= 0)
		*e = d;
	else if (d == COUNTER_NONE && a->has_last_e)
		*e = -1;	/* the counter's next delta will hold it */
	else if (*is_spread)
		*e = points_e;
	else
		*e = ticks_e;
	if (d >= 0) {
		a->counter_mj += d;
		a->counter_ns += s->t_ns - from_ns;
	} else if (d == COUNTER_RESET && *e > 0) {
		a->counter_mj += *e;	/* a reset interval: filled from power */
		a->counter_ns += s->t_ns - p->t_ns;
		a->counter_fill_err_mj += *is_spread ? points_err : ticks_err;
	}
	return *e >= 0;
}

/*
 * The counter reset after readings that missed it: no delta will bring
 * their energy, so the counter's figure takes what their power readings
 * give, as for the reset interval itself.
 */
static void
reset_held(struct dev_acct *a)
{
	int64_t	held_ns = a->pend_total_ns;
	double	err, e = acct_give_reset(a, &err);

	if (e <= 0)
		return;
	a->counter_mj += e;
	a->counter_ns += held_ns;
	a->counter_fill_err_mj += err;
}

/* Other processes' utilization over the interval, as the later reading saw it. */
static void
add_foreign(struct dev_acct *a, const struct sample *p, const struct sample *s)
{
	int64_t	dt = s->t_ns - p->t_ns;

	if (!acct_has_both(p, s, M_FOREIGN))
		return;
	a->foreign_sm_pct_ns += (double)s->foreign_sm_pct * (double)dt;
	a->foreign_mem_pct_ns += (double)s->foreign_mem_pct * (double)dt;
	a->foreign_ns += dt;
	if (s->foreign_sm_pct > a->foreign_sm_max)
		a->foreign_sm_max = s->foreign_sm_pct;
	if (s->foreign_npids > a->foreign_npids_max)
		a->foreign_npids_max = s->foreign_npids;
}

/* The reading that gives each method its figures. */
static const unsigned source_bit[] = {
	[ENERGY_NONE] = 0,
	[ENERGY_COUNTER] = M_ENERGY,
	[ENERGY_POINTS] = M_POWER_POINTS,
	[ENERGY_TICKS] = M_POWER,
};

unsigned
account_source_bit(enum energy_method method)
{
	return (size_t)method < ARRAY_SIZE(source_bit) ? source_bit[method] : 0;
}

/*
 * The time since the previous reading (good or lost), for each source both
 * read; and each source's window (window.c).
 */
static void
note_sources(struct dev_acct *a, const struct sample *s)
{
	unsigned	v = s->is_lost ? 0 : s->valid;
	size_t		m;

	if (!a->has_start) {
		a->start_ns = s->t_ns;
		a->has_start = true;
	} else {
		for (m = 1; m < ARRAY_SIZE(source_bit); m++) {
			if (v & a->end_valid & source_bit[m])
				a->source_ns[m] += s->t_ns - a->end_ns;
		}
	}
	a->end_ns = s->t_ns;
	a->end_valid = v;
	window_note_reading(a, s);
}

void
account_add(struct dev_acct *a, const struct sample *s, uint64_t range_mj)
{
	struct state_part	before[ACCOUNT_NSTATES];
	double			e = 0;
	int64_t			p_from_ns;
	uint32_t		p_from_mw;
	bool			has_e, is_spread, is_counter, is_known, had_p, is_counter_due;
	bool			is_given;

	note_sources(a, s);
	if (s->is_lost) {
		a->lost_samples++;
		a->last_lost_ns = s->t_ns;
		a->is_after_gap = a->has_prev;
		return;
	}
	if (s->valid & M_POWER) {
		if (!a->has_power || s->power_mw < a->min_power_mw)
			a->min_power_mw = s->power_mw;
		if (s->power_mw > a->peak_power_mw)
			a->peak_power_mw = s->power_mw;
		a->has_power = true;
	}
	if ((s->valid & M_THROTTLE) && (s->throttle & THROTTLE_SLOWING))
		a->throttled_samples++;
	if (!a->has_prev) {
		a->first_ns = a->last_ns = s->t_ns;
		a->first_read_ns = a->last_read_ns = s->read_ns;
		a->first_slot = acct_state_slot(s);
		/* Lost from the start: that time is unmeasured too. */
		a->head_lost_ns = s->t_ns - a->start_ns;
		a->lost_ns += a->head_lost_ns;
		add_counter(a, s, range_mj);
		add_ticks(a, s);
		add_points(a, NULL, s, false);
		a->prev = *s;
		a->has_prev = true;
		return;
	}
	if (a->is_after_gap)
		a->lost_ns += s->t_ns - a->prev.t_ns;
	window_states_now(a, before);
	had_p = a->has_last_p;
	p_from_ns = had_p ? a->last_p_ns : a->prev.t_ns;
	p_from_mw = a->last_p_mw;
	has_e = interval_energy(a, &a->prev, s, range_mj, &e, &is_spread, &is_counter);
	/* A reset: what was held for its delta takes its power readings' energy. */
	if (a->is_pend_counter && has_e && !is_counter)
		reset_held(a);
	is_given = has_e && a->pend_total_ns > 0;
	/* Integrated from a power reading before prev: the part before prev is the held one's. */
	if (has_e && !is_counter && !is_spread && p_from_ns < a->prev.t_ns)
		e -= acct_give_pending(a, p_from_ns, p_from_mw, a->prev.t_ns, s);
	else if (has_e && is_counter)
		e = acct_give_counter(a, &a->prev, s, e);
	is_counter_due = a->has_last_e && !(s->valid & M_ENERGY);
	is_known = has_e || is_spread || is_counter_due;
	/* A delta shared with held intervals is an estimate here, split as power says. */
	acct_split_states(a, &a->prev, s, e, has_e && !is_spread, is_counter && !is_given,
	    is_known);
	/*
	 * No power at s after some: the next power reading's integral brings
	 * this interval's energy.  A counter reading missed: the next delta
	 * does.  Anything else ends what was held.
	 */
	if (!is_known && had_p && !a->has_last_e)
		acct_hold_pending(a, before, s->is_asleep ? s->t_ns - a->prev.t_ns : 0);
	else if (is_counter_due && !has_e && !is_spread)
		acct_hold_counter(a, &a->prev, s, before);
	else
		acct_drop_pending(a);
	window_note_interval(a, &a->prev, s, before);
	acct_add_reasons(a, &a->prev, s);
	add_foreign(a, &a->prev, s);
	a->has_states = true;
	a->is_after_gap = false;
	a->prev = *s;
	a->prev.points = NULL;
	a->prev.npoints = 0;
	a->last_ns = s->t_ns;
	a->last_read_ns = s->read_ns;
}

void
account_finish(struct dev_acct *a)
{
	double	tail, d_ea, d_err;
	size_t	i;

	/* The first changing intervals, split again by the estimates of the whole run. */
	for (i = 0; i < a->nlater; i++) {
		if (!statepower_resplit(a->est, &a->later[i], &d_ea, &d_err))
			continue;
		a->states[a->later[i].a].energy_mj += d_ea;
		a->states[a->later[i].b].energy_mj -= d_ea;
		a->states[a->later[i].a].energy_err_mj += d_err;
		a->states[a->later[i].b].energy_err_mj += d_err;
		a->split_n[PSTATE_SPLIT_END_POWER]--;
		a->split_n[PSTATE_SPLIT_STATE_POWER]++;
	}
	a->nlater = 0;

	/*
	 * After the last driver sample, its power stands until the last good
	 * reading (not over a lost stretch after it).
	 */
	if (a->has_points && a->last_ns > a->last_point_ns) {
		tail = (double)a->last_point_mw * (double)(a->last_ns - a->last_point_ns) / 1e9;
		a->points_mj += tail;
		if (!a->has_counter) {
			a->states[acct_state_slot(&a->prev)].energy_mj += tail;
			a->states[acct_state_slot(&a->prev)].has_energy = true;
		}
		a->last_point_ns = a->last_ns;
		a->points_ns = a->last_ns - a->first_ns;
	}
	/*
	 * Lost until the end: the time since the last good reading is lost
	 * too; the window still ends at the last good reading.
	 */
	if (a->is_after_gap && a->last_lost_ns > a->last_ns) {
		a->lost_ns += a->last_lost_ns - a->last_ns;
		a->is_after_gap = false;
		a->is_lost_at_end = true;
	}
	/* Never a good reading: all of the span was without one. */
	if (!a->has_prev && a->has_start)
		a->lost_ns = a->end_ns - a->start_ns;
}

int64_t
account_covered_ns(const struct dev_acct *a, enum energy_method method)
{
	switch (method) {
	case ENERGY_COUNTER:
		return a->counter_ns;
	case ENERGY_TICKS:
		return a->ticks_ns;
	case ENERGY_POINTS:
		/*
		 * The integral runs from sample to sample: across a lost stretch
		 * it bridges, as power readings do without a counter.
		 */
		return a->has_prev ? a->last_ns - a->first_ns : 0;
	case ENERGY_NONE:
		break;
	}
	return 0;
}

int64_t
account_lost_ns(const struct dev_acct *a, enum energy_method method)
{
	int64_t	span = account_span_ns(a), lost;

	lost = method == ENERGY_NONE ? span : span - a->source_ns[method];
	return lost > 0 ? lost : 0;
}

int64_t
account_span_ns(const struct dev_acct *a)
{
	return a->has_start ? a->end_ns - a->start_ns : 0;
}

bool
account_is_idle_reading(const struct device *dev, const struct sample *s)
{
	if (s->is_lost)
		return false;
	if ((s->valid & M_UTIL) && s->util_pct == 0)
		return true;
	if (!(s->valid & M_PSTATE) || s->pstate == PSTATE_UNKNOWN)
		return false;
	if (dev->pstate_names == PSTATE_NAMES_P)
		return s->pstate >= ACCOUNT_IDLE_PSTATE;
	return s->pstate == PSTATE_MAX;
}

void
account_note_idle(struct dev_acct *a, const struct device *dev, const struct sample *s)
{
	if (!(s->valid & M_POWER) || !account_is_idle_reading(dev, s))
		return;
	if (!a->has_idle_power || s->power_mw < a->idle_min_mw)
		a->idle_min_mw = s->power_mw;
	a->has_idle_power = true;
}

double
account_energy_err_mj(const struct dev_acct *a, enum energy_method method)
{
	double	p_mw;

	switch (method) {
	case ENERGY_COUNTER:
		/*
		 * Truncation and the counter's step at both ends and at each
		 * reset (each end lags by up to a step, so the two ends are
		 * off by one step at most), power over the read times, and
		 * what resets left to power readings.
		 */
		p_mw = a->has_power ? a->peak_power_mw : a->counter_ns > 0 ?
		    a->counter_mj / ((double)a->counter_ns / 1e9) : 0;
		return acct_counter_quantum_mj(a, p_mw) * (1 + (double)a->counter_resets) +
		    p_mw * (double)(a->first_read_ns + a->last_read_ns) / 1e9 +
		    a->counter_fill_err_mj;
	case ENERGY_POINTS:
		return a->points_err_mj + acct_average_window_mj(a, a->first_point_mw, a->last_point_mw);
	case ENERGY_TICKS:
		return a->ticks_err_mj + acct_average_window_mj(a, a->first_p_mw, a->last_p_mw);
	case ENERGY_NONE:
		break;
	}
	return 0;
}

int64_t
account_state_time_err_ns(const struct dev_acct *a, int slot)
{
	return a->states[slot].time_err_ns + a->hidden_ns;
}

enum pstate_split
account_state_split(const struct dev_acct *a)
{
	enum pstate_split	best = PSTATE_SPLIT_NONE;
	int			k;

	for (k = PSTATE_SPLIT_CROSSING; k < PSTATE_NSPLITS; k++) {
		if (a->split_n[k] > a->split_n[best])
			best = k;
	}
	return best;
}

double
account_state_energy_err_mj(const struct dev_acct *a, int slot)
{
	double	lag = 0;

	/* A counter that moves in steps lags at the run's ends: the states there. */
	if (a->has_counter && a->counter_step_ns > 0 && a->has_prev &&
	    (slot == a->first_slot || slot == acct_state_slot(&a->prev)))
		lag = acct_counter_step_mj(a, a->peak_power_mw);
	return a->states[slot].energy_err_mj + a->hidden_mj + lag;
}

bool
account_is_blind(const struct dev_acct *a)
{
	return !a->can_see_hidden && a->state_changes * 3 > a->state_intervals;
}

double
account_energy_mj(const struct dev_acct *a, enum energy_method *method)
{
	if (a->has_counter) {
		*method = ENERGY_COUNTER;
		return a->counter_mj;
	}
	if (a->has_points) {
		*method = ENERGY_POINTS;
		return a->points_mj;
	}
	if (a->has_ticks_integral) {
		*method = ENERGY_TICKS;
		return a->ticks_mj;
	}
	*method = ENERGY_NONE;
	return 0;
}

bool
account_energy_is_held(const struct dev_acct *a, enum energy_method method)
{
	return a->pend_total_ns > 0 && a->is_pend_counter == (method == ENERGY_COUNTER);
}
