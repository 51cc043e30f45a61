/*
 * report_series: the figures of the runs of -r, taken from their reports
 * and summarized by stats.c.  A figure a run did not measure is left out
 * of that figure's summary, never counted as 0; a P-state a run never
 * entered is 0 s in it, unless the run has no P-state data at all.  A run that failed or was interrupted is in no
 * statistic, and a device's energy that covers less than its run (time
 * was lost) is not in the energy's (joulestat(1), --repeat).  The
 * statistics of a figure with a bound (energy, time in a P-state) carry
 * their own bounds, from the runs' (series_bound, stats.h).
 */
#include "joulestat/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"

static double
get_wall(const struct report *r, size_t d, int s)
{
	(void)d, (void)s;
	return (double)r->wall_ns / 1e9;
}

static double
get_user(const struct report *r, size_t d, int s)
{
	(void)d, (void)s;
	return (double)r->user_ns / 1e9;
}

static double
get_sys(const struct report *r, size_t d, int s)
{
	(void)d, (void)s;
	return (double)r->sys_ns / 1e9;
}

static double
get_energy(const struct report *r, size_t d, int s)
{
	(void)s;
	return r->devs[d].method != ENERGY_NONE && !r->devs[d].is_partial ?
	    r->devs[d].energy_mj / 1e3 : NAN;
}

/* The bound of get_energy's figure. */
static double
get_energy_err(const struct report *r, size_t d, int s)
{
	(void)s;
	return r->devs[d].energy_err_mj / 1e3;
}

static double
get_above_idle(const struct report *r, size_t d, int s)
{
	(void)s;
	return r->devs[d].has_above_idle && !r->devs[d].is_partial ?
	    r->devs[d].above_idle_mj / 1e3 : NAN;
}

static double
get_avg_power(const struct report *r, size_t d, int s)
{
	(void)s;
	return r->devs[d].has_avg_power ? r->devs[d].avg_power_mw / 1e3 : NAN;
}

static double
get_workload(const struct report *r, size_t d, int s)
{
	(void)s;
	return r->devs[d].has_attrib ? r->devs[d].workload_mj / 1e3 : NAN;
}

/* The run's figures of P-state slot on device d, or NULL when it never entered it. */
static const struct state_report *
state_of(const struct report *r, size_t d, int slot)
{
	const struct dev_report	*dr = &r->devs[d];
	size_t			 i;
	int			 want = slot == ACCOUNT_STATE_UNKNOWN ? PSTATE_UNKNOWN : slot;

	for (i = 0; i < dr->nstates; i++) {
		if (dr->states[i].pstate == want)
			return &dr->states[i];
	}
	return NULL;
}

/*
 * Time in a P-state slot; a state a run never entered counts as 0 s, but
 * a run whose P-state was never read is unknown in every known state.
 */
static double
get_state(const struct report *r, size_t d, int slot)
{
	const struct dev_report		*dr = &r->devs[d];
	const struct state_report	*st;

	/* No P-state read: the run says nothing of any known state. */
	if (dr->nstates == 0 || (slot != ACCOUNT_STATE_UNKNOWN && dr->nstates == 1 &&
	    dr->states[0].pstate == PSTATE_UNKNOWN))
		return NAN;
	st = state_of(r, d, slot);
	return st != NULL ? (double)st->time_ns / 1e9 : 0;
}

/* The bound of get_state's figure; 0 s of a state never entered is exact. */
static double
get_state_err(const struct report *r, size_t d, int slot)
{
	const struct state_report	*st = state_of(r, d, slot);

	return st != NULL ? (double)st->time_err_ns / 1e9 : 0;
}

bool
report_is_counted(const struct report *rep)
{
	return rep->exit_status == 0;
}

/* What summarizing one series needs: its runs, and room for one figure of each. */
struct series_input {
	const struct report	*reps;
	double			*v;		/* one figure of each run */
	double			*e;		/* ... and its bound */
	unsigned		*runs;		/* the runs' numbers */
	bool			*is_counted;	/* the run succeeded: in the statistics */
};

/*
 * Summarize get (one run's figure of the run, or of device dev and P-state
 * slot; NaN when unknown) over the runs into out; in->v keeps the values.
 */
static void
series_of(const struct series_input *in, size_t n, size_t dev, int slot,
    double (*get)(const struct report *, size_t, int), struct series_stat *out)
{
	size_t	i;

	for (i = 0; i < n; i++)
		in->v[i] = in->is_counted[i] ? get(&in->reps[i], dev, slot) : NAN;
	series_figure(in->v, n, out);
}

/* The bounds of the statistics series_of last made: get's bound in each run. */
static void
bounds_of(const struct series_input *in, size_t n, size_t dev, int slot,
    double (*get)(const struct report *, size_t, int), struct series_bound *out)
{
	size_t	i;

	for (i = 0; i < n; i++)
		in->e[i] = isnan(in->v[i]) ? NAN : get(&in->reps[i], dev, slot);
	series_bound(in->v, in->e, n, out);
}

static void
series_device(struct series *s, const struct series_input *in, size_t d)
{
	struct dev_series	*ds = &s->devs[d];
	char			 what[48];
	int			 k;

	series_of(in, s->n, d, 0, get_energy, &ds->energy_j);
	bounds_of(in, s->n, d, 0, get_energy_err, &ds->energy_err_j);
	ds->has_energy = ds->energy_j.n > 0;
	snprintf(what, sizeof what, "the energy of device %zu", d);
	if (ds->has_energy)
		series_check(s, in->v, in->runs, what, &ds->energy_j);
	series_of(in, s->n, d, 0, get_above_idle, &ds->above_idle_j);
	series_of(in, s->n, d, 0, get_avg_power, &ds->avg_power_w);
	series_of(in, s->n, d, 0, get_workload, &ds->workload_j);
	ds->has_above_idle = ds->above_idle_j.n > 0;
	ds->has_workload = ds->workload_j.n > 0;
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		series_of(in, s->n, d, k, get_state, &ds->state_s[k]);
		bounds_of(in, s->n, d, k, get_state_err, &ds->state_err_s[k]);
		ds->has_state[k] = ds->state_s[k].max > 0;
	}
}

/* Say which runs the statistics leave out, and why. */
static void
series_left_out(struct series *s, const struct series_input *in)
{
	const struct report	*r;
	size_t			 i, d;

	for (i = 0; i < s->n; i++) {
		r = &in->reps[i];
		if (!in->is_counted[i]) {
			series_warn(s, "run %u %s (status %d): it is in no statistic", r->index,
			    r->outcome == OUTCOME_SIGNALED ? "was interrupted" : "failed",
			    r->exit_status);
			continue;
		}
		for (d = 0; d < r->ndev; d++) {
			if (r->devs[d].is_partial)
				series_warn(s, "run %u: device %zu measured %.3f s of %.3f s: its "
				    "energy is not in the statistics", r->index, d,
				    (double)r->devs[d].measured_ns / 1e9,
				    (double)r->devs[d].span_ns / 1e9);
		}
	}
}

void
report_series(struct series *s, const struct report *reps, size_t n)
{
	struct series_input	in = { .reps = reps };
	size_t			i, d;

	memset(s, 0, sizeof *s);
	s->n = n;
	in.v = xcalloc(n, sizeof *in.v);
	in.e = xcalloc(n, sizeof *in.e);
	in.runs = xcalloc(n, sizeof *in.runs);
	in.is_counted = xcalloc(n, sizeof *in.is_counted);
	for (i = 0; i < n; i++) {
		in.runs[i] = reps[i].index;
		in.is_counted[i] = report_is_counted(&reps[i]);
		s->ncounted += in.is_counted[i];
	}
	series_left_out(s, &in);
	series_of(&in, n, 0, 0, get_user, &s->user_s);
	series_of(&in, n, 0, 0, get_sys, &s->sys_s);
	series_of(&in, n, 0, 0, get_wall, &s->wall_s);
	series_check(s, in.v, in.runs, "wall time", &s->wall_s);
	s->ndev = reps[0].ndev;
	s->devs = xcalloc(s->ndev, sizeof *s->devs);
	for (d = 0; d < s->ndev; d++)
		series_device(s, &in, d);
	free(in.v);
	free(in.e);
	free(in.runs);
	free(in.is_counted);
}
