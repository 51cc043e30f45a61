/*
 * The P-state split of one interval between two readings (HACKING.md,
 * "Measurement rules", P-states and Bounds): its time and energy given to
 * the states at its two ends, the bound of each, the clocks and the
 * clocks-event reasons.  account.c calls it for each interval.
 *
 * P-state split: each interval between two readings belongs to the state
 * of both ends when they agree.  When they differ, the interval's time is
 * split in half between the two states (the error is at most half an
 * interval per transition); its counter energy is split at the crossing
 * time that instantaneous power at both ends implies, else at the one that
 * each state's power estimated from the counter implies (statepower.h),
 * else by the power at both ends.
 */
#include <math.h>
#include <string.h>

#include "joulestat/account.h"
#include "joulestat/statepower.h"
#include "joulestat/util.h"

#include "account_priv.h"

/* Both ends read instantaneous power: the readings say where power changed. */
static bool
has_instant(const struct dev_acct *a, const struct sample *p, const struct sample *s)
{
	return a->power_kind == POWER_KIND_INSTANT && acct_has_both(p, s, M_POWER);
}

/*
 * The part of counter energy e (mJ) of interval p..s that belongs to the
 * state at p, when each state's power stays what the reading at its end
 * shows: then e = h (f Pa + (1 - f) Pb) gives the crossing at f h.  *err
 * bounds it by the counter's quantum, the time the readings took (the
 * counter and the power are not read at the same instant), and how far
 * the counter disagrees with the readings (a crossing outside the
 * interval); never more than all or none of e.  A counter that moves in
 * steps adds its step (acct_split_states).
 */
static double
split_counter(const struct sample *p, const struct sample *s, double e, double *err)
{
	double	h = (double)(s->t_ns - p->t_ns) / 1e9, pa = p->power_mw, pb = s->power_mw;
	double	dp = pb - pa, outside, ea;

	if (fabs(dp) <= 2 * ACCOUNT_COUNTER_QUANTUM_MJ / h + 0.01 * max_d(pa, pb)) {
		*err = e / 2;		/* no power step to place the crossing by */
		return e / 2;
	}
	ea = statepower_part(e, h, pa, pb, &outside);
	*err = 2 * ACCOUNT_COUNTER_QUANTUM_MJ + fabs(dp) * (double)(p->read_ns + s->read_ns) /
	    1e9 + outside;
	*err = min_d(*err, max_d(ea, e - ea));
	return ea;
}

/* A state's mean power so far (mW), or -1 when it has none yet. */
static double
state_mw(const struct dev_acct *a, int slot)
{
	if (a->states[slot].time_ns <= 0)
		return -1;
	return a->states[slot].energy_mj / ((double)a->states[slot].time_ns / 1e9);
}

/*
 * Whether power mean_mw, dev_mw beyond what the readings of state slot
 * show, points to another state seen so far: toward its mean power, by
 * more than a tenth of the way.  Noise within one state does not.
 */
static bool
is_toward_other(const struct dev_acct *a, int slot, double ref_mw, double mean_mw,
    double dev_mw)
{
	double	px;
	int	x;

	for (x = 0; x < ACCOUNT_NSTATES; x++) {
		if (x == slot || (px = state_mw(a, x)) < 0)
			continue;
		if ((px - ref_mw) * (mean_mw - ref_mw) > 0 && dev_mw > 0.1 * fabs(px - ref_mw))
			return true;
	}
	return false;
}

/*
 * An interval whose two ends are in one state but whose counter energy
 * lies outside what the instantaneous power at both ends allows, toward
 * another state's power: the state changed and changed back between the
 * readings.  Its time and energy count in the bound of every state.  A
 * change to a state no reading ever saw cannot be told from noise.
 */
static void
check_hidden(struct dev_acct *a, const struct sample *p, const struct sample *s, double e)
{
	double	h = (double)(s->t_ns - p->t_ns) / 1e9, lo, hi, tol, mean = e / h, dev;

	lo = min_d(p->power_mw, s->power_mw);
	hi = max_d(p->power_mw, s->power_mw);
	/* A counter that moves in steps can show a step more or less than the time had. */
	tol = 2 * acct_counter_quantum_mj(a, hi) / h + 0.02 * hi;
	dev = mean < lo ? lo - mean : mean > hi ? mean - hi : 0;
	if (dev > tol && is_toward_other(a, acct_state_slot(p), (lo + hi) / 2, mean, dev)) {
		a->hidden_ns += s->t_ns - p->t_ns;
		a->hidden_mj += e;
	}
}

/*
 * The bound of an interval within one state: a counter's delta is exact
 * unless it shows a change the readings missed; the trapezoid is off by at
 * most half the interval times the change of power.
 */
static void
same_state_bound(struct dev_acct *a, const struct sample *p, const struct sample *s, double e,
    bool is_counter)
{
	if (is_counter && has_instant(a, p, s))
		check_hidden(a, p, s, e);
	else if (!is_counter && acct_has_both(p, s, M_POWER))
		a->states[acct_state_slot(p)].energy_err_mj += acct_trapezoid_err_mj(p->power_mw,
		    s->power_mw, s->t_ns - p->t_ns);
}

/* The clocks known at both ends, over dt. */
static void
add_clocks(struct pstate_acct *st, const struct sample *p, const struct sample *s, int64_t dt)
{
	if (acct_has_both(p, s, M_SM_CLOCK)) {
		st->sm_mhz_ns += ((double)p->sm_mhz + s->sm_mhz) / 2 * (double)dt;
		st->sm_clock_ns += dt;
	}
	if (acct_has_both(p, s, M_CLOCKS)) {
		st->gfx_mhz_ns += ((double)p->gfx_mhz + s->gfx_mhz) / 2 * (double)dt;
		st->clock_ns += dt;
	}
	if (acct_has_both(p, s, M_MEM_CLOCK)) {
		st->mem_mhz_ns += ((double)p->mem_mhz + s->mem_mhz) / 2 * (double)dt;
		st->mem_clock_ns += dt;
	}
}

/*
 * Give dt of an interval, with its energy e when has_e, to the P-states
 * at its two ends; is_counter when e is the counter's delta.  is_known:
 * the interval's energy is in the states' sums, given here or elsewhere
 * (the driver's samples, a later counter delta).
 */
void
acct_split_states(struct dev_acct *a, const struct sample *p, const struct sample *s,
    double e, bool has_e, bool is_counter, bool is_known)
{
	int64_t			 dt = s->t_ns - p->t_ns, half = dt / 2;
	int			 sp = acct_state_slot(p), sc = acct_state_slot(s);
	double			 w0 = 0.5, ea, err;
	bool			 held;

	if (!a->is_after_gap && sp != ACCOUNT_STATE_UNKNOWN && sc != ACCOUNT_STATE_UNKNOWN) {
		a->can_see_hidden = (a->state_intervals == 0 || a->can_see_hidden) && has_e &&
		    is_counter && has_instant(a, p, s);
		a->state_intervals++;
		a->state_changes += sp != sc;
	}
	if (a->is_after_gap) {
		/* Readings were lost: any state may have held meanwhile. */
		sp = sc = ACCOUNT_STATE_UNKNOWN;
		a->hidden_ns += dt;
		a->hidden_mj += has_e ? e : 0;
	}
	a->states[sp].has_energy |= is_known;
	a->states[sc].has_energy |= is_known;
	if (is_known) {
		a->states[sp].energy_ns += sp == sc ? dt : half;
		a->states[sc].energy_ns += sp == sc ? 0 : dt - half;
	}
	held = a->is_state_held;
	a->is_state_held = sp == sc && sp != ACCOUNT_STATE_UNKNOWN;
	if (sp == sc) {
		a->states[sp].time_ns += dt;
		a->states[sp].energy_mj += has_e ? e : 0;
		/* A lost stretch is in the bound of every state already. */
		if (!a->is_after_gap && has_e)
			same_state_bound(a, p, s, e, is_counter);
		/*
		 * Three readings in a row in one state: the state stood for the
		 * interval (a visit to another state is seen at one reading at
		 * least, and the state lasted longer than one interval).
		 */
		if (held && a->is_state_held && has_e && is_counter && (p->valid & M_ENERGY))
			statepower_add(&a->est[sp], e, (double)dt / 1e9);
		/* Clocks are not interpolated across lost readings. */
		if (!a->is_after_gap)
			add_clocks(&a->states[sp], p, s, dt);
		return;
	}
	a->states[sp].time_ns += half;
	a->states[sc].time_ns += dt - half;
	a->states[sp].time_err_ns += dt - half;
	a->states[sc].time_err_ns += dt - half;
	if (has_e && is_counter && has_instant(a, p, s)) {
		ea = split_counter(p, s, e, &err);
		a->split_n[PSTATE_SPLIT_CROSSING]++;
	} else if (has_e && is_counter && a->power_kind != POWER_KIND_INSTANT &&
	    (p->valid & M_ENERGY) && statepower_split(&a->est[sp], &a->est[sc], e,
	    (double)dt / 1e9, (double)(p->read_ns + s->read_ns) / 1e9, &ea, &err)) {
		a->split_n[PSTATE_SPLIT_STATE_POWER]++;
	} else {
		a->split_n[PSTATE_SPLIT_END_POWER] += has_e && is_counter;
		if (acct_has_both(p, s, M_POWER) && p->power_mw + (uint64_t)s->power_mw > 0)
			w0 = (double)p->power_mw / ((double)p->power_mw + s->power_mw);
		ea = e * w0;
		/* The crossing anywhere in the interval: half of it at the higher power. */
		err = acct_has_both(p, s, M_POWER) ? (double)(dt - half) / 1e9 *
		    max_d(p->power_mw, s->power_mw) : has_e ? e / 2 : 0;
		if (is_counter)
			err = max_d(ea, e - ea);
		else if (acct_has_both(p, s, M_POWER))
			err += acct_average_window_mj(a, p->power_mw, s->power_mw);
		if (has_e && is_counter && a->power_kind != POWER_KIND_INSTANT &&
		    (p->valid & M_ENERGY) && a->nlater < STATEPOWER_LATER)
			a->later[a->nlater++] = (struct split_later){ e, (double)dt / 1e9,
			    (double)(p->read_ns + s->read_ns) / 1e9, ea, err, sp, sc };
	}
	/*
	 * A counter that moves in steps may have shown up to a step of the
	 * state before in the intervals after the change, or the reverse, and
	 * no bound of those intervals says so: each state's says it here.
	 */
	if (has_e && is_counter && a->counter_step_ns > 0)
		err += acct_counter_step_mj(a, acct_has_both(p, s, M_POWER) ?
		    max_d(p->power_mw, s->power_mw) : max_d(a->peak_power_mw, e /
		    ((double)dt / 1e9)));
	a->states[sp].energy_err_mj += err;
	a->states[sc].energy_err_mj += err;
	a->states[sp].energy_mj += has_e ? ea : 0;
	a->states[sc].energy_mj += has_e ? e - ea : 0;
	/* Each end's clocks over its half. */
	add_clocks(&a->states[sp], p, p, half);
	add_clocks(&a->states[sc], s, s, dt - half);
}

/* The time the interval just split gave each state (since before), held. */
static void
hold_time(struct dev_acct *a, const struct state_part *before)
{
	int64_t	dt;
	int	k;

	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		dt = a->states[k].time_ns - before[k].time_ns;
		a->pend_ns[k] += dt;
		a->pend_total_ns += dt;
		if (a->is_after_gap)
			a->pend_gap_ns += dt;
	}
}

void
acct_hold_pending(struct dev_acct *a, const struct state_part *before, int64_t asleep_ns)
{
	a->pend_asleep_ns += asleep_ns;
	hold_time(a, before);
}

void
acct_drop_pending(struct dev_acct *a)
{
	/* Called for every interval that holds nothing: nothing to clear then. */
	if (a->pend_total_ns == 0 && !a->is_pend_counter)
		return;
	memset(a->pend_ns, 0, sizeof a->pend_ns);
	memset(a->pend_w, 0, sizeof a->pend_w);
	a->pend_total_ns = a->pend_gap_ns = a->pend_asleep_ns = 0;
	a->pend_gap_w = a->pend_err_mj = 0;
	a->is_pend_by_time = a->is_pend_counter = false;
}

/* The power at p's end (p_mw) and at s's end (s_mw): each end's own, else the other's. */
static bool
end_powers(const struct sample *p, const struct sample *s, double *p_mw, double *s_mw)
{
	bool	hp = (p->valid & M_POWER) != 0, hs = (s->valid & M_POWER) != 0;

	*p_mw = hp ? p->power_mw : s->power_mw;
	*s_mw = hs ? s->power_mw : p->power_mw;
	return hp || hs;
}

void
acct_hold_counter(struct dev_acct *a, const struct sample *p, const struct sample *s,
    const struct state_part *before)
{
	int64_t	half = (s->t_ns - p->t_ns) / 2;
	double	p_mw, s_mw;
	int	sp = acct_state_slot(p), sc = acct_state_slot(s);

	if (a->is_after_gap)
		sp = sc = ACCOUNT_STATE_UNKNOWN;
	if (!end_powers(p, s, &p_mw, &s_mw))
		a->is_pend_by_time = true;
	a->is_pend_counter = true;
	hold_time(a, before);
	/* The split rule's halves, each at the power of its end. */
	a->pend_w[sp] += (double)half * p_mw;
	a->pend_w[sc] += (double)(s->t_ns - p->t_ns - half) * s_mw;
	a->pend_err_mj += acct_trapezoid_err_mj(p_mw, s_mw, s->t_ns - p->t_ns);
	if (a->is_after_gap)
		a->pend_gap_w += (double)(s->t_ns - p->t_ns - half) * s_mw + (double)half * p_mw;
}

double
acct_give_counter(struct dev_acct *a, const struct sample *p, const struct sample *s,
    double d)
{
	int64_t	half = (s->t_ns - p->t_ns) / 2;
	double	p_mw, s_mw, w[ACCOUNT_NSTATES], cur, share, total = 0;
	int	k;

	if (a->pend_total_ns <= 0)
		return d;
	if (!end_powers(p, s, &p_mw, &s_mw))
		a->is_pend_by_time = true;
	cur = a->is_pend_by_time ? (double)(s->t_ns - p->t_ns) :
	    (double)half * p_mw + (double)(s->t_ns - p->t_ns - half) * s_mw;
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		w[k] = a->is_pend_by_time ? (double)a->pend_ns[k] : a->pend_w[k];
		total += w[k];
	}
	total += cur;
	if (total <= 0) {
		acct_drop_pending(a);
		return d;
	}
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		if (w[k] <= 0)
			continue;
		share = d * w[k] / total;
		a->states[k].energy_mj += share;
		a->states[k].has_energy = true;
		/*
		 * Shared by time, nothing says where the power was: all or
		 * none.  By power, the counter's disagreement with the
		 * readings (w is ns x mW: 1e9 x mJ).
		 */
		a->states[k].energy_err_mj += a->is_pend_by_time ? max_d(share, d - share) :
		    fabs(share - w[k] / 1e9);
	}
	/* Time after lost readings is in every state's bound, and so is its energy. */
	a->hidden_mj += d * (a->is_pend_by_time ? (double)a->pend_gap_ns : a->pend_gap_w) /
	    total;
	acct_drop_pending(a);
	return d * cur / total;
}

double
acct_give_reset(struct dev_acct *a, double *err)
{
	double	total = 0, part;
	int	k;

	*err = 0;
	if (!a->is_pend_counter || a->is_pend_by_time) {
		acct_drop_pending(a);
		return 0;
	}
	for (k = 0; k < ACCOUNT_NSTATES; k++)
		total += a->pend_w[k];
	for (k = 0; k < ACCOUNT_NSTATES && total > 0; k++) {
		if (a->pend_w[k] <= 0)
			continue;
		part = a->pend_w[k] / total;
		a->states[k].energy_mj += a->pend_w[k] / 1e9;
		a->states[k].energy_err_mj += a->pend_err_mj * part;
		a->states[k].has_energy = true;
	}
	/* Time after lost readings is in every state's bound, and so is its energy. */
	a->hidden_mj += a->pend_gap_w / 1e9;
	*err = a->pend_err_mj;
	total /= 1e9;
	acct_drop_pending(a);
	return total;
}

double
acct_give_pending(struct dev_acct *a, int64_t from_ns, uint32_t from_mw, int64_t to_ns,
    const struct sample *s)
{
	double	to_mw, e, part, cut, dp = fabs((double)s->power_mw - from_mw);
	int	k;

	if (a->pend_total_ns <= 0 || s->t_ns <= from_ns) {
		acct_drop_pending(a);
		return 0;
	}
	to_mw = from_mw + ((double)s->power_mw - from_mw) * (double)(to_ns - from_ns) /
	    (double)(s->t_ns - from_ns);
	e = acct_trapezoid_mj(from_mw, to_mw, to_ns - from_ns);
	cut = e * min_d((double)a->pend_asleep_ns / (double)a->pend_total_ns, 1) / 2;
	a->ticks_mj -= cut;
	a->ticks_err_mj += cut;
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		if (a->pend_ns[k] <= 0)
			continue;
		part = (double)a->pend_ns[k] / (double)a->pend_total_ns;
		a->states[k].energy_mj += (e - cut) * part;
		a->states[k].energy_ns += a->pend_ns[k];
		a->states[k].has_energy = true;
		/* Power stood anywhere between the two readings' meanwhile. */
		a->states[k].energy_err_mj += dp * (double)a->pend_ns[k] / 1e9 + cut * part;
	}
	/* Time after lost readings is in every state's bound, and so is its energy. */
	a->hidden_mj += e * (double)a->pend_gap_ns / (double)a->pend_total_ns;
	acct_drop_pending(a);
	return e;
}

/*
 * The split rule for a set of reasons: at both ends it has the interval,
 * at one end the half next to it, with half an interval of bound per
 * change.
 */
static void
split_mask(const struct sample *p, const struct sample *s, unsigned mask, int64_t *ns,
    int64_t *err_ns)
{
	int64_t	dt = s->t_ns - p->t_ns, half = dt / 2;
	bool	in_p = (p->throttle & mask) != 0, in_s = (s->throttle & mask) != 0;

	if (in_p && in_s)
		*ns += dt;
	else if (in_p)
		*ns += half;
	else if (in_s)
		*ns += dt - half;
	if (in_p != in_s)
		*err_ns += dt - half;
}

/* Time per clocks-event reason, and per group the violation counters count. */
void
acct_add_reasons(struct dev_acct *a, const struct sample *p, const struct sample *s)
{
	int	i;

	if (!acct_has_both(p, s, M_THROTTLE))
		return;
	a->reason_cover_ns += s->t_ns - p->t_ns;
	for (i = 0; i < THROTTLE_NREASONS; i++)
		split_mask(p, s, 1u << i, &a->reason_ns[i], &a->reason_err_ns[i]);
	split_mask(p, s, ACCOUNT_VIOL_POWER, &a->viol_ns[0], &a->viol_err_ns[0]);
	split_mask(p, s, ACCOUNT_VIOL_THERMAL, &a->viol_ns[1], &a->viol_err_ns[1]);
}
