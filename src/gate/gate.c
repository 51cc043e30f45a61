/*
 * CI gates: thresholds and the baseline comparison, turned into verdicts
 * (HACKING.md, "Exit status").  A gate judges the figure of one run, or with -r the mean
 * of the runs, made stricter by --gate-sigma standard deviations.  A
 * figure that was not measured fails its gate: a CI job must not pass on
 * a number nobody saw.
 */
#include "joulestat/gate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "joulestat/account.h"
#include "joulestat/report.h"
#include "joulestat/util.h"

/*
 * What the energy figures of the runs judged so far covered: a gate whose
 * figure covers less than the run is partial (joulestat(1), --gate-partial).
 */
struct cover {
	int64_t	measured_ns;
	int64_t	span_ns;
	size_t	npartial;
};

static void
cover_add(struct cover *c, const struct dev_report *d)
{
	c->measured_ns += d->measured_ns;
	c->span_ns += d->span_ns;
	c->npartial += d->is_partial;
}

/* "device time measured 0.400 s of 2.002 s" into buf, after what it holds. */
static void
cover_words(const struct cover *c, char *buf, size_t size)
{
	size_t	len = strlen(buf);

	snprintf(buf + len, size - len, "%slost time: %.3f s of %.3f s of device time measured",
	    len > 0 ? "; " : "", (double)c->measured_ns / 1e9, (double)c->span_ns / 1e9);
}

/* The figure of one run for a gate; false when the run did not measure it. */
static bool
dev_figure(enum gate_metric m, const struct dev_report *d, double *v)
{
	switch (m) {
	case GATE_ENERGY:
		*v = d->energy_mj / 1e3;
		return d->method != ENERGY_NONE;
	case GATE_ABOVE_IDLE:
		*v = d->above_idle_mj / 1e3;
		return d->has_above_idle;
	case GATE_AVG_POWER:
		*v = d->avg_power_mw / 1e3;
		return d->has_avg_power;
	default:
		return false;
	}
}

/* The percentage of d's time in the state named state (case-insensitive). */
static double
state_share(const struct dev_report *d, const char *state)
{
	char	name[GATE_STATE_MAX];
	double	share = 0;
	size_t	k;

	for (k = 0; k < d->nstates; k++) {
		schema_state_name(d->dev, d->states[k].pstate, name, sizeof name);
		if (strcasecmp(name, state) == 0)
			share += d->states[k].share;
	}
	return 100 * share;
}

/* A phase's figure for a gate on one device; false when it was not measured. */
static bool
phase_dev_figure(const struct gate_spec *g, const struct phase_report *p, size_t at,
    const struct dev_report *d, double *v)
{
	const struct phase_dev_report	*pd = &p->devs[at];
	char				 name[GATE_STATE_MAX];
	int				 k;

	switch (g->metric) {
	case GATE_ENERGY:
		*v = pd->energy_mj / 1e3;
		return pd->method != ENERGY_NONE;
	case GATE_ABOVE_IDLE:
		*v = pd->above_idle_mj / 1e3;
		return pd->has_above_idle;
	case GATE_AVG_POWER:
		*v = pd->avg_power_mw / 1e3;
		return pd->has_avg_power;
	case GATE_STATE_SHARE:
		*v = 0;
		for (k = 0; k < ACCOUNT_NSTATES && pd->states_ns > 0; k++) {
			schema_slot_name(d->dev, k, name, sizeof name);
			if (strcasecmp(name, g->state) == 0)
				*v += 100.0 * (double)pd->state_ns[k] / (double)pd->states_ns;
		}
		return (d->dev->measures & M_PSTATE) != 0;
	default:
		return false;
	}
}

/* One run's figure for spec g in its phase (see run_figure). */
static bool
phase_figure(const struct gate_spec *g, long at, const struct report *rep, double *v,
    char *why, size_t size)
{
	const struct phase_report	*p = report_phase(rep, g->phase);
	double				 x;
	size_t				 i, n = 0;

	if (p == NULL) {
		snprintf(why, size, "phase %s never occurred", g->phase);
		return false;
	}
	if (g->metric == GATE_TIME) {
		*v = (double)p->wall_ns / 1e9;
		return true;
	}
	*v = 0;
	for (i = 0; i < rep->ndev; i++) {
		/* As for the run: a figure within another's counts once, as that one. */
		if (at < 0 && rep->devs[i].is_within)
			continue;
		if ((at < 0 || (size_t)at == i) && phase_dev_figure(g, p, i, &rep->devs[i], &x)) {
			*v += x;
			n++;
		}
	}
	if (n == 0)
		snprintf(why, size, "no device measured %s in phase %s", gate_name(g->metric),
		    g->phase);
	return n > 0;
}

/*
 * One run's figure for spec g on device dev (GATE_ALL_DEVICES = the sum
 * over the devices that measured it).  False, with why, when there is none.
 * *err is its bound where it has one (a run's energy: the devices' bounds
 * added), else NaN.
 */
static bool
run_figure(const struct gate_spec *g, int dev, const struct report *rep, double *v,
    double *err, struct cover *cov, char *why, size_t size)
{
	double	x;
	size_t	i, n = 0, nwithin = 0;
	long	at = -1;

	*err = NAN;

	if (g->metric == GATE_TIME && g->phase[0] == '\0') {
		*v = (double)rep->wall_ns / 1e9;
		return true;
	}
	/* dev is the device's number (--list-devices), not its place in the report. */
	if (dev != GATE_ALL_DEVICES && (at = report_device_at(rep, (unsigned)dev)) < 0) {
		snprintf(why, size, "the run has no device %d", dev);
		return false;
	}
	if (g->phase[0] != '\0')
		return phase_figure(g, at, rep, v, why, size);
	if (g->metric == GATE_STATE_SHARE) {
		*v = state_share(&rep->devs[at], g->state);
		if ((rep->devs[at].dev->measures & M_PSTATE) == 0)
			snprintf(why, size, "device %d reports no performance states", dev);
		return (rep->devs[at].dev->measures & M_PSTATE) != 0;
	}
	*v = 0;
	if (g->metric == GATE_ENERGY)
		*err = 0;
	for (i = 0; i < rep->ndev; i++) {
		/* A figure within another's (an APU's SoC power) is counted once, as that one. */
		if (dev == GATE_ALL_DEVICES && rep->devs[i].is_within) {
			nwithin++;
			continue;
		}
		if ((dev == GATE_ALL_DEVICES || (size_t)at == i) &&
		    dev_figure(g->metric, &rep->devs[i], &x)) {
			*v += x;
			if (g->metric == GATE_ENERGY)	/* else the bound stays unknown */
				*err += rep->devs[i].energy_err_mj / 1e3;
			n++;
			cover_add(cov, &rep->devs[i]);
		}
	}
	if (n == 0)
		snprintf(why, size, "no device measured %s", gate_name(g->metric));
	else if (dev == GATE_ALL_DEVICES && n + nwithin < rep->ndev)
		snprintf(why, size, "the sum over the %zu of %zu devices that measured it", n,
		    rep->ndev - nwithin);
	if (n > 0 && nwithin > 0)
		snprintf(why + strlen(why), size - strlen(why), "%s%zu CPU package%s not added: "
		    "within an APU's SoC power", why[0] != '\0' ? "; " : "", nwithin,
		    nwithin == 1 ? "" : "s");
	return n > 0;
}

static struct gate_result *
new_result(struct gate_set *gs, const struct gate_spec *g)
{
	struct gate_result	*r;

	gs->v = xreallocarray(gs->v, gs->n + 1, sizeof *gs->v);
	r = &gs->v[gs->n++];
	memset(r, 0, sizeof *r);
	r->metric = g->metric;
	r->limit = g->limit;
	snprintf(r->unit, sizeof r->unit, "%s", gate_unit(g->metric));
	return r;
}

static void
set_verdict(struct gate_set *gs, struct gate_result *r, bool is_pass)
{
	r->verdict = is_pass ? GATE_PASS : GATE_FAIL;
	gs->nfailed += !is_pass;
}

static void
no_data(struct gate_set *gs, struct gate_result *r, const char *why)
{
	r->verdict = GATE_NO_DATA;
	r->measured = NAN;
	snprintf(r->detail, sizeof r->detail, "%s", why);
	gs->nfailed++;
}

/* Judge spec g on device dev over every run. */
static void
judge_one(struct gate_set *gs, const struct gate_config *gc, const struct gate_spec *g, int dev,
    const struct report *reps, size_t n)
{
	struct gate_result	*r = new_result(gs, g);
	struct series_stat	 st;
	struct cover		 cov = { 0, 0, 0 };
	double			*v = xcalloc(n, sizeof *v), err = 0, e;
	char			 why[160] = "", where[32];
	size_t			 i;
	bool			 is_min = gate_is_min(g->metric);

	if (dev == GATE_ALL_DEVICES)
		snprintf(where, sizeof where, g->metric == GATE_TIME ? "" : ", all devices");
	else
		snprintf(where, sizeof where, ", device %d", dev);
	if (g->metric == GATE_STATE_SHARE)
		snprintf(r->what, sizeof r->what, "%s %s%s", g->state, gate_name(g->metric),
		    where);
	else
		snprintf(r->what, sizeof r->what, "%s%s", gate_name(g->metric), where);
	if (g->phase[0] != '\0')
		snprintf(r->what + strlen(r->what), sizeof r->what - strlen(r->what),
		    ", phase %s", g->phase);
	for (i = 0; i < n; i++) {
		if (!run_figure(g, dev, &reps[i], &v[i], &e, &cov, why, sizeof why)) {
			no_data(gs, r, why);
			free(v);
			return;
		}
		err += e / (double)n;	/* the mean's bound: the mean of the runs' */
	}
	series_stats(v, n, &st);
	free(v);
	r->measured = is_min ? st.mean - gc->sigma * st.sd : st.mean + gc->sigma * st.sd;
	if (n > 1)
		snprintf(r->detail, sizeof r->detail, "mean %.3f %s %s %g x sd %.3f %s over %zu runs%s",
		    st.mean, r->unit, is_min ? "-" : "+", gc->sigma, st.sd, r->unit, n,
		    why[0] != '\0' || !isnan(err) ? "; " : "");
	if (!isnan(err))
		snprintf(r->detail + strlen(r->detail), sizeof r->detail - strlen(r->detail),
		    "%s ± %.3f %s (measurement)%s", n > 1 ? "mean" : "measured", err, r->unit,
		    why[0] != '\0' ? "; " : "");
	/* A total that left devices out says so. */
	snprintf(r->detail + strlen(r->detail), sizeof r->detail - strlen(r->detail), "%s", why);
	if (cov.npartial > 0) {
		cover_words(&cov, r->detail, sizeof r->detail);
		if (!gc->is_partial_measured) {
			r->verdict = GATE_PARTIAL;
			gs->nfailed++;
			return;
		}
		snprintf(r->detail + strlen(r->detail), sizeof r->detail - strlen(r->detail),
		    ", judged on that (--gate-partial=measured)");
	}
	set_verdict(gs, r, is_min ? r->measured >= g->limit : r->measured <= g->limit);
}

/* --min-pstate-share without a device: every device that reports states. */
static void
judge_states(struct gate_set *gs, const struct gate_config *gc, const struct gate_spec *g,
    const struct report *reps, size_t n)
{
	struct gate_result	*r;
	size_t			 i, judged = 0;

	for (i = 0; i < reps[0].ndev; i++) {
		if ((reps[0].devs[i].dev->measures & M_PSTATE) == 0)
			continue;
		judge_one(gs, gc, g, (int)reps[0].devs[i].dev->number, reps, n);
		judged++;
	}
	if (judged == 0) {
		r = new_result(gs, g);
		snprintf(r->what, sizeof r->what, "%s %s", g->state, gate_name(g->metric));
		no_data(gs, r, "no device reports performance states");
	}
}

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
		if (p != NULL ? phase_dev_figure(&g, p, i, &rep->devs[i], &x) :
		    dev_figure(m, &rep->devs[i], &x)) {
			*v += x;
			if (p == NULL)
				cover_add(cov, &rep->devs[i]);
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
	struct gate_result	*r = new_result(gs, g);
	struct series_stat	 cs, bs;
	struct cover		 cov = { 0, 0, 0 };
	double			*cv = xcalloc(n, sizeof *cv), *bv = xcalloc(base->nruns, sizeof *bv);
	double			 ratio, growth, unc = 0;
	size_t			 i, ncommon = 0;
	const char		*unit = gc->regress == REGRESS_TIME ? "s" : "J";

	snprintf(r->what, sizeof r->what, "%s growth over the baseline%s%s",
	    regress_words[gc->regress], phase != NULL ? ", phase " : "", phase != NULL ? phase : "");
	for (i = 0; i < n; i++) {
		if (!cur_regress(gc, &reps[i], base, phase, &cv[i], &ncommon, &cov)) {
			no_data(gs, r, ncommon == 0 && gc->regress != REGRESS_TIME ?
			    "no device in common with the baseline" : "a run did not measure it");
			goto out;
		}
	}
	for (i = 0; i < base->nruns; i++) {
		if (!base_regress(gc, base, i, &reps[0], phase, &bv[i])) {
			no_data(gs, r, "the baseline did not measure it");
			goto out;
		}
	}
	series_stats(cv, n, &cs);
	series_stats(bv, base->nruns, &bs);
	if (!(bs.mean > 0)) {
		no_data(gs, r, "the baseline's figure is 0");
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
	if (cov.npartial > 0) {
		cover_words(&cov, r->detail, sizeof r->detail);
		if (!gc->is_partial_measured) {
			r->verdict = GATE_PARTIAL;
			gs->nfailed++;
			goto out;
		}
	}
	set_verdict(gs, r, r->measured <= g->limit);
out:
	free(cv);
	free(bv);
}

/* --max-regression again for each phase that both the baseline and the first run have. */
static void
judge_phase_regressions(struct gate_set *gs, const struct gate_config *gc,
    const struct gate_spec *g, const struct report *reps, size_t n, const struct baseline *base)
{
	size_t	i;

	for (i = 0; i < reps[0].nphases; i++) {
		if (base_phase(base, 0, reps[0].phases[i].name, NULL) != NULL)
			judge_regression(gs, gc, g, reps, n, base, reps[0].phases[i].name);
	}
}

void
gate_judge(struct gate_set *gs, const struct gate_config *gc, const struct report *reps,
    size_t n, const struct baseline *base)
{
	const struct gate_spec	*g;
	size_t			 i;

	memset(gs, 0, sizeof *gs);
	for (i = 0; i < gc->nspecs && n > 0; i++) {
		g = &gc->specs[i];
		if (g->metric == GATE_REGRESSION && base != NULL) {
			judge_regression(gs, gc, g, reps, n, base, NULL);
			judge_phase_regressions(gs, gc, g, reps, n, base);
		}
		else if (g->metric == GATE_STATE_SHARE && g->device == GATE_ALL_DEVICES)
			judge_states(gs, gc, g, reps, n);
		else if (g->metric != GATE_REGRESSION)
			judge_one(gs, gc, g, g->device, reps, n);
	}
}

void
gate_set_free(struct gate_set *gs)
{
	free(gs->v);
	memset(gs, 0, sizeof *gs);
}

static const char *const verdict_words[] = {
	[GATE_PASS] = "pass",
	[GATE_FAIL] = "FAIL",
	[GATE_NO_DATA] = "FAIL (not measured)",
	[GATE_PARTIAL] = "FAIL (partly measured)",
};

const char *
gate_verdict_word(enum gate_verdict v)
{
	return verdict_words[v];
}

int
gate_write_text(FILE *f, const struct gate_set *gs)
{
	const struct gate_result	*r;
	char				 limit[48], measured[48];
	size_t				 i;

	if (gs->n == 0)
		return 0;
	fprintf(f, " gates%-40s %14s %14s  %s\n", "", "limit", "measured", "verdict");
	for (i = 0; i < gs->n; i++) {
		r = &gs->v[i];
		snprintf(limit, sizeof limit, "%s %.3f %s", gate_comparison(r->metric),
		    r->limit, r->unit);
		if (isnan(r->measured))
			snprintf(measured, sizeof measured, "-");
		else
			snprintf(measured, sizeof measured, "%.3f %s", r->measured, r->unit);
		fprintf(f, "   %-42s %14s %14s  %s\n", r->what, limit, measured,
		    verdict_words[r->verdict]);
		if (r->detail[0] != '\0')
			fprintf(f, "     %s\n", r->detail);
	}
	fprintf(f, "   %zu of %zu gates failed\n", gs->nfailed, gs->n);
	return flush_status(f);
}

void
gate_failure_line(const struct gate_result *r, char *buf, size_t size)
{
	if (r->verdict == GATE_NO_DATA || r->verdict == GATE_PARTIAL)
		snprintf(buf, size, "gate failed: %s (%s): %s%s", r->what, gate_option(r->metric),
		    r->detail, r->verdict == GATE_PARTIAL ? " (--gate-partial=fail)" : "");
	else
		snprintf(buf, size, "gate failed: %s (%s): %.3f %s, limit %s %.3f %s", r->what,
		    gate_option(r->metric), r->measured, r->unit,
		    gate_comparison(r->metric), r->limit, r->unit);
}
