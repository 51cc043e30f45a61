/*
 * joulestat: parse options into struct config, set up the devices and the
 * workload, run the tick loop, write the report, and map the outcome to an
 * exit status.  This is the only place that decides the exit status
 * (STYLE §6 rule 1), using the values of exitcode.h (DESIGN §1).
 */
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/account.h"
#include "joulestat/config.h"
#include "joulestat/csvout.h"
#include "joulestat/devsel.h"
#include "joulestat/exclusive.h"
#include "joulestat/exitcode.h"
#include "joulestat/gate.h"
#include "joulestat/jsonout.h"
#include "joulestat/launch.h"
#include "joulestat/loop.h"
#include "joulestat/merge.h"
#include "joulestat/proctree.h"
#include "joulestat/report.h"
#include "joulestat/text.h"
#include "joulestat/run.h"
#include "joulestat/source.h"
#include "joulestat/timeline.h"
#include "joulestat/util.h"

/* Signal state saved before the loop takes signals over, restored in the child. */
struct sigstate {
	sigset_t		old_mask;
	struct sigaction	old_pipe;
	int			sigfd;
};

static int
usage_error(const char *msg)
{
	warnmsg("%s", msg);
	fprintf(stderr, "%s\n", config_usage());
	return EXIT_TOOL;
}

/* A run-level line of the report: "BACKEND: WHAT MSG". */
static void
add_note(struct run *run, const char *backend, const char *what, const char *msg)
{
	if (run->nnotes < ARRAY_SIZE(run->notes))
		snprintf(run->notes[run->nnotes++], sizeof run->notes[0], "%s: %s%s", backend,
		    what, msg);
}

/* Probe every backend of the table; one that fails becomes a note, not an error. */
static void
probe_all(struct run *run)
{
	const struct source_ops *const	*ops;
	struct backend			*b;
	struct errbuf			 err;

	for (ops = sources; *ops != NULL; ops++) {
		run->backends = xreallocarray(run->backends, run->nbackends + 1, sizeof *b);
		b = &run->backends[run->nbackends];
		memset(b, 0, sizeof *b);
		memset(&err, 0, sizeof err);
		b->ops = *ops;
		if ((*ops)->probe(&run->cfg->sources, &b->devs, &b->ndev, &err) != 0) {
			add_note(run, (*ops)->name, "", err.msg);
			continue;
		}
		if (err.msg[0] != '\0')
			add_note(run, (*ops)->name, "", err.msg);
		b->cur = xcalloc(b->ndev, sizeof *b->cur);
		b->acct = xcalloc(b->ndev, sizeof *b->acct);
		b->span_ns = xcalloc(b->ndev, sizeof *b->span_ns);
		b->baseline_mw = xcalloc(b->ndev, sizeof *b->baseline_mw);
		b->thr_power0_ns = xcalloc(b->ndev, sizeof *b->thr_power0_ns);
		b->thr_thermal0_ns = xcalloc(b->ndev, sizeof *b->thr_thermal0_ns);
		for (size_t k = 0; k < b->ndev; k++)
			b->baseline_mw[k] = NAN;
		run->nbackends++;
	}
}

static void
close_all(struct run *run)
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
	}
	free(run->backends);
	free(run->pids.v);
	account_pid_free(&run->pidacct);
	free(run->scratch.idx);
	free(run->scratch.sm);
	free(run->scratch.mem);
	free(run->scratch.a);
	free(run->scratch.b);
	free(run->scratch.cand);
	free(run->leftover);
	free(run->pidfds);
	proctree_free(&run->tree);
}

static void
finish_all(struct run *run)
{
	size_t	i;

	loop_finish(run);
	for (i = 0; i < run->nbackends; i++) {
		if (run->backends[i].is_gone)
			add_note(run, run->backends[i].ops->name, "stopped answering: ",
			    run->backends[i].why_gone.msg);
	}
}

/* -d: every entry must have matched a device of some backend. */
static int
check_selection(struct run *run, struct errbuf *err)
{
	return devsel_check(run->cfg->sources.sel, err);
}

static int
signals_take(struct sigstate *ss, struct errbuf *err)
{
	struct sigaction	ign = { .sa_handler = SIG_IGN };
	sigset_t		set;

	loop_signal_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, &ss->old_mask) == -1 ||
	    (ss->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) == -1) {
		errbuf_set(err, "signalfd: %s", strerror(errno));
		return -1;
	}
	/* A closed report pipe must not kill us before the workload's status is out. */
	sigaction(SIGPIPE, &ign, &ss->old_pipe);
	return 0;
}

/*
 * One pidfd per process, so its end wakes the loop.  Without pidfd_open
 * (kernels before 5.3, or valgrind), the process is checked every tick.
 */
static int
watch_pid(pid_t pid, struct errbuf *err)
{
	int	fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd >= 0)
		return fd;
	if (errno == ENOSYS && (kill(pid, 0) == 0 || errno == EPERM))
		return PIDFD_POLLED;
	errbuf_set(err, "--pid %d: %s", (int)pid, errno == ESRCH || errno == ENOSYS ?
	    "no such process" : strerror(errno));
	return PIDFD_ENDED;
}

static int
attach(struct run *run, struct errbuf *err)
{
	const struct config	*cfg = run->cfg;
	size_t			 i;

	run->is_attach = true;
	run->pidfds = xcalloc(cfg->npids, sizeof *run->pidfds);
	run->npidfds = cfg->npids;
	for (i = 0; i < cfg->npids; i++) {
		if ((run->pidfds[i] = watch_pid(cfg->pids[i], err)) == PIDFD_ENDED)
			return -1;
	}
	return proctree_init(&run->tree, "/proc", cfg->pids, cfg->npids, true, err);
}

static int
launch(struct run *run, const struct sigstate *ss, struct errbuf *err)
{
	pid_t	self = getpid();

	/* As a subreaper we stay the parent of double-forked daemons. */
	if (launch_become_subreaper() != 0)
		warnmsg("cannot become a child subreaper: daemons may escape the tree");
	if (proctree_init(&run->tree, "/proc", &self, 1, false, err) != 0)
		return -1;
	return launch_prepare(&run->child, run->cfg->argv, &ss->old_mask, &ss->old_pipe, err);
}

/* What the runs hold from before the first to after the last. */
struct prep {
	struct baseline		base;		/* --baseline */
	bool			has_base;
	struct exclusive	ex;		/* --exclusive */
};

/* Every output of a run, opened before it starts so a bad path is known at once. */
struct outputs {
	FILE		*report;	/* text or -x CSV; NULL with -q */
	FILE		*csv;
	FILE		*json;
	struct timeline	 timeline;
	bool		 has_timeline;
	char		*plot_tool;	/* --plot: joulestat-plot, found before the run */
	char		*plot_timeline;	/* the timeline it draws, a temporary file without --timeline */
	sigset_t	 child_mask;	/* the signal mask joulestat started with */
	bool		 is_pipe_dfl;	/* ... and SIGPIPE had its default action */
	bool		 is_failed;	/* some output could not be opened or written */
};

static FILE *
open_output(const char *path, bool *is_failed)
{
	FILE	*f;

	if (path == NULL)
		return stderr;
	if (strcmp(path, "-") == 0)
		return stdout;
	if ((f = fopen(path, "w")) == NULL) {
		warnmsg("%s: %s", path, strerror(errno));
		*is_failed = true;
	}
	return f;
}

/* An executable called name in dir, or NULL. */
static char *
find_in(const char *dir, size_t len, const char *name)
{
	char	*path;

	xasprintf(&path, "%.*s/%s", (int)len, dir, name);
	if (access(path, X_OK) == 0)
		return path;
	free(path);
	return NULL;
}

/* name next to the joulestat binary, else in PATH. */
static char *
find_tool(const char *name)
{
	char		 self[4096], *slash, *found;
	const char	*path = getenv("PATH"), *p, *end;
	ssize_t		 n;

	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL &&
		    (found = find_in(self, (size_t)(slash - self), name)) != NULL)
			return found;
	}
	for (p = path != NULL ? path : ""; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end > p && (found = find_in(p, (size_t)(end - p), name)) != NULL)
			return found;
	}
	return NULL;
}

/* Remove the temporary timeline of --plot. */
static void
plot_forget(struct outputs *o)
{
	if (o->plot_timeline != NULL)
		unlink(o->plot_timeline);
	free(o->plot_timeline);
	free(o->plot_tool);
	o->plot_timeline = o->plot_tool = NULL;
}

/*
 * --plot needs joulestat-plot and gnuplot; without them the run goes on
 * and says why there will be no plot.  Without --timeline, the timeline
 * is written to a temporary file.
 */
static const char *
plot_prepare(struct outputs *o, const struct config *cfg)
{
	char	*gnuplot, *tmp, unique[7];
	int	 fd;

	if ((o->plot_tool = find_tool("joulestat-plot")) == NULL) {
		warnmsg("--plot: joulestat-plot not found next to joulestat or in PATH: no plot");
		return cfg->timeline_path;
	}
	if ((gnuplot = find_tool("gnuplot")) == NULL) {
		warnmsg("--plot: gnuplot is not installed (apt-get install gnuplot-nox): no plot");
		plot_forget(o);
		return cfg->timeline_path;
	}
	free(gnuplot);
	/* config refuses --timeline=- with --plot: a timeline path is a file. */
	if (cfg->timeline_path != NULL)
		return cfg->timeline_path;
	/* The six characters mkstemps replaces. */
	memset(unique, 'X', sizeof unique - 1);
	unique[sizeof unique - 1] = '\0';
	xasprintf(&tmp, "%s/joulestat-plot-%s.csv", temp_dir(), unique);
	if ((fd = mkstemps(tmp, 4)) == -1) {
		warnmsg("--plot: %s: %s", tmp, strerror(errno));
		o->is_failed = true;
		free(tmp);
		plot_forget(o);
		return cfg->timeline_path;
	}
	close(fd);
	o->plot_timeline = tmp;
	return tmp;
}

static void
outputs_open(struct outputs *o, const struct config *cfg)
{
	struct errbuf	 err = { "" };
	const char	*timeline = cfg->timeline_path;

	memset(o, 0, sizeof *o);
	o->timeline.fd = -1;
	if (cfg->plot_path != NULL)
		timeline = plot_prepare(o, cfg);
	if (!cfg->is_quiet)
		o->report = open_output(cfg->output, &o->is_failed);
	if (cfg->csv_path != NULL)
		o->csv = open_output(cfg->csv_path, &o->is_failed);
	if (cfg->json_path != NULL)
		o->json = open_output(cfg->json_path, &o->is_failed);
	if (timeline != NULL) {
		o->has_timeline = timeline_open(&o->timeline, timeline, &err) == 0;
		if (!o->has_timeline) {
			warnmsg("%s", err.msg);
			o->is_failed = true;
		}
	}
}

/* An output whose file was removed during the run (its directory vanished) is lost. */
static int
check_linked(FILE *f)
{
	return f != stdout && f != stderr && fd_is_unlinked(fileno(f)) ? -ENOENT : 0;
}

static void
close_output(FILE *f, const char *path, int werr, bool *is_failed)
{
	if (f == NULL)
		return;
	if (werr == 0)
		werr = check_linked(f);
	if (f != stdout && f != stderr && fclose(f) != 0 && werr == 0)
		werr = -errno;
	if (werr != 0) {
		warnmsg("%s: %s", path != NULL ? path : "standard error", strerror(-werr));
		*is_failed = true;
	}
}

static void outputs_abandon(struct outputs *);

/*
 * A failed gate is also said on stderr when the text report is not there
 * to show it (-q, -o, -x), so a CI log always names the gate.
 */
static void
say_failed_gates(const struct config *cfg, const struct gate_set *gates)
{
	char	line[512];
	size_t	i;

	if (!cfg->is_quiet && cfg->output == NULL && cfg->field_sep == NULL)
		return;
	for (i = 0; i < gates->n; i++) {
		if (gates->v[i].verdict == GATE_PASS)
			continue;
		gate_failure_line(&gates->v[i], line, sizeof line);
		warnmsg("%s", line);
	}
}

/* Run joulestat-plot on the finished timeline; its failure is an output failure. */
static void
draw_plot(struct outputs *o, const struct config *cfg)
{
	posix_spawnattr_t	 attr;
	sigset_t		 dfl;
	char			 dash_o[] = "-o", dashes[] = "--";
	char			*argv[] = { o->plot_tool, dash_o, (char *)cfg->plot_path, dashes,
				    NULL, NULL };
	pid_t			 pid;
	int			 st = 0, rc;

	argv[4] = o->plot_timeline != NULL ? o->plot_timeline : (char *)cfg->timeline_path;
	/* The signals as joulestat found them: SIGPIPE is ignored only here. */
	sigemptyset(&dfl);
	if (o->is_pipe_dfl)
		sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &o->child_mask);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&pid, o->plot_tool, NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (rc != 0)
		warnmsg("--plot: %s: %s", o->plot_tool, strerror(rc));
	else {
		while ((rc = (int)waitpid(pid, &st, 0)) == -1 && errno == EINTR)
			;
		rc = rc == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
		if (rc != 0)
			warnmsg("--plot: joulestat-plot failed: no plot in %s", cfg->plot_path);
	}
	o->is_failed |= rc != 0;
}

/* Write every requested form of reps and close everything. */
static void
outputs_write(struct outputs *o, const struct config *cfg, const struct report *reps,
    size_t nreps, const struct gate_set *gates)
{
	struct series	s;
	int		werr = 0;

	if (nreps == 0) {
		outputs_abandon(o);
		return;
	}
	report_series(&s, reps, nreps);
	if (o->report != NULL) {
		if (cfg->field_sep != NULL)
			werr = csvout_summary(o->report, reps, nreps, &s, gates, cfg->field_sep);
		else if ((werr = report_write_text(o->report, reps, nreps, &s)) == 0)
			werr = gate_write_text(o->report, gates);
	}
	close_output(o->report, cfg->output, werr, &o->is_failed);
	say_failed_gates(cfg, gates);
	werr = o->csv != NULL ? csvout_summary(o->csv, reps, nreps, &s, gates, ",") : 0;
	close_output(o->csv, cfg->csv_path, werr, &o->is_failed);
	werr = o->json != NULL ? jsonout_write(o->json, reps, nreps, &s, gates) : 0;
	close_output(o->json, cfg->json_path, werr, &o->is_failed);
	if (o->has_timeline && (werr = timeline_close(&o->timeline)) != 0) {
		warnmsg("%s: %s", o->plot_timeline != NULL ? o->plot_timeline : cfg->timeline_path,
		    strerror(-werr));
		o->is_failed = true;
	}
	if (o->plot_tool != NULL && o->has_timeline && werr == 0)
		draw_plot(o, cfg);
	plot_forget(o);
	report_series_free(&s);
}

/* Close without writing: the run never started. */
static void
outputs_abandon(struct outputs *o)
{
	FILE	*const files[] = { o->report, o->csv, o->json };
	size_t	 i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (files[i] != NULL && files[i] != stdout && files[i] != stderr)
			fclose(files[i]);
	}
	if (o->has_timeline)
		timeline_close(&o->timeline);
	plot_forget(o);
}

static void
exec_failed(const struct run *run)
{
	char	name[128];

	warnmsg("cannot run '%s': %s", visible(run->cfg->argv[0], name, sizeof name),
	    strerror(run->child.exec_errno));
}

/*
 * The workload's status always wins; joulestat's own failure (125) is only
 * reported when the workload itself succeeded, and a failed gate only
 * when neither the workload nor joulestat failed.
 */
static int
exit_status(int workload, bool is_output_failed, int gate)
{
	if (workload != 0)
		return workload;
	return is_output_failed ? EXIT_TOOL : gate;
}

/* Forget everything of the previous run but the devices and the outputs. */
static void
run_reset(struct run *run)
{
	struct backend	*b;
	size_t		 i, k;

	proctree_free(&run->tree);
	memset(&run->child, 0, sizeof run->child);
	account_pid_free(&run->pidacct);
	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		memset(b->acct, 0, b->ndev * sizeof *b->acct);
		memset(b->span_ns, 0, b->ndev * sizeof *b->span_ns);
		for (k = 0; k < b->ndev; k++) {
			b->thr_power0_ns[k] = b->devs[k].throttle_power_ns;
			b->thr_thermal0_ns[k] = b->devs[k].throttle_thermal_ns;
		}
	}
	memset(&run->ticks, 0, sizeof run->ticks);
	run->stall_max_ns = 0;
	free(run->leftover);
	run->leftover = NULL;
	run->nleftover = 0;
	run->t0_ns = run->t_end_ns = 0;
}

/*
 * One run: start the workload corked, take the first reading, release it,
 * loop until it ends, and build its report.  Returns 0, or -1 when the
 * workload could not even be forked.
 */
static int
run_once(struct run *run, struct sigstate *ss, struct report *rep, bool *is_failed)
{
	struct errbuf	err = { "" };

	getrusage(RUSAGE_CHILDREN, &run->children_ru0);
	getrusage(RUSAGE_SELF, &run->self_ru0);
	if (!run->is_attach && launch(run, ss, &err) != 0) {
		warnmsg("%s", err.msg);
		return -1;
	}
	run->t0_ns = now_ns();
	run->t0_unix_ns = realtime_ns();
	loop_sample(run, run->t0_ns);
	if (!run->is_attach && launch_start(&run->child) != 0)
		exec_failed(run);
	if (loop_run(run, ss->sigfd, &err) != 0) {
		warnmsg("%s", err.msg);
		*is_failed = true;
	}
	finish_all(run);
	getrusage(RUSAGE_SELF, &run->self_ru);
	report_build(rep, run);
	return 0;
}

/* --cooldown: idle between runs.  False when a signal asks to stop. */
static bool
cool_down(const struct run *run, int sigfd)
{
	struct pollfd	pfd = { .fd = sigfd, .events = POLLIN };
	int64_t		end = now_ns() + (int64_t)(run->cfg->cooldown_s * 1e9), left;

	while ((left = end - now_ns()) > 0) {
		if (poll(&pfd, 1, (int)(left / NSEC_PER_MSEC) + 1) > 0)
			return false;
	}
	return true;
}

/*
 * Warm-up runs, then the measured ones (-r).  A run that fails stops the
 * series, and its status is the series' status.  Returns that status, or
 * EXIT_TOOL when a run could not be started.
 */
static int
run_series(struct run *run, struct sigstate *ss, struct report *reps, size_t *nreps,
    bool *is_failed)
{
	const struct config	*cfg = run->cfg;
	struct report		 rep;
	unsigned		 k;
	int			 status = 0;

	for (k = 0; k < cfg->warmup + cfg->repeat && status == 0; k++) {
		if (k > 0) {
			if (cfg->cooldown_s > 0 && !cool_down(run, ss->sigfd))
				break;
			run_reset(run);
		}
		run->index = k >= cfg->warmup ? k - cfg->warmup + 1 : 0;
		if (run_once(run, ss, &rep, is_failed) != 0)
			return EXIT_TOOL;
		status = rep.exit_status;
		if (run->index > 0)
			reps[(*nreps)++] = rep;
		else
			report_free(&rep);
		if (status != 0 && run->index == 0)
			warnmsg("warm-up run %u failed with status %d: nothing was measured", k + 1,
			    status);
	}
	return status;
}

/*
 * Counters that wrap (RAPL) or that the driver only extends when read
 * must be read at least every max_gap_ns: a longer -i is shortened to
 * that, and the report says so.
 */
static void
fit_interval(struct run *run)
{
	const struct device	*d, *worst = NULL;
	size_t			 i, k;
	char			 what[DEVICE_NOTE_LEN];

	run->interval_ms = run->cfg->interval_ms;
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
	    "is read before it can wrap", run->interval_ms, run->cfg->interval_ms, worst->id);
	add_note(run, "joulestat", "", what);
}

/* The run whose clocks are locked, for the out-of-memory exit. */
static struct run	*locked_run;

/* Undo --lock-clocks on every device; harmless when nothing is locked. */
static void
unlock_clocks(struct run *run)
{
	struct backend	*b;
	size_t		 i;

	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		if (b->ops->unlock_clocks != NULL)
			b->ops->unlock_clocks(b->devs, b->ndev);
	}
	locked_run = NULL;
	util_on_fatal(NULL);
}

static void
unlock_on_fatal(void)
{
	if (locked_run != NULL)
		unlock_clocks(locked_run);
}

/*
 * --lock-clocks: lock what can be locked.  A device that cannot be locked
 * is a warning and a note in the report, or with --lock-clocks-required
 * the end of the run before it starts (everything locked is undone).
 */
static int
lock_clocks(struct run *run)
{
	const struct config	*cfg = run->cfg;
	struct backend		*b;
	struct errbuf		 err = { "" }, one;
	size_t			 i, nlockable = 0;
	int			 rc = 0;

	locked_run = run;
	util_on_fatal(unlock_on_fatal);
	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		if (b->ops->lock_clocks == NULL || b->ndev == 0)
			continue;
		nlockable += b->ndev;
		memset(&one, 0, sizeof one);
		if (b->ops->lock_clocks(b->devs, b->ndev, &cfg->lock, &one) != 0 && rc == 0) {
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
	if (cfg->is_lock_required) {
		warnmsg("--lock-clocks-required: %s", err.msg);
		unlock_clocks(run);
		return -1;
	}
	warnmsg("--lock-clocks: %s; measuring with the clocks as they are", err.msg);
	add_note(run, "joulestat", "--lock-clocks: ", err.msg);
	return 0;
}

/* --exclusive: wait for every measured device.  0, EXIT_TOOL, or 128 + a signal. */
static int
take_devices(struct run *run, struct exclusive *ex, int sigfd)
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
	rc = exclusive_take(ex, ids, n, run->cfg->exclusive_wait_s, sigfd, &err);
	free(ids);
	if (rc < 0)
		warnmsg("%s", err.msg);
	return rc < 0 ? EXIT_TOOL : rc > 0 ? EXIT_SIGNAL_BASE + rc : 0;
}

/*
 * Everything before the first run: the baseline, outputs, devices and
 * their selection, the device locks, clock locks, the idle baseline.
 * Returns 0, or the exit status to end with.
 */
static int
prepare(struct run *run, struct outputs *o, struct prep *p, int sigfd)
{
	const struct config	*cfg = run->cfg;
	struct errbuf		 err = { "" };
	int			 rc;

	if (cfg->gate.baseline_path != NULL) {
		if (baseline_load(&p->base, cfg->gate.baseline_path, &err) != 0) {
			warnmsg("%s", err.msg);
			return EXIT_TOOL;
		}
		p->has_base = true;
	}
	probe_all(run);
	if (check_selection(run, &err) != 0) {
		warnmsg("--devices: %s", err.msg);
		return EXIT_TOOL;
	}
	fit_interval(run);
	/* Before the outputs are opened: giving up on a lock must not empty them. */
	if (cfg->is_exclusive && (rc = take_devices(run, &p->ex, sigfd)) != 0)
		return rc;
	outputs_open(o, cfg);
	run->timeline = o->has_timeline ? &o->timeline : NULL;
	if (cfg->lock.kind != CLOCK_LOCK_NONE && lock_clocks(run) != 0)
		return EXIT_TOOL;
	if (cfg->npids > 0 && attach(run, &err) != 0) {
		warnmsg("%s", err.msg);
		return EXIT_TOOL;
	}
	if (cfg->idle_baseline_s > 0 && (rc = loop_baseline(run, cfg->idle_baseline_s, sigfd)) != 0) {
		warnmsg("signal %d during --idle-baseline: the command was not run", rc);
		return EXIT_SIGNAL_BASE + rc;
	}
	return 0;
}

/* What prepare takes before the runs and run_command gives back after them. */
static void
prep_release(struct run *run, struct prep *p)
{
	unlock_clocks(run);
	exclusive_release(&p->ex);
	if (p->has_base)
		baseline_free(&p->base);
	p->has_base = false;
}

static int
run_command(const struct config *cfg)
{
	struct run	 run = { .cfg = cfg, .interval_ms = cfg->interval_ms,
			     .weights = { cfg->w_sm, cfg->w_mem } };
	struct report	*reps;
	struct sigstate	 ss;
	struct outputs	 o;
	struct prep	 p = { .has_base = false };
	struct gate_set	 gates = { NULL, 0, 0 };
	struct errbuf	 err = { "" };
	size_t		 nreps = 0, i;
	int		 status;

	if (signals_take(&ss, &err) != 0) {
		warnmsg("%s", err.msg);
		return EXIT_TOOL;
	}
	memset(&o, 0, sizeof o);
	o.timeline.fd = -1;
	if ((status = prepare(&run, &o, &p, ss.sigfd)) != 0) {
		prep_release(&run, &p);
		outputs_abandon(&o);
		close_all(&run);
		close(ss.sigfd);
		return status;
	}
	o.child_mask = ss.old_mask;
	o.is_pipe_dfl = ss.old_pipe.sa_handler == SIG_DFL;
	reps = xcalloc(cfg->repeat, sizeof *reps);
	status = run_series(&run, &ss, reps, &nreps, &o.is_failed);
	if (nreps > 0)
		gate_judge(&gates, &cfg->gate, reps, nreps, p.has_base ? &p.base : NULL);
	/* Clocks and devices go back before the outputs are written. */
	prep_release(&run, &p);
	outputs_write(&o, cfg, reps, nreps, &gates);
	status = exit_status(status, o.is_failed, gates.nfailed > 0 ? cfg->gate.exit_code : 0);
	gate_set_free(&gates);
	for (i = 0; i < nreps; i++)
		report_free(&reps[i]);
	free(reps);
	close_all(&run);
	close(ss.sigfd);
	return status;
}

static void
list_one(const struct device *d, size_t i, const char *backend)
{
	unsigned	k;

	printf("%zu: %s  %s\n", i, d->name, d->id);
	printf("   backend %s (its index %u), bus %s%s%s\n", backend, d->index,
	    d->bus_id[0] != '\0' ? d->bus_id : "none", d->version[0] != '\0' ? ", " : "",
	    d->version);
	printf("   measures: %s\n", d->how[0] != '\0' ? d->how : "nothing");
	for (k = 0; k < d->nnotes; k++)
		printf("   note: %s\n", d->notes[k]);
}

static int
list_devices(const struct config *cfg)
{
	struct run	run = { .cfg = cfg };
	size_t		i, k, n = 0;

	probe_all(&run);
	for (i = 0; i < run.nbackends; i++) {
		for (k = 0; k < run.backends[i].ndev; k++)
			list_one(&run.backends[i].devs[k], n++, run.backends[i].ops->name);
	}
	if (n == 0)
		printf("no devices found\n");
	for (i = 0; i < run.nnotes; i++)
		printf("%s\n", run.notes[i]);
	close_all(&run);
	return 0;
}

/*
 * Started with stdin, stdout or stderr closed, the files joulestat opens
 * would take those numbers and the workload would write into them: hold
 * them with /dev/null first.
 */
static void
hold_std_fds(void)
{
	int	fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) == -1)
			return;
	}
}

int
main(int argc, char **argv)
{
	struct config	cfg;
	struct errbuf	err = { "" };
	int		status = 0;

	hold_std_fds();
	/* A command called merge runs as "joulestat -- merge". */
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return merge_main(argc - 1, argv + 1);

	if (config_parse(&cfg, argc, (const char **)argv, &err) != 0) {
		config_free(&cfg);
		return usage_error(err.msg);
	}
	switch (cfg.action) {
	case ACTION_HELP:
		fputs(cfg.text, stdout);
		break;
	case ACTION_LIST_DEVICES:
		status = list_devices(&cfg);
		break;
	case ACTION_RUN:
		status = run_command(&cfg);
		break;
	}
	config_free(&cfg);
	return status;
}
