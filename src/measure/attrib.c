/*
 * Attribution windows and their arithmetic (include/joulestat/attrib.h).
 */
#include "joulestat/attrib.h"

#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"

void
attrib_window(const struct attrib_weights *w, double e_mj, int64_t dt_ns,
    const double *sm_pct, const double *mem_pct, size_t n, double *a_mj, double *b_ns)
{
	double	total = 0, sm_sum = 0, sm_scale = 1, f;
	size_t	i;

	for (i = 0; i < n; i++) {
		total += w->w_sm * sm_pct[i] + w->w_mem * mem_pct[i];
		sm_sum += sm_pct[i];
	}
	/* Idle power is shared by SM%; a device cannot be more than 100% busy. */
	if (sm_sum > 100)
		sm_scale = 100 / sm_sum;
	for (i = 0; i < n; i++) {
		f = total > 0 ? (w->w_sm * sm_pct[i] + w->w_mem * mem_pct[i]) / total : 0;
		a_mj[i] += e_mj * f;
		b_ns[i] += (double)dt_ns * (sm_pct[i] * sm_scale / 100 - f);
	}
}

double
attrib_energy(double a_mj, double b_ns, double idle_mw)
{
	double	e = a_mj + idle_mw * b_ns / 1e9;

	return e > 0 ? e : 0;
}

static size_t
pid_hash(size_t dev, pid_t pid, uint64_t starttime)
{
	uint64_t	h = ((uint64_t)dev << 40) ^ (uint64_t)pid ^ (starttime * 0x9e3779b97f4a7c15ull);

	return (size_t)(h * 0xff51afd7ed558ccdull >> 17);
}

static bool
pid_match(const struct pid_acct *p, size_t dev, pid_t pid, uint64_t starttime)
{
	return p->dev == dev && p->pid == pid && p->starttime_ticks == starttime;
}

static void
pid_slots_grow(struct pid_acct_set *set)
{
	size_t	i, j;

	free(set->slots);
	set->nslots = set->nslots == 0 ? 64 : set->nslots * 2;
	set->slots = xcalloc(set->nslots, sizeof *set->slots);
	for (i = 0; i < set->n; i++) {
		j = pid_hash(set->v[i].dev, set->v[i].pid, set->v[i].starttime_ticks);
		while (set->slots[j & (set->nslots - 1)] != 0)
			j++;
		set->slots[j & (set->nslots - 1)] = i + 1;
	}
}

struct pid_acct *
attrib_pid(struct pid_acct_set *set, size_t dev, pid_t pid, uint64_t starttime_ticks)
{
	struct pid_acct	*p;
	size_t		 j;

	if (2 * (set->n + 1) > set->nslots)
		pid_slots_grow(set);
	for (j = pid_hash(dev, pid, starttime_ticks); set->slots[j & (set->nslots - 1)] != 0; j++) {
		p = &set->v[set->slots[j & (set->nslots - 1)] - 1];
		if (pid_match(p, dev, pid, starttime_ticks))
			return p;
	}
	if (set->n == set->cap) {
		set->cap = set->cap == 0 ? 16 : set->cap * 2;
		set->v = xreallocarray(set->v, set->cap, sizeof *set->v);
	}
	p = &set->v[set->n];
	memset(p, 0, sizeof *p);
	p->dev = dev;
	p->pid = pid;
	p->starttime_ticks = starttime_ticks;
	set->slots[j & (set->nslots - 1)] = ++set->n;
	return p;
}

void
attrib_pid_free(struct pid_acct_set *set)
{
	free(set->v);
	free(set->slots);
	memset(set, 0, sizeof *set);
}

static void
cand_push(struct share_scratch *sc, size_t i)
{
	if (sc->ncand == sc->capcand) {
		sc->capcand = sc->capcand == 0 ? 16 : sc->capcand * 2;
		sc->cand = xreallocarray(sc->cand, sc->capcand, sizeof *sc->cand);
	}
	sc->cand[sc->ncand++] = i;
}

void
attrib_pids(struct attrib *at, const struct proctree *tree,
    const struct pid_usage_set *pids, size_t dev_base, size_t ndev,
    const struct sample *cur, const int64_t *span_ns)
{
	const struct pid_usage	*u;
	const struct proc	*p;
	struct pid_acct		*a;
	int64_t			 span;
	size_t			 i;

	at->scratch.ncand = 0;
	for (i = 0; i < pids->n; i++) {
		u = &pids->v[i];
		if (u->dev >= ndev)
			continue;
		p = proctree_find_live(tree, u->pid);
		a = attrib_pid(&at->pidacct, dev_base + u->dev, u->pid,
		    p != NULL ? p->starttime_ticks : 0);
		if (p != NULL && a->comm[0] == '\0')
			memcpy(a->comm, p->comm, sizeof a->comm);
		a->is_between_ticks = a->is_between_ticks || u->is_between_ticks;
		if (u->gpu_mem_kib > a->max_gpu_mem_kib)
			a->max_gpu_mem_kib = u->gpu_mem_kib;
		span = u->span_ns > 0 ? u->span_ns : span_ns[u->dev];
		if (!u->has_util || span <= 0)
			continue;
		a->last_sm_pct = u->sm_pct;
		a->last_mem_pct = u->mem_pct;
		a->last_seen_ns = cur[u->dev].t_ns;
		cand_push(&at->scratch, (size_t)(a - at->pidacct.v));
		a->sm_pct_ns += (double)u->sm_pct * (double)span;
		a->mem_pct_ns += (double)u->mem_pct * (double)span;
		a->util_ns += span;
	}
}

static void
scratch_reserve(struct share_scratch *sc, size_t n)
{
	if (n <= sc->cap)
		return;
	sc->cap = n * 2;
	sc->idx = xreallocarray(sc->idx, sc->cap, sizeof *sc->idx);
	sc->sm = xreallocarray(sc->sm, sc->cap, sizeof *sc->sm);
	sc->mem = xreallocarray(sc->mem, sc->cap, sizeof *sc->mem);
	sc->a = xreallocarray(sc->a, sc->cap, sizeof *sc->a);
	sc->b = xreallocarray(sc->b, sc->cap, sizeof *sc->b);
}

/*
 * Share device gdev's energy since its last window among the processes
 * that have per-process data at t_ns (last_seen_ns) and everyone else.
 * The candidates are cand[0..ncand) (this reading's entries, so a window
 * costs what the reading brought), or with cand NULL every entry (once,
 * at the end of the run).
 */
static void
share_window(struct attrib *at, struct dev_acct *a, size_t gdev, int64_t t_ns,
    const size_t *cand, size_t ncand)
{
	struct share_scratch	*sc = &at->scratch;
	struct pid_acct		*p;
	size_t			 i, k, n = 0, nall = cand != NULL ? ncand : at->pidacct.n;

	scratch_reserve(sc, nall + 1);
	sc->window++;
	for (k = 0; k < nall; k++) {
		i = cand != NULL ? cand[k] : k;
		p = &at->pidacct.v[i];
		if (p->dev != gdev || p->last_seen_ns != t_ns || p->shared_window == sc->window)
			continue;
		p->shared_window = sc->window;
		sc->idx[n] = i;
		sc->sm[n] = p->last_sm_pct;
		sc->mem[n++] = p->last_mem_pct;
	}
	a->last_tree_sm_pct = 0;
	a->last_tree_mem_pct = 0;
	for (i = 0; i < n; i++) {
		a->last_tree_sm_pct += sc->sm[i];
		a->last_tree_mem_pct += sc->mem[i];
	}
	sc->sm[n] = a->last_other_sm_pct;
	sc->mem[n] = a->last_other_mem_pct;
	memset(sc->a, 0, (n + 1) * sizeof *sc->a);
	memset(sc->b, 0, (n + 1) * sizeof *sc->b);
	attrib_window(&at->weights, a->pending_mj, a->pending_ns, sc->sm, sc->mem, n + 1, sc->a,
	    sc->b);
	for (i = 0; i < n; i++) {
		at->pidacct.v[sc->idx[i]].attrib_a_mj += sc->a[i];
		at->pidacct.v[sc->idx[i]].attrib_b_ns += sc->b[i];
	}
	a->other_a_mj += sc->a[n];
	a->other_b_ns += sc->b[n];
	a->pending_mj = 0;
	a->pending_ns = 0;
	a->has_attrib = true;
}

void
attrib_reading(struct attrib *at, size_t dev_base, size_t ndev, const struct sample *cur,
    const int64_t *span_ns, struct dev_acct *acct)
{
	const struct sample	*s;
	struct dev_acct		*a;
	enum energy_method	 m;
	double			 e;
	size_t			 i;

	for (i = 0; i < ndev; i++) {
		a = &acct[i];
		s = &cur[i];
		e = account_energy_mj(a, &m);
		a->pending_mj += e - a->attrib_seen_mj;
		a->attrib_seen_mj = e;
		if (s->is_lost)
			continue;
		a->pending_ns += span_ns[i];
		if (s->pid_span_ns <= 0 || !(s->valid & M_PID_UTIL))
			continue;
		/* A backend that reads only the tree's processes cannot see the others. */
		a->last_other_sm_pct = s->valid & M_FOREIGN ? s->foreign_sm_pct : 0;
		a->last_other_mem_pct = s->valid & M_FOREIGN ? s->foreign_mem_pct : 0;
		a->is_other_unknown |= !(s->valid & M_FOREIGN);
		a->last_window_ns = s->t_ns;
		share_window(at, a, dev_base + i, s->t_ns, at->scratch.cand, at->scratch.ncand);
	}
}

/*
 * The energy after the last per-process data (at most one poll period)
 * is shared as the last data shared it, and the tail after the last
 * reading's integral close (account_finish) joins it.
 */
void
attrib_close(struct attrib *at, struct dev_acct *a, size_t gdev)
{
	enum energy_method	m;
	double			e = account_energy_mj(a, &m);

	a->pending_mj += e - a->attrib_seen_mj;
	a->attrib_seen_mj = e;
	if (a->has_attrib && a->pending_mj > 0)
		share_window(at, a, gdev, a->last_window_ns, NULL, 0);
}

void
attrib_reset(struct attrib *at)
{
	attrib_pid_free(&at->pidacct);
}

void
attrib_free(struct attrib *at)
{
	struct share_scratch	*sc = &at->scratch;

	attrib_pid_free(&at->pidacct);
	free(sc->idx);
	free(sc->sm);
	free(sc->mem);
	free(sc->a);
	free(sc->b);
	free(sc->cand);
	memset(sc, 0, sizeof *sc);
}
