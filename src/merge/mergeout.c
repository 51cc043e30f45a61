/*
 * The three forms of a merged job (joulestat merge): the text report, the
 * CSV (through libcsv's quoting) and the JSON document (jansson).  They
 * only print what merge.c read and totalled.
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
#include "joulestat/util.h"

/* What one rank measured on its own devices, shared ones included. */
struct rank_sums {
	double	energy_j, above_idle_j, workload_j;
	size_t	n_energy, n_above_idle, n_workload;
};

static void
rank_sums(const struct merge_rank *r, struct rank_sums *s)
{
	const struct merge_dev	*d;
	size_t			 i;

	memset(s, 0, sizeof *s);
	for (i = 0; i < r->ndev; i++) {
		d = &r->devs[i];
		merge_add_figure(&s->energy_j, &s->n_energy, d->energy_j, d->n_energy > 0);
		merge_add_figure(&s->above_idle_j, &s->n_above_idle, d->above_idle_j,
		    d->n_above_idle > 0);
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

/* The text report, in the layout of report.c's. */

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
	char			 host[64], rank[24], file[64], e[32], w[32], wall[32];
	int			 hw = 4, rw = 4;
	size_t			 i;

	for (i = 0; i < job->nranks; i++) {
		hw = widest(hw, strlen(shown(job->ranks[i].host, host, sizeof host)));
		rw = widest(rw, strlen(shown(job->ranks[i].rank, rank, sizeof rank)));
	}
	fprintf(f, "\n ranks (energy: what each rank measured, shared devices included)\n");
	fprintf(f, "   %*s  %-*s  %4s  %9s  %11s  %12s  %s\n", rw, "rank", hw, "host", "runs",
	    "wall (s)", "energy (J)", "workload (J)", "file");
	for (i = 0; i < job->nranks; i++) {
		r = &job->ranks[i];
		rank_sums(r, &s);
		fprintf(f, "   %*s  %-*s  %4zu  %9s  %11s  %12s  %s\n", rw,
		    shown(r->rank, rank, sizeof rank), hw, shown(r->host, host, sizeof host),
		    r->nruns, fmt_fig(wall, sizeof wall, r->wall_s, r->has_wall),
		    fmt_fig(e, sizeof e, s.energy_j, s.n_energy > 0),
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
	char			 host[64], name[100], id[64], index[24], e[32], a[32], kept[24];
	char			*ranks = member_list(job, g, ", ");

	if (d->index >= 0)
		snprintf(index, sizeof index, "%" PRId64, d->index);
	else
		snprintf(index, sizeof index, "-");
	fprintf(f, "   %-*s  %3s  %-*s  %-*s  %11s  %14s  %s", w[0],
	    shown(job->ranks[g->kept_rank].host, host, sizeof host), index, w[1],
	    shown(d->name, name, sizeof name), w[2], shown(d->id, id, sizeof id),
	    fmt_fig(e, sizeof e, d->energy_j, d->n_energy > 0),
	    fmt_fig(a, sizeof a, d->above_idle_j, d->n_above_idle > 0), ranks);
	if (g->nmembers > 1)
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
	fprintf(f, "   %-*s  %3s  %-*s  %-*s  %11s  %14s  %s\n", w[0], "host", "dev", w[1], "name",
	    w[2], "id", "energy (J)", "above idle (J)", "ranks");
	for (i = 0; i < job->ngroups; i++)
		report_device(f, job, &job->groups[i], w);
}

/* A total line: n of the job's m figures were known; note says what it is. */
static void
report_total(FILE *f, const char *label, double v, size_t n, size_t m, const char *note)
{
	char	buf[32];

	if (n == 0) {
		fprintf(f, "   %-18s unknown\n", label);
		return;
	}
	fmt_energy(buf, sizeof buf, v * 1e3);
	fprintf(f, "   %-18s %s = %.4f Wh", label, buf, v / 3600);
	if (n < m)
		fprintf(f, " (%zu of %zu devices; the others have no figure)", n, m);
	else if (note != NULL)
		fprintf(f, " (%s)", note);
	fputc('\n', f);
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
	fprintf(f, "\n job total (%zu device measurement%s, each counted once)\n", job->ngroups,
	    job->ngroups == 1 ? "" : "s");
	report_total(f, "energy", job->energy_j, job->n_energy, job->ngroups, NULL);
	report_total(f, "energy above idle", job->above_idle_j, job->n_above_idle, job->ngroups,
	    NULL);
	report_total(f, "workload", job->workload_j, job->n_workload, job->n_workload,
	    "estimate: each rank's own processes, summed over the ranks");
	return flush_status(f);
}

/*
 * The merged CSV: a header, one "job" row, one "rank" row per rank and one
 * "device" row per distinct device measurement, every row with every
 * column (STYLE §8).  Unknown is an empty field.  The columns:
 *
 *   schema_version       MERGE_SCHEMA_VERSION (1)
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
 *   energy_above_idle_j  the same
 *   workload_energy_j    job: sum over ranks; rank: its own processes on its devices;
 *                        device: sum over the ranks that measured it
 *   ranks                job: how many ranks
 *   hosts                job: how many hosts
 *   devices              job: distinct device measurements; rank: devices in its file
 *   measured_by          device: the ranks that measured it, separated by spaces
 */
enum merge_col {
	MC_SCHEMA, MC_SCOPE, MC_JOB, MC_HOST, MC_RANK, MC_FILE, MC_RUNS, MC_START, MC_END, MC_WALL,
	MC_DEVICE, MC_DEVID, MC_DEVNAME, MC_BACKEND, MC_TIME, MC_ENERGY, MC_ABOVE, MC_WORKLOAD,
	MC_RANKS, MC_HOSTS, MC_DEVICES, MC_MEASURED_BY,
	MC_NCOLS
};

static const char *const mcol_names[MC_NCOLS] = {
	"schema_version", "scope", "job", "host", "rank", "file", "runs", "start_unix_s",
	"end_unix_s", "wall_s", "device", "device_id", "device_name", "backend", "time_s",
	"energy_j", "energy_above_idle_j", "workload_energy_j", "ranks", "hosts", "devices",
	"measured_by",
};

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

	for (col = 0; col < MC_NCOLS; col++) {
		if (col > 0)
			fputc(',', f);
		fmt_cell_write(f, &c[col]);
	}
	fputc('\n', f);
}

static void
csv_job(FILE *f, const struct merge_job *job, const char *jobid)
{
	struct fmt_cell	c[MC_NCOLS] = { 0 };

	fmt_cell_int(&c[MC_SCHEMA], MERGE_SCHEMA_VERSION);
	fmt_cell_text(&c[MC_SCOPE], "job");
	fmt_cell_text(&c[MC_JOB], jobid);
	put_real(&c[MC_START], job->start_s, job->has_time);
	put_real(&c[MC_END], job->end_s, job->has_time);
	put_real(&c[MC_WALL], job->end_s - job->start_s, job->has_time);
	put_real(&c[MC_ENERGY], job->energy_j, job->n_energy > 0);
	put_real(&c[MC_ABOVE], job->above_idle_j, job->n_above_idle > 0);
	put_real(&c[MC_WORKLOAD], job->workload_j, job->n_workload > 0);
	fmt_cell_int(&c[MC_RANKS], (int64_t)job->nranks);
	fmt_cell_int(&c[MC_HOSTS], (int64_t)job->nhosts);
	fmt_cell_int(&c[MC_DEVICES], (int64_t)job->ngroups);
	write_cells(f, c);
}

static void
csv_rank(FILE *f, const struct merge_rank *r)
{
	struct fmt_cell		c[MC_NCOLS] = { 0 };
	struct rank_sums	s;

	rank_sums(r, &s);
	fmt_cell_int(&c[MC_SCHEMA], MERGE_SCHEMA_VERSION);
	fmt_cell_text(&c[MC_SCOPE], "rank");
	fmt_cell_text(&c[MC_JOB], r->job);
	fmt_cell_text(&c[MC_HOST], r->host);
	fmt_cell_text(&c[MC_RANK], r->rank);
	fmt_cell_text(&c[MC_FILE], r->file);
	fmt_cell_int(&c[MC_RUNS], (int64_t)r->nruns);
	put_real(&c[MC_START], r->start_s, r->has_time);
	put_real(&c[MC_END], r->end_s, r->has_time);
	put_real(&c[MC_WALL], r->wall_s, r->has_wall);
	put_real(&c[MC_ENERGY], s.energy_j, s.n_energy > 0);
	put_real(&c[MC_ABOVE], s.above_idle_j, s.n_above_idle > 0);
	put_real(&c[MC_WORKLOAD], s.workload_j, s.n_workload > 0);
	fmt_cell_int(&c[MC_DEVICES], (int64_t)r->ndev);
	write_cells(f, c);
}

static void
csv_device(FILE *f, const struct merge_job *job, const struct merge_group *g)
{
	const struct merge_rank	*r = &job->ranks[g->kept_rank];
	const struct merge_dev	*d = kept_dev(job, g);
	struct fmt_cell		 c[MC_NCOLS] = { 0 };
	char			*ranks = member_list(job, g, " ");

	fmt_cell_int(&c[MC_SCHEMA], MERGE_SCHEMA_VERSION);
	fmt_cell_text(&c[MC_SCOPE], "device");
	fmt_cell_text(&c[MC_JOB], r->job);
	fmt_cell_text(&c[MC_HOST], r->host);
	fmt_cell_text(&c[MC_RANK], r->rank);
	if (d->index >= 0)
		fmt_cell_int(&c[MC_DEVICE], d->index);
	fmt_cell_text(&c[MC_DEVID], d->id);
	fmt_cell_text(&c[MC_DEVNAME], d->name);
	fmt_cell_text(&c[MC_BACKEND], d->backend);
	put_real(&c[MC_START], g->start_s, g->has_window);
	put_real(&c[MC_END], g->end_s, g->has_window);
	put_real(&c[MC_TIME], d->time_s, d->n_time > 0);
	put_real(&c[MC_ENERGY], d->energy_j, d->n_energy > 0);
	put_real(&c[MC_ABOVE], d->above_idle_j, d->n_above_idle > 0);
	put_real(&c[MC_WORKLOAD], g->workload_j, g->has_workload);
	fmt_cell_text(&c[MC_MEASURED_BY], ranks);
	write_cells(f, c);
	free(ranks);
}

int
merge_write_csv(FILE *f, const struct merge_job *job)
{
	size_t	i;
	int	col;

	for (col = 0; col < MC_NCOLS; col++)
		fprintf(f, "%s%s", col > 0 ? "," : "", mcol_names[col]);
	fputc('\n', f);
	csv_job(f, job, job->nranks > 0 ? job->ranks[0].job : "");
	for (i = 0; i < job->nranks; i++)
		csv_rank(f, &job->ranks[i]);
	for (i = 0; i < job->ngroups; i++)
		csv_device(f, job, &job->groups[i]);
	return flush_status(f);
}

/*
 * The JSON form: {"schema_version", "job", "ranks": [...], "devices":
 * [...], "totals": {...}}, keys named as the CSV columns, unknown as null.
 */
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
	rc = fmt_json_put(o, "rank", jrank(r));
	rc |= fmt_json_put(o, "host", fmt_json_text(r->host));
	rc |= fmt_json_put(o, "job", fmt_json_text(r->job));
	rc |= fmt_json_put(o, "file", fmt_json_text(r->file));
	rc |= fmt_json_put(o, "runs", json_integer((json_int_t)r->nruns));
	rc |= fmt_json_put(o, "start_unix_s", jreal(r->start_s, r->has_time));
	rc |= fmt_json_put(o, "end_unix_s", jreal(r->end_s, r->has_time));
	rc |= fmt_json_put(o, "wall_s", jreal(r->wall_s, r->has_wall));
	rc |= fmt_json_put(o, "energy_j", jreal(s.energy_j, s.n_energy > 0));
	rc |= fmt_json_put(o, "energy_above_idle_j", jreal(s.above_idle_j, s.n_above_idle > 0));
	rc |= fmt_json_put(o, "workload_energy_j", jreal(s.workload_j, s.n_workload > 0));
	rc |= fmt_json_put(o, "devices", json_integer((json_int_t)r->ndev));
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

	rc = fmt_json_put(o, "host", fmt_json_text(r->host));
	rc |= fmt_json_put(o, "device", d->index >= 0 ? json_integer(d->index) : json_null());
	rc |= fmt_json_put(o, "device_id", fmt_json_text(d->id));
	rc |= fmt_json_put(o, "device_name", fmt_json_text(d->name));
	rc |= fmt_json_put(o, "backend", fmt_json_text(d->backend));
	rc |= fmt_json_put(o, "start_unix_s", jreal(g->start_s, g->has_window));
	rc |= fmt_json_put(o, "end_unix_s", jreal(g->end_s, g->has_window));
	rc |= fmt_json_put(o, "time_s", jreal(d->time_s, d->n_time > 0));
	rc |= fmt_json_put(o, "energy_j", jreal(d->energy_j, d->n_energy > 0));
	rc |= fmt_json_put(o, "energy_above_idle_j", jreal(d->above_idle_j, d->n_above_idle > 0));
	rc |= fmt_json_put(o, "workload_energy_j", jreal(g->workload_j, g->has_workload));
	rc |= fmt_json_put(o, "rank", jrank(r));
	rc |= fmt_json_put(o, "measured_by", json_members(job, g));
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

	rc = fmt_json_put(o, "ranks", json_integer((json_int_t)job->nranks));
	rc |= fmt_json_put(o, "hosts", json_integer((json_int_t)job->nhosts));
	rc |= fmt_json_put(o, "devices", json_integer((json_int_t)job->ngroups));
	rc |= fmt_json_put(o, "start_unix_s", jreal(job->start_s, job->has_time));
	rc |= fmt_json_put(o, "end_unix_s", jreal(job->end_s, job->has_time));
	rc |= fmt_json_put(o, "wall_s", jreal(job->end_s - job->start_s, job->has_time));
	rc |= fmt_json_put(o, "energy_j", jreal(job->energy_j, job->n_energy > 0));
	rc |= fmt_json_put(o, "energy_above_idle_j", jreal(job->above_idle_j, job->n_above_idle > 0));
	rc |= fmt_json_put(o, "workload_energy_j", jreal(job->workload_j, job->n_workload > 0));
	rc |= fmt_json_put(o, "devices_without_energy",
	    json_integer((json_int_t)(job->ngroups - job->n_energy)));
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
	size_t	 i;
	int	 rc;

	rc = ranks == NULL || devs == NULL ? -1 : 0;
	for (i = 0; rc == 0 && i < job->nranks; i++)
		rc = json_array_append_new(ranks, json_rank(&job->ranks[i]));
	for (i = 0; rc == 0 && i < job->ngroups; i++)
		rc = json_array_append_new(devs, json_device(job, &job->groups[i]));
	rc |= fmt_json_put(o, "schema_version", json_integer(MERGE_SCHEMA_VERSION));
	rc |= fmt_json_put(o, "job", fmt_json_text(job->nranks > 0 ? job->ranks[0].job : ""));
	rc |= fmt_json_put(o, "ranks", ranks);
	rc |= fmt_json_put(o, "devices", devs);
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
