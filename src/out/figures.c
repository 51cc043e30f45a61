/*
 * The tables of figures.h.  Each row is one figure of the summary CSV,
 * the JSON or both; the rows of a table are in the order of the keys of
 * its JSON object, and the CSV puts each figure in its column wherever
 * that is.  Nothing here measures: a value is a member of struct report
 * scaled to its unit, or a quotient of two.
 */
#include "joulestat/figures.h"

#include <string.h>

#include "joulestat/fmt.h"
#include "joulestat/util.h"

/* A member m of struct st: its type and offset. */
#define MEMBER(st, m)	.type = FIGURE_TYPE(((const st *)0)->m), .off = offsetof(st, m)
#define R(m)		MEMBER(struct report, m)
#define D(m)		MEMBER(struct dev_report, m)
#define S(m)		MEMBER(struct state_report, m)
/* Known when the bool m of the struct is true. */
#define R_HAS(m)	.has = offsetof(struct report, m) + 1
#define D_HAS(m)	.has = offsetof(struct dev_report, m) + 1
#define S_HAS(m)	.has = offsetof(struct state_report, m) + 1
/* In the JSON object key, which is null when the bool m is false. */
#define D_GROUP(key, m)	.group = key, .group_has = offsetof(struct dev_report, m) + 1
#define D_IN(key)	.group = key

#define TABLE(t)	{ t, ARRAY_SIZE(t) }

static const struct figure run_figures[] = {
	{ COL_WALL, R(wall_ns), .scale = 1e9, .prec = 6 },
	{ COL_USER, R(user_ns), .scale = 1e9, .prec = 6 },
	{ COL_SYS, R(sys_ns), .scale = 1e9, .prec = 6 },
	{ COL_NONE, "cpu_sampled", R(is_cpu_sampled) },
	{ COL_MAXRSS, R(max_rss_kib), R_HAS(has_max_rss) },
	{ COL_TREERSS, R(peak_tree_rss_kib), R_HAS(has_tree_rss) },
	{ COL_PROCS, R(processes), R_HAS(has_tree) },
	{ COL_MAXCONC, R(max_concurrent), R_HAS(has_tree) },
	{ COL_NONE, "attached_processes", R(nattached) },
	{ COL_LEFTOVER, R(nleftover) },
};

/* The run's totals over its devices, with how many devices each covers. */
static const struct figure total_figures[] = {
	{ COL_TOTAL, "energy_j", "totals", R(total_mj), .scale = 1e3, .prec = 6,
	    R_HAS(has_total) },
	{ COL_TOTALERR, "energy_err_j", "totals", R(total_err_mj), .scale = 1e3, .prec = 6,
	    R_HAS(has_total) },
	{ COL_TOTALDEVS, "energy_devices", "totals", R(total_ndev) },
	{ COL_TOTALWORK, "workload_energy_j", "totals", R(total_workload_mj), .scale = 1e3,
	    .prec = 6, R_HAS(has_total_workload) },
	{ COL_NONE, "workload_devices", "totals", R(total_workload_ndev) },
};

/*
 * The start in RFC 3339, local zone: made only when an output writes it,
 * since the first localtime_r reads the zone's file (HACKING.md,
 * "Start-up cost").
 */
static const char *
meta_start(const void *base, char *buf, size_t size)
{
	const struct report	*rep = base;

	buf[0] = '\0';
	if (rep->start_unix_ns > 0)
		fmt_rfc3339(buf, size, rep->start_unix_ns);
	return buf;
}

static const char *
meta_version(const void *base)
{
	const char	*w = ((const struct report *)base)->version;

	return w != NULL ? w : "";
}

/* How the process tree was followed: "cgroup" or "proc" (--tracker). */
static const char *
tracker_word(const void *base)
{
	return proctree_tracker_name(((const struct report *)base)->tracker);
}

static const char *
meta_visible(const void *base)
{
	const char	*w = ((const struct report *)base)->visible;

	return w != NULL ? w : "";
}

/* What a result from another day needs to be compared with this one. */
static const struct figure meta_figures[] = {
	{ COL_STARTTIME, .text = meta_start },
	{ COL_VERSION, .word = meta_version },
	{ COL_TRACKER, .word = tracker_word },
	{ COL_VISIBLE, .word = meta_visible },
};

static const struct figure weight_figures[] = {
	{ COL_NONE, "sm", "attrib_weights", R(w_sm), .scale = 1 },
	{ COL_NONE, "mem", "attrib_weights", R(w_mem), .scale = 1 },
};

static const struct figure sampler_figures[] = {
	{ COL_INTERVAL, NULL, "sampler", R(interval_ms) },
	{ COL_TICKS, NULL, "sampler", R(ticks) },
	{ COL_MISSED, NULL, "sampler", R(missed) },
	{ COL_LATEMAX, NULL, "sampler", R(late_max_ns), .scale = 1e6, .prec = 3, R_HAS(has_late) },
	{ COL_LATEP50, NULL, "sampler", R(late_p50_ns), .scale = 1e6, .prec = 3, R_HAS(has_late) },
	{ COL_LATEP99, NULL, "sampler", R(late_p99_ns), .scale = 1e6, .prec = 3, R_HAS(has_late) },
	{ COL_SAMPLERCPU, "cpu_s", "sampler", R(sampler_cpu_ns), .scale = 1e9, .prec = 6 },
	{ COL_NONE, "proc_races", "sampler", R(races) },
};

static bool
dev_energy(const void *base, double *v)
{
	const struct dev_report	*d = base;

	*v = d->energy_mj / 1e3;
	return d->method != ENERGY_NONE;
}

static bool
dev_energy_err(const void *base, double *v)
{
	const struct dev_report	*d = base;

	*v = d->energy_err_mj / 1e3;
	return d->method != ENERGY_NONE;
}

static const char *
dev_method(const void *base)
{
	return schema_word_method(((const struct dev_report *)base)->method);
}

static bool
dev_idle(const void *base, double *v)
{
	const struct dev_report	*d = base;

	*v = d->idle_mw / 1e3;
	return d->idle_method != IDLE_UNKNOWN;
}

static const char *
dev_idle_method(const void *base)
{
	return schema_word_idle(((const struct dev_report *)base)->idle_method);
}

static const char *
estimate(const void *base)
{
	(void)base;
	return schema_word_estimate();
}

/* The workload's share of the device's energy. */
static bool
dev_share(const void *base, double *v)
{
	const struct dev_report	*d = base;

	if (!(d->energy_mj > 0))
		return false;
	*v = d->workload_mj / d->energy_mj;
	return true;
}

/* Each reason's time and bound (source.h), in the JSON object of the reasons (null when none were read). */
#define REASONS		D_GROUP("clock_event_reasons", has_reasons)
#define REASON(a, name, word)							\
	{ COL_R_##name, REASONS, D(reason_ns[THROTTLE_BIT_##name]), .scale = 1e9, .prec = 6 }, \
	{ COL_R_##name##_ERR, REASONS, D(reason_err_ns[THROTTLE_BIT_##name]), .scale = 1e9,	\
	    .prec = 6 },

static const struct figure device_figures[] = {
	{ COL_ENERGY, .real = dev_energy, .prec = 6 },
	{ COL_METHOD, .word = dev_method },
	{ COL_ENERGY_ERR, .real = dev_energy_err, .prec = 6 },
	{ COL_E_COUNTER, "counter", D_IN("energies_j"), D(alt_mj[ENERGY_COUNTER]), .scale = 1e3,
	    .prec = 6, D_HAS(has_alt[ENERGY_COUNTER]) },
	{ COL_E_COUNTER_ERR, "counter_err", D_IN("energies_j"), D(alt_err_mj[ENERGY_COUNTER]),
	    .scale = 1e3, .prec = 6, D_HAS(has_alt[ENERGY_COUNTER]) },
	{ COL_E_POINTS, "driver_samples", D_IN("energies_j"), D(alt_mj[ENERGY_POINTS]),
	    .scale = 1e3, .prec = 6, D_HAS(has_alt[ENERGY_POINTS]) },
	{ COL_E_POINTS_ERR, "driver_samples_err", D_IN("energies_j"),
	    D(alt_err_mj[ENERGY_POINTS]), .scale = 1e3, .prec = 6, D_HAS(has_alt[ENERGY_POINTS]) },
	{ COL_E_TICKS, "readings", D_IN("energies_j"), D(alt_mj[ENERGY_TICKS]), .scale = 1e3,
	    .prec = 6, D_HAS(has_alt[ENERGY_TICKS]) },
	{ COL_E_TICKS_ERR, "readings_err", D_IN("energies_j"), D(alt_err_mj[ENERGY_TICKS]),
	    .scale = 1e3, .prec = 6, D_HAS(has_alt[ENERGY_TICKS]) },
	{ COL_TIME, "window_s", D(window_ns), .scale = 1e9, .prec = 6, D_HAS(has_window) },
	{ COL_AVGPOWER, D(avg_power_mw), .scale = 1e3, .prec = 3, D_HAS(has_avg_power) },
	{ COL_PEAKPOWER, D(peak_power_mw), .scale = 1e3, .prec = 3, D_HAS(has_peak) },
	{ COL_LOST, D(lost_samples) },
	{ COL_LOSTS, D(lost_ns), .scale = 1e9, .prec = 6 },
	{ COL_MEASURED, D(measured_ns), .scale = 1e9, .prec = 6, D_HAS(has_measured) },
	{ COL_PARTIAL, D(is_partial), D_HAS(has_measured) },
	/* Left out of the all-devices totals: within that device's figure. */
	{ COL_WITHIN, D(within), D_HAS(is_within) },
	{ COL_NONE, "counter_resets", D(counter_resets) },
	{ COL_NONE, "pstate_intervals", D(state_intervals) },
	{ COL_NONE, "pstate_changes", D(state_changes) },
	{ COL_NONE, "pstate_changes_unseen", D(is_blind) },
	{ COL_NONE, "driver_sampling_s", D(driver_window_ns), .scale = 1e9, .prec = 6,
	    D_HAS(has_driver_window) },
	{ COL_NONE, "short", D(is_short) },
	/* Driver violation counters, over this run. */
	{ COL_THR_POWER, D(throttle_power_ns), .scale = 1e9, .prec = 6, D_HAS(has_throttle) },
	{ COL_THR_THERMAL, D(throttle_thermal_ns), .scale = 1e9, .prec = 6, D_HAS(has_throttle) },
	/* Clocks-event reasons read every tick, each with its bound. */
	{ COL_REASONS_KNOWN, REASONS, D(reason_cover_ns), .scale = 1e9, .prec = 6 },
	THROTTLE_REASONS(REASON, ~)
	{ COL_IDLE, .real = dev_idle, .prec = 3 },
	{ COL_IDLEMETHOD, .word = dev_idle_method },
	{ COL_ABOVEIDLE, D(above_idle_mj), .scale = 1e3, .prec = 6, D_HAS(has_above_idle) },
	/* The load of processes outside the tree. */
	{ COL_NONE, "sm_pct", D_GROUP("other_processes", has_foreign), D(foreign_sm_pct),
	    .scale = 1 },
	{ COL_NONE, "mem_pct", D_GROUP("other_processes", has_foreign), D(foreign_mem_pct),
	    .scale = 1 },
	{ COL_NONE, "peak_sm_pct", D_GROUP("other_processes", has_foreign), D(foreign_sm_max) },
};

/* Estimates: the device's energy shared out among the processes. */
static const struct figure attrib_figures[] = {
	{ COL_NONE, "method", D_GROUP("attribution", has_attrib), .word = estimate },
	{ COL_WORKLOAD, D_GROUP("attribution", has_attrib), D(workload_mj), .scale = 1e3,
	    .prec = 6 },
	{ COL_OTHER, D_GROUP("attribution", has_attrib), D(other_mj), .scale = 1e3, .prec = 6,
	    D_HAS(has_other) },
	{ COL_UNATTR, D_GROUP("attribution", has_attrib), D(unattributed_mj), .scale = 1e3,
	    .prec = 6 },
	{ COL_SHARE_E, D_GROUP("attribution", has_attrib), .real = dev_share, .prec = 6 },
};

/* The mean power in a P-state, over the part of its time its energy covers. */
static bool
state_power(const void *base, double *v)
{
	const struct state_report	*s = base;

	if (!s->has_energy || s->energy_ns <= 0)
		return false;
	*v = s->energy_mj / ((double)s->energy_ns / 1e9) / 1e3;
	return true;
}

static const struct figure state_figures[] = {
	{ COL_TIME, S(time_ns), .scale = 1e9, .prec = 6 },
	{ COL_TIME_ERR, S(time_err_ns), .scale = 1e9, .prec = 6 },
	{ COL_NONE, "coarse", S(is_coarse) },
	{ COL_SHARE, "share", S(share), .scale = 1, .prec = 6 },
	{ COL_ENERGY, S(energy_mj), .scale = 1e3, .prec = 6, S_HAS(has_energy) },
	{ COL_ENERGY_ERR, S(energy_err_mj), .scale = 1e3, .prec = 6, S_HAS(has_energy) },
	{ COL_AVGPOWER, .real = state_power, .prec = 3 },
	{ COL_AVGSM, S(avg_sm_mhz), .scale = 1, .prec = 1, S_HAS(has_sm) },
	{ COL_AVGGFX, S(avg_gfx_mhz), .scale = 1, .prec = 1, S_HAS(has_gfx) },
	{ COL_AVGMEM, S(avg_mem_mhz), .scale = 1, .prec = 1, S_HAS(has_mem) },
	{ COL_MEASURED, S(energy_ns), .scale = 1e9, .prec = 6, S_HAS(has_energy) },
};

const struct figure_table figures_run = TABLE(run_figures);
const struct figure_table figures_totals = TABLE(total_figures);
const struct figure_table figures_meta = TABLE(meta_figures);
const struct figure_table figures_weights = TABLE(weight_figures);
const struct figure_table figures_sampler = TABLE(sampler_figures);
const struct figure_table figures_device = TABLE(device_figures);
const struct figure_table figures_attrib = TABLE(attrib_figures);
const struct figure_table figures_state = TABLE(state_figures);

static const struct stat_figure series_run[] = {
	{ COL_WALL, offsetof(struct series, wall_s), 6, COL_NONE, 0 },
	{ COL_USER, offsetof(struct series, user_s), 6, COL_NONE, 0 },
	{ COL_SYS, offsetof(struct series, sys_s), 6, COL_NONE, 0 },
};

static const struct stat_figure series_device[] = {
	{ COL_ENERGY, offsetof(struct dev_series, energy_j), 6, COL_ENERGY_ERR,
	    offsetof(struct dev_series, energy_err_j) },
	{ COL_ABOVEIDLE, offsetof(struct dev_series, above_idle_j), 6, COL_NONE, 0 },
	{ COL_AVGPOWER, offsetof(struct dev_series, avg_power_w), 3, COL_NONE, 0 },
	{ COL_WORKLOAD, offsetof(struct dev_series, workload_j), 6, COL_NONE, 0 },
};

const struct stat_table figures_series_run = TABLE(series_run);
const struct stat_table figures_series_device = TABLE(series_device);

static bool
flag(const void *base, size_t has)
{
	return has == 0 || *(const bool *)((const char *)base + has - 1);
}

bool
figure_group_known(const struct figure *f, const void *base)
{
	return flag(base, f->group_has);
}

const char *
figure_key(const struct figure *f)
{
	return f->key != NULL ? f->key : schema_column(f->col);
}

static void
set_int(struct figure_value *v, int64_t x, double scale)
{
	if (scale == 0) {
		v->kind = FIGURE_IS_INT;
		v->i = x;
	} else {
		v->kind = FIGURE_IS_REAL;
		v->r = (double)x / scale;
	}
}

static void
set_uint(struct figure_value *v, uint64_t x, double scale)
{
	if (scale == 0) {
		v->kind = FIGURE_IS_UINT;
		v->u = x;
	} else {
		v->kind = FIGURE_IS_REAL;
		v->r = (double)x / scale;
	}
}

void
figure_get(const struct figure *f, const void *base, struct figure_value *v)
{
	const char	*p = (const char *)base + f->off;

	memset(v, 0, sizeof *v);
	if (!flag(base, f->has))
		return;
	if (f->real != NULL) {
		if (f->real(base, &v->r))
			v->kind = FIGURE_IS_REAL;
		return;
	}
	if (f->word != NULL) {
		v->kind = FIGURE_IS_WORD;
		v->w = f->word(base);
		return;
	}
	if (f->text != NULL) {
		v->kind = FIGURE_IS_WORD;
		v->w = f->text(base, v->buf, sizeof v->buf);
		return;
	}
	switch (f->type) {
	case FIGURE_BOOL:
		v->kind = FIGURE_IS_BOOL;
		v->b = *(const bool *)p;
		break;
	case FIGURE_INT: set_int(v, *(const int *)p, f->scale); break;
	case FIGURE_USHORT: set_uint(v, *(const unsigned short *)p, f->scale); break;
	case FIGURE_UINT: set_uint(v, *(const unsigned *)p, f->scale); break;
	case FIGURE_LONG: set_int(v, *(const long *)p, f->scale); break;
	case FIGURE_ULONG: set_uint(v, *(const unsigned long *)p, f->scale); break;
	case FIGURE_LLONG: set_int(v, *(const long long *)p, f->scale); break;
	case FIGURE_ULLONG: set_uint(v, *(const unsigned long long *)p, f->scale); break;
	case FIGURE_DOUBLE:
		v->kind = FIGURE_IS_REAL;
		v->r = *(const double *)p / (f->scale != 0 ? f->scale : 1);
		break;
	}
}
