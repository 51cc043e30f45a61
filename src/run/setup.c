/*
 * Run set-up: the backends probed, selected and closed, the sampling
 * interval fitted to the counters, clock and device locks, and the
 * workload launched or attached to (include/joulestat/setup.h).
 */
#include "joulestat/setup.h"

#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/account.h"
#include "joulestat/devsel.h"
#include "joulestat/launch.h"
#include "joulestat/reading.h"
#include "joulestat/procfs.h"
#include "joulestat/proctree.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

/* The run an out-of-memory exit must undo: its locked clocks, its cgroup. */
static struct run	*fatal_run;

static void
undo_on_fatal(void)
{
	struct run	*run = fatal_run;

	if (run == NULL)
		return;
	if (run->is_clock_locked)
		setup_unlock_clocks(run);
	setup_drop_cgroup(run);
}

/* Point the out-of-memory exit at run while it has something to undo. */
static void
watch_fatal(struct run *run)
{
	fatal_run = run->is_clock_locked || run->tree.cg != NULL ? run : NULL;
	util_on_fatal(fatal_run != NULL ? undo_on_fatal : NULL);
}

void
run_note(struct run *run, const char *backend, const char *what, const char *msg)
{
	if (run->nnotes < ARRAY_SIZE(run->notes))
		snprintf(run->notes[run->nnotes++], sizeof run->notes[0], "%s: %s%s", backend,
		    what, msg);
}

void
setup_probe(struct run *run, const struct source_config *sc)
{
	const struct source_ops *const	*ops;
	struct backend			*b;
	struct errbuf			 err;
	char				 what[DEVICE_NOTE_LEN];

	devsel_rewind(sc->sel);
	for (ops = sources; *ops != NULL; ops++) {
		run->backends = xreallocarray(run->backends, run->nbackends + 1, sizeof *b);
		b = &run->backends[run->nbackends];
		memset(b, 0, sizeof *b);
		memset(&err, 0, sizeof err);
		b->ops = *ops;
		if ((*ops)->probe(sc, &b->devs, &b->ndev, &err) != 0) {
			run_note(run, (*ops)->name, "", err.msg);
			continue;
		}
		if (err.msg[0] != '\0')
			run_note(run, (*ops)->name, "", err.msg);
		b->cur = xcalloc(b->ndev, sizeof *b->cur);
		b->acct = xcalloc(b->ndev, sizeof *b->acct);
		b->span_ns = xcalloc(b->ndev, sizeof *b->span_ns);
		b->baseline_mw = xcalloc(b->ndev, sizeof *b->baseline_mw);
		b->thr_power0_ns = xcalloc(b->ndev, sizeof *b->thr_power0_ns);
		b->thr_thermal0_ns = xcalloc(b->ndev, sizeof *b->thr_thermal0_ns);
		b->nnotes0 = xcalloc(b->ndev, sizeof *b->nnotes0);
		for (size_t k = 0; k < b->ndev; k++) {
			b->baseline_mw[k] = NAN;
			b->nnotes0[k] = UINT_MAX;
		}
		run->nbackends++;
	}
	if (devsel_describe(sc->sel, what, sizeof what))
		run_note(run, "joulestat", "", what);
}

void
setup_close(struct run *run)
{
	struct backend	*b;
	size_t		 i;

	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		b->ops->close(b->devs, b->ndev);
		free(b->devs);
		free(b->cur);
		free(b->acct);
		free(b->span_ns);
		free(b->baseline_mw);
		free(b->thr_power0_ns);
		free(b->thr_thermal0_ns);
		free(b->nnotes0);
	}
	free(run->backends);
	free(run->pids.v);
	attrib_free(&run->attrib);
	free(run->leftover);
	free(run->pidfds);
	free(run->inherited_fds);
	run->inherited_fds = NULL;
	setup_drop_cgroup(run);
	proctree_free(&run->tree);
}

void
setup_drop_cgroup(struct run *run)
{
	struct errbuf	err = { "" };

	if (run->tree.cg == NULL)
		return;
	run->tree.cg = NULL;
	watch_fatal(run);
	if (cgroup_remove(&run->cgroup, &err) != 0)
		warnmsg("%s", err.msg);
}

void
setup_finish(struct run *run)
{
	size_t	i;

	reading_finish(run);
	if (run->tree.cg != NULL) {
		run->has_cg_cpu = cgroup_cpu_ns(&run->cgroup, &run->cg_user_ns,
		    &run->cg_sys_ns) == 0;
		run->has_cg_peak = cgroup_peak_kib(&run->cgroup, &run->cg_peak_kib) == 0;
	}
	setup_drop_cgroup(run);
	for (i = 0; i < run->nbackends; i++) {
		if (run->backends[i].is_gone)
			run_note(run, run->backends[i].ops->name, "stopped answering: ",
			    run->backends[i].why_gone.msg);
	}
}

/* The process whose thread tid is (proc_pid_status(5), Tgid), or 0 when unknown. */
static pid_t
thread_group(pid_t tid)
{
	struct proc_status	st;
	char			path[64], text[4096];

	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if (read_file(AT_FDCWD, path, text, sizeof text) < 0 ||
	    procfs_parse_status(text, &st) != 0)
		return 0;
	return st.tgid;
}

/*
 * One pidfd per process, so its end wakes the loop.  Without pidfd_open
 * (kernels before 5.3, or valgrind), the process is checked every tick.
 */
static int
watch_pid(pid_t pid, struct errbuf *err)
{
	pid_t	tgid = thread_group(pid);
	int	fd, e;

	/* A thread id has a /proc entry, but it is no process to wait for. */
	if (tgid > 0 && tgid != pid) {
		errbuf_set(err, "--pid %d: a thread of process %d, not a process", (int)pid,
		    (int)tgid);
		return PIDFD_ENDED;
	}
	if ((fd = (int)syscall(SYS_pidfd_open, pid, 0)) >= 0)
		return fd;
	e = errno;
	if (e == ENOSYS && (kill(pid, 0) == 0 || errno == EPERM))
		return PIDFD_POLLED;
	errbuf_set(err, "--pid %d: %s", (int)pid, e == ESRCH || e == ENOSYS ?
	    "no such process" : strerror(e));
	return PIDFD_ENDED;
}

int
setup_attach(struct run *run, struct errbuf *err)
{
	const pid_t	*pids = run->params.pids;
	size_t		 i, npids = run->params.npids;

	run->is_attach = true;
	run->tracker_used = TRACKER_PROC;	/* processes already running: walked in /proc */
	run->pidfds = xcalloc(npids, sizeof *run->pidfds);
	run->npidfds = npids;
	for (i = 0; i < npids; i++) {
		if ((run->pidfds[i] = watch_pid(pids[i], err)) == PIDFD_ENDED)
			return -1;
	}
	return proctree_init(&run->tree, "/proc", pids, npids, true, err);
}

/* cgroup v2 may not be used: say why and walk /proc, unless --tracker=cgroup. */
static int
cgroup_refused(struct run *run, const struct errbuf *why, struct errbuf *err)
{
	setup_drop_cgroup(run);
	run->tracker_used = TRACKER_PROC;
	if (run->tracker == TRACKER_CGROUP) {
		errbuf_set(err, "--tracker=cgroup: %s", why->msg);
		return -1;
	}
	run->is_cgroup_refused = true;
	run_note(run, "joulestat", "process tree walked in /proc: ", why->msg);
	return 0;
}

void
setup_describe_tracker(enum tracker tracker, const char *cgroup_root, char *buf, size_t size)
{
	struct cgroup	cg;
	struct errbuf	why = { "" };

	if (tracker == TRACKER_PROC) {
		snprintf(buf, size, "proc (walked in /proc, as --tracker asks)");
		return;
	}
	if (cgroup_create(&cg, cgroup_root, &why) == 0) {
		*strrchr(cg.path, '/') = '\0';		/* its parent: joulestat's */
		snprintf(buf, size, "cgroup (the workload's own cgroup v2, under %.400s)", cg.path);
		(void)cgroup_remove(&cg, &why);
		return;
	}
	snprintf(buf, size, "%s: %.400s", tracker == TRACKER_CGROUP ?
	    "none (--tracker=cgroup fails)" : "proc (walked in /proc)", why.msg);
}

/* The run's own cgroup, before the fork, where it may be created. */
static int
try_cgroup(struct run *run, struct errbuf *err)
{
	struct errbuf	why = { "" };

	run->tracker_used = TRACKER_PROC;
	run->has_cg_cpu = run->has_cg_peak = false;
	if (run->tracker == TRACKER_PROC || run->is_cgroup_refused)
		return 0;
	if (cgroup_create(&run->cgroup, run->cgroup_root, &why) != 0)
		return cgroup_refused(run, &why, err);
	run->tree.cg = &run->cgroup;	/* so that a refusal, or running out of memory, removes it */
	watch_fatal(run);
	if (proctree_use_cgroup(&run->tree, &run->cgroup, &why) != 0)
		return cgroup_refused(run, &why, err);
	run->tracker_used = TRACKER_CGROUP;
	return 0;
}

int
setup_launch(struct run *run, const struct sigstate *ss, struct errbuf *err)
{
	struct errbuf	why = { "" };
	pid_t		self = getpid();

	/* As a subreaper we stay the parent of double-forked daemons. */
	if (launch_become_subreaper() != 0)
		warnmsg("cannot become a child subreaper: daemons may escape the tree");
	if (proctree_init(&run->tree, "/proc", &self, 1, false, err) != 0)
		return -1;
	/* The libraries' descriptors (NVML's device files) are not the workload's. */
	launch_seal_fds(run->inherited_fds, run->ninherited_fds);
	/*
	 * What earlier runs left running is still our child: it is theirs,
	 * reported by them, and neither its process nor its CPU time is this run's.
	 */
	memset(&run->excluded_ru, 0, sizeof run->excluded_ru);
	if (try_cgroup(run, err) != 0)
		return -1;
	/* A fresh cgroup holds nothing of theirs: only the /proc walk must set it aside. */
	if (run->tree.cg == NULL)
		proctree_exclude_present(&run->tree, now_ns());
	if (launch_prepare(&run->child, run->params.argv, &ss->old_mask, &ss->old_pipe,
	    run->params.closed_std,
	    run->tree.cg != NULL ? run->cgroup.dirfd : -1, err) != 0) {
		setup_drop_cgroup(run);
		return -1;
	}
	/* Not born there: moved while still corked, so whatever it starts is in it. */
	if (run->tree.cg != NULL && !run->child.is_in_cgroup &&
	    cgroup_enter(&run->cgroup, run->child.pid, &why) != 0 &&
	    cgroup_refused(run, &why, err) != 0) {
		launch_cancel(&run->child);
		return -1;
	}
	return 0;
}

void
setup_launched(struct run *run)
{
	if (run->tree.cg != NULL)
		cgroup_remove_stale(&run->cgroup);
}

void
setup_reset(struct run *run)
{
	struct backend	*b;
	size_t		 i, k;

	setup_drop_cgroup(run);
	proctree_free(&run->tree);
	memset(&run->child, 0, sizeof run->child);
	attrib_reset(&run->attrib);
	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		memset(b->acct, 0, b->ndev * sizeof *b->acct);
		memset(b->span_ns, 0, b->ndev * sizeof *b->span_ns);
		for (k = 0; k < b->ndev; k++) {
			b->thr_power0_ns[k] = b->devs[k].throttle_power_ns;
			b->thr_thermal0_ns[k] = b->devs[k].throttle_thermal_ns;
			/* What finish noted was that run's: its report keeps a copy. */
			if (b->nnotes0[k] < b->devs[k].nnotes)
				b->devs[k].nnotes = b->nnotes0[k];
			b->nnotes0[k] = UINT_MAX;
			b->devs[k].is_use_unseen = false;
		}
	}
	memset(&run->ticks, 0, sizeof run->ticks);
	run->stall_max_ns = 0;
	free(run->leftover);
	run->leftover = NULL;
	run->nleftover = 0;
	run->t0_ns = run->t_end_ns = 0;
}

void
setup_fit_interval(struct run *run, unsigned interval_ms)
{
	const struct device	*d, *worst = NULL;
	size_t			 i, k;
	char			 what[DEVICE_NOTE_LEN];

	run->interval_ms = interval_ms;
	for (i = 0; i < run->nbackends; i++) {
		for (k = 0; k < run->backends[i].ndev; k++) {
			d = &run->backends[i].devs[k];
			if (d->max_gap_ns > 0 &&
			    d->max_gap_ns < (int64_t)run->interval_ms * NSEC_PER_MSEC) {
				run->interval_ms = d->max_gap_ns / NSEC_PER_MSEC > 0 ?
				    (unsigned)(d->max_gap_ns / NSEC_PER_MSEC) : 1;
				worst = d;
			}
		}
	}
	if (worst == NULL)
		return;
	snprintf(what, sizeof what, "sampling every %u ms, not %u ms, so that the counter of %s "
	    "is read before it can wrap", run->interval_ms, interval_ms, worst->id);
	run_note(run, "joulestat", "", what);
}

void
setup_unlock_clocks(struct run *run)
{
	struct backend	*b;
	size_t		 i;

	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		if (b->ops->unlock_clocks != NULL)
			b->ops->unlock_clocks(b->devs, b->ndev);
	}
	run->is_clock_locked = false;
	watch_fatal(run);
}

int
setup_lock_clocks(struct run *run, const struct clock_lock *req, bool is_required)
{
	struct backend		*b;
	struct errbuf		 err = { "" }, one;
	size_t			 i, nlockable = 0;
	int			 rc = 0;

	run->is_clock_locked = true;
	watch_fatal(run);
	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		if (b->ops->lock_clocks == NULL || b->ndev == 0)
			continue;
		nlockable += b->ndev;
		memset(&one, 0, sizeof one);
		if (b->ops->lock_clocks(b->devs, b->ndev, req, &one) != 0 && rc == 0) {
			err = one;
			rc = -1;
		}
	}
	if (nlockable == 0) {
		errbuf_set(&err, "no device whose clocks can be locked");
		rc = -1;
	}
	if (rc == 0)
		return 0;
	if (is_required) {
		warnmsg("--lock-clocks-required: %s", err.msg);
		setup_unlock_clocks(run);
		return -1;
	}
	warnmsg("--lock-clocks: %s; measuring with the clocks as they are", err.msg);
	run_note(run, "joulestat", "--lock-clocks: ", err.msg);
	return 0;
}

int
setup_take_devices(struct run *run, struct exclusive *ex, double wait_s, int sigfd)
{
	const char	**ids = NULL;
	struct errbuf	  err = { "" };
	size_t		  i, k, n = 0;
	int		  rc;

	for (i = 0; i < run->nbackends; i++) {
		for (k = 0; k < run->backends[i].ndev; k++) {
			ids = xreallocarray(ids, n + 1, sizeof *ids);
			ids[n++] = run->backends[i].devs[k].id;
		}
	}
	rc = exclusive_take(ex, ids, n, wait_s, sigfd, &err);
	free(ids);
	if (rc < 0)
		warnmsg("%s", err.msg);
	else if (rc > 0)
		warnmsg("signal %d while waiting for --exclusive: the command was not run", rc);
	return rc;
}

size_t
setup_ndev(const struct run *run)
{
	size_t	i, n = 0;

	for (i = 0; i < run->nbackends; i++)
		n += run->backends[i].ndev;
	return n;
}
