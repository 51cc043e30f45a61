/*
 * The run command: joulestat [options] [--] COMMAND, or -p PID.  Set-up,
 * the series of runs (-r, --warmup, --cooldown), gates and outputs; how it
 * all ended goes to exitcode_of() (HACKING.md, "Exit status").
 */
#include "joulestat/commands.h"

#include <sys/resource.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/config.h"
#include "joulestat/devsel.h"
#include "joulestat/exitcode.h"
#include "joulestat/gate.h"
#include "joulestat/launch.h"
#include "joulestat/live.h"
#include "joulestat/loop.h"
#include "joulestat/marks.h"
#include "joulestat/outputs.h"
#include "joulestat/reading.h"
#include "joulestat/report.h"
#include "joulestat/run.h"
#include "joulestat/setup.h"
#include "joulestat/signals.h"
#include "joulestat/timeline.h"
#include "joulestat/util.h"

/* Where each reading goes: the timeline, and what is shown as the run goes. */
struct sinks {
	struct timeline		*timeline;	/* NULL without --timeline */
	struct live		*live;		/* NULL without -I or a status line */
};

/* What the runs hold from before the first to after the last. */
struct prep {
	struct baseline		base;		/* --baseline */
	bool			has_base;
	struct exclusive	ex;		/* --exclusive */
	struct live		live;		/* -I, the status line */
	struct sinks		sinks;
};

/* One timeline row per device of this reading; warm-up runs are not reported. */
static void
write_timeline(struct timeline *tl, const struct run *run, const struct backend *b)
{
	enum timeline_status	 st;
	size_t			 i;

	if (run->index == 0)
		return;
	for (i = 0; i < b->ndev; i++) {
		st = b->cur[i].is_lost ? TIMELINE_LOST : run->is_late ? TIMELINE_LATE : TIMELINE_OK;
		timeline_row(tl, run->index, run->t0_ns, &b->devs[i], &b->cur[i],
		    &b->acct[i], st, phases_current(&run->phases));
	}
}

/* The loop's callback. */
static void
on_reading(void *arg, const struct run *run, const struct backend *b, size_t dev_base)
{
	struct sinks	*sk = arg;

	if (sk->timeline != NULL)
		write_timeline(sk->timeline, run, b);
	if (sk->live != NULL)
		live_reading(sk->live, run, b, dev_base);
}

static void
exec_failed(const struct run *run)
{
	char	name[128], cause[256];

	warnmsg("cannot run '%s': %s", visible(run->params.argv[0], name, sizeof name),
	    launch_exec_cause(run->params.argv[0], run->child.exec_errno, cause, sizeof cause));
}

/*
 * One run: start the workload corked, take the first reading, release it,
 * loop until it ends, and build its report.  Returns 0, or -1 when the
 * workload could not even be forked.
 */
static int
run_once(struct run *run, struct sigstate *ss, struct live *lv, struct report *rep,
    bool *is_failed)
{
	struct errbuf	err = { "" };

	getrusage(RUSAGE_CHILDREN, &run->children_ru0);
	getrusage(RUSAGE_SELF, &run->self_ru0);
	if (!run->is_attach && setup_launch(run, ss, &err) != 0) {
		warnmsg("%s", err.msg);
		return -1;
	}
	run->t0_ns = now_ns();
	run->t0_unix_ns = realtime_ns();
	phases_init(&run->phases, setup_ndev(run));
	reading_first(run, run->t0_ns);
	if (!run->is_attach && launch_start(&run->child) != 0)
		exec_failed(run);
	else if (!run->is_attach)
		proctree_fresh_name(&run->tree, run->child.pid, now_ns(), 0);
	if (!run->is_attach)
		setup_launched(run);
	if (loop_run(run, ss->sigfd, &err) != 0) {
		live_clear(lv);
		warnmsg("%s", err.msg);
		*is_failed = true;
	}
	marks_finish(run);
	live_clear(lv);
	setup_finish(run);
	getrusage(RUSAGE_SELF, &run->self_ru);
	report_build(rep, run);
	phases_free(&run->phases);
	return 0;
}

/*
 * Warm-up runs, then the measured ones (-r).  A run that fails stops the
 * series, and its status is the series' status.  A stop signal before a
 * run (pending since set-up, or during --cooldown) or during a run that
 * still succeeded stops it too, in *sig.  Returns the status, or -1 when a
 * run could not be started.
 */
static int
run_series(struct run *run, const struct config *cfg, struct sigstate *ss, struct live *lv,
    struct report *reps, size_t *nreps, bool *is_failed, int *sig)
{
	struct report	rep;
	unsigned	k, done = 0, total = cfg->warmup + cfg->repeat;
	int		status = 0, seen;

	for (k = 0; k < total && status == 0; k++) {
		/* The one wait between runs; with no --cooldown, a look at what is pending. */
		*sig = wait_for_signal(ss->sigfd, k > 0 && cfg->cooldown_s > 0 ?
		    now_ns() + (int64_t)(cfg->cooldown_s * 1e9) : 0);
		if (*sig != 0)
			break;
		if (k > 0)
			setup_reset(run);
		run->index = k >= cfg->warmup ? k - cfg->warmup + 1 : 0;
		seen = run->signals_seen;
		if (run_once(run, ss, lv, &rep, is_failed) != 0)
			return -1;
		done++;
		status = rep.exit_status;
		if (run->index > 0)
			reps[(*nreps)++] = rep;
		else
			report_free(&rep);
		if (status != 0 && run->index == 0)
			warnmsg("warm-up run %u failed with status %d: nothing was measured", k + 1,
			    status);
		if (status == 0 && !run->is_attach && run->signals_seen > seen && k + 1 < total) {
			*sig = run->last_signal;
			break;
		}
	}
	if (*sig != 0 && done > 0)
		warnmsg("signal %d: the series was interrupted after %u of %u runs", *sig, done,
		    total);
	else if (*sig != 0 && run->is_attach)
		warnmsg("signal %d before the measurement started: nothing was measured", *sig);
	else if (*sig != 0)
		warnmsg("signal %d before the command started: it was not run", *sig);
	return status;
}

/*
 * Everything before the first run: the baseline, devices and their
 * selection, the device locks, clock locks, the idle baseline, then the
 * outputs.
 * Returns 0, -1 when set-up failed (after saying why), or the number of
 * a signal that ended it.
 */
static int
prepare(struct run *run, const struct config *cfg, struct outputs *o, struct prep *p,
    int sigfd)
{
	struct errbuf	err = { "" };
	int		rc;

	if (cfg->gate.baseline_path != NULL) {
		if (baseline_load(&p->base, cfg->gate.baseline_path, &err) != 0) {
			warnmsg("%s", err.msg);
			return -1;
		}
		p->has_base = true;
	}
	setup_probe(run, &cfg->sources);
	if (devsel_check(cfg->sources.sel, &err) != 0) {
		warnmsg("--devices: %s", err.msg);
		return -1;
	}
	setup_fit_interval(run, cfg->interval_ms);
	if (cfg->is_exclusive &&
	    (rc = setup_take_devices(run, &p->ex, cfg->exclusive_wait_s, sigfd)) != 0)
		return rc;
	if (cfg->lock.kind != CLOCK_LOCK_NONE &&
	    setup_lock_clocks(run, &cfg->lock, cfg->is_lock_required) != 0)
		return -1;
	if (cfg->npids > 0 && setup_attach(run, &err) != 0) {
		warnmsg("%s", err.msg);
		return -1;
	}
	if (cfg->idle_baseline_s > 0 &&
	    (rc = reading_idle_baseline(run, cfg->idle_baseline_s, sigfd)) != 0) {
		warnmsg("signal %d during --idle-baseline: the command was not run", rc);
		return rc;
	}
	/*
	 * The outputs last: a set-up that gives up (a lock, a clock lock, an
	 * attach, a signal during the baseline) must not empty the timeline,
	 * which is written in place.  One that cannot be created is still
	 * said before the workload runs.
	 */
	outputs_open(o);
	if (o->is_failed)
		return -1;
	/* The workload's phase marks (-p processes cannot be told where); without them, a note. */
	if (cfg->npids == 0 && marks_open(&run->marks, &err) != 0)
		run_note(run, "phases", "not available: ", err.msg);
	/* The status line only on a terminal: never into a file or a pipe. */
	live_init(&p->live, STDERR_FILENO, cfg->print_ms, !cfg->out.is_quiet &&
	    isatty(STDERR_FILENO), cfg->repeat);
	p->sinks.timeline = o->has_timeline ? &o->timeline : NULL;
	p->sinks.live = live_is_on(&p->live) ? &p->live : NULL;
	if (p->sinks.timeline != NULL || p->sinks.live != NULL) {
		run->on_reading = on_reading;
		run->on_reading_arg = &p->sinks;
	}
	return 0;
}

/* What prepare takes before the runs and cmd_run gives back after them. */
static void
prep_release(struct run *run, struct prep *p)
{
	live_free(&p->live);
	setup_unlock_clocks(run);
	marks_close(&run->marks);
	exclusive_release(&p->ex);
	if (p->has_base)
		baseline_free(&p->base);
	p->has_base = false;
}

int
cmd_run(const struct config *cfg)
{
	struct run	 run = {
		.params = { cfg->argv, cfg->argc, cfg->pids, cfg->npids, cfg->idle, cfg->nidle,
		    cfg->is_exclusive, &cfg->job, NULL, cfg->closed_std },
		.interval_ms = cfg->interval_ms,
		.descendants = cfg->descendants,
		.tracker = cfg->tracker,
		.cgroup_root = cfg->cgroup_root,
		.attrib = { .weights = { cfg->w_sm, cfg->w_mem } },
		.marks = { .fd = -1 },
	};
	struct report	*reps;
	struct sigstate	 ss;
	struct outputs	 o;
	struct prep	 p = { .has_base = false };
	struct gate_set	 gates = { NULL, 0, 0 };
	struct ending	 end = { .is_setup_failed = false };
	struct errbuf	 err = { "" };
	size_t		 nreps = 0, i;
	int		 rc, sig = 0;
	char		 visible[DEVSEL_NMASKS * (DEVSEL_MASK_TEXT + 32)];

	(void)devsel_masks_text(&cfg->devsel, " ", visible, sizeof visible);
	run.params.visible = visible;
	/* What joulestat was given, before it or a library opens anything: the workload's. */
	launch_fds_open(&run.inherited_fds, &run.ninherited_fds);
	/* First, before any fd of joulestat's own could take a closed stdout's place. */
	if (outputs_check(&cfg->out, &err) != 0 || signals_take(&ss, &err) != 0) {
		warnmsg("%s", err.msg);
		free(run.inherited_fds);
		end.is_setup_failed = true;
		return exitcode_of(&end);
	}
	outputs_init(&o, &cfg->out);
	if ((rc = prepare(&run, cfg, &o, &p, ss.sigfd)) != 0) {
		end.is_setup_failed = rc < 0;
		end.setup_signal = rc > 0 ? rc : 0;
		prep_release(&run, &p);
		outputs_abandon(&o);
		setup_close(&run);
		close(ss.sigfd);
		return exitcode_of(&end);
	}
	o.child_mask = ss.old_mask;
	o.is_pipe_dfl = ss.old_pipe.sa_handler == SIG_DFL;
	reps = xcalloc(cfg->repeat, sizeof *reps);
	if ((rc = run_series(&run, cfg, &ss, &p.live, reps, &nreps, &o.is_failed, &sig)) < 0)
		end.is_setup_failed = true;
	else
		end.workload = rc;
	/* No run started: as for a signal during set-up; else the series was cut short. */
	if (run.t0_ns == 0)
		end.setup_signal = sig;
	else
		end.series_signal = sig;
	if (nreps > 0)
		gate_judge(&gates, &cfg->gate, reps, nreps, p.has_base ? &p.base : NULL);
	/* Clocks and devices go back before the outputs are written. */
	prep_release(&run, &p);
	if (nreps > 0)
		outputs_write(&o, reps, nreps, &gates);
	else
		outputs_abandon(&o);
	end.is_output_failed = o.is_failed;
	end.is_gate_failed = gates.nfailed > 0;
	end.gate_code = cfg->gate.exit_code;
	gate_set_free(&gates);
	for (i = 0; i < nreps; i++)
		report_free(&reps[i]);
	free(reps);
	setup_close(&run);
	close(ss.sigfd);
	return exitcode_of(&end);
}
