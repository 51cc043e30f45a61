/*
 * report_build(): every figure of a run computed once, with its method
 * and whether it is known, from what the loop gathered (struct run) into
 * a struct report that the emitters only print (HACKING.md, "Measurement
 * rules").  The command line as given and shell-quoted, how the run
 * ended, its times, and per device its energy by every method it
 * allowed, power, P-states, idle power, attribution and processes.
 */
#include "joulestat/report.h"

#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/exitcode.h"
#include "joulestat/fmt.h"
#include "joulestat/run.h"
#include "joulestat/setup.h"
#include "joulestat/util.h"
#include "joulestat/window.h"

#ifndef JOULESTAT_VERSION
#define JOULESTAT_VERSION "unknown"
#endif

/* True when s can be shown unquoted to a shell user. */
static bool
is_plain_word(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		    "-_./=:,+@%", *s) == NULL)
			return false;
	}
	return true;
}

static void
append_word(FILE *f, const char *s, bool is_quoted)
{
	if (!is_quoted || is_plain_word(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static char *
join_command(const struct run *run, bool is_quoted)
{
	const struct run_params	*rp = &run->params;
	char			*text = NULL;
	size_t			 len = 0, i;
	FILE			*f;

	if ((f = open_memstream(&text, &len)) == NULL)
		return xstrdup("");
	if (run->is_attach) {
		fputs("pid", f);
		for (i = 0; i < rp->npids; i++)
			fprintf(f, "%s%d", i == 0 ? " " : ",", (int)rp->pids[i]);
	}
	for (i = 0; i < (size_t)rp->argc; i++) {
		if (i > 0)
			fputc(' ', f);
		append_word(f, rp->argv[i], is_quoted);
	}
	fclose(f);
	return text;
}

static void
build_outcome(struct report *rep, const struct run *run)
{
	const struct child	*c = &run->child;

	if (run->is_attach) {
		rep->outcome = run->has_interrupt ? OUTCOME_INTERRUPTED : OUTCOME_ATTACHED;
		rep->code = run->last_signal;
	} else if (c->exec_errno != 0) {
		rep->outcome = c->exec_errno == ENOENT ? OUTCOME_NOT_FOUND : OUTCOME_CANNOT_EXEC;
		rep->code = c->exec_errno;
	} else if (WIFSIGNALED(c->wstatus)) {
		rep->outcome = OUTCOME_SIGNALED;
		rep->code = WTERMSIG(c->wstatus);
	} else {
		rep->outcome = OUTCOME_EXITED;
		rep->code = WEXITSTATUS(c->wstatus);
	}
	rep->exit_status = exitcode_of_run(rep->outcome, rep->code);
}

static int64_t
tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * NSEC_PER_SEC + (int64_t)tv->tv_usec * NSEC_PER_USEC;
}

static int64_t
ru_cpu_ns(const struct rusage *ru)
{
	return tv_ns(&ru->ru_utime) + tv_ns(&ru->ru_stime);
}

/* The largest RSS of one process: from wait4, or as sampled if larger. */
static uint64_t
largest_rss(const struct run *run)
{
	uint64_t	max = (uint64_t)run->child.ru.ru_maxrss;
	size_t		i;

	for (i = 0; i < run->tree.nproc; i++) {
		if (run->tree.procs[i].max_rss_kib > max)
			max = run->tree.procs[i].max_rss_kib;
	}
	return max;
}

static void
build_times(struct report *rep, const struct run *run)
{
	struct rusage	ru;

	rep->wall_ns = run->t_end_ns - run->t0_ns;
	rep->start_unix_ns = run->t0_unix_ns;
	rep->t0_ns = run->t0_ns;
	rep->is_exclusive = run->params.is_exclusive;
	rep->where = run->params.job;
	if (run->is_attach) {
		proctree_cpu_ns(&run->tree, &rep->user_ns, &rep->sys_ns);
		rep->is_cpu_sampled = true;
	} else if (run->has_cg_cpu) {
		/* Everything that ran in the workload's cgroup, reaped or not. */
		rep->user_ns = run->cg_user_ns;
		rep->sys_ns = run->cg_sys_ns;
		rep->max_rss_kib = largest_rss(run);
		rep->has_max_rss = true;
	} else {
		/* Every reaped descendant, including those that lived between ticks. */
		getrusage(RUSAGE_CHILDREN, &ru);
		rep->user_ns = tv_ns(&ru.ru_utime) - tv_ns(&run->children_ru0.ru_utime) -
		    tv_ns(&run->excluded_ru.ru_utime);
		rep->sys_ns = tv_ns(&ru.ru_stime) - tv_ns(&run->children_ru0.ru_stime) -
		    tv_ns(&run->excluded_ru.ru_stime);
		rep->max_rss_kib = largest_rss(run);
		rep->has_max_rss = true;
	}
	rep->sampler_cpu_ns = ru_cpu_ns(&run->self_ru) - ru_cpu_ns(&run->self_ru0);
}

/*
 * Time per P-state over the device's window, from the first to the last
 * valid reading of its energy's source: lost time at either end is
 * outside it, time without a P-state reading inside it is the unknown
 * state's, so that the shares add up to the window (window.h).
 */
static void
build_states(struct dev_report *d, const struct dev_acct *a)
{
	struct state_report	*s;
	struct state_part	 w;
	int			 i;

	for (i = 0; i < ACCOUNT_NSTATES; i++) {
		window_state(a, d->method, i, &w);
		if (w.time_ns <= 0)
			continue;
		s = &d->states[d->nstates++];
		s->pstate = i == ACCOUNT_STATE_UNKNOWN ? PSTATE_UNKNOWN : i;
		s->time_ns = w.time_ns;
		window_state_err(a, d->method, i, &w, &s->time_err_ns, &s->energy_err_mj);
		s->is_coarse = (double)s->time_err_ns > REPORT_COARSE * (double)s->time_ns;
		s->share = d->window_ns > 0 ? (double)s->time_ns / (double)d->window_ns : 0;
		s->energy_mj = w.energy_mj;
		s->has_energy = d->method != ENERGY_NONE && a->states[i].has_energy &&
		    w.energy_ns > 0;
		s->energy_ns = w.energy_ns;
		s->has_sm = a->states[i].sm_clock_ns > 0;
		if (s->has_sm)
			s->avg_sm_mhz = a->states[i].sm_mhz_ns / (double)a->states[i].sm_clock_ns;
		s->has_gfx = a->states[i].clock_ns > 0;
		if (s->has_gfx)
			s->avg_gfx_mhz = a->states[i].gfx_mhz_ns / (double)a->states[i].clock_ns;
		s->has_mem = a->states[i].mem_clock_ns > 0;
		if (s->has_mem)
			s->avg_mem_mhz = a->states[i].mem_mhz_ns / (double)a->states[i].mem_clock_ns;
	}
}

static int
proc_cmp(const void *x, const void *y)
{
	const struct proc_report	*a = x, *b = y;

	if (a->energy_mj != b->energy_mj)
		return a->energy_mj < b->energy_mj ? 1 : -1;
	if (a->sm_pct != b->sm_pct)
		return a->sm_pct < b->sm_pct ? 1 : -1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/*
 * The stretch a sampled process's means are over: from the first answer
 * naming it to the last, or to when the tree last saw it alive, if later:
 * its life on the device, idle samples left out by the driver included.
 */
static double
proc_span_ns(const struct pid_acct *a, const struct proctree *tree)
{
	const struct proc	*pr = proctree_find(tree, a->pid);
	int64_t			 to = a->data_to_ns;

	if (pr != NULL && pr->starttime_ticks == a->starttime_ticks && pr->last_seen_ns > to)
		to = pr->last_seen_ns;
	return (double)(to - a->data_from_ns);
}

/* The processes' rows; returns their energies' sum before each is held at 0 or more. */
static double
build_procs(struct dev_report *d, size_t gdev, const struct run *run)
{
	const struct pid_acct	*a;
	struct proc_report	*p;
	double			 span, raw = 0;
	size_t			 i;

	d->procs = xcalloc(run->attrib.pidacct.n, sizeof *d->procs);
	for (i = 0; i < run->attrib.pidacct.n; i++) {
		a = &run->attrib.pidacct.v[i];
		if (a->dev != gdev)
			continue;
		p = &d->procs[d->nprocs++];
		p->pid = a->pid;
		memcpy(p->comm, a->comm, sizeof p->comm);
		p->has_util = a->util_ns > 0;
		if (p->has_util) {
			/*
			 * A driver that samples (NVML) leaves a process out of the
			 * samples in which it was idle, and answers nothing while
			 * nobody is busy.
			 */
			span = a->is_sparse ? proc_span_ns(a, &run->tree) : 0;
			if (span < (double)a->util_ns)
				span = (double)a->util_ns;
			p->sm_pct = a->sm_pct_ns / span;
			p->mem_pct = a->mem_pct_ns / span;
		}
		p->max_gpu_mem_kib = a->max_gpu_mem_kib;
		p->is_between_ticks = a->is_between_ticks;
		p->energy_mj = attrib_energy(a->attrib_a_mj, a->attrib_b_ns, d->share_idle_mw);
		raw += attrib_energy_raw(a->attrib_a_mj, a->attrib_b_ns, d->share_idle_mw);
		d->workload_mj += p->energy_mj;
	}
	qsort(d->procs, d->nprocs, sizeof *d->procs, proc_cmp);
	return raw;
}

static const struct idle_power *
idle_given(const struct run_params *rp, unsigned number)
{
	const struct idle_power	*all = NULL;
	size_t			 i;

	for (i = 0; i < rp->nidle; i++) {
		if (rp->idle[i].device == (int)number)
			return &rp->idle[i];
		if (rp->idle[i].device == IDLE_ALL_DEVICES)
			all = &rp->idle[i];
	}
	return all;
}

/* Idle power by the first source that has it: measured, given, or the lowest reading. */
static void
build_idle(struct dev_report *d, const struct backend *b, size_t i,
    const struct run_params *rp)
{
	const struct idle_power	*given = idle_given(rp, b->devs[i].number);
	const struct dev_acct	*a = &b->acct[i];

	if (!isnan(b->baseline_mw[i])) {
		d->idle_method = IDLE_BASELINE;
		d->idle_mw = b->baseline_mw[i];
	} else if (given != NULL) {
		d->idle_method = IDLE_GIVEN;
		d->idle_mw = given->watts * 1000;
	} else if (a->has_idle_power) {
		/* The lowest reading is an idle reference only if the device visibly idled. */
		d->idle_method = IDLE_MIN_SEEN;
		d->idle_mw = a->idle_min_mw;
	}
	d->has_above_idle = d->idle_method != IDLE_UNKNOWN && d->method != ENERGY_NONE;
	/* Above idle is never below nothing: an idle power above the mean gives 0. */
	if (d->has_above_idle)
		d->above_idle_mj = max_d(0, d->energy_mj - d->idle_mw * (double)d->measured_ns / 1e9);
	/*
	 * Shared out, an idle power above what the device drew on average
	 * would give the device's dynamic energy a negative sign: the mean
	 * power bounds it (build_attrib holds each share at 0 or more).
	 */
	d->share_idle_mw = d->idle_mw;
	if (d->has_avg_power && d->avg_power_mw < d->share_idle_mw)
		d->share_idle_mw = d->avg_power_mw;
}

/*
 * The other processes' share, and what is left.  A window that drew less
 * than the idle power gives its busy processes a negative dynamic part;
 * a share held at 0 would then leave the others more than their part:
 * when any was, all are scaled to add up to what the windows shared.
 */
static void
build_attrib(struct dev_report *d, const struct dev_acct *a, double procs_raw_mj)
{
	double	raw, held, k;
	size_t	i;

	d->has_attrib = account_share_known(a, d->dev) && d->method != ENERGY_NONE;
	if (!d->has_attrib)
		return;
	d->has_other = !a->is_other_unknown;
	d->other_mj = attrib_energy(a->other_a_mj, a->other_b_ns, d->share_idle_mw);
	raw = procs_raw_mj + attrib_energy_raw(a->other_a_mj, a->other_b_ns, d->share_idle_mw);
	held = d->workload_mj + d->other_mj;
	if (held > raw && held > 0) {
		k = max_d(raw, 0) / held;
		for (i = 0; i < d->nprocs; i++)
			d->procs[i].energy_mj *= k;
		d->workload_mj *= k;
		d->other_mj *= k;
	}
	d->unattributed_mj = d->energy_mj - d->workload_mj - d->other_mj;
	if (d->unattributed_mj < 0)
		d->unattributed_mj = 0;
}

/*
 * A run shorter than what the driver's figures move by: its own power
 * sampling period, or for power readings that are 1 s averages, that
 * second.  Its energy is then mostly the driver's rounding.
 */
static void
build_short(struct dev_report *d)
{
	d->driver_window_ns = d->dev->driver_period_ns;
	if (d->method != ENERGY_COUNTER && d->dev->power_kind == POWER_KIND_AVERAGE_1S)
		d->driver_window_ns = NSEC_PER_SEC;
	if (d->method == ENERGY_COUNTER && d->dev->counter_step_ns > d->driver_window_ns)
		d->driver_window_ns = d->dev->counter_step_ns;
	d->has_driver_window = d->driver_window_ns > 0;
	d->is_short = d->has_measured && d->has_driver_window &&
	    d->window_ns < d->driver_window_ns;
}

static void
build_device(struct dev_report *d, const struct backend *b, size_t i, size_t gdev,
    const struct run *run)
{
	const struct dev_acct	*a = &b->acct[i];
	struct dev_acct		 only;
	enum energy_method	 got;
	int64_t			 from_ns, to_ns;
	int			 m;

	d->dev = &b->devs[i];
	d->nnotes = d->dev->nnotes;
	d->notes = xcalloc(d->nnotes > 0 ? d->nnotes : 1, sizeof *d->notes);
	memcpy(d->notes, d->dev->notes, d->nnotes * sizeof *d->notes);
	d->backend = b->ops->name;
	d->is_gone = b->is_gone || a->is_lost_at_end;
	d->energy_mj = account_energy_mj(a, &d->method);
	/* From the first valid reading of the energy's source to the last. */
	d->has_window = window_of(a, d->method, &from_ns, &to_ns);
	d->window_ns = to_ns - from_ns;
	/* Every method this device allowed, to show them side by side. */
	for (m = 0; m < (int)ARRAY_SIZE(d->alt_mj); m++) {
		only = *a;
		only.has_counter = a->has_counter && m == ENERGY_COUNTER;
		only.has_points = a->has_points && m == ENERGY_POINTS;
		only.has_ticks_integral = a->has_ticks_integral && m == ENERGY_TICKS;
		d->alt_mj[m] = account_energy_mj(&only, &got);
		d->has_alt[m] = m != ENERGY_NONE && (int)got == m;
		d->alt_err_mj[m] = account_energy_err_mj(a, got);
		d->alt_ns[m] = account_covered_ns(a, (enum energy_method)m);
	}
	d->energy_err_mj = account_energy_err_mj(a, d->method);
	/* Averages and idle are over the time the energy covers, not lost time. */
	d->measured_ns = account_covered_ns(a, d->method);
	d->has_measured = d->method != ENERGY_NONE;
	/* Partial: less than the span of the readings tried, lost ends included. */
	d->span_ns = account_span_ns(a);
	d->is_partial = d->method != ENERGY_NONE && d->measured_ns < d->span_ns;
	build_short(d);
	d->has_avg_power = d->method != ENERGY_NONE && d->measured_ns > 0;
	if (d->has_avg_power)
		d->avg_power_mw = d->energy_mj / ((double)d->measured_ns / 1e9);
	d->has_peak = a->has_power;
	d->peak_power_mw = a->peak_power_mw;
	d->has_reasons = a->reason_cover_ns > 0;
	memcpy(d->reason_ns, a->reason_ns, sizeof d->reason_ns);
	memcpy(d->reason_err_ns, a->reason_err_ns, sizeof d->reason_err_ns);
	d->reason_cover_ns = a->reason_cover_ns;
	memcpy(d->reason_viol_ns, a->viol_ns, sizeof d->reason_viol_ns);
	memcpy(d->reason_viol_err_ns, a->viol_err_ns, sizeof d->reason_viol_err_ns);
	d->has_throttle = (d->dev->final_valid & M_VIOLATION) != 0;
	d->throttle_power_ns = d->dev->throttle_power_ns - b->thr_power0_ns[i];
	d->throttle_thermal_ns = d->dev->throttle_thermal_ns - b->thr_thermal0_ns[i];
	d->lost_samples = a->lost_samples;
	d->lost_ns = account_lost_ns(a, d->method);
	d->gap_ns = a->lost_ns;
	d->bridged_ns = a->bridged_ns;
	d->counter_resets = a->counter_resets;
	d->has_foreign = a->foreign_ns > 0;
	if (d->has_foreign) {
		d->foreign_sm_pct = a->foreign_sm_pct_ns / (double)a->foreign_ns;
		d->foreign_mem_pct = a->foreign_mem_pct_ns / (double)a->foreign_ns;
		d->foreign_sm_max = a->foreign_sm_max;
		d->foreign_npids_max = a->foreign_npids_max;
	}
	/*
	 * Where the driver's pids cannot be matched (a pid namespace), all of
	 * them look foreign: the device was shared only if it named more
	 * processes at once than the tree ever held.
	 */
	d->is_shared = d->has_foreign && d->foreign_sm_max > 0 && (!d->dev->is_pid_hidden ||
	    d->foreign_npids_max > run->tree.max_concurrent);
	if (d->dev->measures & M_PSTATE)
		build_states(d, a);
	d->state_intervals = a->state_intervals;
	d->state_changes = a->state_changes;
	d->pstate_split = account_state_split(a);
	d->is_blind = account_is_blind(a);
	build_idle(d, b, i, &run->params);
	build_attrib(d, a, build_procs(d, gdev, run));
}

static void
build_devices(struct report *rep, const struct run *run)
{
	size_t	i, k;

	rep->devs = xcalloc(setup_ndev(run), sizeof *rep->devs);
	for (i = 0; i < run->nbackends; i++) {
		for (k = 0; k < run->backends[i].ndev; k++, rep->ndev++)
			build_device(&rep->devs[rep->ndev], &run->backends[i], k, rep->ndev, run);
	}
}

/*
 * Which devices the all-devices totals add (README, "How the numbers are
 * made"): every one,
 * except a CPU package counter when an APU's SoC figure, which holds the
 * CPU cores' energy too, measured energy in the same run.  The SoC figure
 * is the one kept: it covers the GPU as well, which the package counter
 * may not.
 */
static void
build_totals(struct report *rep)
{
	size_t	i, k;

	for (i = 0; i < rep->ndev; i++) {
		for (k = 0; k < rep->ndev && rep->devs[i].dev->is_cpu_package; k++) {
			if (!rep->devs[k].dev->is_soc || rep->devs[k].method == ENERGY_NONE)
				continue;
			rep->devs[i].is_within = true;
			rep->devs[i].within = rep->devs[k].dev->number;
			break;
		}
	}
}

/*
 * The run's sums over the devices the totals add (build_totals): the energy
 * and the workload's estimates, with how many devices each covers, so a
 * total that left a device out says so.
 */
static void
add_totals(struct report *rep)
{
	const struct dev_report	*d;
	size_t			 i;

	for (i = 0; i < rep->ndev; i++) {
		d = &rep->devs[i];
		if (d->is_within)
			continue;
		if (d->method != ENERGY_NONE) {
			rep->total_mj += d->energy_mj;
			rep->total_err_mj += d->energy_err_mj;
			rep->total_ndev++;
		}
		if (d->has_attrib) {
			rep->total_workload_mj += d->workload_mj;
			rep->total_workload_ndev++;
		}
	}
	rep->has_total = rep->total_ndev > 0;
	rep->has_total_workload = rep->total_workload_ndev > 0;
}

void
report_build(struct report *rep, const struct run *run)
{
	size_t	i;

	memset(rep, 0, sizeof *rep);
	rep->command = join_command(run, false);
	rep->command_quoted = join_command(run, true);
	rep->nattached = run->params.npids;
	build_outcome(rep, run);
	build_times(rep, run);
	/* Only zombies, or nothing left by the first reading: nothing was measured. */
	rep->has_tree = run->tree.has_running;
	rep->tracker = run->tracker_used;
	/*
	 * The cgroup tracker reads a process's /proc figures once, when it is
	 * new: the tree's memory is the kernel's memory.peak, or unknown.
	 */
	rep->has_tree_rss = rep->has_tree && (run->tracker_used == TRACKER_PROC || run->has_cg_peak);
	rep->peak_tree_rss_kib = run->has_cg_peak ? run->cg_peak_kib : run->tree.peak_rss_kib;
	rep->processes = run->tree.nproc;
	rep->max_concurrent = run->tree.max_concurrent;
	rep->races = run->tree.races;
	rep->index = run->index;
	rep->leftover = xcalloc(run->nleftover, sizeof *rep->leftover);
	if (run->nleftover > 0)
		memcpy(rep->leftover, run->leftover, run->nleftover * sizeof *rep->leftover);
	rep->nleftover = run->nleftover;
	rep->interval_ms = run->interval_ms;
	rep->w_sm = run->attrib.weights.w_sm;
	rep->w_mem = run->attrib.weights.w_mem;
	rep->ticks = run->ticks.ticks;
	rep->missed = run->ticks.missed;
	rep->has_late = run->ticks.ticks > 0;
	rep->late_max_ns = run->ticks.late_max_ns;
	rep->late_p50_ns = tickstats_quantile(&run->ticks, 0.50);
	rep->stall_max_ns = run->stall_max_ns;
	rep->late_p99_ns = tickstats_quantile(&run->ticks, 0.99);
	for (i = 0; i < run->nnotes && i < ARRAY_SIZE(rep->notes); i++)
		rep->notes[rep->nnotes++] = run->notes[i];
	build_devices(rep, run);
	build_totals(rep);
	add_totals(rep);
	report_phases(rep, run);
	rep->version = JOULESTAT_VERSION;
	rep->visible = run->params.visible != NULL ? run->params.visible : "";
}

long
report_device_at(const struct report *rep, unsigned number)
{
	size_t	i;

	for (i = 0; i < rep->ndev; i++) {
		if (rep->devs[i].dev->number == number)
			return (long)i;
	}
	return -1;
}

void
report_free(struct report *rep)
{
	size_t	i;

	for (i = 0; i < rep->ndev; i++) {
		free(rep->devs[i].procs);
		free(rep->devs[i].notes);
	}
	free(rep->devs);
	for (i = 0; i < rep->nphase_occ; i++)
		free(rep->phase_occ[i].devs);
	free(rep->phase_occ);
	for (i = 0; i < rep->nphases; i++)
		free(rep->phases[i].devs);
	free(rep->phases);
	free(rep->leftover);
	free(rep->command);
	free(rep->command_quoted);
	memset(rep, 0, sizeof *rep);
}
