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
#include <stdlib.h>
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
	char	buf[64], alt[64];
	int	m;

	if (d->method == ENERGY_NONE) {
		fprintf(f, "   %-18s unknown (no power or energy readings)\n", "energy");
		return;
	}
	fmt_energy_bounded(buf, sizeof buf, d->energy_mj, d->energy_err_mj);
	fprintf(f, "   %-18s %s = %.4f Wh (%s)\n", "energy", buf, d->energy_mj / 3.6e6,
	    method_names[d->method]);
	/* Instantaneous readings see power at the readings alone (an average sees bursts). */
	if (d->method == ENERGY_TICKS && d->dev->power_kind != POWER_KIND_AVERAGE_1S &&
	    d->dev->power_kind != POWER_KIND_AVERAGE_FW)
		fprintf(f, "   %-18s its bound holds if power changed at most once between two "
		    "readings: a burst between readings %u ms apart is not seen; a smaller -i "
		    "narrows that\n", "", rep->interval_ms);
	if (d->is_shared)
		fprintf(f, "   %-18s shared: other processes used this device during the run, so "
		    "not all of it is the workload's%s\n", "", rep->is_exclusive ? "" :
		    " (--exclusive serializes joulestat runs)");
	for (m = 1; m < (int)ARRAY_SIZE(d->alt_mj); m++) {
		if (!d->has_alt[m] || m == (int)d->method)
			continue;
		fmt_energy_bounded(alt, sizeof alt, d->alt_mj[m], d->alt_err_mj[m]);
		/* A figure over less time is not comparable: say what it covers instead. */
		if (d->alt_ns[m] < d->measured_ns)
			fprintf(f, "   %-18s %s (%s, over %.3f s of %.3f s only)\n", "", alt,
			    method_names[m], (double)d->alt_ns[m] / 1e9,
			    (double)d->span_ns / 1e9);
		else if (d->energy_mj > 0)
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

/*
 * The clock columns: SM, graphics and memory on NVIDIA; AMD and Intel
 * report one graphics (shader) clock, which is not an SM clock.
 */
static bool
has_sm_clock(const struct device *dev)
{
	return dev->pstate_names == PSTATE_NAMES_P;
}

/* After the table: which states' times are coarse, and what would narrow them. */
static void
write_coarse(FILE *f, const struct report *rep, const struct dev_report *d)
{
	const struct state_report	*s, *worst = NULL;
	char				 name[16];
	size_t				 i;

	for (i = 0; i < d->nstates; i++) {
		s = &d->states[i];
		if (s->is_coarse && (worst == NULL || (double)s->time_err_ns / (double)s->time_ns >
		    (double)worst->time_err_ns / (double)worst->time_ns))
			worst = s;
	}
	if (d->is_blind)
		fprintf(f, "   note: the state changed in %" PRIu64 " of %" PRIu64 " intervals: "
		    "at -i %u ms it may also have changed and changed back between two readings, "
		    "which only a counter with instantaneous power can show, so each state's bound "
		    "is all or none of the window; a smaller -i narrows that\n", d->state_changes,
		    d->state_intervals, rep->interval_ms);
	if (worst == NULL)
		return;
	fprintf(f, "   note: P-state times are only known to half a reading interval per change "
	    "of state, at -i %u ms %s to ± %.3f s (%.0f%% of its time); a smaller -i narrows "
	    "that\n", rep->interval_ms,
	    schema_state_name(d->dev, worst->pstate, name, sizeof name),
	    (double)worst->time_err_ns / 1e9,
	    100 * (double)worst->time_err_ns / (double)worst->time_ns);
}

static void
write_states(FILE *f, const struct report *rep, const struct dev_report *d)
{
	const struct state_report	*s;
	char				 name[16], clk[48], sm[16], gfx[16], mem[16], pw[16];
	char				 e[48], t[48];
	bool				 is_sm = has_sm_clock(d->dev), is_part = false;
	size_t				 i;

	if (d->nstates == 0)
		return;
	fprintf(f, "   %-9s %17s %7s %21s %9s  %s\n", "P-state", "time (s)", "share",
	    "energy (J)", "power (W)", is_sm ? "SM/gfx/mem (MHz)" : "gfx/mem (MHz)");
	for (i = 0; i < d->nstates; i++) {
		s = &d->states[i];
		snprintf(t, sizeof t, "%.3f ± %.3f", (double)s->time_ns / 1e9,
		    (double)s->time_err_ns / 1e9);
		/* Energy over part of the state's time is marked, its power over that part. */
		if (s->has_energy)
			snprintf(e, sizeof e, "%.3f%s ± %.3f", s->energy_mj / 1000,
			    s->energy_ns < s->time_ns ? "*" : "", s->energy_err_mj / 1000);
		else
			snprintf(e, sizeof e, "unknown");
		is_part |= s->has_energy && s->energy_ns < s->time_ns;
		snprintf(pw, sizeof pw, s->has_energy ? "%.1f" : "unknown",
		    s->energy_mj / ((double)s->energy_ns / 1e9) / 1000);
		/* Each clock known or not on its own. */
		snprintf(sm, sizeof sm, s->has_sm ? "%.0f/" : "unknown/", s->avg_sm_mhz);
		snprintf(gfx, sizeof gfx, s->has_gfx ? "%.0f" : "unknown", s->avg_gfx_mhz);
		snprintf(mem, sizeof mem, s->has_mem ? "%.0f" : "unknown", s->avg_mem_mhz);
		snprintf(clk, sizeof clk, "%s%s/%s", is_sm ? sm : "", gfx, mem);
		/* "±" is two bytes and one column: one more byte of width per "±". */
		fprintf(f, "   %-9s %18s %6.1f%% %22s %9s  %s\n",
		    schema_state_name(d->dev, s->pstate, name, sizeof name), t,
		    100 * s->share, e, pw, clk);
	}
	if (is_part)
		fprintf(f, "   %-18s * energy of only part of the state's time (readings without "
		    "energy); its power is over that part\n", "");
	if (d->pstate_split != PSTATE_SPLIT_NONE)
		fprintf(f, "   %-18s energy of intervals that changed state: %s\n", "",
		    schema_phrase_split(d->pstate_split));
	write_coarse(f, rep, d);
}

/*
 * The time per clocks-event reason read every tick, and the driver's
 * violation counters beside them as a cross-check.
 */
static void
write_throttle(FILE *f, const struct dev_report *d)
{
	static const char *const group[] = { "power", "thermal" };
	int64_t	viol, diff;
	bool	is_any = false;
	int	i;

	if (d->has_reasons) {
		fprintf(f, "   %-18s", "clock events");
		for (i = 0; i < THROTTLE_NREASONS; i++) {
			if (d->reason_ns[i] == 0 && d->reason_err_ns[i] == 0)
				continue;
			fprintf(f, "%s%s %.3f s ± %.3f", is_any ? ", " : " ", schema_word_reason(i),
			    (double)d->reason_ns[i] / 1e9, (double)d->reason_err_ns[i] / 1e9);
			is_any = true;
		}
		fprintf(f, "%s (reasons read every tick, over %.3f s)\n", is_any ? "" : " none",
		    (double)d->reason_cover_ns / 1e9);
	}
	if (!d->has_throttle)
		return;
	fprintf(f, "   %-18s power %.3f s, thermal %.3f s (driver violation counters)\n",
	    "throttled", (double)d->throttle_power_ns / 1e9, (double)d->throttle_thermal_ns / 1e9);
	for (i = 0; i < 2 && d->has_reasons; i++) {
		viol = i == 0 ? d->throttle_power_ns : d->throttle_thermal_ns;
		diff = viol - d->reason_viol_ns[i];
		/* The counters cover every reading tried, the reasons only the ticks' time. */
		if (llabs(diff) > d->reason_viol_err_ns[i] + (d->span_ns - d->reason_cover_ns) +
		    d->span_ns / 100)
			fprintf(f, "   note: the %s violation counter says %.3f s where the reasons "
			    "read every tick say %.3f s ± %.3f\n", group[i], (double)viol / 1e9,
			    (double)d->reason_viol_ns[i] / 1e9,
			    (double)d->reason_viol_err_ns[i] / 1e9);
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

/* Lost readings and time without readings of the energy's source, and what became of it. */
static void
write_lost(FILE *f, const struct dev_report *d)
{
	if (d->lost_samples > 0)
		fprintf(f, "   %-18s %" PRIu64 " (%.3f s without any reading)\n", "lost readings",
		    d->lost_samples, (double)d->gap_ns / 1e9);
	if (d->lost_ns <= 0)
		return;
	fprintf(f, "   %-18s %.3f s without %s readings", "energy gaps", (double)d->lost_ns / 1e9,
	    d->method == ENERGY_COUNTER ? "counter" : "power");
	if (d->bridged_ns > 0)
		fprintf(f, ", %.3f s of it bridged by interpolating power between the readings "
		    "around it (an estimate)", (double)d->bridged_ns / 1e9);
	else if (d->measured_ns >= d->span_ns)
		fprintf(f, ", spanned by the %s", d->method == ENERGY_COUNTER ?
		    "energy counter" : "power readings around them");
	fprintf(f, "\n");
	/* Lost ends are outside the window: what the P-state shares are of. */
	if (!d->has_window)
		fprintf(f, "   %-18s unknown (no valid reading)\n", "window");
	else if (d->window_ns < d->span_ns)
		fprintf(f, "   %-18s %.3f s of %.3f s, from the first valid %sreading to the last\n",
		    "window", (double)d->window_ns / 1e9, (double)d->span_ns / 1e9,
		    d->method == ENERGY_COUNTER ? "counter " : d->method == ENERGY_NONE ? "" : "power ");
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
	write_states(f, rep, d);
	write_throttle(f, d);
	if (d->lost_samples > 0 || d->lost_ns > 0)
		write_lost(f, d);
	if (d->is_short)
		fprintf(f, "   %-18s %.3f s measured, %.2f of the %.1f ms the driver's figures move "
		    "by (its own sampling): the driver may not have updated them within the run, "
		    "so the energy is approximate\n", "short run", (double)d->window_ns / 1e9,
		    (double)d->window_ns / (double)d->driver_window_ns,
		    (double)d->driver_window_ns / 1e6);
	if (d->is_partial)
		fprintf(f, "   %-18s %.3f s of %.3f s: energy, average power and energy above idle "
		    "cover only that, so the energy is a lower bound for the run\n", "measured", (double)d->measured_ns / 1e9,
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
	for (k = 0; k < d->nnotes; k++)
		fprintf(f, "   note: %s\n", d->notes[k]);
	write_attrib(f, rep, d);
	write_procs(f, d);
}

static void
write_sampler(FILE *f, const struct report *rep, const char *label)
{
	char	late[96] = "lateness unknown (no ticks)";

	if (rep->has_late)
		snprintf(late, sizeof late, "lateness p50 %.3f ms, p99 %.3f ms, max %.3f ms",
		    (double)rep->late_p50_ns / 1e6, (double)rep->late_p99_ns / 1e6,
		    (double)rep->late_max_ns / 1e6);
	fprintf(f, "\n %s: %" PRIu64 " ticks every %u ms, %" PRIu64 " missed, %s, own CPU "
	    "%.3f s\n\n", label, rep->ticks, rep->interval_ms, rep->missed, late,
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

/*
 * A figure over the runs: "412.300 J ± 0.400 (measurement), standard
 * deviation 3.100 J (0.8%), min 410.000 ± 0.400, max 415.000 ± 0.400".
 * ± is the measurement bound (b; NULL for a figure without one), the
 * standard deviation the spread from run to run.  When it covers fewer
 * than all nruns, it says over how many.
 */
static void
write_stat(FILE *f, const char *label, const struct series_stat *st,
    const struct series_bound *b, const char *unit, size_t nruns)
{
	fprintf(f, "   %-18s %.3f %s", label, st->mean, unit);
	if (b != NULL && b->has)
		fprintf(f, " ± %.3f (measurement)", b->mean);
	else if (b != NULL)
		fprintf(f, " (bound unknown)");
	fprintf(f, ", standard deviation %.3f %s (%.1f%%), min %.3f", st->sd, unit,
	    st->mean != 0 ? 100 * st->sd / fabs(st->mean) : 0, st->min);
	if (b != NULL && b->has)
		fprintf(f, " ± %.3f", b->min);
	fprintf(f, ", max %.3f", st->max);
	if (b != NULL && b->has)
		fprintf(f, " ± %.3f", b->max);
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
		write_stat(f, "energy", &ds->energy_j, &ds->energy_err_j, "J", n);
	else
		fprintf(f, "   %-18s unknown\n", "energy");
	if (ds->has_above_idle)
		write_stat(f, "energy above idle", &ds->above_idle_j, NULL, "J", n);
	if (ds->avg_power_w.n > 0)
		write_stat(f, "average power", &ds->avg_power_w, NULL, "W", n);
	if (ds->has_workload)
		write_stat(f, "workload estimate", &ds->workload_j, NULL, "J", n);
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		if (!ds->has_state[k])
			continue;
		schema_slot_name(dr->dev, k, name, sizeof name);
		snprintf(label, sizeof label, "time in %s", name);
		write_stat(f, label, &ds->state_s[k], &ds->state_err_s[k], "s", n);
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
	write_stat(f, "wall time", &s->wall_s, NULL, "s", s->ncounted);
	write_stat(f, "user time", &s->user_s, NULL, "s", s->ncounted);
	write_stat(f, "sys time", &s->sys_s, NULL, "s", s->ncounted);
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
