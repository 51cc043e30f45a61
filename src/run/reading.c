/*
 * One reading of the tree and of every device (HACKING.md, "The
 * pipeline"): taken before exec, on every tick, when the workload ends,
 * and before the run for --idle-baseline.  Each reading goes into the
 * accounting and the attribution, then to the on_reading callback.
 */
#include "joulestat/reading.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/account.h"
#include "joulestat/attrib.h"
#include "joulestat/backend.h"
#include "joulestat/phase.h"
#include "joulestat/proctree.h"
#include "joulestat/signals.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

static void
sample_backend(struct run *run, struct backend *b, size_t dev_base, int64_t t_ns,
    bool is_pid_due)
{
	struct dev_acct	*a;
	size_t		 i;

	/* A backend that found no device has nothing to read. */
	if (b->is_gone || b->ndev == 0)
		return;
	run->pids.n = 0;
	memset(b->cur, 0, b->ndev * sizeof *b->cur);
	for (i = 0; i < b->ndev; i++) {
		b->cur[i].t_ns = t_ns;
		b->cur[i].pstate = PSTATE_UNKNOWN;
		b->cur[i].is_pid_due = is_pid_due;
	}
	if (b->ops->sample(b->devs, b->ndev, &run->tree, b->cur, &run->pids, &b->why_gone) != 0) {
		b->is_gone = true;
		return;
	}
	for (i = 0; i < b->ndev; i++) {
		a = &b->acct[i];
		b->span_ns[i] = a->has_prev ? b->cur[i].t_ns - a->prev.t_ns : 0;
		/* The device's now: a GPU identified late learns it then. */
		a->power_kind = b->devs[i].power_kind;
		a->counter_step_ns = b->devs[i].counter_step_ns;
		account_add(a, &b->cur[i], b->devs[i].energy_range_mj);
		account_note_idle(a, &b->devs[i], &b->cur[i]);
		if (run->phases.nopen > 0)
			phases_reading(&run->phases, dev_base + i, &b->cur[i],
			    b->devs[i].energy_range_mj, a);
	}
	/* The names the per-process table will show, a second old at most. */
	for (i = 0; i < run->pids.n; i++)
		proctree_fresh_name(&run->tree, run->pids.v[i].pid, t_ns, NSEC_PER_SEC);
	attrib_pids(&run->attrib, &run->tree, &run->pids, dev_base, b->ndev, b->cur, b->span_ns);
	attrib_reading(&run->attrib, dev_base, b->ndev, b->cur, b->span_ns, b->acct);
	/* Warm-up runs (index 0) too: the callback decides what they are worth. */
	if (run->on_reading != NULL)
		run->on_reading(run->on_reading_arg, run, b, dev_base);
}

/*
 * A device call that hangs holds the loop (NVML calls cannot be cut short
 * safely): ticks due meanwhile are counted as missed when it returns, and a
 * workload that ended meanwhile is seen then.  The longest hold is kept for
 * the report.
 */
static void
sample_devices(struct run *run, int64_t t_ns, bool is_pid_due)
{
	size_t	i, base = 0;
	int64_t	took;

	for (i = 0; i < run->nbackends; i++) {
		sample_backend(run, &run->backends[i], base, t_ns, is_pid_due);
		base += run->backends[i].ndev;
	}
	run->last_read_ns = t_ns;
	run->last_read_end_ns = now_ns();
	run->last_read_took_ns = took = run->last_read_end_ns - t_ns;
	if (took > run->stall_max_ns)
		run->stall_max_ns = took;
}

/* A device whose backend looks at the tree's members: their pids, start times, names. */
static bool
reads_members(const struct run *run)
{
	size_t	i;

	for (i = 0; i < run->nbackends; i++) {
		if (run->backends[i].ops->reads_tree && run->backends[i].ndev > 0 &&
		    !run->backends[i].is_gone)
			return true;
	}
	return false;
}

static void
take(struct run *run, int64_t t_ns, bool is_pid_due)
{
	run->tree.is_bare_ok = !reads_members(run);
	proctree_refresh(&run->tree, t_ns);
	run->tree_walk_ns = t_ns;
	sample_devices(run, t_ns, is_pid_due);
}

/*
 * The run's first reading, before the launched child is released: in a
 * fresh cgroup, with no device that reads the members, the child is the
 * tree and its pidfd from clone3 says when it ends, so nothing is read for
 * the tree (the workload waits for this reading).
 */
void
reading_first(struct run *run, int64_t t_ns)
{
	struct child	*c = &run->child;

	run->tree.is_bare_ok = !reads_members(run);
	if (c->has_pidfd && proctree_start_launched(&run->tree, c->pid, c->pidfd, t_ns)) {
		c->has_pidfd = false;	/* the tree's now */
		run->tree_walk_ns = t_ns;
		sample_devices(run, t_ns, true);
		return;
	}
	launch_drop_pidfd(c);
	take(run, t_ns, true);
}

/*
 * The first and last readings (and the one when the workload ends) also
 * read per-process data whatever its schedule: the last data before
 * teardown is what the energy after it is shared by.
 */
void
reading_take(struct run *run, int64_t t_ns)
{
	take(run, t_ns, true);
}

/*
 * When no device reads the members, a walk gives only the tree's figures
 * (its peak RSS at one reading, processes at once, the CPU times the proc
 * tracker samples), and rusage or the cgroup gives the CPU time and the
 * end of the tree without one: the tree is walked every
 * READING_TREE_GAP_NS per hundred members, so that a second of ticks
 * costs the same whatever the size of the tree.
 */
static int64_t
tree_gap_ns(const struct run *run)
{
	if (!run->tree.is_bare_ok)
		return READING_TREE_GAP_NS;
	return READING_TREE_GAP_NS * (int64_t)(run->tree.nlive / 100 + 1);
}

/*
 * A tick reads every device, but walks the process tree at most every
 * READING_TREE_GAP_NS: membership a tenth of a second old is fresh enough
 * for per-process data that drivers refresh more slowly still, and it
 * keeps a large tree at a high tick rate from costing more than the
 * devices.
 */
void
reading_tick(struct run *run, int64_t t_ns)
{
	if (t_ns - run->tree_walk_ns >= tree_gap_ns(run))
		take(run, t_ns, false);
	else
		sample_devices(run, t_ns, false);
}

void
reading_finish(struct run *run)
{
	struct backend	*b;
	size_t		 i, k, base = 0;

	for (i = 0; i < run->nbackends; i++, base += b->ndev) {
		b = &run->backends[i];
		for (k = 0; k < b->ndev; k++) {
			account_finish(&b->acct[k]);
			attrib_close(&run->attrib, &b->acct[k], base + k);
		}
		if (b->is_gone)
			continue;
		run->pids.n = 0;
		for (k = 0; k < b->ndev; k++) {
			b->span_ns[k] = 0;
			/* What is noted now is this run's: setup_reset drops it. */
			b->nnotes0[k] = b->devs[k].nnotes;
		}
		if (b->ops->note_counts != NULL)
			b->ops->note_counts(b->devs, b->ndev);
		if (b->ops->finish == NULL)
			continue;
		b->ops->finish(b->devs, b->ndev, &run->tree, &run->pids);
		attrib_pids(&run->attrib, &run->tree, &run->pids, base, b->ndev, b->cur, b->span_ns);
	}
}

/* Mean power of each device of b over its baseline readings. */
static void
idle_means(struct backend *b, struct dev_acct *acct)
{
	enum energy_method	m;
	double			e;
	size_t			i;

	for (i = 0; i < b->ndev; i++) {
		account_finish(&acct[i]);
		e = account_energy_mj(&acct[i], &m);
		b->baseline_mw[i] = NAN;
		if (m != ENERGY_NONE && account_covered_ns(&acct[i], m) > 0)
			b->baseline_mw[i] = e / ((double)account_covered_ns(&acct[i], m) / 1e9);
	}
}

int
reading_idle_baseline(struct run *run, double seconds, int sigfd)
{
	int64_t			 iv = (int64_t)run->interval_ms * NSEC_PER_MSEC;
	int64_t			 t = now_ns(), end = t + (int64_t)(seconds * 1e9);
	struct dev_acct		**acct = xcalloc(run->nbackends, sizeof *acct);
	struct backend		*b;
	unsigned		*n0 = NULL;
	size_t			 i, k;
	int			 sig = 0;

	for (i = 0; i < run->nbackends; i++)
		acct[i] = xcalloc(run->backends[i].ndev, sizeof **acct);
	for (; sig == 0; t += iv) {
		/* Wait for the reading's deadline, or for a signal that ends it all. */
		sig = wait_for_signal(sigfd, t);
		for (i = 0; i < run->nbackends && sig == 0; i++) {
			b = &run->backends[i];
			run->pids.n = 0;
			if (b->is_gone || b->ops->sample(b->devs, b->ndev, &run->tree, b->cur,
			    &run->pids, &b->why_gone) != 0)
				continue;
			for (k = 0; k < b->ndev; k++)
				account_add(&acct[i][k], &b->cur[k], b->devs[k].energy_range_mj);
		}
		if (t >= end)
			break;
	}
	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		if (sig == 0)
			idle_means(b, acct[i]);
		free(acct[i]);
		/* What the baseline's readings met is said as its own, kept for every run. */
		if (b->is_gone || b->ops->note_counts == NULL)
			continue;
		n0 = xreallocarray(n0, b->ndev, sizeof *n0);
		for (k = 0; k < b->ndev; k++)
			n0[k] = b->devs[k].nnotes;
		b->ops->note_counts(b->devs, b->ndev);
		for (k = 0; k < b->ndev; k++)
			backend_notes_prefix(&b->devs[k], n0[k], "during --idle-baseline, ");
	}
	free(n0);
	free(acct);
	return sig;
}
