/*
 * The report: report_build() computes every figure of a run once, with
 * its method and validity (STYLE §8), and report_write_text() prints the
 * human form, like time(1) and perf stat: the command, how it ended, its
 * times, then one block per device, then the sampler's own figures.
 * Unknown is printed as "unknown", never as 0.  Numbers use the C locale.
 */
#include "joulestat/report.h"

#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/config.h"
#include "joulestat/exitcode.h"
#include "joulestat/fmt.h"
#include "joulestat/run.h"
#include "joulestat/util.h"

static const char *const method_names[] = {
	[ENERGY_NONE] = "unknown",
	[ENERGY_COUNTER] = "counter",
	[ENERGY_POINTS] = "integrated from driver samples",
	[ENERGY_TICKS] = "integrated from readings",
};

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
	const struct config	*cfg = run->cfg;
	char			*text = NULL;
	size_t			 len = 0, i;
	FILE			*f;

	if ((f = open_memstream(&text, &len)) == NULL)
		return xstrdup("");
	if (run->is_attach) {
		fputs("pid", f);
		for (i = 0; i < cfg->npids; i++)
			fprintf(f, "%s%d", i == 0 ? " " : ",", (int)cfg->pids[i]);
	}
	for (i = 0; i < (size_t)cfg->argc; i++) {
		if (i > 0)
			fputc(' ', f);
		append_word(f, cfg->argv[i], is_quoted);
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
		rep->exit_status = 0;
	} else if (c->exec_errno != 0) {
		rep->outcome = c->exec_errno == ENOENT ? OUTCOME_NOT_FOUND : OUTCOME_CANNOT_EXEC;
		rep->code = c->exec_errno;
		rep->exit_status = c->exec_errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	} else if (WIFSIGNALED(c->wstatus)) {
		rep->outcome = OUTCOME_SIGNALED;
		rep->code = WTERMSIG(c->wstatus);
		rep->exit_status = EXIT_SIGNAL_BASE + rep->code;
	} else {
		rep->outcome = OUTCOME_EXITED;
		rep->code = WEXITSTATUS(c->wstatus);
		rep->exit_status = rep->code;
	}
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
	rep->is_exclusive = run->cfg->is_exclusive;
	rep->where = &run->cfg->job;
	if (run->is_attach) {
		proctree_cpu_ns(&run->tree, &rep->user_ns, &rep->sys_ns);
		rep->is_cpu_sampled = true;
	} else {
		/* Every reaped descendant, including those that lived between ticks. */
		getrusage(RUSAGE_CHILDREN, &ru);
		rep->user_ns = tv_ns(&ru.ru_utime) - tv_ns(&run->children_ru0.ru_utime);
		rep->sys_ns = tv_ns(&ru.ru_stime) - tv_ns(&run->children_ru0.ru_stime);
		rep->max_rss_kib = largest_rss(run);
		rep->has_max_rss = true;
	}
	rep->sampler_cpu_ns = ru_cpu_ns(&run->self_ru) - ru_cpu_ns(&run->self_ru0);
}

static void
build_states(struct dev_report *d, const struct dev_acct *a)
{
	struct state_report	*s;
	int			 i;

	for (i = 0; i < ACCOUNT_NSTATES; i++) {
		if (a->states[i].time_ns == 0)
			continue;
		s = &d->states[d->nstates++];
		s->pstate = i == ACCOUNT_STATE_UNKNOWN ? PSTATE_UNKNOWN : i;
		s->time_ns = a->states[i].time_ns;
		s->share = d->window_ns > 0 ? (double)s->time_ns / (double)d->window_ns : 0;
		s->energy_mj = a->states[i].energy_mj;
		s->has_energy = d->method != ENERGY_NONE;
		s->has_sm = a->states[i].clock_ns > 0;
		if (s->has_sm)
			s->avg_sm_mhz = a->states[i].sm_mhz_ns / (double)a->states[i].clock_ns;
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

static void
build_procs(struct dev_report *d, size_t gdev, const struct run *run)
{
	const struct pid_acct	*a;
	struct proc_report	*p;
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
			p->sm_pct = a->sm_pct_ns / (double)a->util_ns;
			p->mem_pct = a->mem_pct_ns / (double)a->util_ns;
		}
		p->max_gpu_mem_kib = a->max_gpu_mem_kib;
		p->is_between_ticks = a->is_between_ticks;
		p->energy_mj = attrib_energy(a->attrib_a_mj, a->attrib_b_ns, d->idle_mw);
		d->workload_mj += p->energy_mj;
	}
	qsort(d->procs, d->nprocs, sizeof *d->procs, proc_cmp);
}

static const struct idle_power *
idle_given(const struct config *cfg, size_t gdev)
{
	const struct idle_power	*all = NULL;
	size_t			 i;

	for (i = 0; i < cfg->nidle; i++) {
		if (cfg->idle[i].device == (int)gdev)
			return &cfg->idle[i];
		if (cfg->idle[i].device == IDLE_ALL_DEVICES)
			all = &cfg->idle[i];
	}
	return all;
}

/* Idle power by the first source that has it (DESIGN §4). */
static void
build_idle(struct dev_report *d, const struct backend *b, size_t i, size_t gdev,
    const struct config *cfg)
{
	const struct idle_power	*given = idle_given(cfg, gdev);
	const struct dev_acct	*a = &b->acct[i];

	if (!isnan(b->baseline_mw[i])) {
		d->idle_method = IDLE_BASELINE;
		d->idle_mw = b->baseline_mw[i];
	} else if (given != NULL) {
		d->idle_method = IDLE_GIVEN;
		d->idle_mw = given->watts * 1000;
	} else if (a->has_power) {
		d->idle_method = IDLE_MIN_SEEN;
		d->idle_mw = a->min_power_mw;
	}
	d->has_above_idle = d->idle_method != IDLE_UNKNOWN && d->method != ENERGY_NONE;
	if (d->has_above_idle)
		d->above_idle_mj = d->energy_mj - d->idle_mw * (double)d->window_ns / 1e9;
}

static void
build_attrib(struct dev_report *d, const struct dev_acct *a)
{
	d->has_attrib = a->has_attrib && d->method != ENERGY_NONE;
	if (!d->has_attrib)
		return;
	d->has_other = !a->is_other_unknown;
	d->other_mj = attrib_energy(a->other_a_mj, a->other_b_ns, d->idle_mw);
	d->unattributed_mj = d->energy_mj - d->workload_mj - d->other_mj;
	if (d->unattributed_mj < 0)
		d->unattributed_mj = 0;
}

static void
build_device(struct dev_report *d, const struct backend *b, size_t i, size_t gdev,
    const struct run *run)
{
	const struct dev_acct	*a = &b->acct[i];
	struct dev_acct		 only;
	enum energy_method	 got;
	int			 m;

	d->dev = &b->devs[i];
	d->backend = b->ops->name;
	d->is_gone = b->is_gone || a->is_lost_at_end;
	d->window_ns = a->has_prev ? a->last_ns - a->first_ns : 0;
	d->energy_mj = account_energy_mj(a, &d->method);
	/* Every method this device allowed, to show them side by side. */
	for (m = 0; m < (int)ARRAY_SIZE(d->alt_mj); m++) {
		only = *a;
		only.has_counter = a->has_counter && m == ENERGY_COUNTER;
		only.has_points = a->has_points && m == ENERGY_POINTS;
		only.has_ticks_integral = a->has_ticks_integral && m == ENERGY_TICKS;
		d->alt_mj[m] = account_energy_mj(&only, &got);
		d->has_alt[m] = m != ENERGY_NONE && (int)got == m;
	}
	d->has_avg_power = d->method != ENERGY_NONE && d->window_ns > 0;
	if (d->has_avg_power)
		d->avg_power_mw = d->energy_mj / ((double)d->window_ns / 1e9);
	d->has_peak = a->has_power;
	d->peak_power_mw = a->peak_power_mw;
	d->has_throttle = (d->dev->final_valid & M_VIOLATION) != 0;
	d->throttle_power_ns = d->dev->throttle_power_ns - b->thr_power0_ns[i];
	d->throttle_thermal_ns = d->dev->throttle_thermal_ns - b->thr_thermal0_ns[i];
	d->lost_samples = a->lost_samples;
	d->lost_ns = a->lost_ns;
	d->counter_resets = a->counter_resets;
	d->has_foreign = a->foreign_ns > 0;
	if (d->has_foreign) {
		d->foreign_sm_pct = a->foreign_sm_pct_ns / (double)a->foreign_ns;
		d->foreign_mem_pct = a->foreign_mem_pct_ns / (double)a->foreign_ns;
		d->foreign_sm_max = a->foreign_sm_max;
	}
	if (d->dev->measures & M_PSTATE)
		build_states(d, a);
	build_idle(d, b, i, gdev, run->cfg);
	build_procs(d, gdev, run);
	build_attrib(d, a);
}

static void
build_devices(struct report *rep, const struct run *run)
{
	size_t	i, k, n = 0;

	for (i = 0; i < run->nbackends; i++)
		n += run->backends[i].ndev;
	rep->devs = xcalloc(n, sizeof *rep->devs);
	for (i = 0; i < run->nbackends; i++) {
		for (k = 0; k < run->backends[i].ndev; k++, rep->ndev++)
			build_device(&rep->devs[rep->ndev], &run->backends[i], k, rep->ndev, run);
	}
}

void
report_build(struct report *rep, const struct run *run)
{
	size_t	i;

	memset(rep, 0, sizeof *rep);
	rep->command = join_command(run, false);
	rep->command_quoted = join_command(run, true);
	rep->nattached = run->cfg->npids;
	build_outcome(rep, run);
	build_times(rep, run);
	rep->peak_tree_rss_kib = run->tree.peak_rss_kib;
	rep->processes = run->tree.nproc;
	rep->max_concurrent = run->tree.max_concurrent;
	rep->races = run->tree.races;
	rep->index = run->index;
	rep->leftover = xcalloc(run->nleftover, sizeof *rep->leftover);
	if (run->nleftover > 0)
		memcpy(rep->leftover, run->leftover, run->nleftover * sizeof *rep->leftover);
	rep->nleftover = run->nleftover;
	rep->interval_ms = run->interval_ms;
	rep->w_sm = run->cfg->w_sm;
	rep->w_mem = run->cfg->w_mem;
	rep->ticks = run->ticks.ticks;
	rep->missed = run->ticks.missed;
	rep->late_max_ns = run->ticks.late_max_ns;
	rep->late_p50_ns = tickstats_quantile(&run->ticks, 0.50);
	rep->stall_max_ns = run->stall_max_ns;
	rep->late_p99_ns = tickstats_quantile(&run->ticks, 0.99);
	for (i = 0; i < run->nnotes && i < ARRAY_SIZE(rep->notes); i++)
		rep->notes[rep->nnotes++] = run->notes[i];
	build_devices(rep, run);
}

void
report_free(struct report *rep)
{
	size_t	i;

	for (i = 0; i < rep->ndev; i++)
		free(rep->devs[i].procs);
	free(rep->devs);
	free(rep->leftover);
	free(rep->command);
	free(rep->command_quoted);
	memset(rep, 0, sizeof *rep);
}

/* Summarize field get(reps[i]) over the runs where has(reps[i]). */
static void
series_of(const struct report *reps, size_t n, size_t dev, int slot,
    double (*get)(const struct report *, size_t, int), struct series_stat *out)
{
	double	*v = xcalloc(n, sizeof *v);
	size_t	 i, k = 0;
	double	 x;

	for (i = 0; i < n; i++) {
		if (!isnan(x = get(&reps[i], dev, slot)))
			v[k++] = x;
	}
	account_series(v, k, out);
	free(v);
}

static double
get_wall(const struct report *r, size_t d, int s)
{
	(void)d, (void)s;
	return (double)r->wall_ns / 1e9;
}

static double
get_user(const struct report *r, size_t d, int s)
{
	(void)d, (void)s;
	return (double)r->user_ns / 1e9;
}

static double
get_sys(const struct report *r, size_t d, int s)
{
	(void)d, (void)s;
	return (double)r->sys_ns / 1e9;
}

static double
get_energy(const struct report *r, size_t d, int s)
{
	(void)s;
	return r->devs[d].method != ENERGY_NONE ? r->devs[d].energy_mj / 1e3 : NAN;
}

static double
get_above_idle(const struct report *r, size_t d, int s)
{
	(void)s;
	return r->devs[d].has_above_idle ? r->devs[d].above_idle_mj / 1e3 : NAN;
}

static double
get_avg_power(const struct report *r, size_t d, int s)
{
	(void)s;
	return r->devs[d].has_avg_power ? r->devs[d].avg_power_mw / 1e3 : NAN;
}

static double
get_workload(const struct report *r, size_t d, int s)
{
	(void)s;
	return r->devs[d].has_attrib ? r->devs[d].workload_mj / 1e3 : NAN;
}

/* Time in a P-state slot; a state a run never entered counts as 0 s. */
static double
get_state(const struct report *r, size_t d, int slot)
{
	const struct dev_report	*dr = &r->devs[d];
	size_t			 i;
	int			 want = slot == ACCOUNT_STATE_UNKNOWN ? PSTATE_UNKNOWN : slot;

	for (i = 0; i < dr->nstates; i++) {
		if (dr->states[i].pstate == want)
			return (double)dr->states[i].time_ns / 1e9;
	}
	return 0;
}

static void
series_warn(struct series *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
series_warn(struct series *s, const char *fmt, ...)
{
	va_list	ap;

	if (s->nwarnings == SERIES_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(s->warnings[s->nwarnings++], sizeof s->warnings[0], fmt, ap);
	va_end(ap);
}

/* Outliers by modified z-score, and a spread too large to trust the mean. */
static void
series_check(struct series *s, const struct report *reps, const char *what,
    const struct series_stat *st, double (*get)(const struct report *, size_t, int), size_t dev)
{
	size_t	i;
	double	z, x;

	for (i = 0; i < s->n && st->n >= SERIES_OUTLIER_MIN_N; i++) {
		x = get(&reps[i], dev, 0);
		if (isnan(x) || fabs(x - st->median) <= SERIES_OUTLIER_REL * fabs(st->median))
			continue;
		if (fabs(z = account_mzscore(st, x)) > ACCOUNT_OUTLIER_Z)
			series_warn(s, "run %u is an outlier in %s: %.3f against a median of %.3f "
			    "(modified z-score %.1f)", reps[i].index, what, x, st->median, z);
	}
	if (st->n > 1 && st->mean > 0 && st->sd / st->mean > SERIES_SPREAD_CV)
		series_warn(s, "%s varies by %.1f%% across runs (standard deviation / mean): "
		    "consider --cooldown, --warmup or more runs", what, 100 * st->sd / st->mean);
}

static void
series_device(struct series *s, const struct report *reps, size_t d)
{
	struct dev_series	*ds = &s->devs[d];
	char			 what[48];
	int			 k;

	series_of(reps, s->n, d, 0, get_energy, &ds->energy_j);
	series_of(reps, s->n, d, 0, get_above_idle, &ds->above_idle_j);
	series_of(reps, s->n, d, 0, get_avg_power, &ds->avg_power_w);
	series_of(reps, s->n, d, 0, get_workload, &ds->workload_j);
	ds->has_energy = ds->energy_j.n > 0;
	ds->has_above_idle = ds->above_idle_j.n > 0;
	ds->has_workload = ds->workload_j.n > 0;
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		series_of(reps, s->n, d, k, get_state, &ds->state_s[k]);
		ds->has_state[k] = ds->state_s[k].max > 0;
	}
	snprintf(what, sizeof what, "the energy of device %zu", d);
	if (ds->has_energy)
		series_check(s, reps, what, &ds->energy_j, get_energy, d);
}

void
report_series(struct series *s, const struct report *reps, size_t n)
{
	size_t	d;

	memset(s, 0, sizeof *s);
	s->n = n;
	series_of(reps, n, 0, 0, get_wall, &s->wall_s);
	series_of(reps, n, 0, 0, get_user, &s->user_s);
	series_of(reps, n, 0, 0, get_sys, &s->sys_s);
	series_check(s, reps, "wall time", &s->wall_s, get_wall, 0);
	s->ndev = reps[0].ndev;
	s->devs = xcalloc(s->ndev, sizeof *s->devs);
	for (d = 0; d < s->ndev; d++)
		series_device(s, reps, d);
}

void
report_series_free(struct series *s)
{
	free(s->devs);
	memset(s, 0, sizeof *s);
}

/* Look a word up in a table indexed by an enum; "" past its end. */
static const char *
word_of(const char *const *words, size_t nwords, size_t i)
{
	return i < nwords && words[i] != NULL ? words[i] : "";
}

const char *
report_word_method(enum energy_method m)
{
	static const char *const words[] = {
		[ENERGY_COUNTER] = "counter",
		[ENERGY_POINTS] = "driver-samples",
		[ENERGY_TICKS] = "readings",
	};

	return word_of(words, ARRAY_SIZE(words), m);
}

const char *
report_word_kind(enum power_kind k)
{
	static const char *const words[] = {
		[POWER_KIND_INSTANT] = "instant",
		[POWER_KIND_AVERAGE_1S] = "average-1s",
		[POWER_KIND_AVERAGE_FW] = "average-firmware",
	};

	return word_of(words, ARRAY_SIZE(words), k);
}

const char *
report_word_idle(enum idle_method m)
{
	static const char *const words[] = {
		[IDLE_BASELINE] = "baseline",
		[IDLE_GIVEN] = "given",
		[IDLE_MIN_SEEN] = "minimum-seen",
	};

	return word_of(words, ARRAY_SIZE(words), m);
}

const char *
report_word_outcome(enum outcome o)
{
	static const char *const words[] = {
		[OUTCOME_EXITED] = "exited",
		[OUTCOME_SIGNALED] = "signaled",
		[OUTCOME_NOT_FOUND] = "not-found",
		[OUTCOME_CANNOT_EXEC] = "cannot-execute",
		[OUTCOME_ATTACHED] = "attached",
		[OUTCOME_INTERRUPTED] = "interrupted",
	};

	return word_of(words, ARRAY_SIZE(words), o);
}

const char *
report_state_name(const struct device *dev, int pstate, char *buf, size_t size)
{
	enum pstate_names	names = dev != NULL ? dev->pstate_names : PSTATE_NAMES_P;

	if (pstate == PSTATE_UNKNOWN)
		snprintf(buf, size, "unknown");
	else if (names == PSTATE_NAMES_DPM && pstate == PSTATE_MAX)
		snprintf(buf, size, "deep-sleep");
	else if (names == PSTATE_NAMES_DPM)
		snprintf(buf, size, "DPM%d", pstate);
	else if (names == PSTATE_NAMES_RC6 && pstate == PSTATE_MAX)
		snprintf(buf, size, "RC6");
	else if (names == PSTATE_NAMES_RC6 && pstate == 0)
		snprintf(buf, size, "awake");
	else
		snprintf(buf, size, "P%d", pstate);
	return buf;
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
	fmt_kib(rss, sizeof rss, rep->peak_tree_rss_kib);
	fprintf(f, "   %-18s %s (whole tree at one reading)\n", "peak tree RSS", rss);
	fprintf(f, "   %-18s %" PRIu64 " seen, at most %" PRIu64 " at once\n", "processes",
	    rep->processes, rep->max_concurrent);
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
	if (d->has_foreign && d->foreign_sm_max > 0)
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
		    report_state_name(d->dev, s->pstate, name, sizeof name), (double)s->time_ns / 1e9,
		    100 * s->share, e, pw, sm);
	}
}

static const char *const idle_words[] = {
	[IDLE_UNKNOWN] = "unknown, so all energy counts as dynamic",
	[IDLE_BASELINE] = "measured before the run",
	[IDLE_GIVEN] = "as given",
	[IDLE_MIN_SEEN] = "the lowest reading of the run",
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
write_device(FILE *f, const struct report *rep, const struct dev_report *d, size_t i)
{
	const struct device	*dev = d->dev;
	unsigned		 k;

	fprintf(f, "\n device %zu: %s  %s (%s)\n", i, dev->name, dev->id, d->backend);
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
	if (d->counter_resets > 0)
		fprintf(f, "   %-18s %" PRIu64 " (those intervals integrated from power)\n",
		    "counter resets", d->counter_resets);
	if (d->has_foreign && d->foreign_sm_max > 0)
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
static void
write_stat(FILE *f, const char *label, const struct series_stat *st, const char *unit)
{
	fprintf(f, "   %-18s %.3f %s ± %.3f (%.1f%%), min %.3f, max %.3f\n", label, st->mean, unit,
	    st->sd, st->mean != 0 ? 100 * st->sd / fabs(st->mean) : 0, st->min, st->max);
}

static void
write_series_runs(FILE *f, const struct report *reps, size_t n)
{
	char	buf[64];
	size_t	i, d;

	fprintf(f, "   %4s %-14s %9s %9s", "run", "exit status", "wall (s)", "user (s)");
	for (d = 0; d < reps[0].ndev; d++) {
		snprintf(buf, sizeof buf, "dev %zu (J)", d);
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
write_series_device(FILE *f, const struct report *rep, const struct dev_series *ds, size_t d)
{
	const struct dev_report	*dr = &rep->devs[d];
	char			 name[16], label[32];
	int			 k;

	fprintf(f, "\n device %zu: %s  %s (%s)\n", d, dr->dev->name, dr->dev->id, dr->backend);
	if (ds->has_energy)
		write_stat(f, "energy", &ds->energy_j, "J");
	else
		fprintf(f, "   %-18s unknown\n", "energy");
	if (ds->has_above_idle)
		write_stat(f, "energy above idle", &ds->above_idle_j, "J");
	if (ds->avg_power_w.n > 0)
		write_stat(f, "average power", &ds->avg_power_w, "W");
	if (ds->has_workload)
		write_stat(f, "workload estimate", &ds->workload_j, "J");
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		if (!ds->has_state[k])
			continue;
		report_state_name(dr->dev, k == ACCOUNT_STATE_UNKNOWN ? PSTATE_UNKNOWN : k, name,
		    sizeof name);
		snprintf(label, sizeof label, "time in %s", name);
		write_stat(f, label, &ds->state_s[k], "s");
	}
}

static int
write_series(FILE *f, const struct report *reps, size_t n, const struct series *s)
{
	size_t	i;

	fprintf(f, "\n joulestat: %s  (%zu runs)\n\n", reps[0].command_quoted, n);
	write_series_runs(f, reps, n);
	write_stat(f, "wall time", &s->wall_s, "s");
	write_stat(f, "user time", &s->user_s, "s");
	write_stat(f, "sys time", &s->sys_s, "s");
	for (i = 0; i < s->ndev; i++)
		write_series_device(f, &reps[0], &s->devs[i], i);
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
		write_device(f, rep, &rep->devs[i], i);
	write_notes(f, rep);
	write_sampler(f, rep, "sampler");
	return finish_write(f);
}
