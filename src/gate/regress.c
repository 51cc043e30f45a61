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

/* Is device id in the baseline's devices? */
static bool
base_has(const struct baseline *base, const char *id)
{
	size_t	i;

	for (i = 0; i < base->ndevs; i++) {
		if (strcmp(base->devs[i].id, id) == 0)
			return true;
	}
	return false;
}

/* Is device id one of the current run's, with the figure measured? */
static bool
cur_has(const struct report *rep, const char *id)
{
	size_t	i;

	for (i = 0; i < rep->ndev; i++) {
		if (strcmp(rep->devs[i].dev->id, id) == 0)
			return true;
	}
	return false;
}

/* The baseline's phase row of run k for phase on device id, or NULL. */
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

/*
 * One current run's figure for the regression metric, over the devices it
 * shares with the baseline (*ncommon of them), for the whole run or for
 * one phase (NULL: the run).  False when a shared device did not measure
 * it, or when none is shared.
 */
static bool
cur_regress(const struct gate_config *gc, const struct report *rep, const struct baseline *base,
    const char *phase, double *v, size_t *ncommon, struct cover *cov)
{
	enum gate_metric		 m = gc->regress == REGRESS_ENERGY ? GATE_ENERGY :
					    GATE_ABOVE_IDLE;
	const struct phase_report	*p = phase != NULL ? report_phase(rep, phase) : NULL;
	struct gate_spec		 g = { .metric = m };
	double				 x;
	size_t				 i;
	bool				 is_measured = true, is_common;

	*v = 0;
	*ncommon = 0;
	if (phase != NULL && p == NULL)
		return false;
	if (gc->regress == REGRESS_TIME) {
		*v = (double)(p != NULL ? p->wall_ns : rep->wall_ns) / 1e9;
		return true;
	}
	for (i = 0; i < rep->ndev; i++) {
		is_common = phase != NULL ? base_phase(base, 0, phase, rep->devs[i].dev->id) != NULL :
		    base_has(base, rep->devs[i].dev->id);
		if (!is_common)
			continue;
		(*ncommon)++;
		if (p != NULL ? gate_phase_dev_figure(&g, p, i, &rep->devs[i], &x) :
		    gate_dev_figure(m, &rep->devs[i], &x)) {
			*v += x;
			if (p != NULL)
				gate_cover_phase(cov, &p->devs[i]);
			else
				gate_cover_add(cov, &rep->devs[i]);
		} else
			is_measured = false;
	}
	return *ncommon > 0 && is_measured;
}

/* The baseline's figure of run k for the regression metric, over the shared devices. */
static bool
base_regress(const struct gate_config *gc, const struct baseline *base, size_t k,
    const struct report *rep, const char *phase, double *v)
{
	const struct baseline_phase	*bp;
	double				 x;
	size_t				 i;

	if (phase != NULL && gc->regress == REGRESS_TIME) {
		bp = base_phase(base, k, phase, NULL);
		*v = bp != NULL ? bp->wall_s : NAN;
		return bp != NULL && !isnan(bp->wall_s);
	}
	if (gc->regress == REGRESS_TIME) {
		*v = base->runs[k].wall_s;
		return true;
	}
	*v = 0;
	for (i = 0; phase != NULL && i < base->nphases; i++) {
		bp = &base->phases[i];
		if (bp->run != k || strcmp(bp->name, phase) != 0 || !cur_has(rep, bp->id))
			continue;
		x = gc->regress == REGRESS_ENERGY ? bp->energy_j : bp->above_idle_j;
		if (isnan(x))
			return false;
		*v += x;
	}
	for (i = 0; phase == NULL && i < base->ndevs; i++) {
		if (base->devs[i].run != k || !cur_has(rep, base->devs[i].id))
			continue;
		x = gc->regress == REGRESS_ENERGY ? base->devs[i].energy_j :
		    base->devs[i].above_idle_j;
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
	double			*cv = xcalloc(n, sizeof *cv), *bv = xcalloc(base->nruns, sizeof *bv);
	double			 ratio, growth, unc = 0;
	size_t			 i, ncommon = 0;
	const char		*unit = gc->regress == REGRESS_TIME ? "s" : "J";

	gate_regress_what(gc, phase, r->what, sizeof r->what);
	for (i = 0; i < n; i++) {
		if (!cur_regress(gc, &reps[i], base, phase, &cv[i], &ncommon, &cov)) {
			gate_no_data(gs, r, ncommon == 0 && gc->regress != REGRESS_TIME ?
			    "no device in common with the baseline" : "a run did not measure it");
			goto out;
		}
	}
	for (i = 0; i < base->nruns; i++) {
		if (!base_regress(gc, base, i, &reps[0], phase, &bv[i])) {
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
	if (!gate_partial(gs, gc, r, &cov))
		gate_set_verdict(gs, r, r->measured <= g->limit);
out:
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
