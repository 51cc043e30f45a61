/*
 * The JSON form of the report (STYLE §8, issue #4): one jansson tree built
 * from struct reports and dumped once.  Keys mirror the CSV column names
 * where the two overlap; figures nest as run, sampler, device, P-state and
 * process objects.  A figure that is unknown is null, never 0.  Scalar
 * figures come from field tables (offset, type, scale, validity flag)
 * walked by one loop.  Every string goes through fmt_json_text(), which makes it
 * valid UTF-8 (a JSON text must be; jansson refuses anything else): each
 * byte that is not part of a well-formed UTF-8 sequence becomes U+FFFD.
 * Nothing here measures or derives a figure beyond unit scaling.
 */
#include "joulestat/jsonout.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/fmt.h"
#include "joulestat/util.h"

static const char *const method_keys[] = {
	[ENERGY_NONE] = NULL,
	[ENERGY_COUNTER] = "counter",
	[ENERGY_POINTS] = "driver_samples",
	[ENERGY_TICKS] = "readings",
};

/* The C type of a figure in its struct, found by FTYPE so a table cannot get it wrong. */
enum ftype {
	F_BOOL,
	F_INT,
	F_USHORT,
	F_UINT,
	F_LONG,
	F_ULONG,
	F_LLONG,
	F_ULLONG,
	F_DBL,
};

#define FTYPE(x)	_Generic((x), bool: F_BOOL, int: F_INT, unsigned short: F_USHORT, \
	    unsigned: F_UINT, long: F_LONG, unsigned long: F_ULONG, long long: F_LLONG, \
	    unsigned long long: F_ULLONG, double: F_DBL)

#define ALWAYS		SIZE_MAX

/* One scalar figure of a struct, written as one key. */
struct field {
	const char	*key;
	enum ftype	 type;
	size_t		 off;		/* of the figure */
	double		 scale;		/* write value / scale as a real; 0: as an integer */
	size_t		 has;		/* offset of the bool that makes it known, or ALWAYS */
};

#define FIELD(st, key, m, scale, has) \
	{ key, FTYPE(((const st *)0)->m), offsetof(st, m), scale, has }
#define RF(key, m, scale)	FIELD(struct report, key, m, scale, ALWAYS)
#define DF(key, m, scale)	FIELD(struct dev_report, key, m, scale, ALWAYS)
#define DHAS(m)			offsetof(struct dev_report, m)

static const struct field run_fields[] = {
	RF("wall_s", wall_ns, 1e9),
	RF("user_s", user_ns, 1e9),
	RF("sys_s", sys_ns, 1e9),
	RF("cpu_sampled", is_cpu_sampled, 0),
	FIELD(struct report, "max_rss_kib", max_rss_kib, 0, offsetof(struct report, has_max_rss)),
	RF("peak_tree_rss_kib", peak_tree_rss_kib, 0),
	RF("processes", processes, 0),
	RF("max_concurrent", max_concurrent, 0),
	RF("attached_processes", nattached, 0),
	RF("still_running", nleftover, 0),
};

static const struct field sampler_fields[] = {
	RF("interval_ms", interval_ms, 0),
	RF("ticks", ticks, 0),
	RF("missed_ticks", missed, 0),
	RF("late_max_ms", late_max_ns, 1e6),
	RF("late_p50_ms", late_p50_ns, 1e6),
	RF("late_p99_ms", late_p99_ns, 1e6),
	RF("cpu_s", sampler_cpu_ns, 1e9),
	RF("proc_races", races, 0),
};

static const struct field weight_fields[] = {
	RF("sm", w_sm, 1),
	RF("mem", w_mem, 1),
};

static const struct field dev_fields[] = {
	DF("window_s", window_ns, 1e9),
	FIELD(struct dev_report, "avg_power_w", avg_power_mw, 1e3, DHAS(has_avg_power)),
	FIELD(struct dev_report, "peak_power_w", peak_power_mw, 1e3, DHAS(has_peak)),
	DF("lost_readings", lost_samples, 0),
	DF("lost_s", lost_ns, 1e9),
	DF("counter_resets", counter_resets, 0),
	/* Driver violation counters, over this run. */
	FIELD(struct dev_report, "throttled_power_s", throttle_power_ns, 1e9, DHAS(has_throttle)),
	FIELD(struct dev_report, "throttled_thermal_s", throttle_thermal_ns, 1e9,
	    DHAS(has_throttle)),
};

static const struct field other_fields[] = {
	DF("sm_pct", foreign_sm_pct, 1),
	DF("mem_pct", foreign_mem_pct, 1),
	DF("peak_sm_pct", foreign_sm_max, 0),
};

static const struct field attrib_fields[] = {
	DF("workload_energy_j", workload_mj, 1e3),
	FIELD(struct dev_report, "other_energy_j", other_mj, 1e3, DHAS(has_other)),
	DF("unattributed_energy_j", unattributed_mj, 1e3),
};

static const struct field state_fields[] = {
	FIELD(struct state_report, "time_s", time_ns, 1e9, ALWAYS),
	FIELD(struct state_report, "share", share, 1, ALWAYS),
	FIELD(struct state_report, "energy_j", energy_mj, 1e3,
	    offsetof(struct state_report, has_energy)),
};

static const struct field proc_fields[] = {
	FIELD(struct proc_report, "sm_pct", sm_pct, 1, offsetof(struct proc_report, has_util)),
	FIELD(struct proc_report, "mem_pct", mem_pct, 1, offsetof(struct proc_report, has_util)),
	FIELD(struct proc_report, "between_ticks", is_between_ticks, 0, ALWAYS),
};

/* A word of the machine-readable forms; null for "" (unknown). */
static json_t *
word(const char *w)
{
	return w[0] != '\0' ? json_string(w) : json_null();
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

/* v as an integer (scale 0), or as the real v / scale. */
static json_t *
scaled(int64_t v, double scale)
{
	return scale == 0 ? json_integer(v) : real((double)v / scale);
}

static json_t *
uscaled(uint64_t v, double scale)
{
	return scale == 0 ? uinteger(v) : real((double)v / scale);
}

/* Append v, which a takes over; -1 when either is NULL, so callers can OR the results. */
static int
append(json_t *a, json_t *v)
{
	return json_array_append_new(a, v) == 0 ? 0 : -1;
}

/* The value of one table field of the struct at base. */
static json_t *
field_value(const void *base, const struct field *f)
{
	const char	*p = (const char *)base + f->off;

	if (f->has != ALWAYS && !*(const bool *)((const char *)base + f->has))
		return json_null();
	switch (f->type) {
	case F_BOOL: return json_boolean(*(const bool *)p);
	case F_INT: return scaled(*(const int *)p, f->scale);
	case F_USHORT: return uscaled(*(const unsigned short *)p, f->scale);
	case F_UINT: return uscaled(*(const unsigned *)p, f->scale);
	case F_LONG: return scaled(*(const long *)p, f->scale);
	case F_ULONG: return uscaled(*(const unsigned long *)p, f->scale);
	case F_LLONG: return scaled(*(const long long *)p, f->scale);
	case F_ULLONG: return uscaled(*(const unsigned long long *)p, f->scale);
	case F_DBL: return real(*(const double *)p / (f->scale != 0 ? f->scale : 1));
	}
	return NULL;
}

static int
put_fields(json_t *o, const void *base, const struct field *fields, size_t n)
{
	size_t	i;
	int	rc = 0;

	for (i = 0; i < n; i++)
		rc |= fmt_json_put(o, fields[i].key, field_value(base, &fields[i]));
	return rc;
}

/* An object of table fields only. */
static json_t *
fields_object(const void *base, const struct field *fields, size_t n)
{
	json_t	*o = json_object();

	if (put_fields(o, base, fields, n) != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
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

	rc = fmt_json_put(o, "pstate", fmt_json_text(report_state_name(dev, s->pstate, name, sizeof name)));
	rc |= put_fields(o, s, state_fields, ARRAY_SIZE(state_fields));
	rc |= fmt_json_put(o, "avg_power_w", s->has_energy && s->time_ns > 0 ?
	    real(s->energy_mj / ((double)s->time_ns / 1e9) / 1e3) : json_null());
	rc |= fmt_json_put(o, "avg_sm_mhz", s->has_sm ? real(s->avg_sm_mhz) : json_null());
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

	rc = fmt_json_put(o, "pid", json_integer(p->pid));
	rc |= fmt_json_put(o, "process", fmt_json_text(p->comm));
	rc |= put_fields(o, p, proc_fields, ARRAY_SIZE(proc_fields));
	rc |= fmt_json_put(o, "gpu_mem_kib", p->max_gpu_mem_kib > 0 ?
	    uinteger(p->max_gpu_mem_kib) : json_null());
	rc |= fmt_json_put(o, "energy_j", d->has_attrib ? real(p->energy_mj / 1e3) : json_null());
	rc |= fmt_json_put(o, "energy_method", d->has_attrib ? json_string("estimate") : json_null());
	rc |= fmt_json_put(o, "energy_share", energy_share(d, p->energy_mj));
	return done(o, rc);
}

static json_t *
attrib_object(const struct dev_report *d)
{
	json_t	*o;
	int	 rc;

	if (!d->has_attrib)
		return json_null();
	o = json_object();
	rc = fmt_json_put(o, "method", json_string("estimate"));
	rc |= put_fields(o, d, attrib_fields, ARRAY_SIZE(attrib_fields));
	rc |= fmt_json_put(o, "energy_share", energy_share(d, d->workload_mj));
	return done(o, rc);
}

/* The energy by every method, null for those the device did not allow. */
static json_t *
energies_object(const struct dev_report *d)
{
	json_t	*o = json_object();
	int	 rc = 0;
	size_t	 m;

	for (m = ENERGY_COUNTER; m < ARRAY_SIZE(d->alt_mj); m++)
		rc |= fmt_json_put(o, method_keys[m], d->has_alt[m] ? real(d->alt_mj[m] / 1e3) : json_null());
	return done(o, rc);
}

static int
put_energy(json_t *o, const struct dev_report *d)
{
	bool	is_known = d->method != ENERGY_NONE;
	int	rc;

	rc = fmt_json_put(o, "energy_j", is_known ? real(d->energy_mj / 1e3) : json_null());
	rc |= fmt_json_put(o, "energy_method", word(report_word_method(d->method)));
	rc |= fmt_json_put(o, "energies_j", energies_object(d));
	return rc;
}

static int
put_idle(json_t *o, const struct dev_report *d)
{
	bool	is_known = d->idle_method != IDLE_UNKNOWN;
	int	rc;

	rc = fmt_json_put(o, "idle_power_w", is_known ? real(d->idle_mw / 1e3) : json_null());
	rc |= fmt_json_put(o, "idle_method", word(report_word_idle(d->idle_method)));
	rc |= fmt_json_put(o, "energy_above_idle_j", d->has_above_idle ?
	    real(d->above_idle_mj / 1e3) : json_null());
	rc |= fmt_json_put(o, "other_processes", d->has_foreign ?
	    fields_object(d, other_fields, ARRAY_SIZE(other_fields)) : json_null());
	return rc;
}

static int
put_identity(json_t *o, const struct dev_report *d, size_t index)
{
	const struct device	*dev = d->dev;
	int			 rc;

	rc = fmt_json_put(o, "index", uinteger(index));
	rc |= fmt_json_put(o, "id", fmt_json_text(dev->id));
	rc |= fmt_json_put(o, "name", fmt_json_text(dev->name));
	rc |= fmt_json_put(o, "bus_id", fmt_json_text(dev->bus_id));
	rc |= fmt_json_put(o, "backend", fmt_json_text(d->backend));
	rc |= fmt_json_put(o, "backend_index", uinteger(dev->index));
	rc |= fmt_json_put(o, "power_kind", word(report_word_kind(dev->power_kind)));
	rc |= fmt_json_put(o, "gone", json_boolean(d->is_gone));
	return rc;
}

/* The P-states, the processes and the notes of a device. */
static int
put_lists(json_t *o, const struct dev_report *d)
{
	json_t	*states = json_array(), *procs = json_array(), *notes = json_array();
	size_t	 i;
	int	 rc = 0;

	for (i = 0; i < d->nstates; i++)
		rc |= append(states, state_object(d->dev, &d->states[i]));
	for (i = 0; i < d->nprocs; i++)
		rc |= append(procs, proc_object(d, &d->procs[i]));
	for (i = 0; i < d->dev->nnotes && i < DEVICE_MAX_NOTES; i++)
		rc |= append(notes, fmt_json_text(d->dev->notes[i]));
	rc |= fmt_json_put(o, "pstates", states);
	rc |= fmt_json_put(o, "attribution", attrib_object(d));
	rc |= fmt_json_put(o, "processes", procs);
	rc |= fmt_json_put(o, "notes", notes);
	return rc;
}

static json_t *
device_object(const struct dev_report *d, size_t index)
{
	json_t	*o = json_object();
	int	 rc;

	rc = put_identity(o, d, index);
	rc |= put_energy(o, d);
	rc |= put_fields(o, d, dev_fields, ARRAY_SIZE(dev_fields));
	rc |= put_idle(o, d);
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

	rc = fmt_json_put(o, "outcome", word(report_word_outcome(rep->outcome)));
	rc |= fmt_json_put(o, "exit_status", is_attach ? json_null() : json_integer(rep->exit_status));
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
		rc |= append(devs, device_object(&rep->devs[i], i));
	rc |= fmt_json_put(o, "notes", notes);
	rc |= fmt_json_put(o, "devices", devs);
	return rc;
}

static json_t *
run_object(const struct report *rep)
{
	json_t	*o = json_object();
	int	 rc;

	rc = fmt_json_put(o, "run", uinteger(rep->index));
	rc |= fmt_json_put(o, "host", fmt_json_text(rep->where != NULL ? rep->where->host : NULL));
	rc |= fmt_json_put(o, "rank", fmt_json_text(rep->where != NULL ? rep->where->rank : NULL));
	rc |= fmt_json_put(o, "job", fmt_json_text(rep->where != NULL ? rep->where->job : NULL));
	rc |= fmt_json_put(o, "start_unix_s", rep->start_unix_ns > 0 ?
	    real((double)rep->start_unix_ns / 1e9) : json_null());
	rc |= fmt_json_put(o, "command", fmt_json_text(rep->command));
	rc |= put_outcome(o, rep);
	rc |= put_fields(o, rep, run_fields, ARRAY_SIZE(run_fields));
	rc |= fmt_json_put(o, "still_running_pids", pids_array(rep->leftover, rep->nleftover));
	rc |= fmt_json_put(o, "attrib_weights", fields_object(rep, weight_fields, ARRAY_SIZE(weight_fields)));
	rc |= fmt_json_put(o, "sampler", fields_object(rep, sampler_fields, ARRAY_SIZE(sampler_fields)));
	rc |= put_run_lists(o, rep);
	return done(o, rc);
}

/* {"mean", "stddev", "min", "max", "median", "n"} of a series figure, or null. */
static json_t *
stat_object(const struct series_stat *st)
{
	json_t	*o;
	int	 rc;

	if (st->n == 0)
		return json_null();
	o = json_object();
	rc = fmt_json_put(o, "mean", real(st->mean));
	rc |= fmt_json_put(o, "stddev", real(st->sd));
	rc |= fmt_json_put(o, "min", real(st->min));
	rc |= fmt_json_put(o, "max", real(st->max));
	rc |= fmt_json_put(o, "median", real(st->median));
	rc |= fmt_json_put(o, "n", uinteger(st->n));
	return done(o, rc);
}

static json_t *
series_device(const struct device *dev, const struct dev_series *ds, size_t d)
{
	json_t	*o = json_object(), *states = json_object();
	char	 name[16];
	int	 rc, k;

	rc = fmt_json_put(o, "index", uinteger(d));
	rc |= fmt_json_put(o, "energy_j", stat_object(&ds->energy_j));
	rc |= fmt_json_put(o, "energy_above_idle_j", stat_object(&ds->above_idle_j));
	rc |= fmt_json_put(o, "avg_power_w", stat_object(&ds->avg_power_w));
	rc |= fmt_json_put(o, "workload_energy_j", stat_object(&ds->workload_j));
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		if (!ds->has_state[k])
			continue;
		report_state_name(dev, k == ACCOUNT_STATE_UNKNOWN ? PSTATE_UNKNOWN : k, name,
		    sizeof name);
		rc |= fmt_json_put(states, name, stat_object(&ds->state_s[k]));
	}
	rc |= fmt_json_put(o, "pstate_time_s", states);
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
	rc |= fmt_json_put(o, "wall_s", stat_object(&s->wall_s));
	rc |= fmt_json_put(o, "user_s", stat_object(&s->user_s));
	rc |= fmt_json_put(o, "sys_s", stat_object(&s->sys_s));
	for (i = 0; i < s->ndev; i++)
		rc |= append(devs, series_device(reps[0].devs[i].dev, &s->devs[i], i));
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
	rc |= fmt_json_put(o, "limit", real(g->limit));
	rc |= fmt_json_put(o, "measured", g->verdict == GATE_NO_DATA ? json_null() : real(g->measured));
	rc |= fmt_json_put(o, "passed", json_boolean(g->verdict == GATE_PASS));
	rc |= fmt_json_put(o, "detail", fmt_json_text(g->detail));
	return done(o, rc);
}

static json_t *
root_object(const struct report *reps, size_t nreps, const struct series *series,
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

int
jsonout_write(FILE *f, const struct report *reps, size_t nreps, const struct series *series,
    const struct gate_set *gates)
{
	json_t	*root;
	int	 rc = 0;

	if ((root = root_object(reps, nreps, series, gates)) == NULL)
		return -ENOMEM;
	rc = fmt_json_dump(f, root);
	json_decref(root);
	return rc;
}
