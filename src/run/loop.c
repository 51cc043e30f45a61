/*
 * The poll loop.  Ticks are on absolute deadlines
 * t0 + k * interval from a periodic timerfd: a tick that runs late is
 * recorded with its lateness, and deadlines that passed while we were
 * busy are counted as missed, never caught up in a burst.  Child exits and
 * signals come through a signalfd, attached processes' exits through
 * pidfds, all in one epoll set; no handler ever runs asynchronously.
 */
#include "joulestat/loop.h"

#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <math.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "joulestat/marks.h"
#include "joulestat/proctree.h"
#include "joulestat/reading.h"

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
	int		 epfd;		/* all of the loop's descriptors */
	enum phase	 phase;
	uint64_t	 deadlines;	/* deadlines passed since t0 */
	int64_t		 kill_at_ns;
};

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
	reading_tick(run, t);
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

/* Signal what is left; in a cgroup, everything in it, forks included. */
static void
kill_tree(struct run *run, int sig)
{
	size_t	i;

	if (run->tree.cg != NULL) {
		cgroup_signal(run->tree.cg, sig);
		return;
	}
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
	switch (run->descendants) {
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
	/*
	 * After the grace period, SIGKILL at every look until nothing is left:
	 * walking /proc, a process forked after the walk escapes one round.
	 */
	if (lp->phase == PHASE_KILLING && t >= lp->kill_at_ns && run->nleftover > 0)
		kill_tree(run, SIGKILL);
	/* The kernel's word: nothing is left in the cgroup (zombies are not in it). */
	if (run->tree.cg != NULL && cgroup_populated(run->tree.cg) == 0)
		run->nleftover = 0;
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

/* A process of an earlier run was reaped: its CPU time is not this run's. */
static void
reaped_other(void *arg, pid_t pid, const struct rusage *ru)
{
	struct run	*run = arg;

	if (!proctree_reaped_excluded(&run->tree, pid))
		return;
	timeradd(&run->excluded_ru.ru_utime, &ru->ru_utime, &run->excluded_ru.ru_utime);
	timeradd(&run->excluded_ru.ru_stime, &ru->ru_stime, &run->excluded_ru.ru_stime);
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
	bool		 was_exited = run->child.has_exited, is_read;

	if ((is_read = main_child_waiting(run)))
		reading_take(run, t);
	launch_reap(&run->child, reaped_other, run);
	/* It ended between the look and the reap: its end still gets a reading. */
	if (!run->is_attach && !was_exited && !is_read && run->child.has_exited) {
		t = now_ns();
		reading_take(run, t);
	}
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
		reading_take(run, run->t_end_ns);
		lp->phase = PHASE_DONE;
		return;
	}
	if (sig != SIGINT && sig != SIGQUIT && !run->child.has_exited)
		kill(run->child.pid, sig);
	/* A stopped workload would never see it (as timeout(1) does). */
	if ((sig == SIGTERM || sig == SIGINT || sig == SIGHUP) && !run->child.has_exited)
		kill(run->child.pid, SIGCONT);
	if (lp->phase == PHASE_DRAINING && (sig == SIGINT || sig == SIGTERM)) {
		kill_tree(run, SIGTERM);
		kill_tree(run, SIGCONT);
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
		reading_take(run, run->t_end_ns);
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
		if (run->pidfds[i] == PIDFD_POLLED && kill(run->params.pids[i], 0) == -1 &&
		    errno == ESRCH)
			on_pid_end(lp, i);
	}
}

/* What a wake-up found ready, taken in a fixed order (poll_once). */
enum {
	EV_TIMER,
	EV_SIGNAL,
	EV_CGROUP,
	EV_MARKS,
	EV_PIDFD,	/* attach mode: EV_PIDFD + i for attached process i */
};

static int
watch(int epfd, int fd, uint32_t events, uint64_t tag)
{
	struct epoll_event	ev = { .events = events, .data.u64 = tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * One epoll set for the whole run: a wake-up costs the kernel a look at
 * what woke it, not at every descriptor, as poll(2) would each time.
 */
static int
watch_all(struct loop *lp, struct errbuf *err)
{
	struct run	*run = lp->run;
	size_t		 i;
	int		 rc;

	if ((lp->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		errbuf_set(err, "epoll_create1: %s", strerror(errno));
		return -1;
	}
	rc = watch(lp->epfd, lp->timerfd, EPOLLIN, EV_TIMER) |
	    watch(lp->epfd, lp->sigfd, EPOLLIN, EV_SIGNAL);
	for (i = 0; i < run->npidfds; i++) {
		if (run->pidfds[i] >= 0)
			rc |= watch(lp->epfd, run->pidfds[i], EPOLLIN, EV_PIDFD + i);
	}
	/* cgroup.events changed: POLLPRI, until it is read again. */
	if (run->tree.cg != NULL)
		rc |= watch(lp->epfd, run->tree.cg->events_fd, EPOLLPRI, EV_CGROUP);
	if (run->marks.fd >= 0)
		rc |= watch(lp->epfd, run->marks.fd, EPOLLIN, EV_MARKS);
	if (rc != 0) {
		errbuf_set(err, "epoll_ctl: %s", strerror(errno));
		close(lp->epfd);
		return -1;
	}
	return 0;
}

static void
poll_once(struct loop *lp, struct epoll_event *evs, int nevs)
{
	struct run	*run = lp->run;
	bool		 is_timer = false, is_sig = false, is_cg = false, is_marks = false;
	uint64_t	 tag;
	int		 n, k;

	if ((n = epoll_wait(lp->epfd, evs, nevs, -1)) == -1)
		return;	/* EINTR: wait again */
	for (k = 0; k < n; k++) {
		is_timer |= evs[k].data.u64 == EV_TIMER;
		is_sig |= evs[k].data.u64 == EV_SIGNAL;
		is_cg |= evs[k].data.u64 == EV_CGROUP;
		is_marks |= evs[k].data.u64 == EV_MARKS;
	}
	if (is_sig)
		on_sigfd(lp);
	if (lp->phase != PHASE_DONE && is_timer) {
		on_timer(lp);
		check_polled(lp);
		if (lp->phase == PHASE_DRAINING || lp->phase == PHASE_KILLING)
			check_drained(lp, now_ns());
	}
	/* An attached process ended; its pidfd leaves the set when on_pid_end closes it. */
	for (k = 0; k < n && lp->phase != PHASE_DONE; k++) {
		tag = evs[k].data.u64;
		if (tag >= EV_PIDFD && run->pidfds[tag - EV_PIDFD] >= 0)
			on_pid_end(lp, (size_t)(tag - EV_PIDFD));
	}
	/* When the cgroup is empty, a run waiting for its descendants is over. */
	if (is_cg && cgroup_populated(run->tree.cg) == 0 &&
	    (lp->phase == PHASE_DRAINING || lp->phase == PHASE_KILLING))
		check_drained(lp, now_ns());
	/* Phase marks last: a reading they take sees what the others changed. */
	if (lp->phase != PHASE_DONE && is_marks)
		marks_read(run);
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

/*
 * The loop's timer or epoll set could not be made (at the descriptor
 * limit, say): no more ticks, but the workload is still waited for through
 * the signalfd alone, its signals passed on and its end read and reaped,
 * so that its exit status and figures are not lost.  Its descendants are
 * not waited for.  Attach mode has nothing to wait for.
 */
static void
wait_unwatched(struct loop *lp)
{
	struct pollfd	pfd = { .fd = lp->sigfd, .events = POLLIN };

	if (lp->run->is_attach)
		return;
	on_sigchld(lp);		/* it may have ended already */
	while (!lp->run->child.has_exited) {
		if (poll(&pfd, 1, -1) > 0)
			on_sigfd(lp);
	}
}

int
loop_run(struct run *run, int sigfd, struct errbuf *err)
{
	struct loop		 lp = { .run = run, .sigfd = sigfd, .phase = PHASE_RUNNING };
	struct epoll_event	*evs;
	size_t			 nevs = EV_PIDFD + run->npidfds;

	if (arm_timer(&lp, err) != 0) {
		wait_unwatched(&lp);
		return -1;
	}
	if (watch_all(&lp, err) != 0) {
		close(lp.timerfd);
		wait_unwatched(&lp);
		return -1;
	}
	evs = xcalloc(nevs, sizeof *evs);
	/* The child may have ended before the loop started: look once. */
	if (!run->is_attach)
		on_sigchld(&lp);
	while (lp.phase != PHASE_DONE)
		poll_once(&lp, evs, (int)nevs);
	drain_timer(&lp);
	free(evs);
	close(lp.epfd);
	close(lp.timerfd);
	return 0;
}
