/*
 * The AMD and Intel GPU backend: amdgpu, i915 and xe devices found under
 * /sys/class/drm (drm_probe.c), read through sysfs and hwmon, and the
 * workload's own DRM clients read through /proc/PID/fdinfo
 * (drm_fdinfo.c).  This file reads the sensors, and is the backend's
 * table of functions; drm_priv.h holds what the three files share.
 *
 * Per device and tick: amdgpu gives power (hwmon power1_input, else the
 * firmware average power1_average; energy is then integrated by the
 * accounting), the DPM level of pp_dpm_sclk as the P-state, clocks;
 * i915 and xe give the hwmon energy counter (card energy1_input, else xe's
 * package energy2_input), the actual frequency, and the RC6 / gt-idle
 * residency turned into an idle P-state.  Utilization and temperature are
 * context figures, read once a second.  Files read on every tick were
 * opened once at probe and are re-read with pread.
 *
 * All parsing is in drm_parse.c.  All state lives in one struct drm_ctx
 * shared by the devices' priv; there is no file-scope mutable state.
 *
 * What the reads cost the GPU (for "do not keep an idle GPU awake"): on
 * amdgpu before 2025 every hwmon and pp_dpm read resumes a runtime-
 * suspended dGPU (newer kernels answer EPERM instead, taken as "no
 * reading"); i915 and xe take a runtime-PM reference for every energy
 * read, forcewake for RC6 residency, and xe a runtime-PM reference for
 * every fdinfo read.  So sampling an idle dGPU keeps it out of D3: measure
 * idle power with that in mind, and prefer longer intervals for long idle
 * stretches.
 */
#include "joulestat/source.h"

#include <sys/types.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/backend.h"
#include "joulestat/proctree.h"
#include "joulestat/util.h"

#include "drm_parse.h"
#include "drm_priv.h"

#define DRM_SLOW_NS		(1 * NSEC_PER_SEC)	/* context figures */
#define DRM_PSTATE_AWAKE	0		/* i915/xe: the GT is not in RC6 */
#define DRM_PSTATE_SLEEP	PSTATE_MAX	/* amdgpu deep sleep "S", i915/xe RC6 */

/* ---- per-tick device readings ----------------------------------------- */

/* The file of sensor k, read again; NULL when it could not be read. */
static const char *
drm_read(struct drm_dev *d, enum drm_sensor k, char *buf, size_t size)
{
	ssize_t	n = pread_text(d->fds[k], buf, size);

	return n > 0 ? buf : NULL;
}

/*
 * A power reading at or above 2^31 µW (2.1 kW) is no reading: amdgpu of
 * early 6.6 kernels printed a failed read as 4294967295.
 */
#define DRM_POWER_BAD_UW	(UINT64_C(1) << 31)

/*
 * A power read that failed while the device's runtime PM status is
 * "suspended" (Documentation/ABI/testing/sysfs-devices-power): amdgpu
 * answers EPERM then rather than wake the GPU, so the stretch asleep has
 * no reading.  The accounting counts it as half the awake power around
 * it, with a bound from none to all of it (sample.is_asleep).
 */
static void
drm_note_asleep(struct drm_dev *d, struct sample *s)
{
	char	buf[32];

	if (d->fds[DRM_S_RUNTIME] < 0 || pread_text(d->fds[DRM_S_RUNTIME], buf, sizeof buf) <= 0 ||
	    strncmp(buf, "suspended", 9) != 0)
		return;
	s->is_asleep = true;
	d->asleep++;
	if (d->last_t_ns > 0)
		d->asleep_ns += s->t_ns - d->last_t_ns;
}

static void
drm_read_power(struct drm_dev *d, const char *text, struct sample *s)
{
	uint64_t	uw;

	if (text == NULL) {
		drm_note_asleep(d, s);
		return;
	}
	if (drm_parse_value(text, &uw) != 0)
		return;
	if (uw >= DRM_POWER_BAD_UW) {
		d->power_bad++;
		return;
	}
	s->power_mw = (uint32_t)(uw / 1000);
	s->valid |= M_POWER;
}

/*
 * The hwmon energy counter is 64 bits of µJ (the driver extends the
 * register), so it is handed on in mJ with no range: a decrease is a
 * reset (driver reload, resume).  A failed read leaves the reading
 * without it: the next good one's delta covers both intervals, and the
 * accounting shares it between them.
 */
static void
drm_read_energy(struct drm_dev *d, const char *text, struct sample *s)
{
	uint64_t	uj;

	if (text == NULL || drm_parse_value(text, &uj) != 0) {
		if (d->has_energy)
			d->held[DRM_S_ENERGY]++;
		return;
	}
	d->energy_uj = uj;
	d->has_energy = true;
	s->energy_mj = uj / 1000;
	s->valid |= M_ENERGY;
}

/*
 * The current DPM level is the P-state: state n is level n counted from
 * the lowest clock (DPMn in the report), DRM_PSTATE_SLEEP is deep sleep
 * ("S:").  Tables that are not fine-grained mark exact matches only, so
 * they may mark no line: those are matched against the hwmon clock read
 * just before.  Navi 1x (navi10_print_clk_levels) prints its fine-grained
 * table at the top clock as two lines and marks neither (the mark is the
 * third line's, which it leaves out): two level lines that the clock did
 * not name are the top level.  Otherwise the state is unknown.
 */
static void
drm_read_sclk(struct drm_dev *d, const char *text, struct sample *s)
{
	struct drm_dpm	dpm;
	uint32_t	clock = (s->valid & M_CLOCKS) != 0 ? s->gfx_mhz : 0;

	if (text == NULL || drm_parse_dpm(text, clock, &dpm) != 0)
		return;
	if (!dpm.has_current && dpm.is_two_unmarked) {
		dpm.has_current = true;
		dpm.level = dpm.top_level;
		dpm.mhz = dpm.top_mhz;
		d->sclk_top_unmarked++;
	}
	if (!dpm.has_current)
		return;
	if (dpm.is_sleep)
		s->pstate = DRM_PSTATE_SLEEP;
	else if (dpm.level < DRM_PSTATE_SLEEP)
		s->pstate = (int)dpm.level;
	else
		return;
	s->valid |= M_PSTATE;
	d->sclk_by_clock += dpm.is_by_clock;
	if ((s->valid & M_CLOCKS) == 0) {
		s->gfx_mhz = s->sm_mhz = dpm.mhz;
		s->valid |= M_CLOCKS | M_SM_CLOCK;
	}
}

static void
drm_read_mclk(struct drm_dev *d, const char *text, struct sample *s)
{
	struct drm_dpm	dpm;

	(void)d;
	if (text != NULL && drm_parse_dpm(text, 0, &dpm) == 0 && dpm.has_current) {
		s->mem_mhz = dpm.mhz;
		s->valid |= M_MEM_CLOCK;
	}
}

static void
drm_read_freq(struct drm_dev *d, const char *text, struct sample *s, uint64_t div)
{
	uint64_t	v;

	(void)d;
	if (text == NULL || drm_parse_value(text, &v) != 0 || v / div > UINT32_MAX)
		return;
	s->gfx_mhz = s->sm_mhz = (uint32_t)(v / div);
	s->valid |= M_CLOCKS | M_SM_CLOCK;
}

static void
drm_read_freq_hz(struct drm_dev *d, const char *text, struct sample *s)
{
	drm_read_freq(d, text, s, 1000000);
}

static void
drm_read_freq_mhz(struct drm_dev *d, const char *text, struct sample *s)
{
	drm_read_freq(d, text, s, 1);
}

/*
 * RC6 / gt-idle residency: the time the GT slept.  The reading's state is
 * chosen by drm_dither_step so that the P15 ("RC6") time of the P-state
 * table follows the counter within about one interval over the run.
 * A failed read holds the last value.
 */
static void
drm_read_idle(struct drm_dev *d, const char *text, struct sample *s)
{
	uint64_t	ms;
	int64_t		idle_ns = 0, dt_ns = 0;
	bool		is_idle;

	if (text == NULL || drm_parse_value(text, &ms) != 0) {
		if (!d->has_idle)
			return;
		d->held[DRM_S_IDLE]++;
		ms = d->idle_ms;
	}
	if (d->has_idle) {
		/* A residency that went backwards was reset (suspend): nothing slept. */
		if (ms >= d->idle_ms && ms - d->idle_ms < (uint64_t)INT64_MAX / NSEC_PER_MSEC)
			idle_ns = (int64_t)(ms - d->idle_ms) * NSEC_PER_MSEC;
		dt_ns = s->t_ns - d->idle_t_ns;
	}
	is_idle = drm_dither_step(&d->dither, dt_ns, idle_ns, false);
	d->idle_ms = ms;
	d->idle_t_ns = s->t_ns;
	d->has_idle = true;
	s->pstate = is_idle ? DRM_PSTATE_SLEEP : DRM_PSTATE_AWAKE;
	s->valid |= M_PSTATE;
}

static void
drm_read_busy(struct drm_dev *d, const char *text, struct sample *s)
{
	uint64_t	pct;

	(void)d;
	if (text == NULL || drm_parse_value(text, &pct) != 0 || pct > 100)
		return;
	s->util_pct = (uint8_t)pct;
	s->valid |= M_UTIL;
}

static void
drm_read_membusy(struct drm_dev *d, const char *text, struct sample *s)
{
	uint64_t	pct;

	(void)d;
	if (text != NULL && drm_parse_value(text, &pct) == 0 && pct <= 100)
		s->mem_util_pct = (uint8_t)pct;
}

static void
drm_read_temp(struct drm_dev *d, const char *text, struct sample *s)
{
	uint64_t	mc;

	(void)d;
	if (text == NULL || drm_parse_value(text, &mc) != 0 || mc / 1000 > INT16_MAX)
		return;
	s->temp_c = (int16_t)(mc / 1000);
	s->valid |= M_TEMP;
}

/*
 * Per-tick readers, in this order: power and energy first, nearest to
 * t_ns; the clocks before pp_dpm_sclk, which may need them.
 */
struct drm_reader {
	enum drm_sensor	 sensor;
	bool		 is_slow;		/* once per DRM_SLOW_NS */
	void		(*read)(struct drm_dev *, const char *, struct sample *);
};

static const struct drm_reader drm_readers[] = {
	{ DRM_S_POWER,		false,	drm_read_power },
	{ DRM_S_ENERGY,		false,	drm_read_energy },
	{ DRM_S_FREQ_HZ,	false,	drm_read_freq_hz },
	{ DRM_S_FREQ_MHZ,	false,	drm_read_freq_mhz },
	{ DRM_S_SCLK,		false,	drm_read_sclk },
	{ DRM_S_MCLK,		false,	drm_read_mclk },
	{ DRM_S_IDLE,		false,	drm_read_idle },
	{ DRM_S_BUSY,		false,	drm_read_busy },	/* the others' load (drm_others) */
	{ DRM_S_MEMBUSY,	true,	drm_read_membusy },
	{ DRM_S_TEMP,		true,	drm_read_temp },
};

static void
drm_sample_dev(struct drm_dev *d, struct sample *s)
{
	const struct drm_reader	*rd;
	char			 buf[DRM_TEXT_MAX];
	bool			 is_slow;
	size_t			 k;

	memset(s, 0, sizeof *s);
	s->pstate = PSTATE_UNKNOWN;
	s->t_ns = now_ns();
	is_slow = s->t_ns >= d->slow_ns;
	if (is_slow)
		d->slow_ns = s->t_ns + DRM_SLOW_NS;
	for (k = 0; k < ARRAY_SIZE(drm_readers); k++) {
		rd = &drm_readers[k];
		if (d->fds[rd->sensor] < 0 || (rd->is_slow && !is_slow))
			continue;
		rd->read(d, drm_read(d, rd->sensor, buf, sizeof buf), s);
	}
	s->read_ns = now_ns() - s->t_ns;
	d->last_t_ns = s->t_ns;
}

/* ---- sample ----------------------------------------------------------- */

/* At most a second of the whole device's load is owed (drm_others). */
#define DRM_OTHERS_OWED_MAX	(100 * NSEC_PER_SEC)

/*
 * Processes outside the tree are not read.  Where the device says how busy
 * it was (amdgpu's gpu_busy_percent, read at every reading), the others' load
 * is that less the workload's (pids from n0 on are this scan's), none while
 * a client of the workload is new (its first scan is its baseline: its
 * load is not known yet); elsewhere it is unknown, taken as none.  The busy
 * figure is the firmware's, over its own short window, read once, and the
 * workload's is over the whole span: a load that comes in bursts puts
 * one above the other by turns.  What the workload's exceeds it by is owed
 * by the next spans' others, so that the others' load over the run is the
 * difference of the two averages, not the sum of its positive turns (a
 * lone workload would otherwise show a phantom other load of half its
 * swing); a second of the device's load at most, so that a lasting gap
 * between the two figures does not hide others who come later.
 */
static void
drm_others(struct drm_dev *d, struct sample *s, size_t dev, const struct pid_usage_set *pids,
    size_t n0, int64_t span_ns)
{
	unsigned	tree = 0;
	bool		is_new = false;
	size_t		k;
	int64_t		owed;

	if (!(s->valid & M_UTIL))
		return;
	for (k = n0; k < pids->n; k++) {
		if (pids->v[k].dev == dev && pids->v[k].has_util)
			tree += pids->v[k].sm_pct;
		is_new |= pids->v[k].dev == dev && !pids->v[k].has_util;
	}
	s->foreign_sm_pct = 0;
	s->foreign_mem_pct = 0;
	s->valid |= M_FOREIGN;
	if (is_new)
		return;
	owed = ((int64_t)s->util_pct - (int64_t)tree) * span_ns + d->others_owed;
	if (owed >= 0) {
		s->foreign_sm_pct = (uint16_t)((owed + span_ns / 2) / span_ns);
		d->others_owed = 0;
	} else
		d->others_owed = owed > -DRM_OTHERS_OWED_MAX ? owed : -DRM_OTHERS_OWED_MAX;
}

static int
drm_sample(struct device *devs, size_t ndev, const struct proctree *tree,
    struct sample *out, struct pid_usage_set *pids, struct errbuf *err)
{
	struct drm_ctx	*ctx;
	int64_t		 t, span;
	size_t		 i, n0;

	(void)err;
	if (ndev == 0)
		return 0;
	for (i = 0; i < ndev; i++)
		drm_sample_dev(devs[i].priv, &out[i]);
	ctx = ((struct drm_dev *)devs[0].priv)->ctx;
	if (ctx->proc_dirfd < 0 || tree == NULL)
		return 0;
	t = now_ns();
	span = ctx->has_scan ? t - ctx->scan_ns : 0;
	drm_scan(ctx, tree, t, span);
	n0 = pids->n;
	drm_scan_emit(ctx, span, pids);
	for (i = 0; i < ndev && ctx->kfd_pid != 0; i++)
		devs[i].is_use_unseen |= ((struct drm_dev *)devs[i].priv)->driver == DRM_AMDGPU;
	ctx->has_scan = true;
	ctx->scan_ns = t;
	for (i = 0; i < ndev && span > 0; i++) {
		out[i].pid_span_ns = span;
		out[i].valid |= M_PID_UTIL;
		drm_others(devs[i].priv, &out[i], i, pids, n0, span);
	}
	return 0;
}

/* ---- finish and close ------------------------------------------------- */

void
drm_free(struct drm_ctx *ctx)
{
	size_t	i, k;

	for (i = 0; i < ctx->ndev; i++) {
		for (k = 0; k < DRM_NSENSORS; k++) {
			if (ctx->devs[i].fds[k] >= 0)
				close(ctx->devs[i].fds[k]);
		}
	}
	drm_fdinfo_free(ctx);
	free(ctx->devs);
	free(ctx);
}

static void
drm_note_counts(struct device *devs, size_t ndev)
{
	struct drm_dev	*d;
	size_t		 i, k;

	for (i = 0; i < ndev; i++) {
		d = devs[i].priv;
		for (k = 0; k < DRM_NSENSORS; k++) {
			if (d->held[k] > 0)
				backend_note(&devs[i], "%" PRIu64 " reading%s of %s failed; %s",
				    d->held[k], d->held[k] == 1 ? "" : "s", d->paths[k],
				    k == DRM_S_ENERGY ? "the next good reading's delta covers them" :
				    "the counter was held, and the next reading caught up");
		}
		if (d->power_bad > 0)
			backend_note(&devs[i], "%" PRIu64 " reading%s of %s at 2.1 kW or more "
			    "(a failed read, as some kernels print it) were left out",
			    d->power_bad, d->power_bad == 1 ? "" : "s", d->paths[DRM_S_POWER]);
		if (d->sclk_by_clock > 0)
			backend_note(&devs[i], "P-state of %" PRIu64 " reading%s from %s, as %s "
			    "marked no level", d->sclk_by_clock, d->sclk_by_clock == 1 ? "" : "s",
			    d->fds[DRM_S_FREQ_HZ] >= 0 ? d->paths[DRM_S_FREQ_HZ] :
			    d->paths[DRM_S_FREQ_MHZ], d->paths[DRM_S_SCLK]);
		if (d->sclk_top_unmarked > 0)
			backend_note(&devs[i], "P-state of %" PRIu64 " reading%s taken as the top "
			    "level: %s listed two levels and marked neither, as Navi 1x does at "
			    "its top clock", d->sclk_top_unmarked, d->sclk_top_unmarked == 1 ? "" :
			    "s", d->paths[DRM_S_SCLK]);
		if (d->asleep > 0)
			backend_note(&devs[i], "runtime-suspended at %" PRIu64 " reading%s (%.1f s): "
			    "its sensors do not answer then, so that time is counted at half the "
			    "awake power read around it, its bound reaching from none to all of it",
			    d->asleep, d->asleep == 1 ? "" : "s", (double)d->asleep_ns / 1e9);
		memset(d->held, 0, sizeof d->held);
		d->power_bad = d->sclk_by_clock = d->sclk_top_unmarked = d->asleep = 0;
		d->asleep_ns = d->last_t_ns = 0;	/* the next run's time starts at its first reading */
		d->slow_ns = 0;		/* the next run's first reading reads everything */
		d->others_owed = 0;	/* nor is the next run's others' load this one's */
	}
}

static void
drm_finish(struct device *devs, size_t ndev, const struct proctree *tree,
    struct pid_usage_set *pids)
{
	struct drm_dev		*d;
	const struct proc	*p;
	size_t			 i;

	(void)pids;
	for (i = 0; i < ndev; i++) {
		d = devs[i].priv;
		drm_finish_denied(d->ctx, &devs[i]);
		/* The tree keeps ended processes: its newest name. */
		p = tree != NULL ? proctree_find(tree, d->ctx->kfd_pid) : NULL;
		if (devs[i].is_use_unseen)
			backend_note(&devs[i], "process %d (%s) of the workload opened /dev/kfd "
			    "(ROCm, HIP): the compute work sent through it is in no DRM fdinfo, so "
			    "the workload's share of this device is unknown", (int)d->ctx->kfd_pid,
			    p != NULL ? p->comm : "?");
	}
	if (ndev > 0)
		drm_fdinfo_end_run(((struct drm_dev *)devs[0].priv)->ctx);
}

static void
drm_close(struct device *devs, size_t ndev)
{
	size_t	i;

	if (ndev == 0)
		return;
	drm_free(((struct drm_dev *)devs[0].priv)->ctx);
	for (i = 0; i < ndev; i++)
		devs[i].priv = NULL;
}

const struct source_ops drm_ops = {
	.name = "drm",
	.reads_tree = true,
	.probe = drm_probe,
	.sample = drm_sample,
	.finish = drm_finish,
	.note_counts = drm_note_counts,
	.close = drm_close,
};
