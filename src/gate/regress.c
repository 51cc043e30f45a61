/*
 * --max-regression (joulestat(1), GATES): the mean of this run or series
 * against the mean of the numbered runs of a --baseline summary, over the
 * devices both have, for the whole run and for each phase both have.
 */
#include "joulestat/gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/report.h"
#include "joulestat/util.h"

#include "gate_priv.h"

/* The baseline's phase row of run k for phase on device id (any, for NULL), or NULL. */
static const struct baseline_phase *
base_phase(const struct baseline *base, size_t k, const char *phase, const char *id)
{
	size_t	i;

	for (i = 0; i < base->nphases; i++) {
		if (base->phases[i].run == k && strcmp(base->phases[i].name, phase) == 0 &&
		    (id == NULL || strcmp(base->phases[i].id, id) == 0))
			return &base->phases[i];
	}
	return NULL;
}

/* Is device id in the baseline: in its rows of phase (NULL: its device rows)? */
static bool
base_has(const struct baseline *base, const char *phase, const char *id)
{
	size_t	i;

	if (phase != NULL)
		return base_phase(base, 0, phase, id) != NULL;
	for (i = 0; i < base->ndevs; i++) {
		if (strcmp(base->devs[i].id, id) == 0)
			return true;
	}
	return false;
}

/* Where device id is in rep->devs, or -1. */
static long
cur_at(const struct report *rep, const char *id)
{
	size_t	i;

	for (i = 0; i < rep->ndev; i++) {
		if (strcmp(rep->devs[i].dev->id, id) == 0)
			return (long)i;
	}
	return -1;
}

/*
 * Does the baseline (in phase, or in its device rows) have a device that
 * rep lacks by its id?  A device the run could not identify may be that
 * one: a GPU that did not answer from the start has only a name of its
 * index ("nvml:1") until it does.
 */
static bool
base_lacks_one(const struct baseline *base, const char *phase, const struct report *rep)
{
	size_t	i;

	for (i = 0; phase != NULL && i < base->nphases; i++) {
		if (base->phases[i].run == 0 && strcmp(base->phases[i].name, phase) == 0 &&
		    base->phases[i].id[0] != '\0' && cur_at(rep, base->phases[i].id) < 0)
			return true;
	}
	for (i = 0; phase == NULL && i < base->ndevs; i++) {
		if (cur_at(rep, base->devs[i].id) < 0)
			return true;
	}
	return false;
}

/* Device i of rep measured no energy (in phase) although it could have. */
static bool
is_unmeasured(const struct report *rep, size_t i, const char *phase)
{
	const struct phase_report	*p = phase != NULL ? report_phase(rep, phase) : NULL;
	enum energy_method		 m = p != NULL ? p->devs[i].method : rep->devs[i].method;

	if (phase != NULL && p == NULL)
		return false;		/* no phase: the run did not measure it at all */
	return m == ENERGY_NONE && gate_could_measure(rep->devs[i].dev);
}

/* One comparison: with what, over what, and the current runs' devices it leaves out. */
struct cmp {
	const struct gate_config	*gc;
	const struct baseline		*base;
	const char			*phase;		/* NULL: the whole run */
	bool				*left;		/* by place in the reports' devices */
	size_t				 ndev;		/* ... of which there are this many */
	size_t				 nleft;
};

/*
 * The devices the comparison leaves out: those the baseline has, or may
 * have (base_lacks_one), that some run could have measured but did not.
 * Neither side counts them, and they make the comparison partly measured:
 * left out silently, a lost GPU would read as a drop in energy.
 */
static void
find_left(struct cmp *c, const struct report *reps, size_t n)
{
	const struct report	*rep;
	size_t			 i, k;

	for (k = 0; k < n && c->gc->regress != REGRESS_TIME; k++) {
		rep = &reps[k];
		for (i = 0; i < rep->ndev && i < c->ndev; i++) {
			if (c->left[i] || !is_unmeasured(rep, i, c->phase))
				continue;
			if (base_has(c->base, c->phase, rep->devs[i].dev->id) ||
			    base_lacks_one(c->base, c->phase, rep)) {
				c->left[i] = true;
				c->nleft++;
			}
		}
	}
}

/*
 * One current run's figure for the regression metric, over the devices it
 * shares with the baseline (*ncommon of them) but those left out, for the
 * whole run or for the phase.  False when a shared device did not measure
 * it (energy above idle without an idle reference), or when none is
 * shared.
 */
static bool
cur_regress(const struct cmp *c, const struct report *rep, double *v, size_t *ncommon,
    struct cover *cov)
{
	enum gate_metric		 m = c->gc->regress == REGRESS_ENERGY ? GATE_ENERGY :
					    GATE_ABOVE_IDLE;
	const struct phase_report	*p = c->phase != NULL ? report_phase(rep, c->phase) : NULL;
	const struct dev_report		*d;
	struct gate_spec		 g = { .metric = m };
	double				 x;
	size_t				 i;
	bool				 is_measured = true;

	*v = 0;
	*ncommon = 0;
	if (c->phase != NULL && p == NULL)
		return false;
	if (c->gc->regress == REGRESS_TIME) {
		*v = (double)(p != NULL ? p->wall_ns : rep->wall_ns) / 1e9;
		return true;
	}
	for (i = 0; i < rep->ndev; i++) {
		d = &rep->devs[i];
		if (i < c->ndev && c->left[i]) {
			/* None of its time was measured, where it measured nothing. */
			if (is_unmeasured(rep, i, c->phase))
				gate_cover_none(cov, p != NULL ? p->devs[i].span_ns : d->span_ns);
			continue;
		}
		if (!base_has(c->base, c->phase, d->dev->id))
			continue;
		(*ncommon)++;
		if (p != NULL ? gate_phase_dev_figure(&g, p, i, d, &x) : gate_dev_figure(m, d, &x)) {
			*v += x;
			if (p != NULL)
				gate_cover_phase(cov, &p->devs[i]);
			else
				gate_cover_add(cov, d);
		} else
			is_measured = false;
	}
	return *ncommon > 0 && is_measured;
}

/* Is device id compared: one of rep's, and not left out? */
static bool
is_compared(const struct cmp *c, const struct report *rep, const char *id)
{
	long	at = cur_at(rep, id);

	return at >= 0 && !((size_t)at < c->ndev && c->left[at]);
}

/* The baseline's figure of run k for the regression metric, over the devices compared. */
static bool
base_regress(const struct cmp *c, size_t k, const struct report *rep, double *v)
{
	const struct baseline		*base = c->base;
	const struct baseline_phase	*bp;
	bool				 is_energy = c->gc->regress == REGRESS_ENERGY;
	double				 x;
	size_t				 i;

	if (c->phase != NULL && c->gc->regress == REGRESS_TIME) {
		bp = base_phase(base, k, c->phase, NULL);
		*v = bp != NULL ? bp->wall_s : NAN;
		return bp != NULL && !isnan(bp->wall_s);
	}
	if (c->gc->regress == REGRESS_TIME) {
		*v = base->runs[k].wall_s;
		return true;
	}
	*v = 0;
	for (i = 0; c->phase != NULL && i < base->nphases; i++) {
		bp = &base->phases[i];
		if (bp->run != k || strcmp(bp->name, c->phase) != 0 || !is_compared(c, rep, bp->id))
			continue;
		x = is_energy ? bp->energy_j : bp->above_idle_j;
		if (isnan(x))
			return false;
		*v += x;
	}
	for (i = 0; c->phase == NULL && i < base->ndevs; i++) {
		if (base->devs[i].run != k || !is_compared(c, rep, base->devs[i].id))
			continue;
		x = is_energy ? base->devs[i].energy_j : base->devs[i].above_idle_j;
		if (isnan(x))
			return false;
		*v += x;
	}
	return true;
}

static const char *const regress_words[] = {
	[REGRESS_ENERGY] = "energy",
	[REGRESS_TIME] = "wall time",
	[REGRESS_ABOVE_IDLE] = "energy above idle",
};

void
gate_regress_what(const struct gate_config *gc, const char *phase, char *buf, size_t size)
{
	snprintf(buf, size, "%s growth over the baseline%s%s", regress_words[gc->regress],
	    phase != NULL ? ", phase " : "", phase != NULL ? phase : "");
}

/*
 * --max-regression: growth of the mean over the baseline's mean, in
 * percent.  When both sides have repeats, the growth must exceed the
 * limit by more than its uncertainty, the two relative standard
 * deviations combined in quadrature (as hyperfine users gate).
 */
static void
judge_regression(struct gate_set *gs, const struct gate_config *gc, const struct gate_spec *g,
    const struct report *reps, size_t n, const struct baseline *base, const char *phase)
{
	struct gate_result	*r = gate_new_result(gs, g);
	struct series_stat	 cs, bs;
	struct cover		 cov = { 0, 0, 0 };
	struct cmp		 c = { gc, base, phase, NULL, reps[0].ndev, 0 };
	double			*cv = xcalloc(n, sizeof *cv), *bv = xcalloc(base->nruns, sizeof *bv);
	double			 ratio, growth, unc = 0;
	size_t			 i, ncommon = 0;
	const char		*unit = gc->regress == REGRESS_TIME ? "s" : "J";

	gate_regress_what(gc, phase, r->what, sizeof r->what);
	c.left = xcalloc(c.ndev > 0 ? c.ndev : 1, sizeof *c.left);
	find_left(&c, reps, n);
	for (i = 0; i < n; i++) {
		if (!cur_regress(&c, &reps[i], &cv[i], &ncommon, &cov)) {
			gate_no_data(gs, r, ncommon == 0 && c.nleft == 0 &&
			    gc->regress != REGRESS_TIME ? "no device in common with the baseline" :
			    "a run did not measure it");
			goto out;
		}
	}
	for (i = 0; i < base->nruns; i++) {
		if (!base_regress(&c, i, &reps[0], &bv[i])) {
			gate_no_data(gs, r, "the baseline did not measure it");
			goto out;
		}
	}
	series_stats(cv, n, &cs);
	series_stats(bv, base->nruns, &bs);
	if (!(bs.mean > 0)) {
		gate_no_data(gs, r, "the baseline's figure is 0");
		goto out;
	}
	ratio = cs.mean / bs.mean;
	growth = 100 * (ratio - 1);
	if (n > 1 && base->nruns > 1 && cs.mean > 0)
		unc = 100 * ratio * sqrt(pow(cs.sd / cs.mean, 2) + pow(bs.sd / bs.mean, 2));
	r->measured = growth - unc;
	snprintf(r->detail, sizeof r->detail, "baseline %.3f %s (%zu runs), now %.3f %s (%zu runs): "
	    "%+.2f%% +- %.2f%%", bs.mean, unit, bs.n, cs.mean, unit, cs.n, growth, unc);
	if (gc->regress != REGRESS_TIME)
		snprintf(r->detail + strlen(r->detail), sizeof r->detail - strlen(r->detail),
		    ", %zu device%s", ncommon, ncommon == 1 ? "" : "s");
	if (c.nleft > 0)
		snprintf(r->detail + strlen(r->detail), sizeof r->detail - strlen(r->detail),
		    "; %zu that measured nothing left out of both", c.nleft);
	if (!gate_partial(gs, gc, r, &cov))
		gate_set_verdict(gs, r, r->measured <= g->limit);
out:
	free(c.left);
	free(cv);
	free(bv);
}

void
gate_judge_regressions(struct gate_set *gs, const struct gate_config *gc,
    const struct gate_spec *g, const struct report *reps, size_t n, const struct baseline *base)
{
	size_t	i;

	judge_regression(gs, gc, g, reps, n, base, NULL);
	/* Again for each phase that both the baseline and the first run have. */
	for (i = 0; i < reps[0].nphases; i++) {
		if (base_phase(base, 0, reps[0].phases[i].name, NULL) != NULL)
			judge_regression(gs, gc, g, reps, n, base, reps[0].phases[i].name);
	}
}
