/*
 * The three forms of a merged job (joulestat merge): the text report, the
 * CSV (through libcsv's quoting) and the JSON document (jansson).  They
 * only print what read.c read and merge.c totalled.  Column names, JSON
 * keys and row kinds are schema.h's.
 */
#include "joulestat/merge.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/fmt.h"
#include "joulestat/schema.h"
#include "joulestat/util.h"

/* What one rank measured on its own devices, shared ones included. */
struct rank_sums {
	double	energy_j, above_idle_j, workload_j;
	size_t	n_energy, n_above_idle, n_workload;
	double	energy_err_j;	/* the bounds of energy_j's figures, added */
	size_t	n_energy_err;
};

static void
rank_sums(const struct merge_rank *r, struct rank_sums *s)
{
	const struct merge_dev	*d;
	size_t			 i;

	memset(s, 0, sizeof *s);
	for (i = 0; i < r->ndev; i++) {
		d = &r->devs[i];
		/* Within another device's figure (an APU's SoC power): counted as that one. */
		merge_add_figure(&s->energy_j, &s->n_energy, d->energy_j,
		    d->n_energy > 0 && !d->is_within);
		merge_add_figure(&s->energy_err_j, &s->n_energy_err, d->energy_err_j,
		    merge_has_bound(d->n_energy, d->n_energy_err) && !d->is_within);
		merge_add_figure(&s->above_idle_j, &s->n_above_idle, d->above_idle_j,
		    d->n_above_idle > 0 && !d->is_within);
		merge_add_figure(&s->workload_j, &s->n_workload, d->workload_j, d->n_workload > 0);
	}
}

static const struct merge_dev *
kept_dev(const struct merge_job *job, const struct merge_group *g)
{
	return &job->ranks[g->kept_rank].devs[g->kept_dev];
}

/* The ranks of a group, joined by sep; "-" for a rank without a number.  Owned by the caller. */
static char *
member_list(const struct merge_job *job, const struct merge_group *g, const char *sep)
{
	const char	*rank;
	char		*s;
	size_t		 i, len = 1, off = 0;

	for (i = 0; i < g->nmembers; i++)
		len += strlen(job->ranks[g->members[i]].rank) + 1 + strlen(sep);
	s = xmalloc(len);
	s[0] = '\0';
	for (i = 0; i < g->nmembers; i++) {
		rank = job->ranks[g->members[i]].rank;
		off += (size_t)snprintf(s + off, len - off, "%s%s", i > 0 ? sep : "",
		    rank[0] != '\0' ? rank : "-");
	}
	return s;
}

/* The text report, in the layout of text.c's. */

/* A table cell: the figure with three decimals, or "unknown". */
static const char *
fmt_fig(char *buf, size_t size, double v, bool has)
{
	if (has)
		snprintf(buf, size, "%.3f", v);
	else
		snprintf(buf, size, "unknown");
	return buf;
}

/* An energy cell with its bound: "90.585 ± 0.006", "90.585 ± unknown" or "unknown". */
static const char *
fmt_bounded(char *buf, size_t size, double v, bool has, double err, bool has_err)
{
	if (!has)
		snprintf(buf, size, "unknown");
	else if (has_err)
		snprintf(buf, size, "%.3f ± %.3f", v, err);
	else
		snprintf(buf, size, "%.3f ± unknown", v);
	return buf;
}

static const char *
shown(const char *s, char *buf, size_t size)
{
	return visible(s[0] != '\0' ? s : "-", buf, size);
}

/* The wider of a column width and a text length. */
static int
widest(int w, size_t len)
{
	return len > (size_t)w ? (int)len : w;
}

static void
report_ranks(FILE *f, const struct merge_job *job)
{
	const struct merge_rank	*r;
	struct rank_sums	 s;
	char			 host[64], rank[24], file[64], e[48], w[32], wall[32];
	int			 hw = 4, rw = 4;
	size_t			 i;

	for (i = 0; i < job->nranks; i++) {
		hw = widest(hw, strlen(shown(job->ranks[i].host, host, sizeof host)));
		rw = widest(rw, strlen(shown(job->ranks[i].rank, rank, sizeof rank)));
	}
	fprintf(f, "\n ranks (energy: what each rank measured, shared devices included)\n");
	fprintf(f, "   %*s  %-*s  %4s  %9s  %21s  %12s  %s\n", rw, "rank", hw, "host", "runs",
	    "wall (s)", "energy (J)", "workload (J)", "file");
	for (i = 0; i < job->nranks; i++) {
		r = &job->ranks[i];
		rank_sums(r, &s);
		/* ± takes two bytes and one column. */
		fprintf(f, "   %*s  %-*s  %4zu  %9s  %*s  %12s  %s\n", rw,
		    shown(r->rank, rank, sizeof rank), hw, shown(r->host, host, sizeof host),
		    r->nruns, fmt_fig(wall, sizeof wall, r->wall_s, r->has_wall),
		    s.n_energy > 0 ? 22 : 21, fmt_bounded(e, sizeof e, s.energy_j, s.n_energy > 0,
		    s.energy_err_j, merge_has_bound(s.n_energy, s.n_energy_err)),
		    fmt_fig(w, sizeof w, s.workload_j, s.n_workload > 0),
		    visible(r->file, file, sizeof file));
	}
}

/* Column widths of the device table: host, name, id. */
static void
device_widths(const struct merge_job *job, int *hw, int *nw, int *iw)
{
	const struct merge_dev	*d;
	char			 buf[100];
	size_t			 i;

	*hw = 4;
	*nw = 4;
	*iw = 2;
	for (i = 0; i < job->ngroups; i++) {
		d = kept_dev(job, &job->groups[i]);
		*hw = widest(*hw, strlen(shown(job->ranks[job->groups[i].kept_rank].host, buf, 64)));
		*nw = widest(*nw, strlen(shown(d->name, buf, sizeof buf)));
		*iw = widest(*iw, strlen(shown(d->id, buf, 64)));
	}
}

static void
report_device(FILE *f, const struct merge_job *job, const struct merge_group *g,
    const int w[3])
{
	const struct merge_dev	*d = kept_dev(job, g);
	char			 host[64], name[100], id[64], index[24], e[48], a[32], kept[24];
	char			*ranks = member_list(job, g, ", ");

	if (d->index >= 0)
		snprintf(index, sizeof index, "%" PRId64, d->index);
	else
		snprintf(index, sizeof index, "-");
	fprintf(f, "   %-*s  %3s  %-*s  %-*s  %*s  %14s  %s", w[0],
	    shown(job->ranks[g->kept_rank].host, host, sizeof host), index, w[1],
	    shown(d->name, name, sizeof name), w[2], shown(d->id, id, sizeof id),
	    g->has_energy ? 22 : 21, fmt_bounded(e, sizeof e, g->energy_j, g->has_energy,
	    g->energy_err_j, g->has_energy_err),
	    fmt_fig(a, sizeof a, g->above_idle_j, g->has_above_idle), ranks);
	if (g->nmembers > 1 && g->is_extended)
		fprintf(f, " (shared, counted once: figures of rank %s, and of the others "
		    "where their windows reach beyond it, pro-rated)",
		    shown(job->ranks[g->kept_rank].rank, kept, sizeof kept));
	else if (g->nmembers > 1)
		fprintf(f, " (shared, counted once: figures of rank %s)",
		    shown(job->ranks[g->kept_rank].rank, kept, sizeof kept));
	fputc('\n', f);
	free(ranks);
}

static void
report_devices(FILE *f, const struct merge_job *job)
{
	int	w[3];
	size_t	i;

	if (job->ngroups == 0) {
		fprintf(f, "\n devices: none in any file\n");
		return;
	}
	device_widths(job, &w[0], &w[1], &w[2]);
	fprintf(f, "\n devices (ranks on one host that measured a device at the same time "
	    "share one measurement)\n");
	fprintf(f, "   %-*s  %3s  %-*s  %-*s  %21s  %14s  %s\n", w[0], "host", "dev", w[1], "name",
	    w[2], "id", "energy (J)", "above idle (J)", "ranks");
	for (i = 0; i < job->ngroups; i++)
		report_device(f, job, &job->groups[i], w);
}

/*
 * A total line: n of the job's m figures were known; note says what it
 * is.  err (NULL: the figure has no bound) is the total's bound, known
 * when all n_err of the n figures gave one.
 */
static void
report_total(FILE *f, const char *label, double v, size_t n, size_t m, const double *err,
    size_t n_err, const char *note)
{
	char	buf[48];

	if (n == 0) {
		fprintf(f, "   %-18s unknown\n", label);
		return;
	}
	if (err != NULL && merge_has_bound(n, n_err))
		fmt_energy_bounded(buf, sizeof buf, v * 1e3, *err * 1e3);
	else
		fmt_energy(buf, sizeof buf, v * 1e3);
	fprintf(f, "   %-18s %s = %.4f Wh", label, buf, v / 3600);
	if (err != NULL && !merge_has_bound(n, n_err))
		fprintf(f, " (bound unknown: %zu of %zu figures without one)", n - n_err, n);
	if (n < m)
		fprintf(f, " (%zu of %zu devices; the others have no figure)", n, m);
	else if (note != NULL)
		fprintf(f, " (%s)", note);
	fputc('\n', f);
}

/* Each phase name over the ranks: energy counted as the job's, and its ranks. */
static void
report_phases(FILE *f, const struct merge_job *job)
{
	const struct merge_job_phase	*p;
	size_t				 i;

	if (job->nphases > 0)
		fprintf(f, "\n phases (over the ranks; energy over distinct device measurements)\n");
	for (i = 0; i < job->nphases; i++) {
		p = &job->phases[i];
		fprintf(f, "   %-18s ", p->name);
		if (merge_has_bound(p->n_energy, p->n_energy_err))
			fprintf(f, "%.3f J ± %.3f", p->energy_j, p->energy_err_j);
		else if (p->n_energy > 0)
			fprintf(f, "%.3f J (bound unknown)", p->energy_j);
		if (p->n_energy > 0)
			fprintf(f, " over %zu device measurement%s", p->n_energy,
			    p->n_energy == 1 ? "" : "s");
		else
			fprintf(f, "energy unknown");
		fprintf(f, ", %zu rank%s, longest %.3f s", p->nranks, p->nranks == 1 ? "" : "s",
		    p->wall_max_s);
		if (p->n_workload > 0)
			fprintf(f, ", workload %.3f J (estimate)", p->workload_j);
		fputc('\n', f);
	}
}

int
merge_write_report(FILE *f, const struct merge_job *job)
{
	char	buf[80];

	fprintf(f, "\n joulestat merge: %s, %zu rank%s on %zu host%s\n\n",
	    merge_job_words(job->nranks > 0 ? job->ranks[0].job : "", buf, sizeof buf), job->nranks,
	    job->nranks == 1 ? "" : "s", job->nhosts, job->nhosts == 1 ? "" : "s");
	if (job->has_time)
		fprintf(f, "   %-18s %.3f s (from the first rank's start to the last rank's end)\n",
		    "job wall time", job->end_s - job->start_s);
	else
		fprintf(f, "   %-18s unknown (the files have no start times)\n", "job wall time");
	report_ranks(f, job);
	report_devices(f, job);
	fprintf(f, "\n job total (%zu device measurement%s, each counted once)\n",
	    job->ngroups - job->n_within, job->ngroups - job->n_within == 1 ? "" : "s");
	report_total(f, "energy", job->energy_j, job->n_energy, job->ngroups - job->n_within,
	    &job->energy_err_j, job->n_energy_err, NULL);
	if (job->n_within > 0)
		fprintf(f, "   %-18s %zu CPU package%s not added: within an APU's SoC power\n",
		    "counted once", job->n_within, job->n_within == 1 ? "" : "s");
	if (job->n_partial > 0)
		fprintf(f, "   %-18s %zu device measurement%s lost time: the totals cover less "
		    "than the job\n", "partly measured", job->n_partial,
		    job->n_partial == 1 ? "" : "s");
	report_total(f, "energy above idle", job->above_idle_j, job->n_above_idle,
	    job->ngroups - job->n_within, NULL, 0, NULL);
	report_total(f, "workload", job->workload_j, job->n_workload, job->n_workload, NULL, 0,
	    "estimate: each rank's own processes, summed over the ranks");
	report_phases(f, job);
	return flush_status(f);
}

/*
 * The merged CSV: a header, one "job" row, one "rank" row per rank, one
 * "device" row per distinct device measurement and one "phase" row per
 * phase name, every row with every
 * column (schema.h, MERGE_COLUMNS).  Unknown is an empty field.  The
 * columns:
 *
 *   schema_version       SCHEMA_MERGE_VERSION (1)
 *   scope                job, rank or device
 *   job                  the job id (every row); empty outside a batch job
 *   host                 rank: its host; device: the host of the device
 *   rank                 rank: the rank; device: the rank whose figures are kept
 *   file                 rank: the input file
 *   runs                 rank: numbered runs in the file; its figures are their means
 *   start_unix_s         job: first rank's start; rank: its first run's start;
 *                        device: start of the merged measurement window
 *   end_unix_s           the same ends
 *   wall_s               job: end_unix_s - start_unix_s; rank: mean wall time of its runs
 *   device               device: its index on its host (as the kept rank numbered it)
 *   device_id            device: GPU UUID, "package-0" ...
 *   device_name, backend device
 *   time_s               device: the kept rank's measured window (mean per run)
 *   energy_j             job: sum over distinct device measurements; rank: sum over its
 *                        own devices, shared ones included; device: the kept rank's
 *   energy_err_j         energy_j's bound: the truth is within energy_j +- this; the
 *                        sum of the figures' bounds (a rank's: the mean of its runs');
 *                        empty when a figure in the sum has none (a summary written
 *                        without energy_err_j)
 *   energy_above_idle_j  the same as energy_j
 *   workload_energy_j    job: sum over ranks; rank: its own processes on its devices;
 *                        device: sum over the ranks that measured it
 *   ranks                job: how many ranks
 *   hosts                job: how many hosts
 *   devices              job: distinct device measurements; rank: devices in its file
 *   measured_by          device: the ranks that measured it, separated by spaces
 *   phase                phase: its name; the phase's energy_j is over distinct device
 *                        measurements (each from the rank kept for the device),
 *                        workload_energy_j over the ranks, wall_s the longest rank's,
 *                        ranks how many ranks had it, devices how many measurements
 *                        had its energy
 */

/* A figure that may be unknown. */
static void
put_real(struct fmt_cell *c, double v, bool has)
{
	if (has)
		fmt_cell_real(c, v, 6);
}

static void
write_cells(FILE *f, const struct fmt_cell *c)
{
	int	col;

	for (col = 0; col < MCOL_NCOLS; col++) {
		if (col > 0)
			fputc(',', f);
		fmt_cell_write(f, &c[col]);
	}
	fputc('\n', f);
}

static void
csv_job(FILE *f, const struct merge_job *job, const char *jobid)
{
	struct fmt_cell	c[MCOL_NCOLS] = { 0 };

	fmt_cell_int(&c[MCOL_SCHEMA], SCHEMA_MERGE_VERSION);
	fmt_cell_text(&c[MCOL_SCOPE], schema_merge_scope(MSCOPE_JOB));
	fmt_cell_text(&c[MCOL_JOB], jobid);
	put_real(&c[MCOL_START], job->start_s, job->has_time);
	put_real(&c[MCOL_END], job->end_s, job->has_time);
	put_real(&c[MCOL_WALL], job->end_s - job->start_s, job->has_time);
	put_real(&c[MCOL_ENERGY], job->energy_j, job->n_energy > 0);
	put_real(&c[MCOL_ENERGY_ERR], job->energy_err_j, merge_has_bound(job->n_energy,
	    job->n_energy_err));
	put_real(&c[MCOL_ABOVE], job->above_idle_j, job->n_above_idle > 0);
	put_real(&c[MCOL_WORKLOAD], job->workload_j, job->n_workload > 0);
	fmt_cell_int(&c[MCOL_RANKS], (int64_t)job->nranks);
	fmt_cell_int(&c[MCOL_HOSTS], (int64_t)job->nhosts);
	fmt_cell_int(&c[MCOL_DEVICES], (int64_t)job->ngroups);
	write_cells(f, c);
}

static void
csv_rank(FILE *f, const struct merge_rank *r)
{
	struct fmt_cell		c[MCOL_NCOLS] = { 0 };
	struct rank_sums	s;

	rank_sums(r, &s);
	fmt_cell_int(&c[MCOL_SCHEMA], SCHEMA_MERGE_VERSION);
	fmt_cell_text(&c[MCOL_SCOPE], schema_merge_scope(MSCOPE_RANK));
	fmt_cell_text(&c[MCOL_JOB], r->job);
	fmt_cell_text(&c[MCOL_HOST], r->host);
	fmt_cell_text(&c[MCOL_RANK], r->rank);
	fmt_cell_text(&c[MCOL_FILE], r->file);
	fmt_cell_int(&c[MCOL_RUNS], (int64_t)r->nruns);
	put_real(&c[MCOL_START], r->start_s, r->has_time);
	put_real(&c[MCOL_END], r->end_s, r->has_time);
	put_real(&c[MCOL_WALL], r->wall_s, r->has_wall);
	put_real(&c[MCOL_ENERGY], s.energy_j, s.n_energy > 0);
	put_real(&c[MCOL_ENERGY_ERR], s.energy_err_j, merge_has_bound(s.n_energy, s.n_energy_err));
	put_real(&c[MCOL_ABOVE], s.above_idle_j, s.n_above_idle > 0);
	put_real(&c[MCOL_WORKLOAD], s.workload_j, s.n_workload > 0);
	fmt_cell_int(&c[MCOL_DEVICES], (int64_t)r->ndev);
	write_cells(f, c);
}

static void
csv_device(FILE *f, const struct merge_job *job, const struct merge_group *g)
{
	const struct merge_rank	*r = &job->ranks[g->kept_rank];
	const struct merge_dev	*d = kept_dev(job, g);
	struct fmt_cell		 c[MCOL_NCOLS] = { 0 };
	char			*ranks = member_list(job, g, " ");

	fmt_cell_int(&c[MCOL_SCHEMA], SCHEMA_MERGE_VERSION);
	fmt_cell_text(&c[MCOL_SCOPE], schema_merge_scope(MSCOPE_DEVICE));
	fmt_cell_text(&c[MCOL_JOB], r->job);
	fmt_cell_text(&c[MCOL_HOST], r->host);
	fmt_cell_text(&c[MCOL_RANK], r->rank);
	if (d->index >= 0)
		fmt_cell_int(&c[MCOL_DEVICE], d->index);
	fmt_cell_text(&c[MCOL_DEVID], d->id);
	fmt_cell_text(&c[MCOL_DEVNAME], d->name);
	fmt_cell_text(&c[MCOL_BACKEND], d->backend);
	put_real(&c[MCOL_START], g->start_s, g->has_window);
	put_real(&c[MCOL_END], g->end_s, g->has_window);
	put_real(&c[MCOL_TIME], d->time_s, d->n_time > 0);
	put_real(&c[MCOL_ENERGY], g->energy_j, g->has_energy);
	put_real(&c[MCOL_ENERGY_ERR], g->energy_err_j, g->has_energy && g->has_energy_err);
	put_real(&c[MCOL_ABOVE], g->above_idle_j, g->has_above_idle);
	put_real(&c[MCOL_WORKLOAD], g->workload_j, g->has_workload);
	fmt_cell_text(&c[MCOL_MEASURED_BY], ranks);
	write_cells(f, c);
	free(ranks);
}

static void
csv_phase(FILE *f, const char *jobid, const struct merge_job_phase *p)
{
	struct fmt_cell	c[MCOL_NCOLS] = { 0 };

	fmt_cell_int(&c[MCOL_SCHEMA], SCHEMA_MERGE_VERSION);
	fmt_cell_text(&c[MCOL_SCOPE], schema_merge_scope(MSCOPE_PHASE));
	fmt_cell_text(&c[MCOL_JOB], jobid);
	fmt_cell_text(&c[MCOL_PHASE], p->name);
	put_real(&c[MCOL_WALL], p->wall_max_s, true);
	put_real(&c[MCOL_ENERGY], p->energy_j, p->n_energy > 0);
	put_real(&c[MCOL_ENERGY_ERR], p->energy_err_j, merge_has_bound(p->n_energy, p->n_energy_err));
	put_real(&c[MCOL_WORKLOAD], p->workload_j, p->n_workload > 0);
	fmt_cell_int(&c[MCOL_RANKS], (int64_t)p->nranks);
	fmt_cell_int(&c[MCOL_DEVICES], (int64_t)p->n_energy);
	write_cells(f, c);
}

int
merge_write_csv(FILE *f, const struct merge_job *job)
{
	size_t	i;
	int	col;

	for (col = 0; col < MCOL_NCOLS; col++)
		fprintf(f, "%s%s", col > 0 ? "," : "", schema_merge_column(col));
	fputc('\n', f);
	csv_job(f, job, job->nranks > 0 ? job->ranks[0].job : "");
	for (i = 0; i < job->nranks; i++)
		csv_rank(f, &job->ranks[i]);
	for (i = 0; i < job->ngroups; i++)
		csv_device(f, job, &job->groups[i]);
	for (i = 0; i < job->nphases; i++)
		csv_phase(f, job->nranks > 0 ? job->ranks[0].job : "", &job->phases[i]);
	return flush_status(f);
}

/*
 * The JSON form: {"schema_version", "job", "ranks": [...], "devices":
 * [...], "totals": {...}}, keys named as the CSV columns, unknown as null.
 */

/* Set the key named as column col in o to v; 0 or -1, as fmt_json_put. */
static int
put(json_t *o, enum merge_col col, json_t *v)
{
	return fmt_json_put(o, schema_merge_column(col), v);
}

static json_t *
jreal(double v, bool has)
{
	return has ? json_real(v) : json_null();
}

static json_t *
jrank(const struct merge_rank *r)
{
	return r->rank_num >= 0 ? json_integer(r->rank_num) : json_null();
}

static json_t *
json_rank(const struct merge_rank *r)
{
	json_t			*o = json_object();
	struct rank_sums	 s;
	int			 rc;

	rank_sums(r, &s);
	rc = put(o, MCOL_RANK, jrank(r));
	rc |= put(o, MCOL_HOST, fmt_json_text(r->host));
	rc |= put(o, MCOL_JOB, fmt_json_text(r->job));
	rc |= put(o, MCOL_FILE, fmt_json_text(r->file));
	rc |= put(o, MCOL_RUNS, json_integer((json_int_t)r->nruns));
	rc |= put(o, MCOL_START, jreal(r->start_s, r->has_time));
	rc |= put(o, MCOL_END, jreal(r->end_s, r->has_time));
	rc |= put(o, MCOL_WALL, jreal(r->wall_s, r->has_wall));
	rc |= put(o, MCOL_ENERGY, jreal(s.energy_j, s.n_energy > 0));
	rc |= put(o, MCOL_ENERGY_ERR, jreal(s.energy_err_j, merge_has_bound(s.n_energy,
	    s.n_energy_err)));
	rc |= put(o, MCOL_ABOVE, jreal(s.above_idle_j, s.n_above_idle > 0));
	rc |= put(o, MCOL_WORKLOAD, jreal(s.workload_j, s.n_workload > 0));
	rc |= put(o, MCOL_DEVICES, json_integer((json_int_t)r->ndev));
	if (rc != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
json_members(const struct merge_job *job, const struct merge_group *g)
{
	json_t	*a = json_array();
	size_t	 i;
	int	 rc = a == NULL ? -1 : 0;

	for (i = 0; rc == 0 && i < g->nmembers; i++)
		rc = json_array_append_new(a, jrank(&job->ranks[g->members[i]]));
	if (rc != 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *
json_device(const struct merge_job *job, const struct merge_group *g)
{
	const struct merge_rank	*r = &job->ranks[g->kept_rank];
	const struct merge_dev	*d = kept_dev(job, g);
	json_t			*o = json_object();
	int			 rc;

	rc = put(o, MCOL_HOST, fmt_json_text(r->host));
	rc |= put(o, MCOL_DEVICE, d->index >= 0 ? json_integer(d->index) : json_null());
	rc |= put(o, MCOL_DEVID, fmt_json_text(d->id));
	rc |= put(o, MCOL_DEVNAME, fmt_json_text(d->name));
	rc |= put(o, MCOL_BACKEND, fmt_json_text(d->backend));
	rc |= put(o, MCOL_START, jreal(g->start_s, g->has_window));
	rc |= put(o, MCOL_END, jreal(g->end_s, g->has_window));
	rc |= put(o, MCOL_TIME, jreal(d->time_s, d->n_time > 0));
	rc |= put(o, MCOL_ENERGY, jreal(g->energy_j, g->has_energy));
	rc |= put(o, MCOL_ENERGY_ERR, jreal(g->energy_err_j, g->has_energy && g->has_energy_err));
	rc |= put(o, MCOL_ABOVE, jreal(g->above_idle_j, g->has_above_idle));
	rc |= put(o, MCOL_WORKLOAD, jreal(g->workload_j, g->has_workload));
	rc |= put(o, MCOL_RANK, jrank(r));
	rc |= put(o, MCOL_MEASURED_BY, json_members(job, g));
	if (rc != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
json_totals(const struct merge_job *job)
{
	json_t	*o = json_object();
	int	 rc;

	rc = put(o, MCOL_RANKS, json_integer((json_int_t)job->nranks));
	rc |= put(o, MCOL_HOSTS, json_integer((json_int_t)job->nhosts));
	rc |= put(o, MCOL_DEVICES, json_integer((json_int_t)job->ngroups));
	rc |= put(o, MCOL_START, jreal(job->start_s, job->has_time));
	rc |= put(o, MCOL_END, jreal(job->end_s, job->has_time));
	rc |= put(o, MCOL_WALL, jreal(job->end_s - job->start_s, job->has_time));
	rc |= put(o, MCOL_ENERGY, jreal(job->energy_j, job->n_energy > 0));
	rc |= put(o, MCOL_ENERGY_ERR, jreal(job->energy_err_j, merge_has_bound(job->n_energy,
	    job->n_energy_err)));
	rc |= put(o, MCOL_ABOVE, jreal(job->above_idle_j, job->n_above_idle > 0));
	rc |= put(o, MCOL_WORKLOAD, jreal(job->workload_j, job->n_workload > 0));
	rc |= fmt_json_put(o, "devices_without_energy",
	    json_integer((json_int_t)(job->ngroups - job->n_within - job->n_energy)));
	rc |= fmt_json_put(o, "devices_within_another", json_integer((json_int_t)job->n_within));
	rc |= fmt_json_put(o, "devices_partly_measured", json_integer((json_int_t)job->n_partial));
	if (rc != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
json_phase(const struct merge_job_phase *p)
{
	json_t	*o = json_object();
	int	 rc;

	rc = put(o, MCOL_PHASE, fmt_json_text(p->name));
	rc |= put(o, MCOL_WALL, json_real(p->wall_max_s));
	rc |= put(o, MCOL_ENERGY, jreal(p->energy_j, p->n_energy > 0));
	rc |= put(o, MCOL_ENERGY_ERR, jreal(p->energy_err_j, merge_has_bound(p->n_energy,
	    p->n_energy_err)));
	rc |= put(o, MCOL_WORKLOAD, jreal(p->workload_j, p->n_workload > 0));
	rc |= put(o, MCOL_RANKS, json_integer((json_int_t)p->nranks));
	rc |= put(o, MCOL_DEVICES, json_integer((json_int_t)p->n_energy));
	if (rc != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
json_job(const struct merge_job *job)
{
	json_t	*o = json_object(), *ranks = json_array(), *devs = json_array();
	json_t	*phases = json_array();
	size_t	 i;
	int	 rc;

	rc = ranks == NULL || devs == NULL || phases == NULL ? -1 : 0;
	for (i = 0; rc == 0 && i < job->nphases; i++)
		rc = json_array_append_new(phases, json_phase(&job->phases[i]));
	for (i = 0; rc == 0 && i < job->nranks; i++)
		rc = json_array_append_new(ranks, json_rank(&job->ranks[i]));
	for (i = 0; rc == 0 && i < job->ngroups; i++)
		rc = json_array_append_new(devs, json_device(job, &job->groups[i]));
	rc |= put(o, MCOL_SCHEMA, json_integer(SCHEMA_MERGE_VERSION));
	rc |= put(o, MCOL_JOB, fmt_json_text(job->nranks > 0 ? job->ranks[0].job : ""));
	rc |= put(o, MCOL_RANKS, ranks);
	rc |= put(o, MCOL_DEVICES, devs);
	rc |= fmt_json_put(o, "phases", phases);
	rc |= fmt_json_put(o, "totals", json_totals(job));
	if (rc != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
merge_write_json(FILE *f, const struct merge_job *job)
{
	json_t	*root = json_job(job);
	int	 rc;

	if (root == NULL)
		return -ENOMEM;
	rc = fmt_json_dump(f, root);
	json_decref(root);
	return rc;
}
