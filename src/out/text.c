/*
 * The human report, like time(1) and perf stat: the command, how it
 * ended, its times, then one block per device, then the sampler's own
 * figures; with -r, a table of the runs and each figure's mean and
 * spread.  It only prints what report_build computed.  Unknown is
 * printed as "unknown", never as 0.  Numbers use the C locale.
 */
#include "joulestat/text.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <string.h>

#include "joulestat/fmt.h"
#include "joulestat/util.h"

static const char *const method_names[] = {
	[ENERGY_NONE] = "unknown",
	[ENERGY_COUNTER] = "counter",
	[ENERGY_POINTS] = "integrated from driver samples",
	[ENERGY_TICKS] = "integrated from readings",
};

const char *
text_method_name(enum energy_method m)
{
	return (size_t)m < ARRAY_SIZE(method_names) ? method_names[m] : method_names[ENERGY_NONE];
}

void
report_outcome_text(const struct report *rep, char *buf, size_t size)
{
	const char	*name;

	switch (rep->outcome) {
	case OUTCOME_EXITED:
		snprintf(buf, size, "%d", rep->code);
		break;
	case OUTCOME_SIGNALED:
		name = sigabbrev_np(rep->code);
		snprintf(buf, size, "killed by SIG%s (signal %d)", name != NULL ? name : "?",
		    rep->code);
		break;
	case OUTCOME_NOT_FOUND:
		snprintf(buf, size, "not found: %s", strerror(rep->code));
		break;
	case OUTCOME_CANNOT_EXEC:
		snprintf(buf, size, "could not be executed: %s", strerror(rep->code));
		break;
	case OUTCOME_ATTACHED:
		snprintf(buf, size, "attached processes ended");
		break;
	case OUTCOME_INTERRUPTED:
		name = sigabbrev_np(rep->code);
		snprintf(buf, size, "measurement stopped by SIG%s", name != NULL ? name : "?");
		break;
	}
}

static void
fmt_kib(char *buf, size_t size, uint64_t kib)
{
	if (kib >= 1024 * 1024)
		snprintf(buf, size, "%.2f GiB", (double)kib / (1024 * 1024));
	else if (kib >= 1024)
		snprintf(buf, size, "%.1f MiB", (double)kib / 1024);
	else
		snprintf(buf, size, "%" PRIu64 " KiB", kib);
}

static void
write_run(FILE *f, const struct report *rep)
{
	char	buf[128], rss[32];
	size_t	i;

	report_outcome_text(rep, buf, sizeof buf);
	fprintf(f, "\n joulestat: %s\n\n", rep->command_quoted);
	fprintf(f, "   %-18s %s\n", rep->nattached > 0 ? "status" : "exit status", buf);
	fprintf(f, "   %-18s %.3f s\n", "wall time", (double)rep->wall_ns / 1e9);
	fprintf(f, "   %-18s %.3f s%s\n", "user time", (double)rep->user_ns / 1e9,
	    rep->is_cpu_sampled ? " (sampled from /proc)" : "");
	fprintf(f, "   %-18s %.3f s%s\n", "sys time", (double)rep->sys_ns / 1e9,
	    rep->is_cpu_sampled ? " (sampled from /proc)" : "");
	if (rep->has_max_rss) {
		fmt_kib(rss, sizeof rss, rep->max_rss_kib);
		fprintf(f, "   %-18s %s (largest process)\n", "peak RSS", rss);
	} else
		fprintf(f, "   %-18s unknown (attached)\n", "peak RSS");
	if (rep->has_tree_rss) {
		fmt_kib(rss, sizeof rss, rep->peak_tree_rss_kib);
		fprintf(f, "   %-18s %s (%s)\n", "peak tree RSS", rss, rep->tracker == TRACKER_CGROUP ?
		    "the cgroup's memory.peak" : "whole tree at one reading");
	} else if (rep->has_tree)
		fprintf(f, "   %-18s unknown (a cgroup without the memory controller)\n",
		    "peak tree RSS");
	if (rep->has_tree) {
		fprintf(f, "   %-18s %" PRIu64 " seen, at most %" PRIu64 " at once (%s)\n",
		    "processes", rep->processes, rep->max_concurrent, rep->tracker == TRACKER_CGROUP ?
		    "tracker cgroup: the workload's own cgroup v2" : "tracker proc: walked in /proc");
	} else {
		fprintf(f, "   %-18s unknown (no running process seen)\n", "peak tree RSS");
		fprintf(f, "   %-18s unknown (no running process seen)\n", "processes");
	}
	if (rep->nleftover > 0) {
		fprintf(f, "   %-18s %zu descendant%s (pid", "still running", rep->nleftover,
		    rep->nleftover == 1 ? "" : "s");
		for (i = 0; i < rep->nleftover; i++)
			fprintf(f, "%s%d", i == 0 ? " " : ", ", (int)rep->leftover[i]);
		fprintf(f, ")\n");
	}
}

static void
write_energy(FILE *f, const struct report *rep, const struct dev_report *d)
{
	char	buf[32], alt[32];
	int	m;

	if (d->method == ENERGY_NONE) {
		fprintf(f, "   %-18s unknown (no power or energy readings)\n", "energy");
		return;
	}
	fmt_energy(buf, sizeof buf, d->energy_mj);
	fprintf(f, "   %-18s %s = %.4f Wh (%s)\n", "energy", buf, d->energy_mj / 3.6e6,
	    method_names[d->method]);
	if (d->is_shared)
		fprintf(f, "   %-18s shared: other processes used this device during the run, so "
		    "not all of it is the workload's%s\n", "", rep->is_exclusive ? "" :
		    " (--exclusive serializes joulestat runs)");
	for (m = 1; m < (int)ARRAY_SIZE(d->alt_mj); m++) {
		if (!d->has_alt[m] || m == (int)d->method)
			continue;
		fmt_energy(alt, sizeof alt, d->alt_mj[m]);
		if (d->energy_mj > 0)
			fprintf(f, "   %-18s %s (%s, %+.2f%%)\n", "", alt, method_names[m],
			    100 * (d->alt_mj[m] - d->energy_mj) / d->energy_mj);
		else
			fprintf(f, "   %-18s %s (%s)\n", "", alt, method_names[m]);
	}
}

static void
write_power(FILE *f, const struct dev_report *d)
{
	const char	*kind = "";

	if (d->dev->power_kind == POWER_KIND_AVERAGE_1S)
		kind = "; readings are 1 s trailing averages";
	else if (d->dev->power_kind == POWER_KIND_INSTANT)
		kind = "; instantaneous readings";
	else if (d->dev->power_kind == POWER_KIND_AVERAGE_FW)
		kind = "; readings are firmware averages";
	if (d->has_avg_power)
		fprintf(f, "   %-18s %.1f W", "average power", d->avg_power_mw / 1000);
	else
		fprintf(f, "   %-18s unknown", "average power");
	if (d->has_peak)
		fprintf(f, ", peak %.1f W%s\n", (double)d->peak_power_mw / 1000, kind);
	else
		fprintf(f, ", peak unknown\n");
}

static void
write_states(FILE *f, const struct dev_report *d)
{
	const struct state_report	*s;
	char				 name[16], sm[16], pw[16], e[16];
	size_t				 i;

	if (d->nstates == 0)
		return;
	fprintf(f, "   %-9s %10s %7s %11s %10s %9s\n", "P-state", "time (s)", "share",
	    "energy (J)", "power (W)", "SM (MHz)");
	for (i = 0; i < d->nstates; i++) {
		s = &d->states[i];
		snprintf(e, sizeof e, s->has_energy ? "%.3f" : "unknown", s->energy_mj / 1000);
		snprintf(pw, sizeof pw, s->has_energy && s->time_ns > 0 ? "%.1f" : "unknown",
		    s->energy_mj / ((double)s->time_ns / 1e9) / 1000);
		snprintf(sm, sizeof sm, s->has_sm ? "%.0f" : "unknown", s->avg_sm_mhz);
		fprintf(f, "   %-9s %10.3f %6.1f%% %11s %10s %9s\n",
		    schema_state_name(d->dev, s->pstate, name, sizeof name), (double)s->time_ns / 1e9,
		    100 * s->share, e, pw, sm);
	}
}

/*
 * Host pids that this pid namespace cannot see: the board's load, and the
 * device was shared only when the driver named more processes at once
 * than the workload's tree ever held.
 */
static void
write_hidden_load(FILE *f, const struct report *rep, const struct dev_report *d)
{
	fprintf(f, "   %-18s SM %.1f%%, mem %.1f%% on average (peak SM %u%%) by up to %u "
	    "processes named by host pids: not attributed\n", "device load",
	    d->foreign_sm_pct, d->foreign_mem_pct, (unsigned)d->foreign_sm_max,
	    (unsigned)d->foreign_npids_max);
	if (d->is_shared)
		fprintf(f, "   %-18s the driver named more processes at once (%u) than the "
		    "workload's tree held (%u): this device was shared\n", "other processes",
		    (unsigned)d->foreign_npids_max, (unsigned)rep->max_concurrent);
}

static const char *const idle_words[] = {
	[IDLE_UNKNOWN] = "unknown, so all energy counts as dynamic",
	[IDLE_BASELINE] = "measured before the run",
	[IDLE_GIVEN] = "as given",
	[IDLE_MIN_SEEN] = "the lowest reading while the device idled",
};

static double
share_of(double part, double whole)
{
	return whole > 0 ? 100 * part / whole : 0;
}

static void
write_attrib(FILE *f, const struct report *rep, const struct dev_report *d)
{
	char	e[32];

	if (d->has_above_idle) {
		fmt_energy(e, sizeof e, d->above_idle_mj);
		fprintf(f, "   %-18s %s (idle power %.1f W, %s)\n", "energy above idle", e,
		    d->idle_mw / 1000, idle_words[d->idle_method]);
	} else if (d->method != ENERGY_NONE) {
		fprintf(f, "   %-18s unknown (idle power unknown: the device never idled in the run; "
		    "measure it with --idle-baseline=2 or give --idle-power=W)\n",
		    "energy above idle");
	}
	if (!d->has_attrib)
		return;
	fprintf(f, "   attribution (estimate: energy above idle shared by %.2f x SM%% + %.2f x "
	    "mem%%, idle energy by SM%%)\n", rep->w_sm, rep->w_mem);
	fmt_energy(e, sizeof e, d->workload_mj);
	fprintf(f, "   %-18s %14s %6.1f%%\n", "workload", e, share_of(d->workload_mj, d->energy_mj));
	fmt_energy(e, sizeof e, d->other_mj);
	if (d->has_other)
		fprintf(f, "   %-18s %14s %6.1f%%\n", "other processes", e,
		    share_of(d->other_mj, d->energy_mj));
	else
		fprintf(f, "   %-18s %14s (this backend reads only the workload's processes; "
		    "their use is within unattributed)\n", "other processes", "unknown");
	fmt_energy(e, sizeof e, d->unattributed_mj);
	fprintf(f, "   %-18s %14s %6.1f%%\n", "unattributed/idle", e,
	    share_of(d->unattributed_mj, d->energy_mj));
}

static void
write_procs(FILE *f, const struct dev_report *d)
{
	const struct proc_report	*p;
	char				 sm[16], mem[16], gm[32], e[32], sh[16];
	size_t				 i;

	if (d->nprocs == 0)
		return;
	fprintf(f, "   workload processes on this device (utilization from the driver; energy is "
	    "an estimate):\n");
	fprintf(f, "   %8s  %-16s %6s %6s %12s %14s %7s\n", "pid", "command", "SM%", "mem%",
	    "max memory", "energy", "share");
	for (i = 0; i < d->nprocs; i++) {
		p = &d->procs[i];
		snprintf(sm, sizeof sm, p->has_util ? "%.1f" : "unknown", p->sm_pct);
		snprintf(mem, sizeof mem, p->has_util ? "%.1f" : "unknown", p->mem_pct);
		if (p->max_gpu_mem_kib > 0)
			fmt_kib(gm, sizeof gm, p->max_gpu_mem_kib);
		else
			snprintf(gm, sizeof gm, "unknown");
		if (d->has_attrib) {
			fmt_energy(e, sizeof e, p->energy_mj);
			snprintf(sh, sizeof sh, "%.1f%%", share_of(p->energy_mj, d->energy_mj));
		} else {
			snprintf(e, sizeof e, "unknown");
			snprintf(sh, sizeof sh, "unknown");
		}
		fprintf(f, "   %8d  %-16s %6s %6s %12s %14s %7s%s\n", (int)p->pid,
		    p->comm[0] != '\0' ? p->comm : "?", sm, mem, gm, e, sh,
		    p->is_between_ticks ? "  (seen only by driver accounting)" : "");
	}
}

static void
write_device(FILE *f, const struct report *rep, const struct dev_report *d)
{
	const struct device	*dev = d->dev;
	unsigned		 k;

	fprintf(f, "\n device %u: %s  %s (%s, its index %u)\n", dev->number, dev->name, dev->id,
	    d->backend, dev->index);
	write_energy(f, rep, d);
	write_power(f, d);
	write_states(f, d);
	if (d->has_throttle)
		fprintf(f, "   %-18s power %.3f s, thermal %.3f s (driver violation counters)\n",
		    "throttled", (double)d->throttle_power_ns / 1e9,
		    (double)d->throttle_thermal_ns / 1e9);
	if (d->lost_samples > 0)
		fprintf(f, "   %-18s %" PRIu64 " (%.3f s without readings, excluded from "
		    "integration)\n", "lost readings", d->lost_samples, (double)d->lost_ns / 1e9);
	if (d->is_partial)
		fprintf(f, "   %-18s %.3f s of %.3f s: energy, average power and energy above idle "
		    "cover only that\n", "measured", (double)d->measured_ns / 1e9,
		    (double)d->span_ns / 1e9);
	if (d->counter_resets > 0)
		fprintf(f, "   %-18s %" PRIu64 " (those intervals integrated from power)\n",
		    "counter resets", d->counter_resets);
	if (d->is_within)
		fprintf(f, "   %-18s not added: the SoC power of device %u holds this package's "
		    "energy\n", "all-devices totals", d->within);
	if (d->has_foreign && d->foreign_sm_max > 0 && dev->is_pid_hidden)
		write_hidden_load(f, rep, d);
	else if (d->is_shared)
		fprintf(f, "   %-18s SM %.1f%%, mem %.1f%% on average (peak SM %u%%): this device "
		    "was shared, so its energy is not the workload's alone\n", "other processes",
		    d->foreign_sm_pct, d->foreign_mem_pct, (unsigned)d->foreign_sm_max);
	if (d->is_gone)
		fprintf(f, "   note: the backend stopped answering during the run\n");
	for (k = 0; k < dev->nnotes; k++)
		fprintf(f, "   note: %s\n", dev->notes[k]);
	write_attrib(f, rep, d);
	write_procs(f, d);
}

static void
write_sampler(FILE *f, const struct report *rep, const char *label)
{
	fprintf(f, "\n %s: %" PRIu64 " ticks every %u ms, %" PRIu64 " missed, lateness p50 "
	    "%.3f ms, p99 %.3f ms, max %.3f ms, own CPU %.3f s\n\n", label, rep->ticks,
	    rep->interval_ms, rep->missed, (double)rep->late_p50_ns / 1e6,
	    (double)rep->late_p99_ns / 1e6, (double)rep->late_max_ns / 1e6,
	    (double)rep->sampler_cpu_ns / 1e9);
}

static void
write_notes(FILE *f, const struct report *rep)
{
	size_t	i;

	if (rep->stall_max_ns > REPORT_STALL_NS)
		fprintf(f, "\n a device reading held the sampler for %.3f s: ticks due meanwhile "
		    "are counted as missed, and the workload's end, if it came then, was seen "
		    "only when the reading returned\n", (double)rep->stall_max_ns / 1e9);
	if (rep->nnotes > 0)
		fputc('\n', f);
	for (i = 0; i < rep->nnotes; i++)
		fprintf(f, " %s\n", rep->notes[i]);
}

static int
finish_write(FILE *f)
{
	return flush_status(f);
}

/* "1.002 s ± 0.001 (0.1%), min 1.000, max 1.004" */
/* A mean over the runs; when it covers fewer than all nruns, it says over how many. */
static void
write_stat(FILE *f, const char *label, const struct series_stat *st, const char *unit,
    size_t nruns)
{
	fprintf(f, "   %-18s %.3f %s ± %.3f (%.1f%%), min %.3f, max %.3f", label, st->mean, unit,
	    st->sd, st->mean != 0 ? 100 * st->sd / fabs(st->mean) : 0, st->min, st->max);
	if (st->n != nruns)
		fprintf(f, " (%zu of %zu runs)", st->n, nruns);
	fputc('\n', f);
}

static void
write_series_runs(FILE *f, const struct report *reps, size_t n)
{
	char	buf[64];
	size_t	i, d;

	fprintf(f, "   %4s %-14s %9s %9s", "run", "exit status", "wall (s)", "user (s)");
	for (d = 0; d < reps[0].ndev; d++) {
		snprintf(buf, sizeof buf, "dev %u (J)", reps[0].devs[d].dev->number);
		fprintf(f, " %12s", buf);
	}
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		report_outcome_text(&reps[i], buf, sizeof buf);
		fprintf(f, "   %4u %-14.14s %9.3f %9.3f", reps[i].index, buf,
		    (double)reps[i].wall_ns / 1e9, (double)reps[i].user_ns / 1e9);
		for (d = 0; d < reps[i].ndev; d++) {
			if (reps[i].devs[d].method != ENERGY_NONE)
				fprintf(f, " %12.3f", reps[i].devs[d].energy_mj / 1e3);
			else
				fprintf(f, " %12s", "unknown");
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void
write_series_device(FILE *f, const struct report *rep, const struct dev_series *ds, size_t d,
    size_t n)
{
	const struct dev_report	*dr = &rep->devs[d];
	char			 name[16], label[32];
	int			 k;

	fprintf(f, "\n device %u: %s  %s (%s, its index %u)\n", dr->dev->number, dr->dev->name,
	    dr->dev->id, dr->backend, dr->dev->index);
	if (ds->has_energy)
		write_stat(f, "energy", &ds->energy_j, "J", n);
	else
		fprintf(f, "   %-18s unknown\n", "energy");
	if (ds->has_above_idle)
		write_stat(f, "energy above idle", &ds->above_idle_j, "J", n);
	if (ds->avg_power_w.n > 0)
		write_stat(f, "average power", &ds->avg_power_w, "W", n);
	if (ds->has_workload)
		write_stat(f, "workload estimate", &ds->workload_j, "J", n);
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		if (!ds->has_state[k])
			continue;
		schema_slot_name(dr->dev, k, name, sizeof name);
		snprintf(label, sizeof label, "time in %s", name);
		write_stat(f, label, &ds->state_s[k], "s", n);
	}
}

static int
write_series(FILE *f, const struct report *reps, size_t n, const struct series *s)
{
	size_t	i;

	fprintf(f, "\n joulestat: %s  (%zu runs", reps[0].command_quoted, n);
	if (s->ncounted < n)
		fprintf(f, ", statistics over the %zu that succeeded", s->ncounted);
	fprintf(f, ")\n\n");
	write_series_runs(f, reps, n);
	/* Each mean says over how many runs only when it covers fewer than the statistics. */
	write_stat(f, "wall time", &s->wall_s, "s", s->ncounted);
	write_stat(f, "user time", &s->user_s, "s", s->ncounted);
	write_stat(f, "sys time", &s->sys_s, "s", s->ncounted);
	for (i = 0; i < s->ndev; i++)
		write_series_device(f, &reps[0], &s->devs[i], i, s->ncounted);
	write_notes(f, &reps[0]);
	if (s->nwarnings > 0)
		fputc('\n', f);
	for (i = 0; i < s->nwarnings; i++)
		fprintf(f, " warning: %s\n", s->warnings[i]);
	write_sampler(f, &reps[n - 1], "sampler (last run)");
	return finish_write(f);
}

int
report_write_text(FILE *f, const struct report *reps, size_t n, const struct series *series)
{
	const struct report	*rep = &reps[0];
	size_t			 i;

	if (n > 1)
		return write_series(f, reps, n, series);
	write_run(f, rep);
	for (i = 0; i < rep->ndev; i++)
		write_device(f, rep, &rep->devs[i]);
	report_write_phases_text(f, rep);
	write_notes(f, rep);
	write_sampler(f, rep, "sampler");
	return finish_write(f);
}
