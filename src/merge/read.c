/*
 * Reading one rank's summary CSV for joulestat merge: the file is streamed
 * by csvin (libcsv) twice, run rows then device rows, its columns are found by their schema.h names, and
 * its numbered "run" rows and their "device" rows become one struct
 * merge_rank, each figure the mean over the runs that have it (and an
 * energy's bound the mean of theirs, as -r's statistics).  Pure
 * (text in, a record or a one-line cause out), so that the unit tests
 * and the fuzz target can feed it anything.
 */
#include "joulestat/merge.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/csvin.h"
#include "joulestat/schema.h"
#include "joulestat/util.h"

/* Times of day and durations past the year 33658 do not come from a clock. */
#define MERGE_MAX_S	1e12
/* A petajoule is 80,000 years of a 400 W GPU: more is not a measurement. */
#define MERGE_MAX_J	1e15
#define MERGE_MAX_INDEX	INT32_MAX

/* The summary columns read. */
struct cols {
	int	scope, run, id, energy;
	int	host, rank, job, start, wall, index, name, backend, time, above_idle, workload;
	int	lost, measured, partial, phase, within, energy_err;
};

/* The first four make a file a summary; without the others a figure is unknown. */
static const struct {
	enum summary_col col;
	size_t		 off;
	bool		 is_required;
} col_table[] = {
	{ COL_SCOPE, offsetof(struct cols, scope), true },
	{ COL_RUN, offsetof(struct cols, run), true },
	{ COL_DEVID, offsetof(struct cols, id), true },
	{ COL_ENERGY, offsetof(struct cols, energy), true },
	{ COL_HOST, offsetof(struct cols, host), false },
	{ COL_RANK, offsetof(struct cols, rank), false },
	{ COL_JOB, offsetof(struct cols, job), false },
	{ COL_START, offsetof(struct cols, start), false },
	{ COL_WALL, offsetof(struct cols, wall), false },
	{ COL_DEVICE, offsetof(struct cols, index), false },
	{ COL_DEVNAME, offsetof(struct cols, name), false },
	{ COL_BACKEND, offsetof(struct cols, backend), false },
	{ COL_TIME, offsetof(struct cols, time), false },
	{ COL_ABOVEIDLE, offsetof(struct cols, above_idle), false },
	{ COL_WORKLOAD, offsetof(struct cols, workload), false },
	{ COL_LOSTS, offsetof(struct cols, lost), false },
	{ COL_MEASURED, offsetof(struct cols, measured), false },
	{ COL_PARTIAL, offsetof(struct cols, partial), false },
	{ COL_PHASE, offsetof(struct cols, phase), false },
	{ COL_WITHIN, offsetof(struct cols, within), false },
	{ COL_ENERGY_ERR, offsetof(struct cols, energy_err), false },
};

/* A numbered "run" row. */
struct run_info {
	uint64_t	 run;
	size_t		 line;
	double		 start_s, wall_s;
	bool		 has_start, has_wall;
};

/* A device row: which device, which run; two of one pair is an error. */
struct seen {
	size_t		 dev;
	uint64_t	 run;
	size_t		 line;
};

/* The state of turning one parsed file into a struct merge_rank. */
struct reader {
	const struct csvin	*t;
	struct cols		 c;
	struct merge_rank	*r;
	struct run_info		*runs;
	size_t			 nruns;
	struct seen		*seen;
	size_t			 nseen;
	size_t			 id_line;	/* line that gave host, rank and job; 0 none */
	struct errbuf		*err;
};

static size_t
row_line(const struct reader *rd, size_t row)
{
	return rd->t->rows[row].line;
}

static int
find_cols(struct reader *rd)
{
	size_t	 i;
	int	*slot;

	for (i = 0; i < ARRAY_SIZE(col_table); i++) {
		slot = (int *)(void *)((char *)&rd->c + col_table[i].off);
		*slot = csvin_col(rd->t, schema_column(col_table[i].col));
		if (*slot < 0 && col_table[i].is_required) {
			errbuf_set(rd->err, "not a joulestat summary (no %s column)",
			    schema_column(col_table[i].col));
			return -1;
		}
	}
	return 0;
}

/*
 * The number in column col of row: 0 with *has false when the field is
 * empty (unknown), 0 with *out in [min, max], or -1 with a cause.
 */
static int
row_num(const struct reader *rd, size_t row, int col, double min, double max, double *out,
    bool *has)
{
	const char	*s = csvin_get(rd->t, row, col);
	double		 v = 0;
	int		 rc;

	*has = false;
	if (s[0] == '\0')
		return 0;
	if ((rc = parse_double(s, &v)) == 0 && (v < min || v > max))
		rc = -ERANGE;
	if (rc != 0) {
		errbuf_set(rd->err, "line %zu: %s '%s' is %s", row_line(rd, row),
		    rd->t->rows[0].f[col], VIS(s), rc == -ERANGE ? "out of range" : "not a number");
		return -1;
	}
	*out = v;
	*has = true;
	return 0;
}

/* The device column: a whole number, or -1 when empty. */
static int
row_index(const struct reader *rd, size_t row, int64_t *out)
{
	const char	*s = csvin_get(rd->t, row, rd->c.index);
	uint64_t	 v;

	*out = -1;
	if (s[0] == '\0')
		return 0;
	if (parse_u64_range(s, 0, MERGE_MAX_INDEX, &v) != 0) {
		errbuf_set(rd->err, "line %zu: device '%s' is not a device index",
		    row_line(rd, row), VIS(s));
		return -1;
	}
	*out = (int64_t)v;
	return 0;
}

/* The run of a row: 1..N, or 0 for the series rows of -r ("mean", "median", ...). */
static int
row_run(const struct reader *rd, size_t row, uint64_t *run)
{
	const char	*s = csvin_get(rd->t, row, rd->c.run);

	*run = 0;
	/* The -r summary rows are recomputed, not read. */
	if (schema_is_series_row(s))
		return 0;
	if (parse_u64_range(s, 1, UINT32_MAX, run) != 0) {
		errbuf_set(rd->err, "line %zu: run '%s' is not a run number", row_line(rd, row),
		    VIS(s));
		return -1;
	}
	return 0;
}

/* The first row names the rank; rank is a decimal number or empty. */
static int
take_identity(struct reader *rd, size_t row)
{
	struct merge_rank	*r = rd->r;
	const char		*rank = csvin_get(rd->t, row, rd->c.rank);
	uint64_t		 v;

	if (rank[0] != '\0' && parse_u64_range(rank, 0, INT32_MAX, &v) != 0) {
		errbuf_set(rd->err, "line %zu: rank '%s' is not a rank number", row_line(rd, row),
		    VIS(rank));
		return -1;
	}
	r->rank_num = rank[0] != '\0' ? (int64_t)v : -1;
	free(r->host);
	free(r->rank);
	free(r->job);
	r->host = xstrdup(csvin_get(rd->t, row, rd->c.host));
	r->rank = xstrdup(rank);
	r->job = xstrdup(csvin_get(rd->t, row, rd->c.job));
	rd->id_line = row_line(rd, row);
	return 0;
}

/* Every row carries host, rank and job; one file is one rank, so they agree. */
static int
check_identity(struct reader *rd, size_t row)
{
	const char *const	 what[] = { "host", "rank", "job" };
	const int		 cols[] = { rd->c.host, rd->c.rank, rd->c.job };
	const char		*have[] = { rd->r->host, rd->r->rank, rd->r->job };
	const char		*s;
	size_t			 i;

	if (rd->id_line == 0)
		return take_identity(rd, row);
	for (i = 0; i < ARRAY_SIZE(what); i++) {
		s = csvin_get(rd->t, row, cols[i]);
		if (strcmp(s, have[i]) != 0) {
			errbuf_set(rd->err, "line %zu: %s '%s' differs from '%s' on line %zu "
			    "(one file is one rank's summary)", row_line(rd, row), what[i], VIS(s),
			    VIS(have[i]), rd->id_line);
			return -1;
		}
	}
	return 0;
}

static int
read_run(struct reader *rd, size_t row, uint64_t run)
{
	struct run_info	ri = { .run = run, .line = row_line(rd, row) };

	if (row_num(rd, row, rd->c.start, 0, MERGE_MAX_S, &ri.start_s, &ri.has_start) != 0 ||
	    row_num(rd, row, rd->c.wall, 0, MERGE_MAX_S, &ri.wall_s, &ri.has_wall) != 0)
		return -1;
	rd->runs = xreallocarray(rd->runs, rd->nruns + 1, sizeof *rd->runs);
	rd->runs[rd->nruns++] = ri;
	return 0;
}

static int
cmp_run(const void *a, const void *b)
{
	const struct run_info	*x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sort the runs for bsearch; a run number given twice is an error. */
static int
sort_runs(struct reader *rd)
{
	size_t	i;

	if (rd->nruns == 0) {
		errbuf_set(rd->err, "no numbered run rows (not a joulestat summary)");
		return -1;
	}
	qsort(rd->runs, rd->nruns, sizeof *rd->runs, cmp_run);
	for (i = 1; i < rd->nruns; i++) {
		if (rd->runs[i].run == rd->runs[i - 1].run) {
			errbuf_set(rd->err, "line %zu: run %" PRIu64 " appears twice (also line %zu)",
			    rd->runs[i].line, rd->runs[i].run, rd->runs[i - 1].line);
			return -1;
		}
	}
	return 0;
}

/* Run numbers only: after sort_runs they are unique, so bsearch finds the one. */
static int
cmp_run_number(const void *a, const void *b)
{
	const struct run_info	*x = a, *y = b;

	return x->run < y->run ? -1 : x->run > y->run;
}

static const struct run_info *
find_run(const struct reader *rd, uint64_t run)
{
	const struct run_info	key = { .run = run };

	return bsearch(&key, rd->runs, rd->nruns, sizeof *rd->runs, cmp_run_number);
}

/* The rank's record of device id, added on first sight. */
static struct merge_dev *
find_dev(struct reader *rd, size_t row, const char *id, int64_t index)
{
	struct merge_rank	*r = rd->r;
	struct merge_dev	*d;
	size_t			 i;

	for (i = 0; i < r->ndev; i++) {
		if (strcmp(r->devs[i].id, id) == 0)
			return &r->devs[i];
	}
	r->devs = xreallocarray(r->devs, r->ndev + 1, sizeof *r->devs);
	d = &r->devs[r->ndev++];
	memset(d, 0, sizeof *d);
	d->id = xstrdup(id);
	d->name = xstrdup(csvin_get(rd->t, row, rd->c.name));
	d->backend = xstrdup(csvin_get(rd->t, row, rd->c.backend));
	d->index = index;
	return d;
}

/*
 * The bound of a row's energy_j (has_energy: the row has one), added to
 * *sum and counted in *n when the row has both; a summary written before
 * bounds (no energy_err_j column) has none, and the figure's bound stays
 * unknown.
 */
static int
read_bound(const struct reader *rd, size_t row, bool has_energy, double *sum, size_t *n)
{
	double	v = 0;
	bool	has;

	if (rd->c.energy_err < 0 || !has_energy)
		return 0;
	if (row_num(rd, row, rd->c.energy_err, 0, MERGE_MAX_J, &v, &has) != 0)
		return -1;
	merge_add_figure(sum, n, v, has);
	return 0;
}

/* The device measured from the run's start for time_s: widen its window. */
static void
widen_window(struct merge_dev *d, const struct run_info *ri, double time_s, bool has_time)
{
	double	start, end;

	if (!ri->has_start || !has_time)
		return;
	start = ri->start_s;
	end = start + time_s;
	if (!d->has_window || start < d->start_s)
		d->start_s = start;
	if (!d->has_window || end > d->end_s)
		d->end_s = end;
	d->has_window = true;
}

static int
read_device(struct reader *rd, size_t row, uint64_t run)
{
	const char		*id = csvin_get(rd->t, row, rd->c.id);
	const struct run_info	*ri;
	struct merge_dev	*d;
	double			 v[7] = { 0 };
	bool			 has[7];
	int64_t			 index;

	if (id[0] == '\0') {
		errbuf_set(rd->err, "line %zu: device row without a device_id", row_line(rd, row));
		return -1;
	}
	if ((ri = find_run(rd, run)) == NULL) {
		errbuf_set(rd->err, "line %zu: device row of run %" PRIu64 ", which has no run row",
		    row_line(rd, row), run);
		return -1;
	}
	if (row_index(rd, row, &index) != 0 ||
	    row_num(rd, row, rd->c.time, 0, MERGE_MAX_S, &v[0], &has[0]) != 0 ||
	    row_num(rd, row, rd->c.energy, -MERGE_MAX_J, MERGE_MAX_J, &v[1], &has[1]) != 0 ||
	    row_num(rd, row, rd->c.above_idle, -MERGE_MAX_J, MERGE_MAX_J, &v[2], &has[2]) != 0 ||
	    row_num(rd, row, rd->c.workload, -MERGE_MAX_J, MERGE_MAX_J, &v[3], &has[3]) != 0 ||
	    row_num(rd, row, rd->c.lost, 0, MERGE_MAX_S, &v[4], &has[4]) != 0 ||
	    row_num(rd, row, rd->c.measured, 0, MERGE_MAX_S, &v[5], &has[5]) != 0 ||
	    row_num(rd, row, rd->c.partial, 0, 1, &v[6], &has[6]) != 0)
		return -1;
	d = find_dev(rd, row, id, index);
	/*
	 * Energy that covers less than the readings tried (joulestat(1),
	 * --gate-partial): the run's own verdict, its partial column.  Older
	 * summaries have none; their time_s ran over every reading tried, so
	 * measured_s below it says so, and without measured_s lost time does.
	 */
	if (has[1] && (has[6] ? v[6] != 0 : has[5] ? has[0] && v[5] < v[0] - 2e-6 :
	    has[4] && v[4] > 0))
		d->is_partial = true;
	/* Its figure is within another device's of the rank (an APU's SoC power). */
	if (rd->c.within >= 0 && csvin_get(rd->t, row, rd->c.within)[0] != '\0')
		d->is_within = true;
	merge_add_figure(&d->time_s, &d->n_time, v[0], has[0]);
	merge_add_figure(&d->energy_j, &d->n_energy, v[1], has[1]);
	merge_add_figure(&d->above_idle_j, &d->n_above_idle, v[2], has[2]);
	merge_add_figure(&d->workload_j, &d->n_workload, v[3], has[3]);
	widen_window(d, ri, v[0], has[0]);
	rd->seen = xreallocarray(rd->seen, rd->nseen + 1, sizeof *rd->seen);
	rd->seen[rd->nseen++] = (struct seen){ (size_t)(d - rd->r->devs), run, row_line(rd, row) };
	return read_bound(rd, row, has[1], &d->energy_err_j, &d->n_energy_err);
}

/* A "phase" row: the phase on one device in one run, added to the rank's means. */
static int
read_phase(struct reader *rd, size_t row)
{
	const char		*name = rd->c.phase >= 0 ? csvin_get(rd->t, row, rd->c.phase) : "";
	const char		*id = csvin_get(rd->t, row, rd->c.id);
	struct merge_rank	*r = rd->r;
	struct merge_phase	*p = NULL;
	double			 v[3] = { 0 };
	bool			 has[3];
	size_t			 i;

	if (name[0] == '\0') {
		errbuf_set(rd->err, "line %zu: phase row without a phase name", row_line(rd, row));
		return -1;
	}
	if (row_num(rd, row, rd->c.energy, -MERGE_MAX_J, MERGE_MAX_J, &v[0], &has[0]) != 0 ||
	    row_num(rd, row, rd->c.workload, -MERGE_MAX_J, MERGE_MAX_J, &v[1], &has[1]) != 0 ||
	    row_num(rd, row, rd->c.wall, 0, MERGE_MAX_S, &v[2], &has[2]) != 0)
		return -1;
	for (i = 0; i < r->nphases && p == NULL; i++) {
		if (strcmp(r->phases[i].name, name) == 0 && strcmp(r->phases[i].id, id) == 0)
			p = &r->phases[i];
	}
	if (p == NULL) {
		r->phases = xreallocarray(r->phases, r->nphases + 1, sizeof *r->phases);
		p = &r->phases[r->nphases++];
		memset(p, 0, sizeof *p);
		p->name = xstrdup(name);
		p->id = xstrdup(id);
	}
	merge_add_figure(&p->energy_j, &p->n_energy, v[0], has[0]);
	merge_add_figure(&p->workload_j, &p->n_workload, v[1], has[1]);
	merge_add_figure(&p->wall_s, &p->n_wall, v[2], has[2]);
	return read_bound(rd, row, has[0], &p->energy_err_j, &p->n_energy_err);
}

static int
cmp_seen(const void *a, const void *b)
{
	const struct seen	*x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* One device row per device and run: a second one would be averaged in. */
static int
check_seen(struct reader *rd)
{
	const struct seen	*s;
	size_t			 i;

	if (rd->nseen > 1)
		qsort(rd->seen, rd->nseen, sizeof *rd->seen, cmp_seen);
	for (i = 1; i < rd->nseen; i++) {
		s = &rd->seen[i];
		if (s->dev == s[-1].dev && s->run == s[-1].run) {
			errbuf_set(rd->err, "line %zu: device_id '%s' appears twice in run %" PRIu64
			    " (also line %zu)", s->line, VIS(rd->r->devs[s->dev].id), s->run,
			    s[-1].line);
			return -1;
		}
	}
	return 0;
}

static bool
is_blank(const struct csvin *t, size_t row)
{
	return t->rows[row].n == 0 || (t->rows[row].n == 1 && t->rows[row].f[0][0] == '\0');
}

/*
 * One streamed row (csvin_stream_*: the header alone first, then each row
 * as rows[1]): the "run" rows on the first pass (every row's identity and
 * schema are checked on the way), the "device" and "phase" rows on the
 * second.  The other scopes (pstate, process, ...) are not merged.
 */
static int
read_row(struct reader *rd, const struct csvin *t, bool is_run)
{
	const char	*scope = schema_scope(is_run ? SCOPE_RUN : SCOPE_DEVICE);
	uint64_t	 run;
	bool		 is_phase;

	rd->t = t;
	if (t->nrows == 1)
		return is_run ? find_cols(rd) : 0;
	if (is_blank(t, 1))
		return 0;
	if (is_run && (schema_check_summary(t, rd->err) != 0 || check_identity(rd, 1) != 0))
		return -1;
	is_phase = !is_run && strcmp(csvin_get(t, 1, rd->c.scope), schema_scope(SCOPE_PHASE)) == 0;
	if (strcmp(csvin_get(t, 1, rd->c.scope), scope) != 0 && !is_phase)
		return 0;
	if (row_run(rd, 1, &run) != 0)
		return -1;
	if (run == 0)
		return 0;
	if (is_phase)
		return find_run(rd, run) != NULL ? read_phase(rd, 1) : 0;
	if (is_run)
		return read_run(rd, 1, run);
	return read_device(rd, 1, run);
}

static int
on_run_row(const struct csvin *t, void *arg)
{
	return read_row(arg, t, true);
}

static int
on_device_row(const struct csvin *t, void *arg)
{
	return read_row(arg, t, false);
}

/* Sums to means, and the rank's span from its first start to its last end. */
static void
finish_rank(struct reader *rd)
{
	struct merge_rank	*r = rd->r;
	struct merge_dev	*d;
	struct merge_phase	*p;
	const struct run_info	*ri;
	size_t			 i, n = 0;

	r->nruns = rd->nruns;
	for (i = 0; i < rd->nruns; i++) {
		ri = &rd->runs[i];
		merge_add_figure(&r->wall_s, &n, ri->wall_s, ri->has_wall);
		if (!ri->has_start || !ri->has_wall)
			continue;
		if (!r->has_time || ri->start_s < r->start_s)
			r->start_s = ri->start_s;
		if (!r->has_time || ri->start_s + ri->wall_s > r->end_s)
			r->end_s = ri->start_s + ri->wall_s;
		r->has_time = true;
	}
	r->has_wall = n > 0;
	if (n > 0)
		r->wall_s /= (double)n;
	for (i = 0; i < r->ndev; i++) {
		d = &r->devs[i];
		d->time_s = d->n_time > 0 ? d->time_s / (double)d->n_time : 0;
		d->energy_j = d->n_energy > 0 ? d->energy_j / (double)d->n_energy : 0;
		d->energy_err_j = d->n_energy_err > 0 ? d->energy_err_j / (double)d->n_energy_err : 0;
		d->above_idle_j = d->n_above_idle > 0 ? d->above_idle_j / (double)d->n_above_idle : 0;
		d->workload_j = d->n_workload > 0 ? d->workload_j / (double)d->n_workload : 0;
	}
	for (i = 0; i < r->nphases; i++) {
		p = &r->phases[i];
		p->energy_j = p->n_energy > 0 ? p->energy_j / (double)p->n_energy : 0;
		p->energy_err_j = p->n_energy_err > 0 ? p->energy_err_j / (double)p->n_energy_err : 0;
		p->workload_j = p->n_workload > 0 ? p->workload_j / (double)p->n_workload : 0;
		p->wall_s = p->n_wall > 0 ? p->wall_s / (double)p->n_wall : 0;
	}
}

/*
 * Two passes over the file, streamed, so that memory is the rank's runs
 * and devices, not the file's rows: the run rows (sorted, for the device
 * rows of any order to find theirs), then the device rows.  text is the
 * file's text, or NULL to read path.
 */
static int
read_rank(struct merge_rank *r, const char *path, const char *text, size_t len,
    struct errbuf *err)
{
	struct reader	rd = { .r = r, .err = err };
	int		rc;

	rc = text != NULL ? csvin_stream_text(text, len, on_run_row, &rd, err) :
	    csvin_stream_file(path, on_run_row, &rd, err);
	if (rc == 0 && (rc = sort_runs(&rd)) != 0 && path != NULL)
		errbuf_prefix(err, "%s", VIS(path));	/* the streams name the file themselves */
	if (rc == 0)
		rc = text != NULL ? csvin_stream_text(text, len, on_device_row, &rd, err) :
		    csvin_stream_file(path, on_device_row, &rd, err);
	if (rc == 0 && (rc = check_seen(&rd)) != 0 && path != NULL)
		errbuf_prefix(err, "%s", VIS(path));
	if (rc == 0)
		finish_rank(&rd);
	free(rd.runs);
	free(rd.seen);
	return rc;
}

/* An empty record that merge_rank_free can always release. */
static void
rank_init(struct merge_rank *r, const char *file)
{
	memset(r, 0, sizeof *r);
	r->file = xstrdup(file);
	r->host = xstrdup("");
	r->rank = xstrdup("");
	r->job = xstrdup("");
	r->rank_num = -1;
}

int
merge_parse_text(struct merge_rank *r, const char *file, const char *text, size_t len,
    struct errbuf *err)
{
	rank_init(r, file);
	if (read_rank(r, NULL, text, len, err) != 0) {
		errbuf_prefix(err, "%s", VIS(file));
		return -1;
	}
	return 0;
}

int
merge_load_file(struct merge_rank *r, const char *path, struct errbuf *err)
{
	rank_init(r, path);
	return read_rank(r, path, NULL, 0, err);
}

void
merge_rank_free(struct merge_rank *r)
{
	size_t	i;

	for (i = 0; i < r->ndev; i++) {
		free(r->devs[i].id);
		free(r->devs[i].name);
		free(r->devs[i].backend);
	}
	free(r->devs);
	for (i = 0; i < r->nphases; i++) {
		free(r->phases[i].name);
		free(r->phases[i].id);
	}
	free(r->phases);
	free(r->file);
	free(r->host);
	free(r->rank);
	free(r->job);
	memset(r, 0, sizeof *r);
}
