/*
 * The poll loop (DESIGN §2).  Ticks are on absolute deadlines
 * t0 + k * interval from a periodic timerfd: a tick that runs late is
 * recorded with its lateness, and deadlines that passed while we were
 * busy are counted as missed, never caught up in a burst.  Child exits and
 * signals come through a signalfd, attached processes' exits through
 * pidfds; no handler ever runs asynchronously (STYLE §6 rule 5).
 */
#include "joulestat/loop.h"

#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "joulestat/account.h"
#include "joulestat/config.h"
#include "joulestat/proctree.h"
#include "joulestat/source.h"

/* How long --descendants=kill waits after SIGTERM before SIGKILL. */
#define KILL_GRACE_NS	(2 * NSEC_PER_SEC)

enum phase {
	PHASE_RUNNING,		/* the main workload (or an attached pid) is alive */
	PHASE_DRAINING,		/* --descendants=wait: until the tree is empty */
	PHASE_KILLING,		/* --descendants=kill: SIGTERM sent, SIGKILL at deadline */
	PHASE_DONE,
};

struct loop {
	struct run	*run;
	int		 timerfd;
	int		 sigfd;
	enum phase	 phase;
	uint64_t	 deadlines;	/* deadlines passed since t0 */
	int64_t		 kill_at_ns;
};

void
loop_signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	/* Taken too rather than left to kill joulestat: the report and the clock restore survive. */
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGUSR2);
	sigaddset(set, SIGALRM);
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

/* Record per-process usage of this tick against the run's totals. */
static void
account_pids(struct run *run, const struct backend *b, size_t dev_base)
{
	const struct pid_usage	*u;
	const struct proc	*p;
	struct pid_acct		*a;
	int64_t			 span;
	size_t			 i;

	for (i = 0; i < run->pids.n; i++) {
		u = &run->pids.v[i];
		if (u->dev >= b->ndev)
			continue;
		p = proctree_find_live(&run->tree, u->pid);
		a = account_pid(&run->pidacct, dev_base + u->dev, u->pid,
		    p != NULL ? p->starttime_ticks : 0);
		if (p != NULL && a->comm[0] == '\0')
			memcpy(a->comm, p->comm, sizeof a->comm);
		a->is_between_ticks = a->is_between_ticks || u->is_between_ticks;
		if (u->gpu_mem_kib > a->max_gpu_mem_kib)
			a->max_gpu_mem_kib = u->gpu_mem_kib;
		span = u->span_ns > 0 ? u->span_ns : b->span_ns[u->dev];
		if (!u->has_util || span <= 0)
			continue;
		a->last_sm_pct = u->sm_pct;
		a->last_mem_pct = u->mem_pct;
		a->last_seen_ns = b->cur[u->dev].t_ns;
		cand_push(&run->scratch, (size_t)(a - run->pidacct.v));
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
share_window(struct run *run, struct dev_acct *a, size_t gdev, int64_t t_ns,
    const size_t *cand, size_t ncand)
{
	struct share_scratch	*sc = &run->scratch;
	struct pid_acct		*p;
	size_t			 i, k, n = 0, nall = cand != NULL ? ncand : run->pidacct.n;

	scratch_reserve(sc, nall + 1);
	sc->window++;
	for (k = 0; k < nall; k++) {
		i = cand != NULL ? cand[k] : k;
		p = &run->pidacct.v[i];
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
	account_attrib_window(&run->weights, a->pending_mj, a->pending_ns, sc->sm, sc->mem,
	    n + 1, sc->a, sc->b);
	for (i = 0; i < n; i++) {
		run->pidacct.v[sc->idx[i]].attrib_a_mj += sc->a[i];
		run->pidacct.v[sc->idx[i]].attrib_b_ns += sc->b[i];
	}
	a->other_a_mj += sc->a[n];
	a->other_b_ns += sc->b[n];
	a->pending_mj = 0;
	a->pending_ns = 0;
	a->has_attrib = true;
}

/* Energy since the last tick joins the device's pending window. */
static void
attribute_backend(struct run *run, struct backend *b, size_t dev_base)
{
	const struct sample	*s;
	struct dev_acct		*a;
	enum energy_method	 m;
	double			 e;
	size_t			 i;

	for (i = 0; i < b->ndev; i++) {
		a = &b->acct[i];
		s = &b->cur[i];
		e = account_energy_mj(a, &m);
		a->pending_mj += e - a->attrib_seen_mj;
		a->attrib_seen_mj = e;
		if (s->is_lost)
			continue;
		a->pending_ns += b->span_ns[i];
		if (s->pid_span_ns <= 0 || !(s->valid & M_PID_UTIL))
			continue;
		/* A backend that reads only the tree's processes cannot see the others. */
		a->last_other_sm_pct = s->valid & M_FOREIGN ? s->foreign_sm_pct : 0;
		a->last_other_mem_pct = s->valid & M_FOREIGN ? s->foreign_mem_pct : 0;
		a->is_other_unknown |= !(s->valid & M_FOREIGN);
		a->last_window_ns = s->t_ns;
		share_window(run, a, dev_base + i, s->t_ns, run->scratch.cand, run->scratch.ncand);
	}
}

static void
timeline_rows(struct run *run, const struct backend *b, size_t dev_base)
{
	enum timeline_status	st;
	size_t			i;

	for (i = 0; i < b->ndev; i++) {
		st = b->cur[i].is_lost ? TIMELINE_LOST : run->is_late ? TIMELINE_LATE : TIMELINE_OK;
		timeline_row(run->timeline, run->index, run->t0_ns, dev_base + i, &b->devs[i],
		    &b->cur[i], &b->acct[i], st);
	}
}

static void
sample_backend(struct run *run, struct backend *b, size_t dev_base, int64_t t_ns)
{
	struct dev_acct	*a;
	size_t		 i;

	if (b->is_gone)
		return;
	run->pids.n = 0;
	memset(b->cur, 0, b->ndev * sizeof *b->cur);
	for (i = 0; i < b->ndev; i++) {
		b->cur[i].t_ns = t_ns;
		b->cur[i].pstate = PSTATE_UNKNOWN;
	}
	if (b->ops->sample(b->devs, b->ndev, &run->tree, b->cur, &run->pids, &b->why_gone) != 0) {
		b->is_gone = true;
		return;
	}
	for (i = 0; i < b->ndev; i++) {
		a = &b->acct[i];
		b->span_ns[i] = a->has_prev ? b->cur[i].t_ns - a->prev.t_ns : 0;
		account_add(a, &b->cur[i], b->devs[i].energy_range_mj);
	}
	run->scratch.ncand = 0;
	account_pids(run, b, dev_base);
	attribute_backend(run, b, dev_base);
	/* Warm-up runs (index 0) are not reported, in the timeline either. */
	if (run->timeline != NULL && run->index > 0)
		timeline_rows(run, b, dev_base);
}

/*
 * A device call that hangs holds the loop (NVML calls cannot be cut short
 * safely): ticks due meanwhile are counted as missed when it returns, and a
 * workload that ended meanwhile is seen then.  The longest hold is kept for
 * the report.
 */
static void
sample_devices(struct run *run, int64_t t_ns)
{
	size_t	i, base = 0;
	int64_t	took;

	for (i = 0; i < run->nbackends; i++) {
		sample_backend(run, &run->backends[i], base, t_ns);
		base += run->backends[i].ndev;
	}
	if ((took = now_ns() - t_ns) > run->stall_max_ns)
		run->stall_max_ns = took;
}

void
loop_sample(struct run *run, int64_t t_ns)
{
	proctree_refresh(&run->tree, t_ns);
	run->tree_walk_ns = t_ns;
	sample_devices(run, t_ns);
}

/*
 * A tick reads every device, but walks the process tree at most every
 * LOOP_TREE_GAP_NS: membership a tenth of a second old is fresh enough for
 * per-process data that drivers refresh more slowly still, and it keeps a
 * large tree at a high tick rate from costing more than the devices.
 */
static void
sample_tick(struct run *run, int64_t t_ns)
{
	if (t_ns - run->tree_walk_ns >= LOOP_TREE_GAP_NS)
		loop_sample(run, t_ns);
	else
		sample_devices(run, t_ns);
}

static int
arm_timer(struct loop *lp, struct errbuf *err)
{
	int64_t			iv = (int64_t)lp->run->interval_ms * NSEC_PER_MSEC;
	int64_t			first = lp->run->t0_ns + iv;
	struct itimerspec	its = {
		.it_value = { first / NSEC_PER_SEC, first % NSEC_PER_SEC },
		.it_interval = { iv / NSEC_PER_SEC, iv % NSEC_PER_SEC },
	};

	lp->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (lp->timerfd == -1 || timerfd_settime(lp->timerfd, TFD_TIMER_ABSTIME, &its, NULL) == -1) {
		errbuf_set(err, "timerfd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A deadline (or several) passed: take one reading, count the rest as missed. */
static void
on_timer(struct loop *lp)
{
	struct run	*run = lp->run;
	uint64_t	 n;
	int64_t		 iv = (int64_t)run->interval_ms * NSEC_PER_MSEC, t, late;

	if (read(lp->timerfd, &n, sizeof n) != (ssize_t)sizeof n || n == 0)
		return;
	lp->deadlines += n;
	t = now_ns();
	late = t - (run->t0_ns + (int64_t)lp->deadlines * iv);
	/* Late: more than half an interval after its deadline, or deadlines missed. */
	run->is_late = n > 1 || late > iv / 2;
	sample_tick(run, t);
	run->is_late = false;
	tickstats_add(&run->ticks, late, n - 1);
}

/* The processes of the tree still alive, other than the ended main child. */
static void
collect_leftovers(struct run *run)
{
	const struct proctree	*tree = &run->tree;
	const struct proc	*p;
	size_t			 i;

	free(run->leftover);
	run->leftover = xcalloc(tree->nlive, sizeof *run->leftover);
	run->nleftover = 0;
	for (i = 0; i < tree->nlive; i++) {
		p = &tree->procs[tree->live[i]];
		if (p->pid != run->child.pid && p->state != 'Z')
			run->leftover[run->nleftover++] = p->pid;
	}
}

static void
kill_tree(struct run *run, int sig)
{
	size_t	i;

	for (i = 0; i < run->nleftover; i++)
		kill(run->leftover[i], sig);
}

/* The main workload has ended: decide what happens to its descendants. */
static void
main_child_ended(struct loop *lp, int64_t t)
{
	struct run	*run = lp->run;

	run->t_end_ns = t;
	collect_leftovers(run);
	if (run->nleftover == 0) {
		lp->phase = PHASE_DONE;
		return;
	}
	switch (run->cfg->descendants) {
	case DESCENDANTS_WAIT:
		lp->phase = PHASE_DRAINING;
		break;
	case DESCENDANTS_KILL:
		kill_tree(run, SIGTERM);
		lp->kill_at_ns = t + KILL_GRACE_NS;
		lp->phase = PHASE_KILLING;
		break;
	case DESCENDANTS_LEAVE:
		lp->phase = PHASE_DONE;
		break;
	}
}

/* Waiting or killing: the run ends when nothing of the tree is left. */
static void
check_drained(struct loop *lp, int64_t t)
{
	struct run	*run = lp->run;

	collect_leftovers(run);
	if (lp->phase == PHASE_KILLING && t >= lp->kill_at_ns) {
		kill_tree(run, SIGKILL);
		lp->kill_at_ns = INT64_MAX;
	}
	if (run->nleftover == 0) {
		run->t_end_ns = t;
		lp->phase = PHASE_DONE;
	}
}

/* True when the main child has exited and is still a zombie to read. */
static bool
main_child_waiting(const struct run *run)
{
	siginfo_t	si = { .si_pid = 0 };

	if (run->is_attach || run->child.has_exited)
		return false;
	return waitid(P_PID, (id_t)run->child.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == run->child.pid;
}

/*
 * A child ended.  Only the end of the main workload costs a reading (the
 * last one, taken while it is still a zombie so its final figures are
 * there); other exits are just reaped, so a fork storm does not turn into
 * a storm of readings.  Their CPU time reaches the totals through rusage.
 */
static void
on_sigchld(struct loop *lp)
{
	struct run	*run = lp->run;
	int64_t		 t = now_ns();

	if (main_child_waiting(run))
		loop_sample(run, t);
	launch_reap(&run->child);
	if (lp->phase == PHASE_RUNNING && !run->is_attach && run->child.has_exited) {
		proctree_refresh(&run->tree, t);
		main_child_ended(lp, t);
	} else if (lp->phase == PHASE_DRAINING || lp->phase == PHASE_KILLING) {
		proctree_refresh(&run->tree, t);
		check_drained(lp, t);
	}
}

/*
 * SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 and SIGALRM sent to joulestat alone go
 * on to the workload; SIGINT and SIGQUIT from the terminal already reached
 * the workload's process group.
 */
static void
on_signal(struct loop *lp, int sig)
{
	struct run	*run = lp->run;

	run->signals_seen++;
	run->last_signal = sig;
	if (run->is_attach) {
		run->has_interrupt = true;
		run->t_end_ns = now_ns();
		loop_sample(run, run->t_end_ns);
		lp->phase = PHASE_DONE;
		return;
	}
	if (sig != SIGINT && sig != SIGQUIT && !run->child.has_exited)
		kill(run->child.pid, sig);
	if (lp->phase == PHASE_DRAINING && (sig == SIGINT || sig == SIGTERM)) {
		kill_tree(run, SIGTERM);
		lp->kill_at_ns = now_ns() + KILL_GRACE_NS;
		lp->phase = PHASE_KILLING;
	}
}

static void
on_sigfd(struct loop *lp)
{
	struct signalfd_siginfo	si;

	while (read(lp->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGCHLD)
			on_sigchld(lp);
		else
			on_signal(lp, (int)si.ssi_signo);
		if (lp->phase == PHASE_DONE)
			return;
	}
}

/* Attach mode: attached process i has ended. */
static void
on_pid_end(struct loop *lp, size_t i)
{
	struct run	*run = lp->run;
	size_t		 k, open = 0;

	if (run->pidfds[i] >= 0)
		close(run->pidfds[i]);
	run->pidfds[i] = PIDFD_ENDED;
	for (k = 0; k < run->npidfds; k++)
		open += run->pidfds[k] != PIDFD_ENDED;
	if (open == 0) {
		run->t_end_ns = now_ns();
		loop_sample(run, run->t_end_ns);
		lp->phase = PHASE_DONE;
	}
}

/* Attached processes without a pidfd: has one of them gone? */
static void
check_polled(struct loop *lp)
{
	struct run	*run = lp->run;
	size_t		 i;

	for (i = 0; i < run->npidfds && lp->phase != PHASE_DONE; i++) {
		if (run->pidfds[i] == PIDFD_POLLED && kill(run->cfg->pids[i], 0) == -1 &&
		    errno == ESRCH)
			on_pid_end(lp, i);
	}
}

static void
poll_once(struct loop *lp, struct pollfd *fds, size_t nfds)
{
	struct run	*run = lp->run;
	size_t		 i;

	if (poll(fds, (nfds_t)nfds, -1) == -1)
		return;	/* EINTR: poll again */
	if (fds[1].revents & POLLIN)
		on_sigfd(lp);
	if (lp->phase != PHASE_DONE && (fds[0].revents & POLLIN)) {
		on_timer(lp);
		check_polled(lp);
		if (lp->phase == PHASE_DRAINING || lp->phase == PHASE_KILLING)
			check_drained(lp, now_ns());
	}
	for (i = 2; i < nfds && lp->phase != PHASE_DONE; i++) {
		if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
			on_pid_end(lp, i - 2);
		if (run->pidfds[i - 2] < 0)
			fds[i].fd = -1;
	}
}

/*
 * Deadlines that passed after the last tick: the final reading serves the
 * latest, the others were missed (a device call held the loop past them).
 */
static void
drain_timer(struct loop *lp)
{
	uint64_t	n;

	if (read(lp->timerfd, &n, sizeof n) == (ssize_t)sizeof n && n > 1)
		lp->run->ticks.missed += n - 1;
}

int
loop_run(struct run *run, int sigfd, struct errbuf *err)
{
	struct loop	 lp = { .run = run, .sigfd = sigfd, .phase = PHASE_RUNNING };
	struct pollfd	*fds;
	size_t		 nfds = 2 + run->npidfds, i;

	if (arm_timer(&lp, err) != 0)
		return -1;
	fds = xcalloc(nfds, sizeof *fds);
	fds[0] = (struct pollfd){ .fd = lp.timerfd, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
	for (i = 0; i < run->npidfds; i++)
		fds[2 + i] = (struct pollfd){ .fd = run->pidfds[i], .events = POLLIN };
	/* The child may have ended before the loop started: look once. */
	if (!run->is_attach)
		on_sigchld(&lp);
	while (lp.phase != PHASE_DONE)
		poll_once(&lp, fds, nfds);
	drain_timer(&lp);
	free(fds);
	close(lp.timerfd);
	return 0;
}

/*
 * The energy after the last per-process data (at most one poll period)
 * is shared as the last data shared it, and the tail after the last
 * reading's integral close (account_finish) joins it.
 */
static void
close_window(struct run *run, struct dev_acct *a, size_t gdev)
{
	enum energy_method	m;
	double			e = account_energy_mj(a, &m);

	a->pending_mj += e - a->attrib_seen_mj;
	a->attrib_seen_mj = e;
	if (a->has_attrib && a->pending_mj > 0)
		share_window(run, a, gdev, a->last_window_ns, NULL, 0);
}

void
loop_finish(struct run *run)
{
	struct backend	*b;
	size_t		 i, k, base = 0;

	for (i = 0; i < run->nbackends; i++, base += b->ndev) {
		b = &run->backends[i];
		for (k = 0; k < b->ndev; k++) {
			account_finish(&b->acct[k]);
			close_window(run, &b->acct[k], base + k);
		}
		if (b->ops->finish == NULL || b->is_gone)
			continue;
		run->pids.n = 0;
		for (k = 0; k < b->ndev; k++)
			b->span_ns[k] = 0;
		b->ops->finish(b->devs, b->ndev, &run->tree, &run->pids);
		run->scratch.ncand = 0;
		account_pids(run, b, base);
	}
}

/* Mean power of each device of b over its baseline readings. */
static void
baseline_means(struct backend *b, struct dev_acct *acct)
{
	enum energy_method	m;
	double			e;
	size_t			i;

	for (i = 0; i < b->ndev; i++) {
		account_finish(&acct[i]);
		e = account_energy_mj(&acct[i], &m);
		b->baseline_mw[i] = NAN;
		if (m != ENERGY_NONE && acct[i].last_ns > acct[i].first_ns)
			b->baseline_mw[i] = e / ((double)(acct[i].last_ns - acct[i].first_ns) / 1e9);
	}
}

int
loop_baseline(struct run *run, double seconds, int sigfd)
{
	int64_t			 iv = (int64_t)run->interval_ms * NSEC_PER_MSEC;
	int64_t			 t = now_ns(), end = t + (int64_t)(seconds * 1e9), left;
	struct dev_acct		**acct = xcalloc(run->nbackends, sizeof *acct);
	struct pollfd		 pfd = { .fd = sigfd, .events = POLLIN };
	struct signalfd_siginfo	 si;
	struct backend		*b;
	size_t			 i, k;
	int			 sig = 0;

	for (i = 0; i < run->nbackends; i++)
		acct[i] = xcalloc(run->backends[i].ndev, sizeof **acct);
	for (; sig == 0; t += iv) {
		/* Wait for the reading's deadline, or for a signal that ends it all. */
		while ((left = t - now_ns()) > 0 && sig == 0) {
			if (poll(&pfd, 1, (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC)) > 0 &&
			    read(sigfd, &si, sizeof si) == (ssize_t)sizeof si && si.ssi_signo != SIGCHLD)
				sig = (int)si.ssi_signo;
		}
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
		if (sig == 0)
			baseline_means(&run->backends[i], acct[i]);
		free(acct[i]);
	}
	free(acct);
	return sig;
}
