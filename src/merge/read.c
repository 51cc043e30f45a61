/*
 * joulestat merge (DESIGN §6): the summary CSVs that the ranks of one job
 * wrote with --csv are read back through csvin (libcsv) into one record
 * per rank, the device measurements are grouped so that a device that
 * several ranks on one host measured at the same time counts once, and
 * the job's totals are written as a text report, a CSV and a JSON
 * document.  Nothing here measures: every figure is one the ranks wrote,
 * averaged over a file's runs, summed or chosen.  Reading is pure (text
 * in, records or a one-line cause out) so that the unit tests and the
 * fuzz target can feed it anything.
 */
#include "joulestat/merge.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <popt.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/csvin.h"
#include "joulestat/exitcode.h"
#include "joulestat/util.h"

static const char MERGE_USAGE[] =
    "usage: joulestat merge [-q] [-o FILE] [--csv FILE] [--json FILE] FILE...";

/* Times of day and durations past the year 33658 do not come from a clock. */
#define MERGE_MAX_S	1e12
/* A petajoule is 80,000 years of a 400 W GPU: more is not a measurement. */
#define MERGE_MAX_J	1e15
#define MERGE_MAX_INDEX	INT32_MAX

/* The "run" column of the -r summary rows; they are recomputed, not read. */
static const char RUN_MEAN[] = "mean";
static const char RUN_STDDEV[] = "stddev";
static const char SCOPE_RUN[] = "run";
static const char SCOPE_DEVICE[] = "device";

/* The summary columns read, by csvout.c's names. */
struct cols {
	int	scope, run, id, energy;
	int	host, rank, job, start, wall, index, name, backend, time, above_idle, workload;
};

/* The first four make a file a summary; without the others a figure is unknown. */
static const struct {
	const char	*name;
	size_t		 off;
	bool		 is_required;
} col_table[] = {
	{ "scope", offsetof(struct cols, scope), true },
	{ "run", offsetof(struct cols, run), true },
	{ "device_id", offsetof(struct cols, id), true },
	{ "energy_j", offsetof(struct cols, energy), true },
	{ "host", offsetof(struct cols, host), false },
	{ "rank", offsetof(struct cols, rank), false },
	{ "job", offsetof(struct cols, job), false },
	{ "start_unix_s", offsetof(struct cols, start), false },
	{ "wall_s", offsetof(struct cols, wall), false },
	{ "device", offsetof(struct cols, index), false },
	{ "device_name", offsetof(struct cols, name), false },
	{ "backend", offsetof(struct cols, backend), false },
	{ "time_s", offsetof(struct cols, time), false },
	{ "energy_above_idle_j", offsetof(struct cols, above_idle), false },
	{ "workload_energy_j", offsetof(struct cols, workload), false },
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
		*slot = csvin_col(rd->t, col_table[i].name);
		if (*slot < 0 && col_table[i].is_required) {
			errbuf_set(rd->err, "not a joulestat summary (no %s column)",
			    col_table[i].name);
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

/* The run of a row: 1..N, or 0 for the "mean" and "stddev" rows of -r. */
static int
row_run(const struct reader *rd, size_t row, uint64_t *run)
{
	const char	*s = csvin_get(rd->t, row, rd->c.run);

	*run = 0;
	if (strcmp(s, RUN_MEAN) == 0 || strcmp(s, RUN_STDDEV) == 0)
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

void
merge_add_figure(double *sum, size_t *n, double v, bool has)
{
	if (has) {
		*sum += v;
		(*n)++;
	}
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
	double			 v[4] = { 0 };
	bool			 has[4];
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
	    row_num(rd, row, rd->c.workload, -MERGE_MAX_J, MERGE_MAX_J, &v[3], &has[3]) != 0)
		return -1;
	d = find_dev(rd, row, id, index);
	merge_add_figure(&d->time_s, &d->n_time, v[0], has[0]);
	merge_add_figure(&d->energy_j, &d->n_energy, v[1], has[1]);
	merge_add_figure(&d->above_idle_j, &d->n_above_idle, v[2], has[2]);
	merge_add_figure(&d->workload_j, &d->n_workload, v[3], has[3]);
	widen_window(d, ri, v[0], has[0]);
	rd->seen = xreallocarray(rd->seen, rd->nseen + 1, sizeof *rd->seen);
	rd->seen[rd->nseen++] = (struct seen){ (size_t)(d - rd->r->devs), run, row_line(rd, row) };
	return 0;
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
 * The "run" rows (is_run; every row's identity is checked on the way) or
 * the "device" rows, in order.  The other scopes (pstate, process) are
 * not merged.
 */
static int
read_scope(struct reader *rd, bool is_run)
{
	const char	*scope = is_run ? SCOPE_RUN : SCOPE_DEVICE;
	uint64_t	 run;
	size_t		 row;

	for (row = 1; row < rd->t->nrows; row++) {
		if (is_blank(rd->t, row))
			continue;
		if (is_run && check_identity(rd, row) != 0)
			return -1;
		if (strcmp(csvin_get(rd->t, row, rd->c.scope), scope) != 0)
			continue;
		if (row_run(rd, row, &run) != 0)
			return -1;
		if (run == 0)
			continue;
		if ((is_run ? read_run(rd, row, run) : read_device(rd, row, run)) != 0)
			return -1;
	}
	return 0;
}

/* Sums to means, and the rank's span from its first start to its last end. */
static void
finish_rank(struct reader *rd)
{
	struct merge_rank	*r = rd->r;
	struct merge_dev	*d;
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
		d->above_idle_j = d->n_above_idle > 0 ? d->above_idle_j / (double)d->n_above_idle : 0;
		d->workload_j = d->n_workload > 0 ? d->workload_j / (double)d->n_workload : 0;
	}
}

static int
rank_from_table(struct merge_rank *r, const struct csvin *t, struct errbuf *err)
{
	struct reader	rd = { .t = t, .r = r, .err = err };
	int		rc = -1;

	if (find_cols(&rd) == 0 && read_scope(&rd, true) == 0 && sort_runs(&rd) == 0 &&
	    read_scope(&rd, false) == 0 && check_seen(&rd) == 0) {
		finish_rank(&rd);
		rc = 0;
	}
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
	struct csvin	t;
	int		rc;

	rank_init(r, file);
	rc = csvin_parse(&t, text, len, err);
	if (rc == 0)
		rc = rank_from_table(r, &t, err);
	csvin_free(&t);
	if (rc != 0)
		errbuf_prefix(err, "%s", VIS(file));
	return rc;
}

int
merge_load_file(struct merge_rank *r, const char *path, struct errbuf *err)
{
	struct csvin	t;
	int		rc;

	rank_init(r, path);
	/* csvin_load names the file in its own causes. */
	if (csvin_load(&t, path, err) != 0) {
		csvin_free(&t);
		return -1;
	}
	rc = rank_from_table(r, &t, err);
	csvin_free(&t);
	if (rc != 0)
		errbuf_prefix(err, "%s", VIS(path));
	return rc;
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
	free(r->file);
	free(r->host);
	free(r->rank);
	free(r->job);
	memset(r, 0, sizeof *r);
}

const char *
merge_job_words(const char *job, char *buf, size_t size)
{
	char	shown[64];

	if (job[0] == '\0')
		snprintf(buf, size, "no job id");
	else
		snprintf(buf, size, "job %s", visible(job, shown, sizeof shown));
	return buf;
}

int
merge_job_add(struct merge_job *job, struct merge_rank *r, struct errbuf *err)
{
	const struct merge_rank	*first = job->nranks > 0 ? &job->ranks[0] : NULL;
	char			 a[80], b[80];

	if (first != NULL && strcmp(first->job, r->job) != 0) {
		errbuf_set(err, "%s: %s, but %s has %s: merge one job at a time", VIS(r->file),
		    merge_job_words(r->job, a, sizeof a), VIS(first->file),
		    merge_job_words(first->job, b, sizeof b));
		return -1;
	}
	if (job->nranks == job->cap) {
		job->cap = job->cap == 0 ? 8 : job->cap * 2;
		job->ranks = xreallocarray(job->ranks, job->cap, sizeof *job->ranks);
	}
	job->ranks[job->nranks++] = *r;
	memset(r, 0, sizeof *r);
	return 0;
}

static int
cmp_double(double a, double b)
{
	return (a > b) - (a < b);
}

/* Ranks in number order, those without a number last; then host, then file. */
static int
cmp_rank(const void *a, const void *b)
{
	const struct merge_rank	*x = a, *y = b;
	int			 c;

	if (x->rank_num != y->rank_num) {
		if (x->rank_num < 0 || y->rank_num < 0)
			return x->rank_num < 0 ? 1 : -1;
		return x->rank_num < y->rank_num ? -1 : 1;
	}
	if ((c = strcmp(x->host, y->host)) != 0)
		return c;
	return strcmp(x->file, y->file);
}

/* After cmp_rank, a (host, rank) given twice is two neighbours. */
static int
check_twice(const struct merge_job *job, struct errbuf *err)
{
	const struct merge_rank	*x, *y;
	size_t			 i;

	for (i = 1; i < job->nranks; i++) {
		x = &job->ranks[i - 1];
		y = &job->ranks[i];
		if (x->rank_num != y->rank_num || strcmp(x->host, y->host) != 0)
			continue;
		if (strcmp(x->file, y->file) == 0)
			errbuf_set(err, "%s: given twice", VIS(y->file));
		else
			errbuf_set(err, "%s: host %s rank %s is also in %s", VIS(y->file),
			    VIS(y->host[0] != '\0' ? y->host : "(none)"),
			    VIS(y->rank[0] != '\0' ? y->rank : "(none)"), VIS(x->file));
		return -1;
	}
	return 0;
}

/* One rank's measurement of one device, while grouping. */
struct meas {
	const struct merge_rank	*r;
	const struct merge_dev	*d;
	size_t			 ri, di;
};

/* Same host and device together; unknown windows first, then by start. */
static int
cmp_meas(const void *a, const void *b)
{
	const struct meas	*x = a, *y = b;
	int			 c;

	if ((c = strcmp(x->r->host, y->r->host)) != 0 || (c = strcmp(x->d->id, y->d->id)) != 0)
		return c;
	if (x->d->has_window != y->d->has_window)
		return x->d->has_window ? 1 : -1;
	if ((c = cmp_double(x->d->start_s, y->d->start_s)) != 0)
		return c;
	return x->ri < y->ri ? -1 : x->ri > y->ri;
}

static bool
same_device(const struct meas *a, const struct meas *b)
{
	return strcmp(a->r->host, b->r->host) == 0 && strcmp(a->d->id, b->d->id) == 0;
}

/* How long a measurement lasted: its window, or its time per run without one. */
static double
meas_length(const struct meas *m)
{
	if (m->d->has_window)
		return m->d->end_s - m->d->start_s;
	return m->d->n_time > 0 ? m->d->time_s : 0;
}

/* The figures to keep: known energy first, then the longest window, then the lower rank. */
static bool
is_better(const struct meas *a, const struct meas *b)
{
	if ((a->d->n_energy > 0) != (b->d->n_energy > 0))
		return a->d->n_energy > 0;
	if (meas_length(a) != meas_length(b))
		return meas_length(a) > meas_length(b);
	return a->ri < b->ri;
}

static int
cmp_size(const void *a, const void *b)
{
	const size_t	*x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* m[0..n) measured one device at one time: one group. */
static void
add_group(struct merge_job *job, const struct meas *m, size_t n)
{
	struct merge_group	*g = &job->groups[job->ngroups++];
	size_t			 i, best = 0;

	memset(g, 0, sizeof *g);
	g->members = xcalloc(n, sizeof *g->members);
	g->nmembers = n;
	for (i = 0; i < n; i++) {
		g->members[i] = m[i].ri;
		if (is_better(&m[i], &m[best]))
			best = i;
		if (m[i].d->n_workload > 0) {
			g->workload_j += m[i].d->workload_j;
			g->has_workload = true;
		}
		if (!m[i].d->has_window)
			continue;
		if (!g->has_window || m[i].d->start_s < g->start_s)
			g->start_s = m[i].d->start_s;
		if (!g->has_window || m[i].d->end_s > g->end_s)
			g->end_s = m[i].d->end_s;
		g->has_window = true;
	}
	qsort(g->members, n, sizeof *g->members, cmp_size);
	g->kept_rank = m[best].ri;
	g->kept_dev = m[best].di;
}

/*
 * The measurements m[from..to) of one device, sorted by start: each run
 * of windows that overlap one another (touching is not overlapping) is
 * one group.  Without a window there is no telling, and the ranks of a
 * job on one host run at the same time: all of them are one group.
 */
static void
group_device(struct merge_job *job, const struct meas *m, size_t from, size_t to)
{
	double	end;
	size_t	i, k;

	if (!m[from].d->has_window) {
		add_group(job, m + from, to - from);
		return;
	}
	for (i = from; i < to; i = k) {
		end = m[i].d->end_s;
		for (k = i + 1; k < to && m[k].d->start_s < end; k++) {
			if (m[k].d->end_s > end)
				end = m[k].d->end_s;
		}
		add_group(job, m + i, k - i);
	}
}

/* Groups by host, then device index (unknown last), then id and start. */
static int
cmp_group(const void *a, const void *b, void *arg)
{
	const struct merge_job		*job = arg;
	const struct merge_group	*x = a, *y = b;
	const struct merge_rank		*rx = &job->ranks[x->kept_rank];
	const struct merge_rank		*ry = &job->ranks[y->kept_rank];
	const struct merge_dev		*dx = &rx->devs[x->kept_dev];
	const struct merge_dev		*dy = &ry->devs[y->kept_dev];
	int				 c;

	if ((c = strcmp(rx->host, ry->host)) != 0)
		return c;
	if (dx->index != dy->index) {
		if (dx->index < 0 || dy->index < 0)
			return dx->index < 0 ? 1 : -1;
		return dx->index < dy->index ? -1 : 1;
	}
	if ((c = strcmp(dx->id, dy->id)) != 0)
		return c;
	return cmp_double(x->start_s, y->start_s);
}

static void
group_devices(struct merge_job *job)
{
	struct meas	*m;
	size_t		 n = 0, i, k, end;

	for (i = 0; i < job->nranks; i++)
		n += job->ranks[i].ndev;
	m = xcalloc(n > 0 ? n : 1, sizeof *m);
	job->groups = xcalloc(n > 0 ? n : 1, sizeof *job->groups);
	n = 0;
	for (i = 0; i < job->nranks; i++) {
		for (k = 0; k < job->ranks[i].ndev; k++)
			m[n++] = (struct meas){ &job->ranks[i], &job->ranks[i].devs[k], i, k };
	}
	qsort(m, n, sizeof *m, cmp_meas);
	for (i = 0; i < n; i = end) {
		for (end = i + 1; end < n && same_device(&m[i], &m[end]); end++)
			;
		group_device(job, m, i, end);
	}
	free(m);
	qsort_r(job->groups, job->ngroups, sizeof *job->groups, cmp_group, job);
}

static size_t
count_hosts(const struct merge_job *job)
{
	const char	**hosts;
	size_t		  i, n = 0;

	if (job->nranks == 0)
		return 0;
	hosts = xcalloc(job->nranks, sizeof *hosts);
	for (i = 0; i < job->nranks; i++)
		hosts[i] = job->ranks[i].host;
	qsort(hosts, job->nranks, sizeof *hosts, cmp_strp);
	for (i = 0; i < job->nranks; i++)
		n += i == 0 || strcmp(hosts[i], hosts[i - 1]) != 0;
	free(hosts);
	return n;
}

static void
add_totals(struct merge_job *job)
{
	const struct merge_rank	*r;
	const struct merge_dev	*d;
	size_t			 i, k;

	for (i = 0; i < job->ngroups; i++) {
		d = &job->ranks[job->groups[i].kept_rank].devs[job->groups[i].kept_dev];
		merge_add_figure(&job->energy_j, &job->n_energy, d->energy_j, d->n_energy > 0);
		merge_add_figure(&job->above_idle_j, &job->n_above_idle, d->above_idle_j,
		    d->n_above_idle > 0);
	}
	for (i = 0; i < job->nranks; i++) {
		r = &job->ranks[i];
		for (k = 0; k < r->ndev; k++)
			merge_add_figure(&job->workload_j, &job->n_workload, r->devs[k].workload_j,
			    r->devs[k].n_workload > 0);
		if (!r->has_time)
			continue;
		if (!job->has_time || r->start_s < job->start_s)
			job->start_s = r->start_s;
		if (!job->has_time || r->end_s > job->end_s)
			job->end_s = r->end_s;
		job->has_time = true;
	}
	job->nhosts = count_hosts(job);
}

int
merge_job_total(struct merge_job *job, struct errbuf *err)
{
	if (job->nranks > 1)
		qsort(job->ranks, job->nranks, sizeof *job->ranks, cmp_rank);
	if (check_twice(job, err) != 0)
		return -1;
	group_devices(job);
	add_totals(job);
	return 0;
}

void
merge_job_free(struct merge_job *job)
{
	size_t	i;

	for (i = 0; i < job->nranks; i++)
		merge_rank_free(&job->ranks[i]);
	for (i = 0; i < job->ngroups; i++)
		free(job->groups[i].members);
	free(job->ranks);
	free(job->groups);
	memset(job, 0, sizeof *job);
}

/* The subcommand: options, then the files, then the outputs. */

enum merge_opt {
	OPT_CSV = 1,
	OPT_HELP,
	OPT_JSON,
	OPT_OUTPUT,
	OPT_QUIET,
};

static const struct poptOption merge_options[] = {
	{ "csv", '\0', POPT_ARG_STRING, NULL, OPT_CSV,
	    "write the merged CSV to FILE (- for standard output)", "FILE" },
	{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
	{ "json", '\0', POPT_ARG_STRING, NULL, OPT_JSON,
	    "write the merged JSON to FILE (- for standard output)", "FILE" },
	{ "output", 'o', POPT_ARG_STRING, NULL, OPT_OUTPUT,
	    "write the report to FILE instead of standard output", "FILE" },
	{ "quiet", 'q', POPT_ARG_NONE, NULL, OPT_QUIET, "print no report", NULL },
	POPT_TABLEEND
};

struct merge_opts {
	char	*output;
	char	*csv;
	char	*json;
	bool	 is_quiet;
};

static int
usage_error(const char *msg)
{
	warnmsg("merge: %s", msg);
	fprintf(stderr, "%s\n", MERGE_USAGE);
	return EXIT_TOOL;
}

static int
print_help(poptContext ctx)
{
	printf("%s\n\nAdd up the summary CSVs (joulestat --csv) of the ranks of one job: a device\n"
	    "that ranks on one host measured at the same time is counted once.\n\n", MERGE_USAGE);
	poptPrintHelp(ctx, stdout, 0);
	printf("\nExit status: 0; 125 if a file is missing or malformed, or the files are\n"
	    "not the ranks of one job.  See joulestat(1).\n");
	return fflush(stdout) == 0 ? 0 : EXIT_TOOL;
}

/* A repeated option's last value wins; popt hands over a copy. */
static void
take_arg(char **dst, poptContext ctx)
{
	free(*dst);
	*dst = poptGetOptArg(ctx);
}

/* Returns -1 to go on, or the exit status (help, usage error). */
static int
parse_options(struct merge_opts *o, poptContext ctx)
{
	const char	**files;
	char		  msg[200];
	int		  rc;

	while ((rc = poptGetNextOpt(ctx)) > 0) {
		switch (rc) {
		case OPT_CSV: take_arg(&o->csv, ctx); break;
		case OPT_HELP: return print_help(ctx);
		case OPT_JSON: take_arg(&o->json, ctx); break;
		case OPT_OUTPUT: take_arg(&o->output, ctx); break;
		case OPT_QUIET: o->is_quiet = true; break;
		}
	}
	if (rc < -1) {
		snprintf(msg, sizeof msg, "%s: %s",
		    VIS(poptBadOption(ctx, POPT_BADOPTION_NOALIAS)), poptStrerror(rc));
		return usage_error(msg);
	}
	files = poptGetArgs(ctx);
	if (files == NULL || files[0] == NULL)
		return usage_error("no files given");
	return -1;
}

/* Write one output to path ("-": standard output); 0, or -1 after a message. */
static int
write_output(const char *path, int (*emit)(FILE *, const struct merge_job *),
    const struct merge_job *job)
{
	FILE	*f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	int	 rc;

	if (f == NULL) {
		warnmsg("merge: %s: %s", path, strerror(errno));
		return -1;
	}
	rc = emit(f, job);
	if (f != stdout && fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0) {
		warnmsg("merge: %s: %s", f == stdout ? "standard output" : path, strerror(-rc));
		return -1;
	}
	return 0;
}

static int
write_outputs(const struct merge_opts *o, const struct merge_job *job)
{
	const struct {
		const char	*path;
		int		(*emit)(FILE *, const struct merge_job *);
	} outs[] = {
		{ o->is_quiet ? NULL : o->output != NULL ? o->output : "-", merge_write_report },
		{ o->csv, merge_write_csv },
		{ o->json, merge_write_json },
	};
	size_t	i;
	int	rc = 0;

	for (i = 0; i < ARRAY_SIZE(outs); i++) {
		if (outs[i].path != NULL && write_output(outs[i].path, outs[i].emit, job) != 0)
			rc = -1;
	}
	return rc;
}

/* Read every file into one job; the outputs are opened only when all of them read. */
static int
merge_files(const struct merge_opts *o, const char **files)
{
	struct merge_job	job = { 0 };
	struct merge_rank	r;
	struct errbuf		err = { "" };
	size_t			i;
	int			status = EXIT_TOOL;

	for (i = 0; files[i] != NULL; i++) {
		if (merge_load_file(&r, files[i], &err) != 0 ||
		    merge_job_add(&job, &r, &err) != 0) {
			merge_rank_free(&r);
			break;
		}
	}
	if (files[i] == NULL && merge_job_total(&job, &err) == 0)
		status = write_outputs(o, &job) == 0 ? 0 : EXIT_TOOL;
	if (err.msg[0] != '\0')
		warnmsg("merge: %s", err.msg);
	merge_job_free(&job);
	return status;
}

int
merge_main(int argc, char **argv)
{
	struct merge_opts	  o = { 0 };
	poptContext		  ctx;
	const char		**args;
	int			  status;

	/* popt's help names argv[0]: "joulestat merge", not "merge". */
	args = xcalloc((size_t)argc + 1, sizeof *args);
	memcpy(args, argv, (size_t)argc * sizeof *args);
	args[0] = PROGNAME " merge";
	/* Options may follow the files, as in "merge r*.csv --csv m.csv". */
	ctx = poptGetContext(PROGNAME " merge", argc, args, merge_options, 0);
	poptSetOtherOptionHelp(ctx, "[OPTION...] FILE...");
	if ((status = parse_options(&o, ctx)) < 0)
		status = merge_files(&o, poptGetArgs(ctx));
	free(o.output);
	free(o.csv);
	free(o.json);
	poptFreeContext(ctx);
	free(args);
	return status;
}
