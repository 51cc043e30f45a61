/*
 * The JSON form of the report: one jansson tree built from struct reports
 * and dumped once.  Keys are the CSV column names where the two overlap;
 * figures nest as run, sampler, device, P-state and process objects.  A
 * figure that is unknown is null, never 0.  The run's, the device's and
 * the P-state's figures come from the tables of figures.c, which the CSV
 * walks too.  Every string goes through fmt_json_text(), which makes it
 * valid UTF-8 (a JSON text must be; jansson refuses anything else): each
 * byte that is not part of a well-formed UTF-8 sequence becomes U+FFFD.
 * Nothing here measures or derives a figure beyond unit scaling.  See
 * HACKING.md, "Outputs and the summary schema".
 */
#include "joulestat/jsonout.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/figures.h"
#include "joulestat/fmt.h"
#include "joulestat/util.h"

/*
 * A word of the machine-readable forms; null for "" (unknown).  Some come
 * from the environment (the runtimes' device masks): not valid UTF-8 there
 * is U+FFFD here, as in every text (fmt_json_text).
 */
static json_t *
word(const char *w)
{
	return fmt_json_text(w);
}

/* A measured real; null when it is not finite (JSON has no NaN). */
static json_t *
real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A count; above json_int_t's range (never in practice) it becomes a real. */
static json_t *
uinteger(uint64_t v)
{
	return v <= INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

/* Append v, which a takes over; -1 when either is NULL, so callers can OR the results. */
static int
append(json_t *a, json_t *v)
{
	return json_array_append_new(a, v) == 0 ? 0 : -1;
}

/* The value of figure f of the struct at base; null when it is unknown. */
static json_t *
figure_json(const struct figure *f, const void *base)
{
	struct figure_value	v;

	figure_get(f, base, &v);
	switch (v.kind) {
	case FIGURE_UNKNOWN: return json_null();
	case FIGURE_IS_BOOL: return json_boolean(v.b);
	case FIGURE_IS_INT: return json_integer(v.i);
	case FIGURE_IS_UINT: return uinteger(v.u);
	case FIGURE_IS_REAL: return real(v.r);
	case FIGURE_IS_WORD: return word(v.w);
	}
	return NULL;
}

/*
 * Put the figures of table t of the struct at base into o, each under its
 * key; the figures of a group go into one object of their own under the
 * group's key, null when the group is unknown.
 */
static int
put_figures(json_t *o, const void *base, const struct figure_table *t)
{
	const struct figure	*f;
	json_t			*group;
	size_t			 i, k;
	int			 rc = 0;

	for (i = 0; i < t->n; i = k) {
		f = &t->v[i];
		if (f->group == NULL) {
			rc |= fmt_json_put(o, figure_key(f), figure_json(f, base));
			k = i + 1;
			continue;
		}
		for (k = i; k < t->n && t->v[k].group != NULL &&
		    strcmp(t->v[k].group, f->group) == 0; k++)
			;
		if (!figure_group_known(f, base)) {
			rc |= fmt_json_put(o, f->group, json_null());
			continue;
		}
		group = json_object();
		rc |= fmt_json_put(o, f->group, group);
		for (; i < k && group != NULL; i++)
			rc |= fmt_json_put(group, figure_key(&t->v[i]), figure_json(&t->v[i], base));
	}
	return rc;
}

/* Set the key named as the summary column col in o to v; 0 or -1, as fmt_json_put. */
static int
put_col(json_t *o, enum summary_col col, json_t *v)
{
	return fmt_json_put(o, schema_column(col), v);
}

/* Give back o, or NULL (and drop o) when building it failed anywhere. */
static json_t *
done(json_t *o, int rc)
{
	if (rc != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
state_object(const struct device *dev, const struct state_report *s)
{
	json_t	*o = json_object();
	char	 name[16];
	int	 rc;

	rc = fmt_json_put(o, "pstate", fmt_json_text(schema_state_name(dev, s->pstate, name,
	    sizeof name)));
	rc |= put_figures(o, s, &figures_state);
	return done(o, rc);
}

/* part's share of the device's energy: null without attribution or energy. */
static json_t *
energy_share(const struct dev_report *d, double part_mj)
{
	if (!d->has_attrib || !(d->energy_mj > 0))
		return json_null();
	return real(part_mj / d->energy_mj);
}

static json_t *
proc_object(const struct dev_report *d, const struct proc_report *p)
{
	json_t	*o = json_object();
	int	 rc;

	rc = put_col(o, COL_PID, json_integer(p->pid));
	rc |= put_col(o, COL_PROCESS, fmt_json_text(p->comm));
	rc |= put_col(o, COL_SMPCT, p->has_util ? real(p->sm_pct) : json_null());
	rc |= put_col(o, COL_MEMPCT, p->has_util ? real(p->mem_pct) : json_null());
	rc |= fmt_json_put(o, "between_ticks", json_boolean(p->is_between_ticks));
	rc |= put_col(o, COL_GPUMEM, p->max_gpu_mem_kib > 0 ?
	    uinteger(p->max_gpu_mem_kib) : json_null());
	rc |= put_col(o, COL_ENERGY, d->has_attrib ? real(p->energy_mj / 1e3) : json_null());
	rc |= put_col(o, COL_METHOD, d->has_attrib ? word(schema_word_estimate()) :
	    json_null());
	rc |= put_col(o, COL_SHARE_E, energy_share(d, p->energy_mj));
	return done(o, rc);
}

int
jsonout_put_identity(json_t *o, const struct device *dev, const char *backend)
{
	int	rc;

	rc = fmt_json_put(o, "index", uinteger(dev->number));
	rc |= fmt_json_put(o, "id", fmt_json_text(dev->id));
	rc |= fmt_json_put(o, "name", fmt_json_text(dev->name));
	rc |= fmt_json_put(o, "bus_id", fmt_json_text(dev->bus_id));
	rc |= fmt_json_put(o, "versions", fmt_json_text(dev->version));
	rc |= fmt_json_put(o, "architecture", fmt_json_text(dev->arch));
	rc |= fmt_json_put(o, "backend", fmt_json_text(backend));
	rc |= fmt_json_put(o, "backend_index", uinteger(dev->index));
	rc |= fmt_json_put(o, "power_kind", word(schema_word_kind(dev->power_kind)));
	return rc;
}

json_t *
jsonout_notes(const char (*notes)[DEVICE_NOTE_LEN], unsigned nnotes)
{
	json_t		*a = json_array();
	unsigned	 i;
	int		 rc = 0;

	for (i = 0; i < nnotes; i++)
		rc |= append(a, fmt_json_text(notes[i]));
	return done(a, rc);
}

/* The P-states, the attribution, the processes and the notes of a device. */
static int
put_lists(json_t *o, const struct dev_report *d)
{
	json_t	*states = json_array(), *procs = json_array();
	size_t	 i;
	int	 rc = 0;

	for (i = 0; i < d->nstates; i++)
		rc |= append(states, state_object(d->dev, &d->states[i]));
	for (i = 0; i < d->nprocs; i++)
		rc |= append(procs, proc_object(d, &d->procs[i]));
	rc |= fmt_json_put(o, "pstates", states);
	rc |= fmt_json_put(o, "pstate_energy_split", word(schema_phrase_split(d->pstate_split)));
	rc |= put_figures(o, d, &figures_attrib);
	rc |= fmt_json_put(o, "processes", procs);
	rc |= fmt_json_put(o, "notes", jsonout_notes((const char (*)[DEVICE_NOTE_LEN])d->notes,
	    d->nnotes));
	return rc;
}

static json_t *
device_object(const struct dev_report *d)
{
	json_t	*o = json_object();
	int	 rc;

	rc = jsonout_put_identity(o, d->dev, d->backend);
	rc |= fmt_json_put(o, "gone", json_boolean(d->is_gone));
	rc |= put_figures(o, d, &figures_device);
	rc |= put_lists(o, d);
	return done(o, rc);
}

/* How the run ended: exit_status, and the signal or errno behind it. */
static int
put_outcome(json_t *o, const struct report *rep)
{
	bool	is_attach = rep->outcome == OUTCOME_ATTACHED || rep->outcome == OUTCOME_INTERRUPTED;
	bool	is_signal = rep->outcome == OUTCOME_SIGNALED || rep->outcome == OUTCOME_INTERRUPTED;
	bool	is_exec = rep->outcome == OUTCOME_NOT_FOUND || rep->outcome == OUTCOME_CANNOT_EXEC;
	int	rc;

	rc = put_col(o, COL_OUTCOME, word(schema_word_outcome(rep->outcome)));
	rc |= put_col(o, COL_EXIT, is_attach ? json_null() : json_integer(rep->exit_status));
	rc |= fmt_json_put(o, "signal", is_signal && rep->code > 0 ? json_integer(rep->code) : json_null());
	rc |= fmt_json_put(o, "exec_errno", is_exec ? json_integer(rep->code) : json_null());
	return rc;
}

static json_t *
pids_array(const pid_t *pids, size_t npids)
{
	json_t	*a = json_array();
	size_t	 i;
	int	 rc = 0;

	for (i = 0; i < npids; i++)
		rc |= append(a, json_integer(pids[i]));
	return done(a, rc);
}

static int
put_run_lists(json_t *o, const struct report *rep)
{
	json_t	*notes = json_array(), *devs = json_array();
	size_t	 i;
	int	 rc = 0;

	for (i = 0; i < rep->nnotes && i < ARRAY_SIZE(rep->notes); i++)
		rc |= append(notes, fmt_json_text(rep->notes[i]));
	for (i = 0; i < rep->ndev; i++)
		rc |= append(devs, device_object(&rep->devs[i]));
	rc |= fmt_json_put(o, "notes", notes);
	rc |= fmt_json_put(o, "devices", devs);
	return rc;
}

/* One device over one phase name's occurrences, or over one occurrence. */
static json_t *
phase_device_object(const struct dev_report *dr, const struct phase_dev_report *pd)
{
	json_t	*o = json_object(), *states = json_array(), *st;
	char	 name[16];
	int	 rc, k;

	rc = fmt_json_put(o, "device", uinteger(dr->dev->number));
	rc |= put_col(o, COL_ENERGY, pd->method != ENERGY_NONE ? real(pd->energy_mj / 1000) :
	    json_null());
	rc |= put_col(o, COL_ENERGY_ERR, pd->method != ENERGY_NONE ?
	    real(pd->energy_err_mj / 1000) : json_null());
	rc |= put_col(o, COL_METHOD, word(schema_word_method(pd->method)));
	rc |= put_col(o, COL_PARTIAL, pd->method != ENERGY_NONE ? json_boolean(pd->is_partial) :
	    json_null());
	rc |= fmt_json_put(o, "energy_per_occurrence_j", pd->method != ENERGY_NONE ?
	    json_pack("{s:o,s:o}", "mean", real(pd->per_occ.mean / 1000), "stddev",
	    real(pd->per_occ.sd / 1000)) : json_null());
	rc |= put_col(o, COL_AVGPOWER, pd->has_avg_power ? real(pd->avg_power_mw / 1000) :
	    json_null());
	rc |= put_col(o, COL_PEAKPOWER, pd->has_peak ? real((double)pd->peak_power_mw / 1000) :
	    json_null());
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		if (pd->state_ns[k] == 0)
			continue;
		st = json_object();
		rc |= put_col(st, COL_PSTATE, json_string(schema_slot_name(dr->dev, k, name,
		    sizeof name)));
		rc |= put_col(st, COL_TIME, real((double)pd->state_ns[k] / 1e9));
		rc |= put_col(st, COL_TIME_ERR, real((double)pd->state_err_ns[k] / 1e9));
		rc |= put_col(st, COL_ENERGY, pd->method != ENERGY_NONE ?
		    real(pd->state_mj[k] / 1000) : json_null());
		rc |= put_col(st, COL_ENERGY_ERR, pd->method != ENERGY_NONE ?
		    real(pd->state_err_mj[k] / 1000) : json_null());
		rc |= append(states, st);
	}
	rc |= fmt_json_put(o, "pstates", states);
	rc |= put_col(o, COL_WORKLOAD, pd->has_workload ? real(pd->workload_mj / 1000) :
	    json_null());
	return done(o, rc);
}

/* One occurrence: when, how long, and each device's energy. */
static json_t *
phase_occ_object(const struct report *rep, const struct phase_occ *oc)
{
	json_t	*o = json_object(), *devs = json_array(), *d;
	size_t	 i;
	int	 rc;

	rc = fmt_json_put(o, "begin_s", real((double)(oc->begin_ns - rep->t0_ns) / 1e9));
	rc |= fmt_json_put(o, "end_s", real((double)(oc->end_ns - rep->t0_ns) / 1e9));
	rc |= put_col(o, COL_WALL, real((double)(oc->end_ns - oc->begin_ns) / 1e9));
	rc |= fmt_json_put(o, "depth", uinteger(oc->depth));
	rc |= fmt_json_put(o, "ended_by_run_end", json_boolean(oc->is_open_at_end));
	for (i = 0; i < rep->ndev; i++) {
		d = json_object();
		rc |= fmt_json_put(d, "device", uinteger(rep->devs[i].dev->number));
		rc |= put_col(d, COL_ENERGY, oc->devs[i].method != ENERGY_NONE ?
		    real(oc->devs[i].energy_mj / 1000) : json_null());
		rc |= put_col(d, COL_ENERGY_ERR, oc->devs[i].method != ENERGY_NONE ?
		    real(oc->devs[i].energy_err_mj / 1000) : json_null());
		rc |= put_col(d, COL_PARTIAL, oc->devs[i].method != ENERGY_NONE ?
		    json_boolean(oc->devs[i].is_partial) : json_null());
		/* The device's own readings, stamped when it answered: what the energy spans. */
		rc |= fmt_json_put(d, "readings_s", oc->devs[i].method != ENERGY_NONE ?
		    json_pack("[o,o]", real((double)(oc->devs[i].first_ns - rep->t0_ns) / 1e9),
		    real((double)(oc->devs[i].last_ns - rep->t0_ns) / 1e9)) : json_null());
		rc |= append(devs, d);
	}
	rc |= fmt_json_put(o, "devices", devs);
	return done(o, rc);
}

/* Each phase name with its figures and its occurrences, in order of beginning. */
static json_t *
phases_array(const struct report *rep)
{
	const struct phase_report	*p;
	json_t				*a = json_array(), *o, *devs, *occ;
	size_t				 i, k;
	int				 rc = 0;

	for (i = 0; i < rep->nphases; i++) {
		p = &rep->phases[i];
		o = json_object();
		devs = json_array();
		occ = json_array();
		rc |= fmt_json_put(o, "phase", fmt_json_text(p->name));
		rc |= fmt_json_put(o, "count", uinteger(p->count));
		rc |= fmt_json_put(o, "depth", uinteger(p->depth));
		rc |= put_col(o, COL_WALL, real((double)p->wall_ns / 1e9));
		rc |= fmt_json_put(o, "wall_per_occurrence_s", json_pack("{s:o,s:o}", "mean",
		    real(p->wall_per_occ.mean), "stddev", real(p->wall_per_occ.sd)));
		rc |= put_col(o, COL_USER, real((double)p->user_ns / 1e9));
		rc |= put_col(o, COL_SYS, real((double)p->sys_ns / 1e9));
		for (k = 0; k < rep->ndev; k++)
			rc |= append(devs, phase_device_object(&rep->devs[k], &p->devs[k]));
		rc |= fmt_json_put(o, "devices", devs);
		for (k = 0; k < rep->nphase_occ; k++) {
			if (strcmp(rep->phase_occ[k].name, p->name) == 0)
				rc |= append(occ, phase_occ_object(rep, &rep->phase_occ[k]));
		}
		rc |= fmt_json_put(o, "occurrences", occ);
		rc |= append(a, done(o, 0));
	}
	return done(a, rc);
}

/* The phase marks read: how many, how many were bad, and the first cause. */
static json_t *
marks_object(const struct report *rep)
{
	return json_pack("{s:o,s:o,s:o,s:o}", "lines", uinteger(rep->phase_marks + rep->phase_bad),
	    "bad", uinteger(rep->phase_bad), "first_bad",
	    rep->phase_bad > 0 ? fmt_json_text(rep->phase_first_bad) : json_null(),
	    "dropped", uinteger(rep->phase_dropped));
}

static json_t *
run_object(const struct report *rep)
{
	json_t	*o = json_object();
	int	 rc;

	rc = put_col(o, COL_RUN, uinteger(rep->index));
	rc |= put_col(o, COL_HOST, fmt_json_text(rep->where != NULL ? rep->where->host : NULL));
	rc |= put_col(o, COL_RANK, fmt_json_text(rep->where != NULL ? rep->where->rank : NULL));
	rc |= put_col(o, COL_JOB, fmt_json_text(rep->where != NULL ? rep->where->job : NULL));
	rc |= put_col(o, COL_START, rep->start_unix_ns > 0 ?
	    real((double)rep->start_unix_ns / 1e9) : json_null());
	rc |= put_col(o, COL_COMMAND, fmt_json_text(rep->command));
	rc |= put_outcome(o, rep);
	rc |= put_figures(o, rep, &figures_run);
	rc |= fmt_json_put(o, "still_running_pids", pids_array(rep->leftover, rep->nleftover));
	rc |= put_figures(o, rep, &figures_weights);
	rc |= put_figures(o, rep, &figures_sampler);
	rc |= put_figures(o, rep, &figures_totals);
	rc |= put_figures(o, rep, &figures_meta);
	rc |= put_run_lists(o, rep);
	rc |= fmt_json_put(o, "phases", phases_array(rep));
	rc |= fmt_json_put(o, "phase_marks", marks_object(rep));
	return done(o, rc);
}

/* {"mean", "stddev", "min", "max", "median", "n"} of a series figure, or null (words: schema.h). */
static json_t *
stat_object(const struct series_stat *st)
{
	json_t	*o;
	int	 rc;

	if (st->n == 0)
		return json_null();
	o = json_object();
	rc = fmt_json_put(o, schema_series_row(ROW_MEAN), real(st->mean));
	rc |= fmt_json_put(o, schema_series_row(ROW_STDDEV), real(st->sd));
	rc |= fmt_json_put(o, schema_series_row(ROW_MIN), real(st->min));
	rc |= fmt_json_put(o, schema_series_row(ROW_MAX), real(st->max));
	rc |= fmt_json_put(o, schema_series_row(ROW_MEDIAN), real(st->median));
	rc |= fmt_json_put(o, schema_series_row(ROW_N), uinteger(st->n));
	return done(o, rc);
}

/*
 * {"mean", "median", "min", "max"}: the measurement bound of each of
 * those statistics of a figure with n runs; null when unknown.
 */
static json_t *
bound_object(const struct series_bound *b, size_t n)
{
	json_t	*o;
	int	 rc;

	if (n == 0 || !b->has)
		return json_null();
	o = json_object();
	rc = fmt_json_put(o, schema_series_row(ROW_MEAN), real(b->mean));
	rc |= fmt_json_put(o, schema_series_row(ROW_MEDIAN), real(b->median));
	rc |= fmt_json_put(o, schema_series_row(ROW_MIN), real(b->min));
	rc |= fmt_json_put(o, schema_series_row(ROW_MAX), real(b->max));
	return done(o, rc);
}

/*
 * Each statistic of table t of the struct at base, under its column's
 * name, and the bounds of those that have one under their bound's.
 */
static int
put_stats(json_t *o, const void *base, const struct stat_table *t)
{
	const struct stat_figure	*sf;
	const struct series_stat	*st;
	size_t				 i;
	int				 rc = 0;

	for (i = 0; i < t->n; i++) {
		sf = &t->v[i];
		st = (const struct series_stat *)(const void *)((const char *)base + sf->off);
		rc |= fmt_json_put(o, schema_column(sf->col), stat_object(st));
		if (sf->err_off != 0)
			rc |= fmt_json_put(o, schema_column(sf->err_col), bound_object(
			    (const struct series_bound *)(const void *)((const char *)base +
			    sf->err_off), st->n));
	}
	return rc;
}

static json_t *
series_device(const struct device *dev, const struct dev_series *ds)
{
	json_t	*o = json_object(), *states = json_object(), *errs = json_object();
	char	 name[16];
	int	 rc, k;

	rc = fmt_json_put(o, "index", uinteger(dev->number));
	rc |= put_stats(o, ds, &figures_series_device);
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		if (!ds->has_state[k])
			continue;
		schema_slot_name(dev, k, name, sizeof name);
		rc |= fmt_json_put(states, name, stat_object(&ds->state_s[k]));
		rc |= fmt_json_put(errs, name, bound_object(&ds->state_err_s[k],
		    ds->state_s[k].n));
	}
	rc |= fmt_json_put(o, "pstate_time_s", states);
	rc |= fmt_json_put(o, "pstate_time_err_s", errs);
	return done(o, rc);
}

/* The summary of repeated runs; null for a single run. */
static json_t *
series_object(const struct report *reps, const struct series *s)
{
	json_t	*o, *devs, *warn;
	size_t	 i;
	int	 rc;

	if (s == NULL || s->n < 2)
		return json_null();
	o = json_object();
	devs = json_array();
	warn = json_array();
	rc = fmt_json_put(o, "runs", uinteger(s->n));
	rc |= fmt_json_put(o, "runs_in_statistics", uinteger(s->ncounted));
	rc |= put_stats(o, s, &figures_series_run);
	for (i = 0; i < s->ndev; i++)
		rc |= append(devs, series_device(reps[0].devs[i].dev, &s->devs[i]));
	rc |= fmt_json_put(o, "devices", devs);
	for (i = 0; i < s->nwarnings; i++)
		rc |= append(warn, fmt_json_text(s->warnings[i]));
	rc |= fmt_json_put(o, "warnings", warn);
	return done(o, rc);
}

static json_t *
gate_object(const struct gate_result *g)
{
	json_t	*o = json_object();
	int	 rc;

	rc = fmt_json_put(o, "gate", fmt_json_text(gate_option(g->metric)));
	rc |= fmt_json_put(o, "figure", fmt_json_text(g->what));
	rc |= fmt_json_put(o, "unit", fmt_json_text(g->unit));
	rc |= fmt_json_put(o, "comparison", json_string(gate_comparison(g->metric)));
	rc |= fmt_json_put(o, "limit", real(g->limit));
	rc |= fmt_json_put(o, "measured", g->verdict == GATE_NO_DATA ? json_null() : real(g->measured));
	rc |= fmt_json_put(o, "passed", json_boolean(g->verdict == GATE_PASS));
	rc |= fmt_json_put(o, "detail", fmt_json_text(g->detail));
	return done(o, rc);
}

json_t *
jsonout_build(const struct report *reps, size_t nreps, const struct series *series,
    const struct gate_set *gates)
{
	json_t	*o = json_object(), *runs = json_array(), *gv = json_array();
	size_t	 i;
	int	 rc;

	rc = fmt_json_put(o, "schema_version", json_integer(JSONOUT_SCHEMA_VERSION));
	for (i = 0; i < nreps; i++)
		rc |= append(runs, run_object(&reps[i]));
	rc |= fmt_json_put(o, "runs", runs);
	rc |= fmt_json_put(o, "series", series_object(reps, series));
	for (i = 0; gates != NULL && i < gates->n; i++)
		rc |= append(gv, gate_object(&gates->v[i]));
	rc |= fmt_json_put(o, "gates", gv);
	return done(o, rc);
}
