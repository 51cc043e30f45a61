/*
 * The summary CSV (STYLE §8, perf stat -x): one header row and one row per
 * run, device and P-state, all from one column table, so every row has the
 * same fields in the same order.  Text goes through libcsv's quoting; a
 * number is written in the C locale with no separators; unknown is an
 * empty field, with a method column beside figures that have one.
 */
#include "joulestat/csvout.h"

#include <csv.h>
#include <errno.h>
#include <string.h>

#include "joulestat/fmt.h"
#include "joulestat/util.h"

enum col {
	C_SCHEMA, C_SCOPE, C_RUN, C_HOST, C_RANK, C_JOB, C_START, C_COMMAND, C_EXIT, C_OUTCOME, C_WALL, C_USER, C_SYS, C_MAXRSS,
	C_TREERSS, C_PROCS, C_MAXCONC, C_LEFTOVER, C_INTERVAL, C_TICKS, C_MISSED, C_LATEMAX, C_LATEP50,
	C_LATEP99, C_SAMPLERCPU, C_DEVICE, C_DEVID, C_DEVNAME, C_BACKEND, C_POWERKIND,
	C_PSTATE, C_TIME, C_SHARE, C_ENERGY, C_METHOD, C_E_COUNTER, C_E_POINTS, C_E_TICKS,
	C_AVGPOWER, C_PEAKPOWER, C_AVGSM, C_LOST, C_LOSTS, C_THR_POWER, C_THR_THERMAL,
	C_IDLE, C_IDLEMETHOD, C_ABOVEIDLE, C_WORKLOAD, C_OTHER, C_UNATTR, C_SHARE_E, C_PID,
	C_PROCESS, C_SMPCT, C_MEMPCT, C_GPUMEM, C_GATE, C_GATEWHAT, C_GATELIMIT, C_GATEMEAS,
	C_GATEVERDICT,
	C_NCOLS
};

static const char *const col_names[C_NCOLS] = {
	"schema_version", "scope", "run", "host", "rank", "job", "start_unix_s", "command", "exit_status", "outcome", "wall_s", "user_s",
	"sys_s", "max_rss_kib", "peak_tree_rss_kib", "processes", "max_concurrent",
	"still_running", "interval_ms", "ticks", "missed_ticks", "late_max_ms", "late_p50_ms", "late_p99_ms",
	"sampler_cpu_s", "device", "device_id", "device_name", "backend", "power_kind",
	"pstate", "time_s", "time_share", "energy_j", "energy_method", "energy_counter_j",
	"energy_driver_samples_j", "energy_readings_j", "avg_power_w", "peak_power_w",
	"avg_sm_mhz", "lost_readings", "lost_s", "throttled_power_s", "throttled_thermal_s",
	"idle_power_w", "idle_method", "energy_above_idle_j", "workload_energy_j",
	"other_energy_j", "unattributed_energy_j", "energy_share", "pid", "process", "sm_pct",
	"mem_pct", "gpu_mem_kib", "gate", "gate_figure", "gate_limit", "gate_measured",
	"gate_verdict",
};

struct row {
	const struct report		*rep;
	const char			*scope;
	const char			*run;	/* "mean" or "stddev" on series rows */
	const struct series		*series; /* series rows */
	int				 slot;	/* series pstate rows */
	const struct dev_report		*d;	/* device and pstate rows */
	size_t				 di;
	const struct state_report	*s;	/* pstate rows */
	const struct proc_report	*p;	/* process rows */
	const struct gate_result	*g;	/* gate rows */
};

/* Columns every row carries: they identify the run. */
static bool
run_cell(enum col col, const struct row *r, struct fmt_cell *c)
{
	const struct report	*rep = r->rep;

	switch (col) {
	case C_SCHEMA: fmt_cell_int(c, CSVOUT_SCHEMA_VERSION); return true;
	case C_SCOPE: fmt_cell_text(c, r->scope); return true;
	case C_RUN:
		if (r->g != NULL)
			return true;
		if (r->run != NULL)
			fmt_cell_text(c, r->run);
		else
			fmt_cell_int(c, rep->index);
		return true;
	case C_HOST: if (rep->where != NULL) fmt_cell_text(c, rep->where->host); return true;
	case C_RANK: if (rep->where != NULL) fmt_cell_text(c, rep->where->rank); return true;
	case C_JOB: if (rep->where != NULL) fmt_cell_text(c, rep->where->job); return true;
	case C_START:
		if (r->series == NULL && r->g == NULL && rep->start_unix_ns > 0)
			fmt_cell_real(c, (double)rep->start_unix_ns / 1e9, 6);
		return true;
	case C_COMMAND: fmt_cell_text(c, rep->command); return true;
	case C_EXIT:
		if (r->series == NULL && r->g == NULL && rep->outcome != OUTCOME_ATTACHED &&
		    rep->outcome != OUTCOME_INTERRUPTED)
			fmt_cell_int(c, rep->exit_status);
		return true;
	case C_OUTCOME:
		if (r->series == NULL && r->g == NULL)
			fmt_cell_text(c, report_word_outcome(rep->outcome));
		return true;
	default: return false;
	}
}

/* Columns of the run row only. */
static void
run_only_cell(enum col col, const struct report *rep, struct fmt_cell *c)
{
	switch (col) {
	case C_WALL: fmt_cell_real(c, (double)rep->wall_ns / 1e9, 6); break;
	case C_USER: fmt_cell_real(c, (double)rep->user_ns / 1e9, 6); break;
	case C_SYS: fmt_cell_real(c, (double)rep->sys_ns / 1e9, 6); break;
	case C_MAXRSS: if (rep->has_max_rss) fmt_cell_int(c, (int64_t)rep->max_rss_kib); break;
	case C_TREERSS: fmt_cell_int(c, (int64_t)rep->peak_tree_rss_kib); break;
	case C_PROCS: fmt_cell_int(c, (int64_t)rep->processes); break;
	case C_MAXCONC: fmt_cell_int(c, (int64_t)rep->max_concurrent); break;
	case C_LEFTOVER: fmt_cell_int(c, (int64_t)rep->nleftover); break;
	case C_INTERVAL: fmt_cell_int(c, rep->interval_ms); break;
	case C_TICKS: fmt_cell_int(c, (int64_t)rep->ticks); break;
	case C_MISSED: fmt_cell_int(c, (int64_t)rep->missed); break;
	case C_LATEMAX: fmt_cell_real(c, (double)rep->late_max_ns / 1e6, 3); break;
	case C_LATEP50: fmt_cell_real(c, (double)rep->late_p50_ns / 1e6, 3); break;
	case C_LATEP99: fmt_cell_real(c, (double)rep->late_p99_ns / 1e6, 3); break;
	case C_SAMPLERCPU: fmt_cell_real(c, (double)rep->sampler_cpu_ns / 1e9, 6); break;
	default: break;
	}
}

/* The device row's idle and attribution columns. */
static void
attrib_cell(enum col col, const struct dev_report *d, struct fmt_cell *c)
{
	switch (col) {
	case C_IDLE: if (d->idle_method != IDLE_UNKNOWN) fmt_cell_real(c, d->idle_mw / 1e3, 3); break;
	case C_IDLEMETHOD: fmt_cell_text(c, report_word_idle(d->idle_method)); break;
	case C_ABOVEIDLE: if (d->has_above_idle) fmt_cell_real(c, d->above_idle_mj / 1e3, 6); break;
	case C_WORKLOAD: if (d->has_attrib) fmt_cell_real(c, d->workload_mj / 1e3, 6); break;
	case C_OTHER: if (d->has_attrib && d->has_other) fmt_cell_real(c, d->other_mj / 1e3, 6); break;
	case C_UNATTR: if (d->has_attrib) fmt_cell_real(c, d->unattributed_mj / 1e3, 6); break;
	case C_SHARE_E:
		if (d->has_attrib && d->energy_mj > 0)
			fmt_cell_real(c, d->workload_mj / d->energy_mj, 6);
		break;
	default: break;
	}
}

/* Columns of a process row. */
static void
proc_cell(enum col col, const struct row *r, struct fmt_cell *c)
{
	const struct proc_report	*p = r->p;
	const struct dev_report		*d = r->d;

	switch (col) {
	case C_PID: fmt_cell_int(c, p->pid); break;
	case C_PROCESS: fmt_cell_text(c, p->comm); break;
	case C_SMPCT: if (p->has_util) fmt_cell_real(c, p->sm_pct, 2); break;
	case C_MEMPCT: if (p->has_util) fmt_cell_real(c, p->mem_pct, 2); break;
	case C_GPUMEM: if (p->max_gpu_mem_kib > 0) fmt_cell_int(c, (int64_t)p->max_gpu_mem_kib); break;
	case C_ENERGY: if (d->has_attrib) fmt_cell_real(c, p->energy_mj / 1e3, 6); break;
	case C_METHOD: if (d->has_attrib) fmt_cell_text(c, "estimate"); break;
	case C_SHARE_E:
		if (d->has_attrib && d->energy_mj > 0)
			fmt_cell_real(c, p->energy_mj / d->energy_mj, 6);
		break;
	default: break;
	}
}

/* Columns of device rows (and of pstate rows, for the device's identity). */
static void
device_cell(enum col col, const struct row *r, struct fmt_cell *c)
{
	const struct dev_report	*d = r->d;

	switch (col) {
	case C_DEVICE: fmt_cell_int(c, (int64_t)r->di); break;
	case C_DEVID: fmt_cell_text(c, d->dev->id); break;
	case C_DEVNAME: fmt_cell_text(c, d->dev->name); break;
	case C_BACKEND: fmt_cell_text(c, d->backend); break;
	case C_POWERKIND: fmt_cell_text(c, report_word_kind(d->dev->power_kind)); break;
	case C_METHOD: fmt_cell_text(c, report_word_method(d->method)); break;
	default: break;
	}
	if (r->s != NULL || r->p != NULL)
		return;
	switch (col) {
	case C_TIME: fmt_cell_real(c, (double)d->window_ns / 1e9, 6); break;
	case C_ENERGY: if (d->method != ENERGY_NONE) fmt_cell_real(c, d->energy_mj / 1e3, 6); break;
	case C_E_COUNTER: if (d->has_alt[ENERGY_COUNTER]) fmt_cell_real(c, d->alt_mj[ENERGY_COUNTER] / 1e3, 6); break;
	case C_E_POINTS: if (d->has_alt[ENERGY_POINTS]) fmt_cell_real(c, d->alt_mj[ENERGY_POINTS] / 1e3, 6); break;
	case C_E_TICKS: if (d->has_alt[ENERGY_TICKS]) fmt_cell_real(c, d->alt_mj[ENERGY_TICKS] / 1e3, 6); break;
	case C_AVGPOWER: if (d->has_avg_power) fmt_cell_real(c, d->avg_power_mw / 1e3, 3); break;
	case C_PEAKPOWER: if (d->has_peak) fmt_cell_real(c, d->peak_power_mw / 1e3, 3); break;
	case C_LOST: fmt_cell_int(c, (int64_t)d->lost_samples); break;
	case C_LOSTS: fmt_cell_real(c, (double)d->lost_ns / 1e9, 6); break;
	case C_THR_POWER:
		if (d->has_throttle)
			fmt_cell_real(c, (double)d->throttle_power_ns / 1e9, 6);
		break;
	case C_THR_THERMAL:
		if (d->has_throttle)
			fmt_cell_real(c, (double)d->throttle_thermal_ns / 1e9, 6);
		break;
	default: attrib_cell(col, d, c); break;
	}
}

static void
state_cell(enum col col, const struct row *r, struct fmt_cell *c, char *name, size_t size)
{
	const struct state_report	*s = r->s;

	switch (col) {
	case C_PSTATE: fmt_cell_text(c, report_state_name(r->d->dev, s->pstate, name, size)); break;
	case C_TIME: fmt_cell_real(c, (double)s->time_ns / 1e9, 6); break;
	case C_SHARE: fmt_cell_real(c, s->share, 6); break;
	case C_ENERGY: if (s->has_energy) fmt_cell_real(c, s->energy_mj / 1e3, 6); break;
	case C_AVGPOWER:
		if (s->has_energy && s->time_ns > 0)
			fmt_cell_real(c, s->energy_mj / ((double)s->time_ns / 1e9) / 1e3, 3);
		break;
	case C_AVGSM: if (s->has_sm) fmt_cell_real(c, s->avg_sm_mhz, 1); break;
	default: break;
	}
}

/* The mean or the standard deviation of a series figure. */
static void
set_stat(struct fmt_cell *c, const struct row *r, const struct series_stat *st, int prec)
{
	if (st->n > 0)
		fmt_cell_real(c, strcmp(r->run, "mean") == 0 ? st->mean : st->sd, prec);
}

/* Cells of the "mean" and "stddev" rows. */
static void
series_cell(enum col col, const struct row *r, struct fmt_cell *c, char *name, size_t size)
{
	const struct series	*s = r->series;
	const struct dev_series	*ds = r->d != NULL ? &s->devs[r->di] : NULL;

	if (ds == NULL) {
		switch (col) {
		case C_WALL: set_stat(c, r, &s->wall_s, 6); break;
		case C_USER: set_stat(c, r, &s->user_s, 6); break;
		case C_SYS: set_stat(c, r, &s->sys_s, 6); break;
		default: break;
		}
		return;
	}
	switch (col) {
	case C_DEVICE: fmt_cell_int(c, (int64_t)r->di); break;
	case C_DEVID: fmt_cell_text(c, r->d->dev->id); break;
	case C_DEVNAME: fmt_cell_text(c, r->d->dev->name); break;
	case C_BACKEND: fmt_cell_text(c, r->d->backend); break;
	case C_PSTATE:
		if (r->slot >= 0)
			fmt_cell_text(c, report_state_name(r->d->dev, r->slot == ACCOUNT_STATE_UNKNOWN ?
			    PSTATE_UNKNOWN : r->slot, name, size));
		break;
	case C_TIME: if (r->slot >= 0) set_stat(c, r, &ds->state_s[r->slot], 6); break;
	case C_ENERGY: if (r->slot < 0) set_stat(c, r, &ds->energy_j, 6); break;
	case C_ABOVEIDLE: if (r->slot < 0) set_stat(c, r, &ds->above_idle_j, 6); break;
	case C_AVGPOWER: if (r->slot < 0) set_stat(c, r, &ds->avg_power_w, 3); break;
	case C_WORKLOAD: if (r->slot < 0) set_stat(c, r, &ds->workload_j, 6); break;
	default: break;
	}
}

/* Cells of a gate row: the gate, what it judged, its limit, the figure, the verdict. */
static void
gate_cell(enum col col, const struct gate_result *g, struct fmt_cell *c)
{
	switch (col) {
	case C_GATE: fmt_cell_text(c, gate_option(g->metric)); break;
	case C_GATEWHAT: fmt_cell_text(c, g->what); break;
	case C_GATELIMIT: fmt_cell_real(c, g->limit, 6); break;
	case C_GATEMEAS: if (g->verdict != GATE_NO_DATA) fmt_cell_real(c, g->measured, 6); break;
	case C_GATEVERDICT: fmt_cell_text(c, g->verdict == GATE_PASS ? "pass" : "fail"); break;
	default: break;
	}
}

int
csvout_text(FILE *f, const char *s)
{
	if (s == NULL || s[0] == '\0')
		return 0;
	return csv_fwrite(f, s, strlen(s)) == 0 ? 0 : -EIO;
}

static void
write_row(FILE *f, const struct row *r, const char *sep)
{
	struct fmt_cell	c;
	char		name[16];
	int		col;

	for (col = 0; col < C_NCOLS; col++) {
		memset(&c, 0, sizeof c);
		if (run_cell(col, r, &c))
			;
		else if (r->g != NULL)
			gate_cell(col, r->g, &c);
		else if (r->series != NULL)
			series_cell(col, r, &c, name, sizeof name);
		else if (r->d == NULL)
			run_only_cell(col, r->rep, &c);
		else {
			if (r->s != NULL)
				state_cell(col, r, &c, name, sizeof name);
			if (r->p != NULL)
				proc_cell(col, r, &c);
			if (c.kind == FMT_EMPTY)
				device_cell(col, r, &c);
		}
		if (col > 0)
			fputs(sep, f);
		fmt_cell_write(f, &c);
	}
	fputc('\n', f);
}

static void
write_run_rows(FILE *f, const struct report *rep, const char *sep)
{
	struct row	r = { .rep = rep, .scope = "run" };
	size_t		i, k;

	write_row(f, &r, sep);
	for (i = 0; i < rep->ndev; i++) {
		r = (struct row){ .rep = rep, .scope = "device", .d = &rep->devs[i], .di = i };
		write_row(f, &r, sep);
		for (k = 0; k < rep->devs[i].nstates; k++) {
			r.scope = "pstate";
			r.s = &rep->devs[i].states[k];
			write_row(f, &r, sep);
		}
		r.s = NULL;
		for (k = 0; k < rep->devs[i].nprocs; k++) {
			r.scope = "process";
			r.p = &rep->devs[i].procs[k];
			write_row(f, &r, sep);
		}
	}
}

/* The "mean" or "stddev" rows of a series: run, then each device and its P-states. */
static void
write_series_rows(FILE *f, const struct report *rep, const struct series *s, const char *what,
    const char *sep)
{
	struct row	r = { .rep = rep, .scope = "run", .run = what, .series = s, .slot = -1 };
	size_t		i;
	int		k;

	write_row(f, &r, sep);
	for (i = 0; i < s->ndev; i++) {
		r.scope = "device";
		r.d = &rep->devs[i];
		r.di = i;
		r.slot = -1;
		write_row(f, &r, sep);
		for (k = 0; k < ACCOUNT_NSTATES; k++) {
			if (!s->devs[i].has_state[k])
				continue;
			r.scope = "pstate";
			r.slot = k;
			write_row(f, &r, sep);
		}
	}
}

int
csvout_summary(FILE *f, const struct report *reps, size_t n, const struct series *series,
    const struct gate_set *gates, const char *sep)
{
	struct row	r = { .rep = reps, .scope = "gate" };
	size_t		i;
	int		col;

	for (col = 0; col < C_NCOLS; col++)
		fprintf(f, "%s%s", col > 0 ? sep : "", col_names[col]);
	fputc('\n', f);
	for (i = 0; i < n; i++)
		write_run_rows(f, &reps[i], sep);
	if (n > 1 && series != NULL) {
		write_series_rows(f, &reps[0], series, "mean", sep);
		write_series_rows(f, &reps[0], series, "stddev", sep);
	}
	for (i = 0; gates != NULL && n > 0 && i < gates->n; i++) {
		r.g = &gates->v[i];
		write_row(f, &r, sep);
	}
	return flush_status(f);
}
