/*
 * Attribution windows and their arithmetic (include/joulestat/attrib.h).
 */
#include "joulestat/attrib.h"

#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"

void
attrib_window(const struct attrib_weights *w, double e_mj, int64_t dt_ns, int64_t gap_ns,
    const double *sm_pct, const double *mem_pct, size_t n, double *a_mj, double *b_ns)
{
	double	total = 0, sm_sum = 0, f, g;
	size_t	i;

	for (i = 0; i < n; i++) {
		total += w->w_sm * sm_pct[i] + w->w_mem * mem_pct[i];
		sm_sum += sm_pct[i];
	}
	for (i = 0; i < n; i++) {
		/* Dynamic energy by score, idle energy by SM (by score when no SM at all). */
		f = total > 0 ? (w->w_sm * sm_pct[i] + w->w_mem * mem_pct[i]) / total : 0;
		g = sm_sum > 0 ? sm_pct[i] / sm_sum : f;
		a_mj[i] += e_mj * f;
		b_ns[i] += (double)dt_ns * (g - f) - (double)gap_ns * f;
	}
}

double
attrib_energy_raw(double a_mj, double b_ns, double idle_mw)
{
	return a_mj + idle_mw * b_ns / 1e9;
}

double
attrib_energy(double a_mj, double b_ns, double idle_mw)
{
	double	e = attrib_energy_raw(a_mj, b_ns, idle_mw);

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

/* Figures that hold for each of the window's nslots samples. */
static void
pid_usage_all_slots(struct pid_acct *a, const struct pid_usage *u, unsigned nslots)
{
	unsigned	j;

	for (j = 0; j < nslots && j < PID_SLOTS_MAX; j++) {
		a->slot_mask |= 1u << j;
		a->slot_sm_pct[j] = u->sm_pct;
		a->slot_mem_pct[j] = u->mem_pct;
	}
}

void
attrib_pids(struct attrib *at, const struct proctree *tree,
    const struct pid_usage_set *pids, size_t dev_base, size_t ndev,
    const struct sample *cur, const int64_t *span_ns)
{
	const struct pid_usage	*u;
	const struct proc	*p;
	struct pid_acct		*a;
	const struct sample	*s;
	int64_t			 span;
	size_t			 i;

	at->scratch.ncand = 0;
	for (i = 0; i < pids->n; i++) {
		u = &pids->v[i];
		if (u->dev >= ndev)
			continue;
		s = &cur[u->dev];
		p = proctree_find(tree, u->pid);
		a = attrib_pid(&at->pidacct, dev_base + u->dev, u->pid,
		    p != NULL ? p->starttime_ticks : 0);
		/* The newest name (proctree_fresh_name): an exec renames a process. */
		if (p != NULL)
			memcpy(a->comm, p->comm, sizeof a->comm);
		a->is_between_ticks = a->is_between_ticks || u->is_between_ticks;
		if (u->gpu_mem_kib > a->max_gpu_mem_kib)
			a->max_gpu_mem_kib = u->gpu_mem_kib;
		span = u->span_ns > 0 ? u->span_ns : span_ns[u->dev];
		if (!u->has_util || span <= 0)
			continue;
		if (a->last_seen_ns != s->t_ns) {
			/* The first entry of this reading's data: its samples start empty. */
			a->last_seen_ns = s->t_ns;
			a->last_sm_pct = a->last_mem_pct = 0;
			a->slot_mask = 0;
			cand_push(&at->scratch, (size_t)(a - at->pidacct.v));
			/* Samples it is absent from count as idle time in its mean. */
			if (s->npid_slots > 0 && !u->is_between_ticks) {
				a->util_ns += s->pid_span_ns;
				if (!a->is_sparse)
					a->data_from_ns = s->t_ns - s->pid_span_ns;
				a->data_to_ns = s->t_ns;
				a->is_sparse = true;
			}
		}
		if (u->is_between_ticks) {
			/* Accounting's lifetime figures: the same in every sample of the window. */
			pid_usage_all_slots(a, u, s->npid_slots);
		} else if (u->slot < PID_SLOTS_MAX && u->slot < s->npid_slots) {
			a->slot_mask |= 1u << u->slot;
			a->slot_sm_pct[u->slot] = u->sm_pct;
			a->slot_mem_pct[u->slot] = u->mem_pct;
		}
		/* The newest sample's figures stand until new data comes. */
		if (s->npid_slots == 0 || u->slot + 1 == s->npid_slots || u->is_between_ticks) {
			a->last_sm_pct = u->sm_pct;
			a->last_mem_pct = u->mem_pct;
		}
		a->sm_pct_ns += (double)u->sm_pct * (double)span;
		a->mem_pct_ns += (double)u->mem_pct * (double)span;
		if (s->npid_slots == 0 || u->is_between_ticks)
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
 * Share e_mj over dt_ns of device gdev among the processes that have
 * per-process data at t_ns (last_seen_ns) and everyone else (other_*):
 * with their figures in sample slot, or with slot -1 their newest.  The
 * candidates are cand[0..ncand) (this reading's entries, so a window
 * costs what the reading brought), or with cand NULL every entry.
 */
static void
share_window(struct attrib *at, struct dev_acct *a, size_t gdev, int64_t t_ns,
    const size_t *cand, size_t ncand, int slot, double e_mj, int64_t dt_ns, int64_t gap_ns,
    double other_sm, double other_mem)
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
		if (slot >= 0 && !(p->slot_mask & (1u << slot)))
			continue;
		p->shared_window = sc->window;
		sc->idx[n] = i;
		sc->sm[n] = slot >= 0 ? p->slot_sm_pct[slot] : p->last_sm_pct;
		sc->mem[n++] = slot >= 0 ? p->slot_mem_pct[slot] : p->last_mem_pct;
	}
	a->last_tree_sm_pct = 0;
	a->last_tree_mem_pct = 0;
	for (i = 0; i < n; i++) {
		a->last_tree_sm_pct += sc->sm[i];
		a->last_tree_mem_pct += sc->mem[i];
	}
	sc->sm[n] = other_sm;
	sc->mem[n] = other_mem;
	memset(sc->a, 0, (n + 1) * sizeof *sc->a);
	memset(sc->b, 0, (n + 1) * sizeof *sc->b);
	attrib_window(&at->weights, e_mj, dt_ns, gap_ns, sc->sm, sc->mem, n + 1, sc->a, sc->b);
	for (i = 0; i < n; i++) {
		at->pidacct.v[sc->idx[i]].attrib_a_mj += sc->a[i];
		at->pidacct.v[sc->idx[i]].attrib_b_ns += sc->b[i];
	}
	a->other_a_mj += sc->a[n];
	a->other_b_ns += sc->b[n];
	a->has_attrib = true;
}

/* The device's pending energy, shared as its newest per-process data shared it. */
static void
share_pending_as_last(struct attrib *at, struct dev_acct *a, size_t gdev)
{
	share_window(at, a, gdev, a->last_window_ns, NULL, 0, -1, a->pending_mj, a->pending_ns, 0,
	    a->last_other_sm_pct, a->last_other_mem_pct);
	a->pending_mj = 0;
	a->pending_ns = 0;
}

/*
 * Set aside the newest *keep_ns of the pending energy (by time: readings
 * are the finest energy known), for data that will describe it; the rest
 * is shared now.  *keep_ns becomes what was set aside; returns its energy.
 */
static double
pending_hold(struct dev_acct *a, int64_t *keep_ns)
{
	double	kept;

	if (*keep_ns <= 0 || a->pending_ns <= 0) {
		*keep_ns = 0;
		return 0;
	}
	if (*keep_ns > a->pending_ns)
		*keep_ns = a->pending_ns;
	kept = a->pending_mj * (double)*keep_ns / (double)a->pending_ns;
	a->pending_mj -= kept;
	a->pending_ns -= *keep_ns;
	return kept;
}

static void
pending_restore(struct dev_acct *a, double kept_mj, int64_t kept_ns)
{
	a->pending_mj += kept_mj;
	a->pending_ns += kept_ns;
}

/*
 * The part of the pending energy (which ends at end_ns) that the last data
 * already described, as that data shared it: a slow call's samples reach
 * past its reading, into the time the next reading brings.
 */
static void
share_described(struct attrib *at, struct dev_acct *a, size_t gdev, int64_t end_ns)
{
	int64_t	after = end_ns - a->data_to_ns;
	double	kept;

	if (!a->has_attrib || after >= a->pending_ns)
		return;
	kept = pending_hold(a, &after);
	share_pending_as_last(at, a, gdev);
	pending_restore(a, kept, after);
}

/*
 * The pending energy of a time in which nobody was busy: no process's,
 * left unattributed (joulestat(1), Attribution).
 */
static void
pending_idle(struct dev_acct *a)
{
	a->pending_mj = 0;
	a->pending_ns = 0;
	a->last_tree_sm_pct = a->last_tree_mem_pct = 0;
	a->is_idle_since_data = true;
}

/*
 * Nothing new from the driver: the pending energy's newest sample period
 * waits, as a sample still to come may describe it (one describes the
 * period before it; a late one up to pid_late_limit of it, and before any
 * data, the longest a first sample stands for).  What is older no sample
 * will describe any more: the driver leaves out the samples in which
 * nobody was busy, so it was idle.  Figures that are no samples
 * (accounting's, over a process's life) stand until the next.
 */
static void
share_pending_unchanged(struct attrib *at, struct dev_acct *a, size_t gdev, int64_t t_ns)
{
	int64_t	keep = a->has_attrib ? (int64_t)pid_late_limit((uint64_t)a->data_period_ns) :
		    PID_PERIOD_MAX_NS;
	double	kept;

	a->is_nobody_named |= !a->has_attrib;
	kept = pending_hold(a, &keep);
	share_described(at, a, gdev, t_ns - keep);
	if (a->pending_ns > 0 && (a->is_data_sampled || !a->has_attrib))
		pending_idle(a);
	else if (a->pending_ns > 0)
		share_pending_as_last(at, a, gdev);
	pending_restore(a, kept, keep);
}

/*
 * New per-process data came with reading s: the pending energy is shared
 * sample by sample, each taking its part of the energy by the time it
 * stands for (shares of mean utilization would not be mean shares).  The
 * pending time no sample stands for (before the first data, or a gap the
 * driver left between samples) is idle: nobody was busy in it, so its idle
 * energy is nobody's, and the energy above idle is the samples' (each
 * takes its part of that time as a gap, attrib_window).
 */
static void
share_pending_by_samples(struct attrib *at, struct dev_acct *a, size_t gdev,
    const struct sample *s)
{
	const struct pid_slot	*sl;
	double			 spans = 0, f, gap, busy;
	int64_t			 to = s->pid_to_ns > 0 ? s->pid_to_ns : s->t_ns;
	unsigned		 j;

	for (j = 0; j < s->npid_slots; j++)
		spans += (double)s->pid_slots[j].span_ns;
	/* Nobody was busy before a reading at which the device said so. */
	busy = a->idle_util_ns > 0 && a->idle_util_ns < to ?
	    min_d(spans, (double)(to - a->idle_util_ns)) : spans;
	a->is_idle_since_data = false;
	if (s->npid_slots == 0 || spans <= 0) {
		share_window(at, a, gdev, s->t_ns, at->scratch.cand, at->scratch.ncand, -1,
		    a->pending_mj, a->pending_ns, 0, a->last_other_sm_pct, a->last_other_mem_pct);
	} else {
		/* Each sample's part (by its span) of the energy, its time, and the gap's. */
		gap = max_d((double)a->pending_ns - busy, 0);
		for (j = 0; j < s->npid_slots; j++) {
			sl = &s->pid_slots[j];
			f = (double)sl->span_ns / spans;
			share_window(at, a, gdev, s->t_ns, at->scratch.cand, at->scratch.ncand,
			    (int)j, a->pending_mj * f,
			    (int64_t)((double)a->pending_ns * f - gap * f), (int64_t)(gap * f),
			    sl->foreign_sm_pct, sl->foreign_mem_pct);
		}
		a->last_other_sm_pct = s->pid_slots[s->npid_slots - 1].foreign_sm_pct;
		a->last_other_mem_pct = s->pid_slots[s->npid_slots - 1].foreign_mem_pct;
	}
	a->pending_mj = 0;
	a->pending_ns = 0;
}

void
attrib_reading(struct attrib *at, size_t dev_base, size_t ndev, const struct sample *cur,
    const int64_t *span_ns, struct dev_acct *acct)
{
	const struct sample	*s;
	struct dev_acct		*a;
	enum energy_method	 m;
	double			 e, kept;
	int64_t			 keep;
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
		a->is_pid_failed |= s->is_pid_failed;
		if ((s->valid & M_UTIL) && s->util_pct == 0 && s->mem_util_pct == 0)
			a->idle_util_ns = s->t_ns;
		if (s->is_pid_unchanged) {
			share_pending_unchanged(at, a, dev_base + i, s->t_ns);
			continue;
		}
		/* Samples, though none of them can be the workload's (host pids). */
		a->is_named_some |= (s->valid & M_FOREIGN) != 0;
		if (s->pid_span_ns <= 0 || !(s->valid & M_PID_UTIL))
			continue;
		/* A backend that reads only the tree's processes cannot see the others. */
		a->last_other_sm_pct = s->valid & M_FOREIGN ? s->foreign_sm_pct : 0;
		a->last_other_mem_pct = s->valid & M_FOREIGN ? s->foreign_mem_pct : 0;
		a->is_other_unknown |= !(s->valid & M_FOREIGN);
		a->last_window_ns = s->t_ns;
		/* The samples describe the time up to the newest; what is after waits for the next. */
		keep = s->pid_to_ns > 0 && s->pid_to_ns <= s->t_ns ? s->t_ns - s->pid_to_ns : 0;
		kept = pending_hold(a, &keep);
		share_described(at, a, dev_base + i, s->t_ns - keep);
		a->data_to_ns = s->pid_to_ns > 0 ? s->pid_to_ns : s->t_ns;
		a->is_data_sampled = s->npid_slots > 0;
		share_pending_by_samples(at, a, dev_base + i, s);
		pending_restore(a, kept, keep);
		a->data_period_ns = s->npid_slots > 0 ? s->pid_slots[s->npid_slots - 1].span_ns :
		    s->pid_span_ns;
	}
}

/*
 * The energy after the last per-process data (at most one sample period)
 * is shared as the last data shared it, and the tail after the last
 * reading's integral close (account_finish) joins it; after polls that
 * found the device idle, it is idle too.
 */
void
attrib_close(struct attrib *at, struct dev_acct *a, size_t gdev)
{
	enum energy_method	m;
	double			e = account_energy_mj(a, &m);

	a->pending_mj += e - a->attrib_seen_mj;
	a->attrib_seen_mj = e;
	/* Answers that named nobody busy all run, none failed: the shares are known, nobody's. */
	if (!a->has_attrib && a->is_nobody_named && !a->is_named_some && !a->is_pid_failed) {
		a->has_attrib = true;
		pending_idle(a);
	}
	if (a->has_attrib && a->pending_mj > 0 && a->is_idle_since_data)
		pending_idle(a);
	else if (a->has_attrib && a->pending_mj > 0)
		share_pending_as_last(at, a, gdev);
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
