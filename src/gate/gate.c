/*
 * CI gates: thresholds turned into verdicts (HACKING.md, "Exit status"),
 * and the verdicts' text; the baseline comparison is regress.c's.  A gate
 * judges the figure of one run, or with -r the mean of the runs, made
 * stricter by --gate-sigma standard deviations.  A figure that was not
 * measured fails its gate: a CI job must not pass on a number nobody saw.
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

#include "gate_priv.h"

void
gate_cover_add(struct cover *c, const struct dev_report *d)
{
	c->measured_ns += d->measured_ns;
	c->span_ns += d->span_ns;
	c->npartial += d->is_partial;
}

void
gate_cover_phase(struct cover *c, const struct phase_dev_report *pd)
{
	c->measured_ns += pd->measured_ns;
	c->span_ns += pd->span_ns;
	c->npartial += pd->is_partial;
}

void
gate_cover_none(struct cover *c, int64_t span_ns)
{
	c->span_ns += span_ns;
	c->npartial++;
}

bool
gate_could_measure(const struct device *dev)
{
	return (dev->measures & (M_ENERGY | M_POWER | M_POWER_POINTS)) != 0 || dev->is_unprobed;
}

/* "device time measured: 0.400 s of 2.002 s" into buf, after what it holds. */
void
gate_cover_words(const struct cover *c, char *buf, size_t size)
{
	size_t	len = strlen(buf);

	snprintf(buf + len, size - len, "%sdevice time measured: %.3f s of %.3f s",
	    len > 0 ? "; " : "", (double)c->measured_ns / 1e9, (double)c->span_ns / 1e9);
}

/* The figure of one run for a gate; false when the run did not measure it. */
bool
gate_dev_figure(enum gate_metric m, const struct dev_report *d, double *v)
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

/*
 * The percentage of d's time in the state named state (case-insensitive).
 * False, with why, when d reports no states or read none in the run (every
 * read failed, so all its time is the unknown state's): a share nobody
 * saw, not 0 %.
 */
static bool
state_figure(const struct dev_report *d, const char *state, double *v, char *why,
    size_t size)
{
	char	name[GATE_STATE_MAX];
	size_t	k;
	bool	is_read = false;

	*v = 0;
	if ((d->dev->measures & M_PSTATE) == 0) {
		snprintf(why, size, "device %u reports no performance states", d->dev->number);
		return false;
	}
	for (k = 0; k < d->nstates; k++) {
		is_read |= d->states[k].pstate != PSTATE_UNKNOWN;
		schema_state_name(d->dev, d->states[k].pstate, name, sizeof name);
		if (strcasecmp(name, state) == 0)
			*v += 100 * d->states[k].share;
	}
	if (!is_read)
		snprintf(why, size, "device %u read no performance state", d->dev->number);
	return is_read;
}

/* A phase's figure for a gate on one device; false when it was not measured. */
bool
gate_phase_dev_figure(const struct gate_spec *g, const struct phase_report *p, size_t at,
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
		/* As for the run: no state read in the phase is no share. */
		*v = 0;
		if ((d->dev->measures & M_PSTATE) == 0 ||
		    pd->states_ns - pd->state_ns[ACCOUNT_STATE_UNKNOWN] <= 0)
			return false;
		for (k = 0; k < ACCOUNT_NSTATES; k++) {
			schema_slot_name(d->dev, k, name, sizeof name);
			if (strcasecmp(name, g->state) == 0)
				*v += 100.0 * (double)pd->state_ns[k] / (double)pd->states_ns;
		}
		return true;
	default:
		return false;
	}
}

/* One run's figure for spec g in its phase (see run_figure). */
static bool
phase_figure(const struct gate_spec *g, long at, const struct report *rep, double *v,
    struct cover *cov, char *why, size_t size)
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
		if ((at >= 0 && (size_t)at != i) || (at < 0 && rep->devs[i].is_within))
			continue;
		if (gate_phase_dev_figure(g, p, i, &rep->devs[i], &x)) {
			*v += x;
			n++;
			/* A device lost in the middle of the phase measured part of it. */
			gate_cover_phase(cov, &p->devs[i]);
		} else if (at < 0 && p->devs[i].method == ENERGY_NONE &&
		    gate_could_measure(rep->devs[i].dev))
			gate_cover_none(cov, p->devs[i].span_ns);	/* as for the run */
	}
	if (n == 0)
		snprintf(why, size, "no device measured %s in phase %s", gate_name(g->metric),
		    g->phase);
	return n > 0;
}

/*
 * One run's figure for spec g on device dev (GATE_ALL_DEVICES = the sum
 * over the devices that measured it), and what it covered into cov: a
 * device that could have measured it and did not makes the sum partial.
 * False, with why, when there is none.  *err is its bound where it has one
 * (a run's energy: the devices' bounds added), else NaN.
 */
static bool
run_figure(const struct gate_spec *g, int dev, const struct report *rep, double *v,
    double *err, struct cover *cov, char *why, size_t size)
{
	const struct dev_report	*d;
	double			 x;
	size_t			 i, n = 0, nwithin = 0;
	long			 at = -1;

	*err = NAN;
	why[0] = '\0';		/* the words of this run, not of the one before */

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
		return phase_figure(g, at, rep, v, cov, why, size);
	if (g->metric == GATE_STATE_SHARE) {
		if (!state_figure(&rep->devs[at], g->state, v, why, size))
			return false;
		/* A share of part of the run is partial, as the energy is (--gate-partial). */
		gate_cover_add(cov, &rep->devs[at]);
		return true;
	}
	*v = 0;
	if (g->metric == GATE_ENERGY)
		*err = 0;
	for (i = 0; i < rep->ndev; i++) {
		d = &rep->devs[i];
		/* A figure within another's (an APU's SoC power) is counted once, as that one. */
		if (dev == GATE_ALL_DEVICES && d->is_within) {
			nwithin++;
			continue;
		}
		if (dev != GATE_ALL_DEVICES && (size_t)at != i)
			continue;
		if (gate_dev_figure(g->metric, d, &x)) {
			*v += x;
			if (g->metric == GATE_ENERGY)	/* else the bound stays unknown */
				*err += d->energy_err_mj / 1e3;
			n++;
			gate_cover_add(cov, d);
		} else if (dev == GATE_ALL_DEVICES && d->method == ENERGY_NONE &&
		    gate_could_measure(d->dev)) {
			/*
			 * It could have measured and measured nothing (a GPU lost
			 * from the start): the total misses all of its time, as
			 * it would miss part of it had the GPU been lost later.
			 */
			gate_cover_none(cov, d->span_ns);
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

struct gate_result *
gate_new_result(struct gate_set *gs, const struct gate_spec *g)
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

void
gate_set_verdict(struct gate_set *gs, struct gate_result *r, bool is_pass)
{
	r->verdict = is_pass ? GATE_PASS : GATE_FAIL;
	gs->nfailed += !is_pass;
}

void
gate_no_data(struct gate_set *gs, struct gate_result *r, const char *why)
{
	r->verdict = GATE_NO_DATA;
	r->measured = NAN;
	snprintf(r->detail, sizeof r->detail, "%s", why);
	gs->nfailed++;
}

bool
gate_partial(struct gate_set *gs, const struct gate_config *gc, struct gate_result *r,
    const struct cover *cov)
{
	if (cov->npartial == 0)
		return false;
	gate_cover_words(cov, r->detail, sizeof r->detail);
	if (!gc->is_partial_measured) {
		r->verdict = GATE_PARTIAL;
		gs->nfailed++;
		return true;
	}
	snprintf(r->detail + strlen(r->detail), sizeof r->detail - strlen(r->detail),
	    ", judged on that (--gate-partial=measured)");
	return false;
}

/* What spec g judges on device dev: "energy, all devices", "P0 share of time, device 0". */
static void
spec_what(const struct gate_spec *g, int dev, char *buf, size_t size)
{
	char	where[32] = "";

	if (dev != GATE_ALL_DEVICES)
		snprintf(where, sizeof where, ", device %d", dev);
	else if (g->metric != GATE_TIME && g->metric != GATE_STATE_SHARE)
		snprintf(where, sizeof where, ", all devices");
	if (g->metric == GATE_STATE_SHARE)
		snprintf(buf, size, "%s %s%s", g->state, gate_name(g->metric), where);
	else
		snprintf(buf, size, "%s%s", gate_name(g->metric), where);
	if (g->phase[0] != '\0')
		snprintf(buf + strlen(buf), size - strlen(buf), ", phase %s", g->phase);
}

/* Judge spec g on device dev over every run. */
static void
judge_one(struct gate_set *gs, const struct gate_config *gc, const struct gate_spec *g, int dev,
    const struct report *reps, size_t n)
{
	struct gate_result	*r = gate_new_result(gs, g);
	struct series_stat	 st;
	struct cover		 cov = { 0, 0, 0 };
	double			*v = xcalloc(n, sizeof *v), err = 0, e;
	char			 why[160] = "";
	size_t			 i;
	bool			 is_min = gate_is_min(g->metric);

	spec_what(g, dev, r->what, sizeof r->what);
	for (i = 0; i < n; i++) {
		if (!run_figure(g, dev, &reps[i], &v[i], &e, &cov, why, sizeof why)) {
			gate_no_data(gs, r, why);
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
	if (!gate_partial(gs, gc, r, &cov))
		gate_set_verdict(gs, r, is_min ? r->measured >= g->limit : r->measured <= g->limit);
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
		r = gate_new_result(gs, g);
		spec_what(g, GATE_ALL_DEVICES, r->what, sizeof r->what);
		gate_no_data(gs, r, "no device reports performance states");
	}
}

/*
 * No run succeeded: a run that failed is in no statistic (joulestat(1),
 * GATES), so each gate fails as not measured, named as it would be.
 */
static void
judge_none(struct gate_set *gs, const struct gate_config *gc, const struct gate_spec *g,
    const struct baseline *base)
{
	struct gate_result	*r;

	if (g->metric == GATE_REGRESSION && base == NULL)
		return;
	r = gate_new_result(gs, g);
	if (g->metric == GATE_REGRESSION)
		gate_regress_what(gc, NULL, r->what, sizeof r->what);
	else
		spec_what(g, g->device, r->what, sizeof r->what);
	gate_no_data(gs, r, "no run succeeded");
}

void
gate_judge(struct gate_set *gs, const struct gate_config *gc, const struct report *reps,
    size_t n, const struct baseline *base)
{
	const struct gate_spec	*g;
	struct report		*ok;
	size_t			 i, nok = 0;

	memset(gs, 0, sizeof *gs);
	if (n == 0)
		return;
	/*
	 * Only the runs that succeeded are judged, as the statistics count
	 * them: shallow copies, which share the reports' arrays.
	 */
	ok = xcalloc(n, sizeof *ok);
	for (i = 0; i < n; i++) {
		if (report_is_counted(&reps[i]))
			ok[nok++] = reps[i];
	}
	for (i = 0; i < gc->nspecs; i++) {
		g = &gc->specs[i];
		if (nok == 0)
			judge_none(gs, gc, g, base);
		else if (g->metric == GATE_REGRESSION && base != NULL)
			gate_judge_regressions(gs, gc, g, ok, nok, base);
		else if (g->metric == GATE_STATE_SHARE && g->device == GATE_ALL_DEVICES)
			judge_states(gs, gc, g, ok, nok);
		else if (g->metric != GATE_REGRESSION)
			judge_one(gs, gc, g, g->device, ok, nok);
	}
	free(ok);
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
