/*
 * The summary CSV (perf stat -x): one header row and one row per run,
 * device, P-state and process, all with every column of the summary
 * schema (schema.h) in the same order.  The figures of a row come from
 * the tables of figures.c, which the JSON walks too; identity columns
 * (which run, which device) are filled here.  Text goes through libcsv's
 * quoting; a number is written in the C locale with no separators;
 * unknown is an empty field, with a method column beside figures that
 * have one.  See HACKING.md, "Outputs and the summary schema".
 */
#include "joulestat/csvout.h"

#include <csv.h>
#include <errno.h>
#include <string.h>

#include "joulestat/figures.h"
#include "joulestat/fmt.h"
#include "joulestat/util.h"

/* What one row is about; the cells are filled from it. */
struct row {
	const struct report		*rep;
	enum summary_scope		 scope;
	const struct series		*series; /* the series rows: "mean", "median", ... */
	enum series_row			 stat;	/* ... which of them */
	int				 slot;	/* series pstate rows; -1 otherwise */
	const struct dev_report		*d;	/* device, pstate and process rows */
	size_t				 di;
	const struct state_report	*s;	/* pstate rows */
	const struct proc_report	*p;	/* process rows */
	const struct gate_result	*g;	/* gate rows */
	const struct phase_report	*ph;	/* phase rows */
	const struct phase_occ		*occ;	/* phase occurrence rows */
};

/* The cells of one row, and room for the text of a P-state's name. */
struct cells {
	struct fmt_cell	c[COL_NCOLS];
	char		name[16];
	char		made[48];	/* a figure's text made when written (figure.text) */
};

/* Columns every row carries: they identify the run. */
static void
run_identity(struct cells *cl, const struct row *r)
{
	const struct report	*rep = r->rep;
	struct fmt_cell		*c = cl->c;
	bool			 is_run = r->series == NULL && r->g == NULL && r->ph == NULL;

	fmt_cell_int(&c[COL_SCHEMA], SCHEMA_SUMMARY_VERSION);
	fmt_cell_text(&c[COL_SCOPE], schema_scope(r->scope));
	if (r->series != NULL)
		fmt_cell_text(&c[COL_RUN], schema_series_row(r->stat));
	else if (r->g == NULL)
		fmt_cell_int(&c[COL_RUN], rep->index);
	if (rep->where != NULL) {
		fmt_cell_text(&c[COL_HOST], rep->where->host);
		fmt_cell_text(&c[COL_RANK], rep->where->rank);
		fmt_cell_text(&c[COL_JOB], rep->where->job);
	}
	if (is_run && rep->start_unix_ns > 0)
		fmt_cell_real(&c[COL_START], (double)rep->start_unix_ns / 1e9, 6);
	fmt_cell_text(&c[COL_COMMAND], rep->command);
	if (is_run && rep->outcome != OUTCOME_ATTACHED && rep->outcome != OUTCOME_INTERRUPTED)
		fmt_cell_int(&c[COL_EXIT], rep->exit_status);
	if (is_run)
		fmt_cell_text(&c[COL_OUTCOME], schema_word_outcome(rep->outcome));
}

/* The columns that say which device a row is about. */
static void
device_identity(struct cells *cl, const struct row *r)
{
	fmt_cell_int(&cl->c[COL_DEVICE], (int64_t)r->d->dev->number);
	fmt_cell_text(&cl->c[COL_DEVID], r->d->dev->id);
	fmt_cell_text(&cl->c[COL_DEVNAME], r->d->dev->name);
	fmt_cell_text(&cl->c[COL_BACKEND], r->d->backend);
	fmt_cell_text(&cl->c[COL_BUSID], r->d->dev->bus_id);
	fmt_cell_text(&cl->c[COL_DEVVERSION], r->d->dev->version);
	fmt_cell_text(&cl->c[COL_DEVARCH], r->d->dev->arch);
}

/* The figures of a table that have a column. */
static void
table_cells(struct cells *cl, const struct figure_table *t, const void *base)
{
	const struct figure	*f;
	struct figure_value	 v;
	struct fmt_cell		*c;
	size_t			 i;

	for (i = 0; i < t->n; i++) {
		f = &t->v[i];
		if (f->col >= COL_NCOLS || !figure_group_known(f, base))
			continue;
		c = &cl->c[f->col];
		figure_get(f, base, &v);
		switch (v.kind) {
		case FIGURE_UNKNOWN: break;
		case FIGURE_IS_BOOL: fmt_cell_int(c, v.b); break;
		case FIGURE_IS_INT: fmt_cell_int(c, v.i); break;
		case FIGURE_IS_UINT: fmt_cell_int(c, (int64_t)v.u); break;
		case FIGURE_IS_REAL: fmt_cell_real(c, v.r, f->prec); break;
		case FIGURE_IS_WORD:
			/* A text made in v (one a row) lives on in the row. */
			if (v.w == v.buf)
				v.w = memcpy(cl->made, v.buf, sizeof cl->made);
			fmt_cell_text(c, v.w);
			break;
		}
	}
}

/* A process row: the process's own columns, and its estimate. */
static void
proc_cells(struct cells *cl, const struct dev_report *d, const struct proc_report *p)
{
	struct fmt_cell	*c = cl->c;

	fmt_cell_int(&c[COL_PID], p->pid);
	fmt_cell_text(&c[COL_PROCESS], p->comm);
	if (p->has_util) {
		fmt_cell_real(&c[COL_SMPCT], p->sm_pct, 2);
		fmt_cell_real(&c[COL_MEMPCT], p->mem_pct, 2);
	}
	if (p->max_gpu_mem_kib > 0)
		fmt_cell_int(&c[COL_GPUMEM], (int64_t)p->max_gpu_mem_kib);
	if (!d->has_attrib)
		return;
	fmt_cell_real(&c[COL_ENERGY], p->energy_mj / 1e3, 6);
	fmt_cell_text(&c[COL_METHOD], schema_word_estimate());
	if (d->energy_mj > 0)
		fmt_cell_real(&c[COL_SHARE_E], p->energy_mj / d->energy_mj, 6);
}

/* One statistic of a series figure into its cell; the count "n" is an integer. */
static void
stat_cell(struct fmt_cell *c, const struct series_stat *st, enum series_row stat, int prec)
{
	double	v = st->mean;

	if (st->n == 0)
		return;
	switch (stat) {
	case ROW_N:
		fmt_cell_int(c, (int64_t)st->n);
		return;
	case ROW_STDDEV: v = st->sd; break;
	case ROW_MEDIAN: v = st->median; break;
	case ROW_MIN: v = st->min; break;
	case ROW_MAX: v = st->max; break;
	case ROW_MEAN: case ROW_NROWS: break;
	}
	fmt_cell_real(c, v, prec);
}

/*
 * The measurement bound of one statistic into its cell: the mean's,
 * median's, minimum's and maximum's; the standard deviation (the spread
 * over the runs) and the count have none, nor has an unknown bound.
 */
static void
bound_cell(struct fmt_cell *c, const struct series_bound *b, enum series_row stat, int prec)
{
	double	v = b->mean;

	if (!b->has)
		return;
	switch (stat) {
	case ROW_MEAN: break;
	case ROW_MEDIAN: v = b->median; break;
	case ROW_MIN: v = b->min; break;
	case ROW_MAX: v = b->max; break;
	case ROW_STDDEV: case ROW_N: case ROW_NROWS: return;
	}
	fmt_cell_real(c, v, prec);
}

/* One statistic (mean, median, ...) of each figure of a table, with its bound. */
static void
stat_cells(struct cells *cl, const struct stat_table *t, const void *base, enum series_row stat)
{
	const struct stat_figure	*sf;
	const struct series_stat	*st;
	size_t				 i;

	for (i = 0; i < t->n; i++) {
		sf = &t->v[i];
		st = (const struct series_stat *)(const void *)((const char *)base + sf->off);
		stat_cell(&cl->c[sf->col], st, stat, sf->prec);
		if (sf->err_off != 0 && st->n > 0)
			bound_cell(&cl->c[sf->err_col], (const struct series_bound *)(const void *)
			    ((const char *)base + sf->err_off), stat, sf->prec);
	}
}

/* Cells of the series rows. */
static void
series_cells(struct cells *cl, const struct row *r)
{
	const struct dev_series	*ds;
	const struct series_stat *st;

	if (r->d == NULL) {
		stat_cells(cl, &figures_series_run, r->series, r->stat);
		return;
	}
	ds = &r->series->devs[r->di];
	device_identity(cl, r);
	if (r->slot < 0) {
		stat_cells(cl, &figures_series_device, ds, r->stat);
		return;
	}
	fmt_cell_text(&cl->c[COL_PSTATE], schema_slot_name(r->d->dev, r->slot, cl->name,
	    sizeof cl->name));
	st = &ds->state_s[r->slot];
	stat_cell(&cl->c[COL_TIME], st, r->stat, 6);
	if (st->n > 0)
		bound_cell(&cl->c[COL_TIME_ERR], &ds->state_err_s[r->slot], r->stat, 6);
}

/* Cells of a gate row: the gate, what it judged, its limit, the figure, the verdict. */
static void
gate_cells(struct cells *cl, const struct gate_result *g)
{
	struct fmt_cell	*c = cl->c;

	fmt_cell_text(&c[COL_GATE], gate_option(g->metric));
	fmt_cell_text(&c[COL_GATEWHAT], g->what);
	fmt_cell_real(&c[COL_GATELIMIT], g->limit, 6);
	if (g->verdict != GATE_NO_DATA)
		fmt_cell_real(&c[COL_GATEMEAS], g->measured, 6);
	fmt_cell_text(&c[COL_GATEVERDICT], schema_word_verdict(g->verdict == GATE_PASS));
}

/* Device, P-state and process rows: which device, then their own figures. */
static void
device_cells(struct cells *cl, const struct row *r)
{
	const struct dev_report	*d = r->d;

	device_identity(cl, r);
	fmt_cell_text(&cl->c[COL_POWERKIND], schema_word_kind(d->dev->power_kind));
	if (r->s != NULL) {
		fmt_cell_text(&cl->c[COL_METHOD], schema_word_method(d->method));
		fmt_cell_text(&cl->c[COL_PSTATE], schema_state_name(d->dev, r->s->pstate, cl->name,
		    sizeof cl->name));
		table_cells(cl, &figures_state, r->s);
	} else if (r->p != NULL) {
		fmt_cell_text(&cl->c[COL_METHOD], schema_word_method(d->method));
		proc_cells(cl, d, r->p);
	} else {
		table_cells(cl, &figures_device, d);
		table_cells(cl, &figures_attrib, d);
	}
}

/* A phase's rows: the phase on one device (r->d may be NULL: no devices). */
static void
phase_cells(struct cells *cl, const struct row *r)
{
	const struct phase_dev_report	*pd = r->d != NULL ? &r->ph->devs[r->di] : NULL;
	const struct phase_dev		*od;
	struct fmt_cell			*c = cl->c;
	int64_t				 wall_ns = r->ph->wall_ns;

	fmt_cell_text(&c[COL_PHASE], r->ph->name);
	if (r->d != NULL)
		device_identity(cl, r);
	if (r->occ != NULL) {
		od = &r->occ->devs[r->di];
		wall_ns = r->occ->end_ns - r->occ->begin_ns;
		fmt_cell_real(&c[COL_PHASEBEGIN], (double)(r->occ->begin_ns - r->rep->t0_ns) / 1e9, 6);
		fmt_cell_real(&c[COL_WALL], (double)wall_ns / 1e9, 6);
		if (r->d != NULL && od->method != ENERGY_NONE) {
			fmt_cell_real(&c[COL_ENERGY], od->energy_mj / 1e3, 6);
			fmt_cell_real(&c[COL_ENERGY_ERR], od->energy_err_mj / 1e3, 6);
			fmt_cell_text(&c[COL_METHOD], schema_word_method(od->method));
			fmt_cell_int(&c[COL_PARTIAL], od->is_partial);
		}
		return;
	}
	fmt_cell_int(&c[COL_PHASECOUNT], (int64_t)r->ph->count);
	if (r->slot >= 0) {
		fmt_cell_text(&c[COL_PSTATE], schema_slot_name(r->d->dev, r->slot, cl->name,
		    sizeof cl->name));
		fmt_cell_real(&c[COL_TIME], (double)pd->state_ns[r->slot] / 1e9, 6);
		fmt_cell_real(&c[COL_TIME_ERR], (double)pd->state_err_ns[r->slot] / 1e9, 6);
		fmt_cell_real(&c[COL_SHARE], (double)pd->state_ns[r->slot] / (double)pd->states_ns, 6);
		if (pd->method != ENERGY_NONE) {
			fmt_cell_real(&c[COL_ENERGY], pd->state_mj[r->slot] / 1e3, 6);
			fmt_cell_real(&c[COL_ENERGY_ERR], pd->state_err_mj[r->slot] / 1e3, 6);
			fmt_cell_text(&c[COL_METHOD], schema_word_method(pd->method));
		}
		return;
	}
	fmt_cell_real(&c[COL_WALL], (double)wall_ns / 1e9, 6);
	fmt_cell_real(&c[COL_USER], (double)r->ph->user_ns / 1e9, 6);
	fmt_cell_real(&c[COL_SYS], (double)r->ph->sys_ns / 1e9, 6);
	if (pd == NULL)
		return;
	if (pd->method != ENERGY_NONE) {
		fmt_cell_real(&c[COL_ENERGY], pd->energy_mj / 1e3, 6);
		fmt_cell_real(&c[COL_ENERGY_ERR], pd->energy_err_mj / 1e3, 6);
		fmt_cell_text(&c[COL_METHOD], schema_word_method(pd->method));
		/* As on device rows: empty without an energy. */
		fmt_cell_int(&c[COL_PARTIAL], pd->is_partial);
	}
	if (pd->has_avg_power)
		fmt_cell_real(&c[COL_AVGPOWER], pd->avg_power_mw / 1e3, 3);
	if (pd->has_peak)
		fmt_cell_real(&c[COL_PEAKPOWER], (double)pd->peak_power_mw / 1e3, 3);
	if (pd->has_above_idle)
		fmt_cell_real(&c[COL_ABOVEIDLE], pd->above_idle_mj / 1e3, 6);
	if (pd->has_workload)
		fmt_cell_real(&c[COL_WORKLOAD], pd->workload_mj / 1e3, 6);
}

int
csvout_text(FILE *f, const char *s)
{
	if (s == NULL || s[0] == '\0')
		return 0;
	return csv_fwrite(f, s, strlen(s)) == 0 ? 0 : -EIO;
}

/* The cells of row r. */
static void
fill_row(struct cells *cl, const struct row *r)
{
	memset(cl, 0, sizeof *cl);
	run_identity(cl, r);
	if (r->g != NULL)
		gate_cells(cl, r->g);
	else if (r->ph != NULL)
		phase_cells(cl, r);
	else if (r->series != NULL)
		series_cells(cl, r);
	else if (r->d != NULL)
		device_cells(cl, r);
	else {
		table_cells(cl, &figures_run, r->rep);
		table_cells(cl, &figures_weights, r->rep);
		table_cells(cl, &figures_sampler, r->rep);
		table_cells(cl, &figures_totals, r->rep);
		table_cells(cl, &figures_meta, r->rep);
	}
}

/* The columns that say what a row of the long form is about, from the wide row's. */
static const enum summary_col long_keys[LCOL_NCOLS] = {
	[LCOL_SCHEMA] = COL_SCHEMA, [LCOL_SCOPE] = COL_SCOPE, [LCOL_RUN] = COL_RUN,
	[LCOL_HOST] = COL_HOST, [LCOL_DEVICE] = COL_DEVICE, [LCOL_PSTATE] = COL_PSTATE,
	[LCOL_PHASE] = COL_PHASE, [LCOL_PID] = COL_PID, [LCOL_GATE] = COL_GATEWHAT,
	[LCOL_FIGURE] = COL_NONE, [LCOL_VALUE] = COL_NONE, [LCOL_UNIT] = COL_NONE,
};

/*
 * The long form of a row: one line per figure the row has (a column with
 * a unit and a value), after the columns that say what it is about.  The
 * limit and the measured figure of a gate are in the gate's own unit.
 */
static void
write_long(FILE *f, const struct cells *cl, const struct row *r, const char *sep)
{
	struct fmt_cell	name, unit;
	const char	*u;
	int		col, k;

	for (col = 0; col < COL_NCOLS; col++) {
		if ((u = schema_column_unit(col)) == NULL || cl->c[col].kind == FMT_EMPTY)
			continue;
		if (r->g != NULL && (col == COL_GATELIMIT || col == COL_GATEMEAS))
			u = r->g->unit;
		memset(&name, 0, sizeof name);
		memset(&unit, 0, sizeof unit);
		fmt_cell_text(&name, schema_column(col));
		fmt_cell_text(&unit, u);
		for (k = 0; k < LCOL_NCOLS; k++) {
			if (k > 0)
				fputs(sep, f);
			if (k == LCOL_FIGURE)
				fmt_cell_write(f, &name);
			else if (k == LCOL_VALUE)
				fmt_cell_write(f, &cl->c[col]);
			else if (k == LCOL_UNIT)
				fmt_cell_write(f, &unit);
			else
				fmt_cell_write(f, &cl->c[long_keys[k]]);
		}
		fputc('\n', f);
	}
}

static void
write_row(FILE *f, const struct row *r, const char *sep, bool is_long)
{
	struct cells	cl;
	int		col;

	fill_row(&cl, r);
	if (is_long) {
		write_long(f, &cl, r, sep);
		return;
	}
	for (col = 0; col < COL_NCOLS; col++) {
		if (col > 0)
			fputs(sep, f);
		fmt_cell_write(f, &cl.c[col]);
	}
	fputc('\n', f);
}

static void
write_run_rows(FILE *f, const struct report *rep, const char *sep, bool is_long)
{
	struct row	r = { .rep = rep, .scope = SCOPE_RUN, .slot = -1 };
	size_t		i, k;

	write_row(f, &r, sep, is_long);
	for (i = 0; i < rep->ndev; i++) {
		r = (struct row){ .rep = rep, .scope = SCOPE_DEVICE, .slot = -1,
		    .d = &rep->devs[i], .di = i };
		write_row(f, &r, sep, is_long);
		for (k = 0; k < rep->devs[i].nstates; k++) {
			r.scope = SCOPE_PSTATE;
			r.s = &rep->devs[i].states[k];
			write_row(f, &r, sep, is_long);
		}
		r.s = NULL;
		for (k = 0; k < rep->devs[i].nprocs; k++) {
			r.scope = SCOPE_PROCESS;
			r.p = &rep->devs[i].procs[k];
			write_row(f, &r, sep, is_long);
		}
	}
}

/* Each phase on each device, its P-states, then its occurrences. */
static void
write_phase_rows(FILE *f, const struct report *rep, const char *sep, bool is_long)
{
	struct row	r;
	size_t		i, d, k;
	int		s;

	for (i = 0; i < rep->nphases; i++) {
		r = (struct row){ .rep = rep, .scope = SCOPE_PHASE, .slot = -1,
		    .ph = &rep->phases[i] };
		if (rep->ndev == 0)
			write_row(f, &r, sep, is_long);
		for (d = 0; d < rep->ndev; d++) {
			r.scope = SCOPE_PHASE;
			r.d = &rep->devs[d];
			r.di = d;
			r.slot = -1;
			write_row(f, &r, sep, is_long);
			for (s = 0; s < ACCOUNT_NSTATES; s++) {
				if (r.ph->devs[d].state_ns[s] == 0)
					continue;
				r.scope = SCOPE_PHASE_PSTATE;
				r.slot = s;
				write_row(f, &r, sep, is_long);
			}
		}
		r.slot = -1;
		r.scope = SCOPE_PHASE_OCC;
		for (k = 0; k < rep->nphase_occ; k++) {
			if (strcmp(rep->phase_occ[k].name, r.ph->name) != 0)
				continue;
			r.occ = &rep->phase_occ[k];
			r.d = NULL;
			if (rep->ndev == 0)
				write_row(f, &r, sep, is_long);
			for (d = 0; d < rep->ndev; d++) {
				r.d = &rep->devs[d];
				r.di = d;
				write_row(f, &r, sep, is_long);
			}
		}
	}
}

/* One statistic's rows of a series: run, then each device and its P-states. */
static void
write_series_rows(FILE *f, const struct report *rep, const struct series *s,
    enum series_row stat, const char *sep, bool is_long)
{
	struct row	r = { .rep = rep, .scope = SCOPE_RUN, .series = s, .stat = stat,
			    .slot = -1 };
	size_t		i;
	int		k;

	write_row(f, &r, sep, is_long);
	for (i = 0; i < s->ndev; i++) {
		r.scope = SCOPE_DEVICE;
		r.d = &rep->devs[i];
		r.di = i;
		r.slot = -1;
		write_row(f, &r, sep, is_long);
		for (k = 0; k < ACCOUNT_NSTATES; k++) {
			if (!s->devs[i].has_state[k])
				continue;
			r.scope = SCOPE_PSTATE;
			r.slot = k;
			write_row(f, &r, sep, is_long);
		}
	}
}

int
csvout_summary(FILE *f, const struct report *reps, size_t n, const struct series *series,
    const struct gate_set *gates, const char *sep, bool is_long)
{
	struct row	r = { .rep = reps, .scope = SCOPE_GATE, .slot = -1 };
	size_t		i;
	int		col;

	for (col = 0; col < (is_long ? LCOL_NCOLS : COL_NCOLS); col++)
		fprintf(f, "%s%s", col > 0 ? sep : "", is_long ? schema_long_column(col) :
		    schema_column(col));
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		write_run_rows(f, &reps[i], sep, is_long);
		write_phase_rows(f, &reps[i], sep, is_long);
	}
	for (col = 0; n > 1 && series != NULL && col < ROW_NROWS; col++)
		write_series_rows(f, &reps[0], series, col, sep, is_long);
	for (i = 0; gates != NULL && n > 0 && i < gates->n; i++) {
		r.g = &gates->v[i];
		write_row(f, &r, sep, is_long);
	}
	return flush_status(f);
}
