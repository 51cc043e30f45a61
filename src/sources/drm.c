/*
 * The AMD and Intel GPU backend (DESIGN §3, §4): amdgpu, i915 and xe
 * devices found under /sys/class/drm, read through sysfs and hwmon, and
 * the workload's own DRM clients read through /proc/PID/fdinfo.
 *
 * Per device and tick: amdgpu gives power (hwmon power1_input, else the
 * firmware average power1_average; energy is then integrated by the
 * accounting), the DPM level of pp_dpm_sclk as the P-state, clocks;
 * i915 and xe give the hwmon energy counter (card energy1_input, else xe's
 * package energy2_input), the actual frequency, and the RC6 / gt-idle
 * residency turned into an idle P-state.  Utilization and temperature are
 * context figures, read once a second.  Files read on every tick are
 * opened once and re-read with pread.
 *
 * Per process: only the pids of the workload's tree are visited, never the
 * whole of /proc.  A DRM fd is recognised the kernel way, by fstatat on
 * /proc/PID/fd/N giving a character device of major 226; when that link
 * cannot be followed (fixture trees, which hold no device nodes), the fd's
 * fdinfo decides by its mandatory drm-driver key.  Clients are counted
 * once per (drm-pdev, drm-client-id), whatever the number of fds and
 * processes that share them.  The fds of a process are listed again only
 * when their number changed (the size of /proc/PID/fd) or once a second,
 * and fds found not to be DRM fds are not looked at in between: a process
 * with a thousand fds then costs tens of microseconds per tick, not
 * milliseconds.
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

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/backend.h"
#include "joulestat/devsel.h"
#include "joulestat/proctree.h"
#include "joulestat/util.h"

#include "drm_parse.h"

#define DRM_MAJOR		226		/* Documentation/admin-guide/devices.txt */
#define DRM_SLOW_NS		(1 * NSEC_PER_SEC)	/* context figures */
/*
 * i915/xe extend their 32-bit energy and residency registers in software
 * only when they are read; the energy register wraps in about 4 minutes at
 * 1 kW, so they must be read at least this often.
 */
#define DRM_KEEP_READING_NS	(60 * NSEC_PER_SEC)
#define DRM_PSTATE_AWAKE	0		/* i915/xe: the GT is not in RC6 */
#define DRM_PSTATE_SLEEP	PSTATE_MAX	/* amdgpu deep sleep "S", i915/xe RC6 */
/*
 * fds found not to be DRM fds are not looked at again for this long: a
 * process with a thousand fds would otherwise cost a thousand fstatat
 * calls (about 2 ms) per tick.  A new fd number is looked at at once; an
 * old number reused for a DRM device is found within this time, and its
 * counters, which start at its creation, lose nothing in launch mode.
 */
#define DRM_RECHECK_NS		(1 * NSEC_PER_SEC)
#define DRM_CARDS_MAX		64
#define DRM_TEXT_MAX		4096		/* a sysfs file */
#define DRM_FDINFO_MAX		8192		/* xe prints about 1.3 KiB */

enum drm_driver {
	DRM_AMDGPU,
	DRM_I915,
	DRM_XE,
	DRM_NDRIVERS
};

#define DRM_D_AMD	(1u << DRM_AMDGPU)
#define DRM_D_I915	(1u << DRM_I915)
#define DRM_D_XE	(1u << DRM_XE)
#define DRM_D_INTEL	(DRM_D_I915 | DRM_D_XE)

static const char *const drm_driver_names[DRM_NDRIVERS] = {
	[DRM_AMDGPU] = "amdgpu",
	[DRM_I915] = "i915",
	[DRM_XE] = "xe",
};

enum drm_sensor {
	DRM_S_POWER,		/* µW */
	DRM_S_ENERGY,		/* µJ, cumulative */
	DRM_S_SCLK,		/* pp_dpm_sclk */
	DRM_S_MCLK,		/* pp_dpm_mclk */
	DRM_S_FREQ_HZ,		/* amdgpu hwmon freq1_input */
	DRM_S_FREQ_MHZ,		/* i915/xe actual frequency */
	DRM_S_IDLE,		/* ms in RC6, cumulative */
	DRM_S_BUSY,		/* % */
	DRM_S_MEMBUSY,		/* % */
	DRM_S_TEMP,		/* m°C */
	DRM_NSENSORS
};

/* Where a file is: the card directory, its PCI device, or the device's hwmon. */
enum drm_base {
	DRM_AT_CARD,
	DRM_AT_DEVICE,
	DRM_AT_HWMON,
};

/*
 * sysfs files.  amdgpu: Documentation/gpu/amdgpu/thermal.rst (the DOC
 * sections of amdgpu_pm.c).  i915: intel_gt_sysfs_pm.c and
 * Documentation/ABI/testing/sysfs-driver-intel-i915-hwmon.  xe:
 * Documentation/ABI/testing/sysfs-driver-intel-xe-hwmon, xe_gt_freq.c,
 * xe_gt_idle.c.  hwmon units: Documentation/hwmon/sysfs-interface.rst.
 */
static const char drm_f_uevent[] = "uevent";
static const char drm_f_vendor[] = "vendor";
static const char drm_f_device[] = "device";
static const char drm_f_product[] = "product_name";
static const char drm_f_hwmon[] = "hwmon";
static const char drm_f_hwmon_name[] = "name";
static const char drm_f_power_input[] = "power1_input";
static const char drm_f_power_average[] = "power1_average";
static const char drm_f_energy_card[] = "energy1_input";
static const char drm_f_energy_pkg[] = "energy2_input";
static const char drm_f_sclk[] = "pp_dpm_sclk";
static const char drm_f_mclk[] = "pp_dpm_mclk";
static const char drm_f_freq_hz[] = "freq1_input";
static const char drm_f_i915_freq[] = "gt_act_freq_mhz";
static const char drm_f_i915_gt0_freq[] = "gt/gt0/rps_act_freq_mhz";
static const char drm_f_xe_freq[] = "tile0/gt0/freq0/act_freq";
static const char drm_f_i915_rc6[] = "power/rc6_residency_ms";
static const char drm_f_i915_gt0_rc6[] = "gt/gt0/rc6_residency_ms";
static const char drm_f_xe_idle[] = "tile0/gt0/gtidle/idle_residency_ms";
static const char drm_f_busy[] = "gpu_busy_percent";
static const char drm_f_membusy[] = "mem_busy_percent";
static const char drm_f_temp1[] = "temp1_input";
static const char drm_f_temp2[] = "temp2_input";

/* Candidate files per sensor, per driver, in order of preference. */
struct drm_file {
	unsigned	 drivers;		/* DRM_D_* */
	enum drm_sensor	 sensor;
	enum drm_base	 base;
	const char	*path;
	const char	*word;			/* capability word in device.how */
};

static const struct drm_file drm_files[] = {
	{ DRM_D_AMD,	DRM_S_POWER,	DRM_AT_HWMON,	drm_f_power_input,	"power" },
	{ DRM_D_AMD,	DRM_S_POWER,	DRM_AT_HWMON,	drm_f_power_average,	"power" },
	{ DRM_D_INTEL,	DRM_S_ENERGY,	DRM_AT_HWMON,	drm_f_energy_card,	"energy" },
	{ DRM_D_XE,	DRM_S_ENERGY,	DRM_AT_HWMON,	drm_f_energy_pkg,	"energy" },
	{ DRM_D_AMD,	DRM_S_SCLK,	DRM_AT_DEVICE,	drm_f_sclk,		"pstate" },
	{ DRM_D_AMD,	DRM_S_MCLK,	DRM_AT_DEVICE,	drm_f_mclk,		"mem-clock" },
	{ DRM_D_AMD,	DRM_S_FREQ_HZ,	DRM_AT_HWMON,	drm_f_freq_hz,		"clocks" },
	{ DRM_D_I915,	DRM_S_FREQ_MHZ,	DRM_AT_CARD,	drm_f_i915_freq,	"clocks" },
	{ DRM_D_I915,	DRM_S_FREQ_MHZ,	DRM_AT_CARD,	drm_f_i915_gt0_freq,	"clocks" },
	{ DRM_D_XE,	DRM_S_FREQ_MHZ,	DRM_AT_DEVICE,	drm_f_xe_freq,		"clocks" },
	{ DRM_D_I915,	DRM_S_IDLE,	DRM_AT_CARD,	drm_f_i915_rc6,		"pstate" },
	{ DRM_D_I915,	DRM_S_IDLE,	DRM_AT_CARD,	drm_f_i915_gt0_rc6,	"pstate" },
	{ DRM_D_XE,	DRM_S_IDLE,	DRM_AT_DEVICE,	drm_f_xe_idle,		"pstate" },
	{ DRM_D_AMD,	DRM_S_BUSY,	DRM_AT_DEVICE,	drm_f_busy,		"util" },
	{ DRM_D_AMD,	DRM_S_MEMBUSY,	DRM_AT_DEVICE,	drm_f_membusy,		"mem-util" },
	{ DRM_D_AMD | DRM_D_I915, DRM_S_TEMP, DRM_AT_HWMON, drm_f_temp1,	"temp" },
	{ DRM_D_XE,	DRM_S_TEMP,	DRM_AT_HWMON,	drm_f_temp2,		"temp" },
};

struct drm_ctx;

/* One GPU: devs[i].priv. */
struct drm_dev {
	struct drm_ctx		*ctx;
	enum drm_driver		 driver;
	char			 pdev[DRM_PDEV_MAX];
	int			 fds[DRM_NSENSORS];	/* -1 when absent */
	const char		*paths[DRM_NSENSORS];	/* for notes */
	int64_t			 slow_ns;		/* next read of the context figures */
	/* Cumulative counters; a failed read holds the last value. */
	bool			 has_energy;
	uint64_t		 energy_uj;
	bool			 has_idle;
	uint64_t		 idle_ms;
	int64_t			 idle_t_ns;
	struct drm_dither	 dither;
	uint64_t		 held[DRM_NSENSORS];	/* reads that failed and were held */
};

/* One DRM client (struct drm_file in the kernel) of the workload. */
struct drm_client {
	size_t			 dev;
	uint64_t		 id;			/* drm-client-id, or a stand-in */
	uint64_t		 round;			/* last scan that counted it */
	struct drm_engine_state	 engines[DRM_ENGINES_MAX];
	size_t			 nengines;
};

/* One fd of a workload process that we follow. */
struct drm_fdref {
	pid_t			 pid;
	int			 fd;			/* the fd number in that process */
	int			 handle;		/* our open /proc/PID/fdinfo/FD */
	uint64_t		 round;
};

/* The fds of one workload process that are not DRM fds, as last checked. */
struct drm_pidfds {
	pid_t			 pid;
	uint64_t		 starttime_ticks;
	uint64_t		 round;			/* last scan that met the process */
	int64_t			 checked_ns;		/* when the list was started */
	bool			 is_due;		/* this scan lists every fd again */
	int64_t			 nopen;			/* open fds at the last listing */
	struct backend_intset	 fds;
};

/* What one process used of one device in one scan. */
struct drm_use {
	size_t			 dev;
	pid_t			 pid;
	bool			 has_util;
	bool			 has_mem;
	uint64_t		 mem_kib;
	uint64_t		 engine_ns;
	size_t			 nclasses;
	struct {
		char		 name[DRM_NAME_MAX];	/* engine class */
		double		 frac;			/* busy share of the class's capacity */
	}			 classes[DRM_ENGINES_MAX];
};

/* A process whose fdinfo was refused: named once in the report. */
struct drm_denied {
	pid_t			 pid;
	uint64_t		 starttime_ticks;
	char			 comm[PROCFS_COMM_MAX];
};

struct drm_ctx {
	int			 proc_dirfd;		/* JOULESTAT_PROC_ROOT, or -1 */
	struct drm_dev		*devs;
	size_t			 ndev;
	struct drm_client	*clients;
	size_t			 nclients;
	size_t			 capclients;
	struct drm_fdref	*refs;
	size_t			 nrefs;
	size_t			 caprefs;
	struct drm_use		*uses;
	size_t			 nuses;
	size_t			 capuses;
	struct drm_pidfds	*pfs;
	size_t			 npfs;
	size_t			 cappfs;
	struct drm_denied	*denied;
	size_t			 ndenied;
	size_t			 capdenied;
	uint64_t		 round;
	bool			 has_scan;
	int64_t			 scan_ns;		/* previous scan */
	char			 path[64];
	char			 text[DRM_FDINFO_MAX];
	_Alignas(8) char	 dents[4096];
};

static int	drm_probe(const struct source_config *, struct device **, size_t *, struct errbuf *);
static int	drm_sample(struct device *, size_t, const struct proctree *, struct sample *,
		    struct pid_usage_set *, struct errbuf *);
static void	drm_finish(struct device *, size_t, const struct proctree *,
		    struct pid_usage_set *);
static void	drm_close(struct device *, size_t);

const struct source_ops drm_ops = {
	.name = "drm",
	.probe = drm_probe,
	.sample = drm_sample,
	.finish = drm_finish,
	.close = drm_close,
};

/* ---- small helpers ---------------------------------------------------- */

/* ---- per-tick device readings ----------------------------------------- */

/* The file of sensor k, read again; NULL when it could not be read. */
static const char *
drm_read(struct drm_dev *d, enum drm_sensor k, char *buf, size_t size)
{
	ssize_t	n = pread_text(d->fds[k], buf, size);

	return n > 0 ? buf : NULL;
}

static void
drm_read_power(struct drm_dev *d, const char *text, struct sample *s)
{
	uint64_t	uw;

	(void)d;
	if (text == NULL || drm_parse_value(text, &uw) != 0 || uw / 1000 > UINT32_MAX)
		return;
	s->power_mw = (uint32_t)(uw / 1000);
	s->valid |= M_POWER;
}

/*
 * The hwmon energy counter is 64 bits of µJ (the driver extends the
 * register), so it is handed on in mJ with no range: a decrease is a
 * reset (driver reload, resume).  A failed read holds the last value; the
 * next good one carries the energy of both intervals.
 */
static void
drm_read_energy(struct drm_dev *d, const char *text, struct sample *s)
{
	uint64_t	uj;

	if (text != NULL && drm_parse_value(text, &uj) == 0) {
		d->energy_uj = uj;
		d->has_energy = true;
	} else if (d->has_energy)
		d->held[DRM_S_ENERGY]++;
	else
		return;
	s->energy_mj = d->energy_uj / 1000;
	s->valid |= M_ENERGY;
}

/*
 * The current DPM level is the P-state: P<n> is level n counted from the
 * lowest clock, P15 is deep sleep ("S:").  Without a marked line the
 * state is unknown (older kernels mark only exact matches).
 */
static void
drm_read_sclk(struct drm_dev *d, const char *text, struct sample *s)
{
	struct drm_dpm	dpm;

	if (text == NULL || drm_parse_dpm(text, &dpm) != 0 || !dpm.has_current)
		return;
	if (dpm.is_sleep)
		s->pstate = DRM_PSTATE_SLEEP;
	else if (dpm.level < DRM_PSTATE_SLEEP)
		s->pstate = (int)dpm.level;
	else
		return;
	s->valid |= M_PSTATE;
	if (d->fds[DRM_S_FREQ_HZ] < 0) {
		s->gfx_mhz = s->sm_mhz = dpm.mhz;
		s->valid |= M_CLOCKS;
	}
}

static void
drm_read_mclk(struct drm_dev *d, const char *text, struct sample *s)
{
	struct drm_dpm	dpm;

	(void)d;
	if (text != NULL && drm_parse_dpm(text, &dpm) == 0 && dpm.has_current)
		s->mem_mhz = dpm.mhz;
}

static void
drm_read_freq(struct drm_dev *d, const char *text, struct sample *s, uint64_t div)
{
	uint64_t	v;

	(void)d;
	if (text == NULL || drm_parse_value(text, &v) != 0 || v / div > UINT32_MAX)
		return;
	s->gfx_mhz = s->sm_mhz = (uint32_t)(v / div);
	s->valid |= M_CLOCKS;
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

/* Per-tick readers, in this order: power and energy first, nearest to t_ns. */
struct drm_reader {
	enum drm_sensor	 sensor;
	bool		 is_slow;		/* once per DRM_SLOW_NS */
	void		(*read)(struct drm_dev *, const char *, struct sample *);
};

static const struct drm_reader drm_readers[] = {
	{ DRM_S_POWER,		false,	drm_read_power },
	{ DRM_S_ENERGY,		false,	drm_read_energy },
	{ DRM_S_SCLK,		false,	drm_read_sclk },
	{ DRM_S_MCLK,		false,	drm_read_mclk },
	{ DRM_S_FREQ_HZ,	false,	drm_read_freq_hz },
	{ DRM_S_FREQ_MHZ,	false,	drm_read_freq_mhz },
	{ DRM_S_IDLE,		false,	drm_read_idle },
	{ DRM_S_BUSY,		true,	drm_read_busy },
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
}

/* ---- per-process fdinfo ----------------------------------------------- */

/* The device whose PCI slot is pdev; ndev when none. */
static size_t
drm_dev_by_pdev(const struct drm_ctx *ctx, const char *pdev)
{
	size_t	i;

	for (i = 0; i < ctx->ndev; i++) {
		if (strcasecmp(ctx->devs[i].pdev, pdev) == 0)
			return i;
	}
	return ctx->ndev;
}

/* Remember a process whose fdinfo was refused, once. */
static void
drm_denied_add(struct drm_ctx *ctx, const struct proc *p)
{
	struct drm_denied	*dn;
	size_t			 i;

	for (i = 0; i < ctx->ndenied; i++) {
		if (ctx->denied[i].pid == p->pid &&
		    ctx->denied[i].starttime_ticks == p->starttime_ticks)
			return;
	}
	if (backend_grow(&ctx->denied, &ctx->capdenied, ctx->ndenied + 1, sizeof *ctx->denied) != 0)
		return;
	dn = &ctx->denied[ctx->ndenied++];
	dn->pid = p->pid;
	dn->starttime_ticks = p->starttime_ticks;
	memcpy(dn->comm, p->comm, sizeof dn->comm);
}

static struct drm_fdref *
drm_ref_find(struct drm_ctx *ctx, pid_t pid, int fd)
{
	size_t	i;

	for (i = 0; i < ctx->nrefs; i++) {
		if (ctx->refs[i].pid == pid && ctx->refs[i].fd == fd)
			return &ctx->refs[i];
	}
	return NULL;
}

/*
 * Whether fd of pid is a DRM fd: 1 yes, 0 no, -1 cannot tell (the link
 * cannot be followed: let the fdinfo text decide).
 */
static int
drm_is_drm_fd(struct drm_ctx *ctx, pid_t pid, int fd)
{
	struct stat	st;

	snprintf(ctx->path, sizeof ctx->path, "%d/fd/%d", (int)pid, fd);
	if (fstatat(ctx->proc_dirfd, ctx->path, &st, 0) == 0)
		return S_ISCHR(st.st_mode) && major(st.st_rdev) == DRM_MAJOR;
	return -1;
}

/* The non-DRM fd list of process p, started afresh when due; NULL without memory. */
static struct drm_pidfds *
drm_pidfds_get(struct drm_ctx *ctx, const struct proc *p, int64_t t_ns)
{
	struct drm_pidfds	*pf = NULL;
	size_t			 i;

	for (i = 0; i < ctx->npfs && pf == NULL; i++) {
		if (ctx->pfs[i].pid == p->pid)
			pf = &ctx->pfs[i];
	}
	if (pf == NULL) {
		if (backend_grow(&ctx->pfs, &ctx->cappfs, ctx->npfs + 1, sizeof *ctx->pfs) != 0)
			return NULL;
		pf = &ctx->pfs[ctx->npfs++];
		memset(pf, 0, sizeof *pf);
		pf->pid = p->pid;
		pf->starttime_ticks = p->starttime_ticks;
		pf->checked_ns = t_ns;
	}
	/* Another process with the same pid, or time to look again. */
	pf->is_due = pf->starttime_ticks != p->starttime_ticks ||
	    t_ns - pf->checked_ns >= DRM_RECHECK_NS;
	if (pf->is_due) {
		pf->starttime_ticks = p->starttime_ticks;
		pf->fds.n = 0;
		pf->nopen = 0;
		pf->checked_ns = t_ns;
	}
	pf->round = ctx->round;
	return pf;
}

/* Stop following ref: its fd is gone or is not a DRM fd. */
static void
drm_ref_drop(struct drm_ctx *ctx, struct drm_fdref *ref)
{
	close(ref->handle);
	*ref = ctx->refs[--ctx->nrefs];
}

/*
 * The followed fd (pid, fd), opened when it is new and may be a DRM fd;
 * NULL if it is not (then it goes on the process's non-DRM list).
 */
static struct drm_fdref *
drm_ref_get(struct drm_ctx *ctx, const struct proc *p, struct drm_pidfds *pf, int dfd,
    const char *name, int fd)
{
	struct drm_fdref	*ref;
	int			 h;

	if ((ref = drm_ref_find(ctx, p->pid, fd)) != NULL)
		return ref;
	if (backend_intset_has(&pf->fds, fd))
		return NULL;
	if (drm_is_drm_fd(ctx, p->pid, fd) == 0) {
		backend_intset_add(&pf->fds, fd);
		return NULL;
	}
	if ((h = openat(dfd, name, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == EACCES || errno == EPERM)
			drm_denied_add(ctx, p);
		return NULL;
	}
	if (backend_grow(&ctx->refs, &ctx->caprefs, ctx->nrefs + 1, sizeof *ctx->refs) != 0) {
		close(h);
		return NULL;
	}
	ref = &ctx->refs[ctx->nrefs++];
	ref->pid = p->pid;
	ref->fd = fd;
	ref->handle = h;
	ref->round = 0;
	return ref;
}

/* The client (dev, id), created when new (*is_new); NULL without memory. */
static struct drm_client *
drm_client_get(struct drm_ctx *ctx, size_t dev, uint64_t id, bool *is_new)
{
	struct drm_client	*c;
	size_t			 i;

	*is_new = false;
	for (i = 0; i < ctx->nclients; i++) {
		if (ctx->clients[i].dev == dev && ctx->clients[i].id == id)
			return &ctx->clients[i];
	}
	if (backend_grow(&ctx->clients, &ctx->capclients, ctx->nclients + 1,
	    sizeof *ctx->clients) != 0)
		return NULL;
	c = &ctx->clients[ctx->nclients++];
	memset(c, 0, sizeof *c);
	c->dev = dev;
	c->id = id;
	*is_new = true;
	return c;
}

static struct drm_engine_state *
drm_client_engine(struct drm_client *c, const char *name)
{
	struct drm_engine_state	*st;
	size_t			 i;

	for (i = 0; i < c->nengines; i++) {
		if (strcmp(c->engines[i].name, name) == 0)
			return &c->engines[i];
	}
	if (c->nengines == DRM_ENGINES_MAX)
		return NULL;
	st = &c->engines[c->nengines++];
	memset(st, 0, sizeof *st);
	snprintf(st->name, sizeof st->name, "%s", name);
	return st;
}

/* This scan's usage of device dev by pid, created when new; NULL without memory. */
static struct drm_use *
drm_use_get(struct drm_ctx *ctx, size_t dev, pid_t pid)
{
	struct drm_use	*u;
	size_t		 i;

	for (i = 0; i < ctx->nuses; i++) {
		if (ctx->uses[i].dev == dev && ctx->uses[i].pid == pid)
			return &ctx->uses[i];
	}
	if (backend_grow(&ctx->uses, &ctx->capuses, ctx->nuses + 1, sizeof *ctx->uses) != 0)
		return NULL;
	u = &ctx->uses[ctx->nuses++];
	memset(u, 0, sizeof *u);
	u->dev = dev;
	u->pid = pid;
	return u;
}

static void
drm_use_add(struct drm_use *u, const char *name, double frac)
{
	size_t	i;

	for (i = 0; i < u->nclasses; i++) {
		if (strcmp(u->classes[i].name, name) == 0) {
			u->classes[i].frac += frac;
			return;
		}
	}
	if (u->nclasses == DRM_ENGINES_MAX)
		return;
	snprintf(u->classes[u->nclasses].name, sizeof u->classes[0].name, "%s", name);
	u->classes[u->nclasses++].frac = frac;
}

/*
 * Counters of a client first seen in launch mode start from zero: its
 * process was born during the run, so the client was too, unless it came
 * from outside (an fd passed over a socket).  Busy time longer than the
 * process's life says so, and then the first reading is a baseline.
 */
static bool
drm_is_fresh(const struct proc *p, const struct drm_engine *e, int64_t t_ns, bool is_launch)
{
	int64_t	life = t_ns - p->first_seen_ns;

	if (!is_launch || !(e->has & DRM_E_NS) || life < 0)
		return false;
	return e->busy_ns <= (uint64_t)life * (e->capacity > 0 ? e->capacity : 1);
}

/* Fold one engine class of a client into the process's usage. */
static void
drm_use_engine(struct drm_use *u, struct drm_engine_state *st, const struct drm_engine *e,
    int64_t t_ns, int64_t span_ns, bool is_fresh)
{
	bool		was = st->has_last || (e->has & DRM_E_PCT) || is_fresh;
	uint64_t	busy = drm_engine_update(st, e, t_ns, span_ns, is_fresh);

	if (!was || span_ns <= 0)
		return;
	u->has_util = true;
	u->engine_ns += busy;
	drm_use_add(u, st->name, (double)busy / ((double)span_ns * (double)st->capacity));
}

/* One DRM fdinfo of process p, read at t_ns. */
static void
drm_client_update(struct drm_ctx *ctx, const struct proc *p, const struct drm_fdinfo *fi,
    int64_t t_ns, int64_t span_ns, bool is_launch)
{
	struct drm_client	*c;
	struct drm_engine_state	*st;
	struct drm_use		*u;
	size_t			 dev, i;
	uint64_t		 id;
	bool			 is_new;

	/* A client of another GPU (NVIDIA, unselected) is not ours. */
	if ((dev = drm_dev_by_pdev(ctx, fi->pdev)) == ctx->ndev)
		return;
	/* The old amdgpu format has no client id; its pasid is one per client. */
	id = fi->has_client_id ? fi->client_id : fi->pasid;
	if (!fi->has_client_id && !fi->has_pasid)
		return;
	if ((c = drm_client_get(ctx, dev, id, &is_new)) == NULL || c->round == ctx->round)
		return;
	/* Counted once, for the first process of the tree holding it. */
	c->round = ctx->round;
	if ((u = drm_use_get(ctx, dev, p->pid)) == NULL)
		return;
	if (fi->has_dev_mem) {
		u->has_mem = true;
		u->mem_kib += fi->dev_mem_kib;
	}
	for (i = 0; i < fi->nengines; i++) {
		if ((st = drm_client_engine(c, fi->engines[i].name)) != NULL)
			drm_use_engine(u, st, &fi->engines[i], t_ns, span_ns,
			    is_new && drm_is_fresh(p, &fi->engines[i], t_ns, is_launch));
	}
}

/* Read a followed fd of process p. */
static void
drm_ref_read(struct drm_ctx *ctx, const struct proc *p, struct drm_pidfds *pf,
    struct drm_fdref *ref, int64_t span_ns, bool is_launch)
{
	struct drm_fdinfo	fi;
	ssize_t			n;
	int			fd = ref->fd;

	ref->round = ctx->round;
	if ((n = pread_text(ref->handle, ctx->text, sizeof ctx->text)) < 0) {
		if (n == -EACCES || n == -EPERM)
			drm_denied_add(ctx, p);
		else
			/* ESRCH, ENOENT: the process or the fd is gone (its pid may come back). */
			drm_ref_drop(ctx, ref);
		return;
	}
	if (drm_parse_fdinfo(ctx->text, &fi) == 0) {
		drm_client_update(ctx, p, &fi, now_ns(), span_ns, is_launch);
		return;
	}
	/* No drm-driver key: not a DRM fd (or no longer one). */
	drm_ref_drop(ctx, ref);
	backend_intset_add(&pf->fds, fd);
}

/* One fd of process p: follow it if it is a DRM fd. */
static void
drm_scan_fd(struct drm_ctx *ctx, const struct proc *p, struct drm_pidfds *pf, int dfd,
    const char *name, int64_t span_ns, bool is_launch)
{
	struct drm_fdref	*ref;
	uint64_t		 fd;

	if (parse_u64_range(name, 0, INT32_MAX, &fd) != 0)
		return;
	if ((ref = drm_ref_get(ctx, p, pf, dfd, name, (int)fd)) != NULL)
		drm_ref_read(ctx, p, pf, ref, span_ns, is_launch);
}

/*
 * The number of open fds of pid: the size of /proc/PID/fd (Linux 6.2 and
 * later); 0 when unknown (older kernels say 0, fixture trees have no fd
 * directory).
 */
static int64_t
drm_nopen(struct drm_ctx *ctx, pid_t pid)
{
	struct stat	st;

	snprintf(ctx->path, sizeof ctx->path, "%d/fd", (int)pid);
	if (fstatat(ctx->proc_dirfd, ctx->path, &st, 0) == -1)
		return 0;
	return st.st_size;
}

/*
 * Only the fds already followed, when the process has as many open fds as
 * at the last listing: the directory listing is the main cost of a
 * process with many fds.  A number closed and reused in between is seen
 * at the next full listing (DRM_RECHECK_NS).
 */
static bool
drm_scan_known(struct drm_ctx *ctx, const struct proc *p, struct drm_pidfds *pf,
    int64_t span_ns, bool is_launch)
{
	int64_t	nopen = drm_nopen(ctx, p->pid);
	size_t	i;

	if (nopen <= 0 || nopen != pf->nopen || pf->is_due) {
		pf->nopen = nopen;
		return false;
	}
	for (i = ctx->nrefs; i-- > 0;) {
		/* Reading may drop the entry, which moves the last one to i. */
		if (ctx->refs[i].pid == p->pid && ctx->refs[i].round != ctx->round)
			drm_ref_read(ctx, p, pf, &ctx->refs[i], span_ns, is_launch);
	}
	return true;
}

/* Every fd of process p. */
static void
drm_scan_pid(struct drm_ctx *ctx, const struct proc *p, int64_t t_ns, int64_t span_ns,
    bool is_launch)
{
	const struct dirent64	*de;
	struct drm_pidfds	*pf;
	ssize_t			 n, off;
	int			 dfd;

	if ((pf = drm_pidfds_get(ctx, p, t_ns)) == NULL ||
	    drm_scan_known(ctx, p, pf, span_ns, is_launch))
		return;
	snprintf(ctx->path, sizeof ctx->path, "%d/fdinfo", (int)p->pid);
	if ((dfd = backend_open_dir(ctx->proc_dirfd, ctx->path)) == -1) {
		/* ENOENT or ESRCH: it just ended. */
		if (errno == EACCES || errno == EPERM)
			drm_denied_add(ctx, p);
		return;
	}
	while ((n = getdents64(dfd, ctx->dents, sizeof ctx->dents)) > 0) {
		for (off = 0; off < n; off += de->d_reclen) {
			de = (const struct dirent64 *)(ctx->dents + off);
			if (de->d_name[0] != '.')
				drm_scan_fd(ctx, p, pf, dfd, de->d_name, span_ns, is_launch);
		}
	}
	close(dfd);
}

/* Let go of the fds and clients that this scan did not meet. */
static void
drm_scan_forget(struct drm_ctx *ctx)
{
	size_t	i;

	for (i = 0; i < ctx->nrefs;) {
		if (ctx->refs[i].round == ctx->round)
			i++;
		else
			drm_ref_drop(ctx, &ctx->refs[i]);
	}
	for (i = 0; i < ctx->nclients;) {
		if (ctx->clients[i].round == ctx->round)
			i++;
		else
			ctx->clients[i] = ctx->clients[--ctx->nclients];
	}
	for (i = 0; i < ctx->npfs;) {
		if (ctx->pfs[i].round == ctx->round) {
			i++;
			continue;
		}
		backend_intset_free(&ctx->pfs[i].fds);
		ctx->pfs[i] = ctx->pfs[--ctx->npfs];
	}
}

/*
 * Hand the scan's usage on: SM% is the busiest engine class other than
 * copy engines, mem% the busiest copy engine class, each as a share of the
 * class's capacity over the interval.
 */
static void
drm_scan_emit(struct drm_ctx *ctx, int64_t span_ns, struct pid_usage_set *pids)
{
	const struct drm_use	*u;
	struct pid_usage	*pu;
	double			 sm, mem;
	size_t			 i, k;

	for (i = 0; i < ctx->nuses; i++) {
		u = &ctx->uses[i];
		sm = mem = 0;
		for (k = 0; k < u->nclasses; k++) {
			if (drm_is_copy_engine(u->classes[k].name))
				mem = u->classes[k].frac > mem ? u->classes[k].frac : mem;
			else
				sm = u->classes[k].frac > sm ? u->classes[k].frac : sm;
		}
		pu = pid_usage_add(pids);
		pu->dev = u->dev;
		pu->pid = u->pid;
		pu->has_util = u->has_util;
		pu->sm_pct = (uint8_t)(sm >= 1 ? 100 : sm * 100 + 0.5);
		pu->mem_pct = (uint8_t)(mem >= 1 ? 100 : mem * 100 + 0.5);
		pu->span_ns = span_ns;
		pu->engine_ns = u->engine_ns;
		pu->gpu_mem_kib = u->has_mem ? u->mem_kib : 0;
	}
}

/* One pass over the DRM fds of the tree's live processes. */
static void
drm_scan(struct drm_ctx *ctx, const struct proctree *tree, int64_t t_ns, int64_t span_ns)
{
	const struct proc	*p;
	size_t			 i;

	ctx->round++;
	ctx->nuses = 0;
	for (i = 0; i < tree->nlive; i++) {
		p = &tree->procs[tree->live[i]];
		if (p->state != 'Z')
			drm_scan_pid(ctx, p, t_ns, span_ns, !tree->is_root_included);
	}
	drm_scan_forget(ctx);
}

static int
drm_sample(struct device *devs, size_t ndev, const struct proctree *tree,
    struct sample *out, struct pid_usage_set *pids, struct errbuf *err)
{
	struct drm_ctx	*ctx;
	int64_t		 t, span;
	size_t		 i;

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
	drm_scan_emit(ctx, span, pids);
	ctx->has_scan = true;
	ctx->scan_ns = t;
	for (i = 0; i < ndev && span > 0; i++) {
		/* Processes outside the tree are not read: their load is unknown, taken as 0. */
		out[i].pid_span_ns = span;
		out[i].valid |= M_PID_UTIL;
	}
	return 0;
}

/* ---- probe ------------------------------------------------------------ */

/*
 * Open the file of sensor k: the first candidate that exists and reads.
 * A read refused with EPERM or EBUSY is kept (the GPU is asleep, or busy);
 * other errors (EOPNOTSUPP, EINVAL: not supported here) move on.
 */
static void
drm_probe_sensor(struct drm_dev *d, struct device *dev, const int base[3],
    const char *hwmon)
{
	const struct drm_file	*f;
	char			 buf[DRM_TEXT_MAX], what[64];
	ssize_t			 n;
	size_t			 i;
	int			 fd;

	for (i = 0; i < ARRAY_SIZE(drm_files); i++) {
		f = &drm_files[i];
		if (!(f->drivers & (1u << d->driver)) || d->fds[f->sensor] >= 0 ||
		    base[f->base] < 0)
			continue;
		if ((fd = openat(base[f->base], f->path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = pread_text(fd, buf, sizeof buf);
		if (n < 0 && n != -EPERM && n != -EBUSY && n != -EAGAIN) {
			close(fd);
			continue;
		}
		d->fds[f->sensor] = fd;
		d->paths[f->sensor] = f->path;
		snprintf(what, sizeof what, "%s%s%s", f->base == DRM_AT_HWMON ? hwmon : "",
		    f->base == DRM_AT_HWMON ? "/" : "", f->path);
		backend_how(dev, f->word, what);
	}
}

/* The device's hwmon directory: the one named after the driver, else the first. */
static int
drm_probe_hwmon(int devdir, const char *driver, char *name, size_t size)
{
	char		 buf[64], path[300];
	struct dirent	*de;
	DIR		*dir;
	int		 fd, best = -1;
	bool		 is_named = false;

	if ((fd = backend_open_dir(devdir, drm_f_hwmon)) == -1)
		return -1;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while (!is_named && (de = readdir(dir)) != NULL) {
		if (strncmp(de->d_name, "hwmon", 5) != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", de->d_name, drm_f_hwmon_name);
		is_named = read_file(dirfd(dir), path, buf, sizeof buf) > 0 &&
		    strncmp(buf, driver, strlen(driver)) == 0 && buf[strlen(driver)] == '\n';
		if (best != -1 && !is_named)
			continue;
		if (best != -1)
			close(best);
		best = backend_open_dir(dirfd(dir), de->d_name);
		snprintf(name, size, "%.*s", (int)size - 1, de->d_name);
	}
	closedir(dir);
	return best;
}

/* What the measures mean, for the report. */
static void
drm_probe_notes(struct drm_dev *d, struct device *dev)
{
	if (d->fds[DRM_S_POWER] >= 0 && strcmp(d->paths[DRM_S_POWER], drm_f_power_average) == 0)
		backend_note(dev, "power is hwmon power1_average, a firmware average over an "
		    "unspecified window with about 1 W resolution: short phases are smeared");
	if (d->fds[DRM_S_POWER] >= 0 && strcmp(d->paths[DRM_S_POWER], drm_f_power_average) == 0)
		dev->power_kind = POWER_KIND_AVERAGE_FW;
	if (d->fds[DRM_S_SCLK] >= 0) {
		dev->pstate_names = PSTATE_NAMES_DPM;
		backend_note(dev, "states are the DPM levels of pp_dpm_sclk, DPM0 the lowest "
		    "clock, and deep sleep (S)");
	}
	if (d->fds[DRM_S_IDLE] >= 0) {
		dev->pstate_names = PSTATE_NAMES_RC6;
		backend_note(dev, "states are awake and RC6 (asleep), from the residency "
		    "counter; RC6 time is within about one interval of it");
	}
	if (d->fds[DRM_S_ENERGY] >= 0 && strcmp(d->paths[DRM_S_ENERGY], drm_f_energy_pkg) == 0)
		backend_note(dev, "energy is the package counter (energy2_input): the card "
		    "counter is not available");
	if (d->fds[DRM_S_ENERGY] >= 0 && d->fds[DRM_S_POWER] < 0)
		backend_note(dev, "no power readings: energy comes from the counter alone, "
		    "so peak power is unknown");
}

/* The measures bits of what was opened. */
static void
drm_probe_measures(struct drm_dev *d, struct device *dev)
{
	if (d->fds[DRM_S_POWER] >= 0) {
		dev->measures |= M_POWER;
		dev->power_kind = strcmp(d->paths[DRM_S_POWER], drm_f_power_input) == 0 ?
		    POWER_KIND_INSTANT : POWER_KIND_UNKNOWN;
	}
	if (d->fds[DRM_S_ENERGY] >= 0)
		dev->measures |= M_ENERGY;
	if (d->fds[DRM_S_SCLK] >= 0 || d->fds[DRM_S_IDLE] >= 0)
		dev->measures |= M_PSTATE;
	if (d->fds[DRM_S_FREQ_HZ] >= 0 || d->fds[DRM_S_FREQ_MHZ] >= 0 || d->fds[DRM_S_SCLK] >= 0)
		dev->measures |= M_CLOCKS;
	if (d->fds[DRM_S_BUSY] >= 0)
		dev->measures |= M_UTIL;
	if (d->fds[DRM_S_TEMP] >= 0)
		dev->measures |= M_TEMP;
	/* Driver-extended counters need reads in time, whatever the interval. */
	if (d->fds[DRM_S_ENERGY] >= 0 || d->fds[DRM_S_IDLE] >= 0)
		dev->max_gap_ns = DRM_KEEP_READING_NS;
}

/* Name, id and bus id of the PCI device of card. */
static void
drm_probe_identity(struct device *dev, int devdir, enum drm_driver driver,
    const struct drm_uevent *ue)
{
	char		buf[128];
	uint64_t	vendor = ue->vendor, device = ue->device;
	ssize_t		n;

	if (vendor == 0 && read_file(devdir, drm_f_vendor, buf, sizeof buf) > 0)
		vendor = strtoull(buf, NULL, 16);
	if (device == 0 && read_file(devdir, drm_f_device, buf, sizeof buf) > 0)
		device = strtoull(buf, NULL, 16);
	snprintf(dev->id, sizeof dev->id, "%s", ue->slot);
	snprintf(dev->bus_id, sizeof dev->bus_id, "%s", ue->slot);
	n = read_file(devdir, drm_f_product, buf, sizeof buf);
	if (n > 1 && driver == DRM_AMDGPU) {
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(dev->name, sizeof dev->name, "%.*s", (int)sizeof dev->name - 1, buf);
	} else
		snprintf(dev->name, sizeof dev->name, "%s GPU %04x:%04x",
		    driver == DRM_AMDGPU ? "AMD" : "Intel", (unsigned)vendor, (unsigned)device);
	snprintf(dev->version, sizeof dev->version, "driver %s", drm_driver_names[driver]);
}

/* Which of our drivers drives the device; DRM_NDRIVERS when none. */
static enum drm_driver
drm_probe_driver(int devdir, struct drm_uevent *ue)
{
	char	buf[DRM_TEXT_MAX];
	int	k;

	if (read_file(devdir, drm_f_uevent, buf, sizeof buf) <= 0 || drm_parse_uevent(buf, ue) != 0)
		return DRM_NDRIVERS;
	for (k = 0; k < DRM_NDRIVERS; k++) {
		if (strcmp(ue->driver, drm_driver_names[k]) == 0)
			return (enum drm_driver)k;
	}
	return DRM_NDRIVERS;
}

/* Probe card N into dev and d; false when it is not ours or not selected. */
static bool
drm_probe_card(int classfd, unsigned card, struct devsel *sel, struct drm_dev *d,
    struct device *dev)
{
	struct drm_uevent	ue;
	enum drm_driver		driver;
	char			name[32], hwmon[32] = "";
	int			base[3] = { -1, -1, -1 };
	size_t			k;

	snprintf(name, sizeof name, "card%u", card);
	if ((base[DRM_AT_CARD] = backend_open_dir(classfd, name)) == -1)
		return false;
	base[DRM_AT_DEVICE] = backend_open_dir(base[DRM_AT_CARD], drm_f_device);
	driver = base[DRM_AT_DEVICE] == -1 ? DRM_NDRIVERS : drm_probe_driver(base[DRM_AT_DEVICE], &ue);
	memset(dev, 0, sizeof *dev);
	memset(d, 0, sizeof *d);
	if (driver != DRM_NDRIVERS && ue.slot[0] != '\0' &&
	    devsel_match(sel, card, ue.slot, ue.slot)) {
		d->driver = driver;
		snprintf(d->pdev, sizeof d->pdev, "%s", ue.slot);
		for (k = 0; k < DRM_NSENSORS; k++)
			d->fds[k] = -1;
		base[DRM_AT_HWMON] = drm_probe_hwmon(base[DRM_AT_DEVICE], drm_driver_names[driver],
		    hwmon, sizeof hwmon);
		drm_probe_identity(dev, base[DRM_AT_DEVICE], driver, &ue);
		drm_probe_sensor(d, dev, base, hwmon);
		drm_probe_measures(d, dev);
		drm_probe_notes(d, dev);
		dev->ops = &drm_ops;
		dev->index = card;
		dev->priv = d;
	}
	for (k = 0; k < 3; k++) {
		if (base[k] != -1)
			close(base[k]);
	}
	return dev->priv != NULL;
}

/* Keep a "cardN" entry (connectors such as card0-DP-1 are not) as its N. */
static bool
drm_card_entry(const char *name, void *elem)
{
	uint64_t	n;

	if (strncmp(name, "card", 4) != 0 || parse_u64_range(name + 4, 0, UINT32_MAX, &n) != 0)
		return false;
	*(unsigned *)elem = (unsigned)n;
	return true;
}

/* Per-process readings need the proc root; say so when it is missing. */
static void
drm_probe_proc(struct drm_ctx *ctx, const char *proc_root, struct device *devs, size_t ndev)
{
	size_t	i;

	ctx->proc_dirfd = backend_open_dir(AT_FDCWD, proc_root);
	for (i = 0; i < ndev; i++) {
		if (ctx->proc_dirfd < 0) {
			backend_note(&devs[i], "per-process utilization is not available: the "
			    "proc root cannot be opened");
			continue;
		}
		devs[i].measures |= M_PID_UTIL;
		backend_how(&devs[i], "pid-util", "fdinfo");
		backend_note(&devs[i], "only the workload's processes are read (fdinfo): other "
		    "processes' use of this device is unknown and counted as none");
	}
}

static void
drm_free(struct drm_ctx *ctx)
{
	size_t	i, k;

	for (i = 0; i < ctx->ndev; i++) {
		for (k = 0; k < DRM_NSENSORS; k++) {
			if (ctx->devs[i].fds[k] >= 0)
				close(ctx->devs[i].fds[k]);
		}
	}
	for (i = 0; i < ctx->nrefs; i++)
		close(ctx->refs[i].handle);
	if (ctx->proc_dirfd >= 0)
		close(ctx->proc_dirfd);
	free(ctx->devs);
	free(ctx->clients);
	free(ctx->refs);
	free(ctx->uses);
	for (i = 0; i < ctx->npfs; i++)
		backend_intset_free(&ctx->pfs[i].fds);
	free(ctx->pfs);
	free(ctx->denied);
	free(ctx);
}

/* Probe every card under class/drm into *devs. */
static void
drm_enumerate(struct drm_ctx *ctx, int classfd, struct devsel *sel, struct device **devs,
    size_t *ndev)
{
	unsigned	cards[DRM_CARDS_MAX];
	size_t		ncards, i;

	ncards = backend_list_dir(classfd, cards, ARRAY_SIZE(cards), sizeof *cards,
	    drm_card_entry, backend_cmp_uint);
	*devs = xcalloc(ncards > 0 ? ncards : 1, sizeof **devs);
	ctx->devs = xcalloc(ncards > 0 ? ncards : 1, sizeof *ctx->devs);
	for (i = 0; i < ncards; i++) {
		if (!drm_probe_card(classfd, cards[i], sel, &ctx->devs[*ndev], &(*devs)[*ndev]))
			continue;
		ctx->devs[*ndev].ctx = ctx;
		(*ndev)++;
		ctx->ndev = *ndev;
	}
}

static int
drm_probe(const struct source_config *sc, struct device **devs, size_t *ndev,
    struct errbuf *err)
{
	struct drm_ctx	*ctx;
	int		 root, classfd;

	(void)err;
	*devs = NULL;
	*ndev = 0;
	/* No sysfs, or no DRM class: nothing here, and nothing to say. */
	root = backend_open_dir(AT_FDCWD, sc->sysfs_root);
	classfd = root == -1 ? -1 : backend_open_dir(root, "class/drm");
	if (root != -1)
		close(root);
	if (classfd == -1)
		return 0;
	ctx = xcalloc(1, sizeof *ctx);
	ctx->proc_dirfd = -1;
	drm_enumerate(ctx, classfd, sc->sel, devs, ndev);
	close(classfd);
	if (*ndev == 0) {
		drm_free(ctx);
		free(*devs);
		*devs = NULL;
		return 0;
	}
	drm_probe_proc(ctx, sc->proc_root, *devs, *ndev);
	return 0;
}

/* ---- finish and close ------------------------------------------------- */

/* Name the processes whose fdinfo was refused, on every device. */
static void
drm_finish_denied(const struct drm_ctx *ctx, struct device *dev)
{
	char	text[DEVICE_NOTE_LEN];
	size_t	len, i;
	int	w;

	if (ctx->ndenied == 0 || dev->nnotes == DEVICE_MAX_NOTES)
		return;
	len = (size_t)snprintf(text, sizeof text, "fdinfo of %zu workload process%s could not "
	    "be read (permission denied; it needs ptrace access):", ctx->ndenied,
	    ctx->ndenied == 1 ? "" : "es");
	for (i = 0; i < ctx->ndenied && len < sizeof text; i++) {
		w = snprintf(text + len, sizeof text - len, "%s %d (%.16s)", i == 0 ? "" : ",",
		    (int)ctx->denied[i].pid, ctx->denied[i].comm);
		if (w < 0 || (size_t)w >= sizeof text - len - 4) {
			snprintf(text + len, sizeof text - len, " ...");
			break;
		}
		len += (size_t)w;
	}
	backend_note(dev, "%s", text);
}

static void
drm_finish(struct device *devs, size_t ndev, const struct proctree *tree,
    struct pid_usage_set *pids)
{
	const struct drm_dev	*d;
	size_t			 i, k;

	(void)tree;
	(void)pids;
	for (i = 0; i < ndev; i++) {
		d = devs[i].priv;
		drm_finish_denied(d->ctx, &devs[i]);
		for (k = 0; k < DRM_NSENSORS; k++) {
			if (d->held[k] > 0)
				backend_note(&devs[i], "%" PRIu64 " reading%s of %s failed; the "
				    "counter was held, and the next reading caught up", d->held[k],
				    d->held[k] == 1 ? "" : "s", d->paths[k]);
		}
	}
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
