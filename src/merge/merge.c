/*
 * Combining the ranks of one job (joulestat merge; joulestat(1),
 * CLUSTERS): the ranks are sorted, the device measurements are grouped so
 * that a device that several ranks on one host measured at the same time
 * counts once, and the job's totals are added up.  Nothing here measures:
 * every figure is one the ranks wrote, summed or chosen.
 */
#include "joulestat/merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"

void
merge_add_figure(double *sum, size_t *n, double v, bool has)
{
	if (has) {
		*sum += v;
		(*n)++;
	}
}

bool
merge_has_bound(size_t n, size_t n_err)
{
	return n > 0 && n_err == n;
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

/*
 * m's energy over [lo, hi) as a share of its window, added to g; a figure
 * m lacks makes g's partial.  The share assumes even power; all that is
 * known is that the truth over [lo, hi) lies between 0 and all of m's
 * energy (with its bound), so the share's bound is the farther of the two.
 */
static void
add_beyond(struct merge_group *g, const struct meas *m, double lo, double hi)
{
	double	len = m->d->end_s - m->d->start_s, f, share;

	if (hi <= lo || len <= 0)
		return;
	f = (hi - lo) / len;
	g->is_extended = true;
	if (m->d->n_energy > 0) {
		share = m->d->energy_j * f;
		g->energy_j += share;
		g->energy_err_j += max_d(fabs(share), fabs(m->d->energy_j - share) +
		    m->d->energy_err_j);
		if (!merge_has_bound(m->d->n_energy, m->d->n_energy_err))
			g->has_energy_err = false;
	}
	if (m->d->n_above_idle > 0)
		g->above_idle_j += m->d->above_idle_j * f;
	if (m->d->n_energy == 0 || m->d->n_above_idle == 0 || m->d->is_partial)
		g->is_partial = true;
}

/*
 * The group's energy over the union of its windows (README "Clusters"):
 * the kept member's window [ks, ke), then, walking the members by start,
 * what they measured before ks and after ke that no member before them did.
 */
static void
add_union(struct merge_group *g, const struct meas *m, size_t n, size_t best)
{
	const struct merge_dev	*k = m[best].d;
	double			 left = -1e300, right = k->end_s, lo, hi;
	size_t			 i;

	g->energy_j = k->energy_j;
	g->has_energy = k->n_energy > 0;
	g->energy_err_j = k->energy_err_j;
	g->has_energy_err = merge_has_bound(k->n_energy, k->n_energy_err);
	g->above_idle_j = k->above_idle_j;
	g->has_above_idle = k->n_above_idle > 0;
	g->is_partial = k->is_partial;
	if (!k->has_window)
		return;
	for (i = 0; i < n; i++) {
		if (i == best || !m[i].d->has_window)
			continue;
		lo = m[i].d->start_s > left ? m[i].d->start_s : left;
		hi = m[i].d->end_s < k->start_s ? m[i].d->end_s : k->start_s;
		add_beyond(g, &m[i], lo, hi);
		if (hi > left)
			left = hi;
		lo = m[i].d->start_s > right ? m[i].d->start_s : right;
		add_beyond(g, &m[i], lo, m[i].d->end_s);
		if (m[i].d->end_s > right)
			right = m[i].d->end_s;
	}
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
	add_union(g, m, n, best);
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
	const struct merge_group *g;
	const struct merge_rank	*r;
	size_t			 i, k;

	for (i = 0; i < job->ngroups; i++) {
		g = &job->groups[i];
		/* A CPU package within an APU's SoC power is counted once, as the SoC. */
		if (job->ranks[g->kept_rank].devs[g->kept_dev].is_within) {
			job->n_within++;
			continue;
		}
		merge_add_figure(&job->energy_j, &job->n_energy, g->energy_j, g->has_energy);
		merge_add_figure(&job->energy_err_j, &job->n_energy_err, g->energy_err_j,
		    g->has_energy && g->has_energy_err);
		job->n_partial += g->has_energy && g->is_partial;
		merge_add_figure(&job->above_idle_j, &job->n_above_idle, g->above_idle_j,
		    g->has_above_idle);
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
	merge_job_phases(job);
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
	free(job->phases);
	memset(job, 0, sizeof *job);
}
