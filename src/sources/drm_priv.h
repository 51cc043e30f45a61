/*
 * What the pieces of the AMD and Intel GPU backend share, and nothing
 * else includes: each device's sensor files, the per-process tracker's
 * state, and the one context that holds both.
 *
 *	drm.c		per-tick hwmon and DPM readings, sample, finish, close, drm_ops
 *	drm_probe.c	finding cards, their hwmon and sensor files: the probe
 *	drm_fdinfo.c	the workload's DRM clients, from /proc/PID/fdinfo
 *
 * All parsing is in drm_parse.c.
 */
#ifndef JOULESTAT_DRM_PRIV_H
#define JOULESTAT_DRM_PRIV_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/backend.h"
#include "joulestat/procfs.h"
#include "joulestat/source.h"

#include "drm_parse.h"

struct proctree;

#define DRM_TEXT_MAX		4096		/* a sysfs file */
#define DRM_FDINFO_MAX		8192		/* xe prints about 1.3 KiB */

enum drm_driver {
	DRM_AMDGPU,
	DRM_I915,
	DRM_XE,
	DRM_NDRIVERS
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
	DRM_S_RUNTIME,		/* runtime PM status, read when power fails */
	DRM_NSENSORS
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
	bool			 is_card_energy_zero;	/* energy1_input read 0 at the probe */
	uint64_t		 energy_uj;
	bool			 has_idle;
	uint64_t		 idle_ms;
	int64_t			 idle_t_ns;
	struct drm_dither	 dither;
	uint64_t		 held[DRM_NSENSORS];	/* failed reads (RC6 holds the last) */
	uint64_t		 power_bad;		/* power readings out of range */
	uint64_t		 sclk_by_clock;		/* P-states matched to the hwmon clock */
	uint64_t		 sclk_top_unmarked;	/* two levels, none marked: the top */
	int64_t			 last_t_ns;		/* the last reading's time */
	uint64_t		 asleep;		/* readings without power while suspended */
	int64_t			 asleep_ns;		/* ... and the time up to each */
	int64_t			 others_owed;		/* the workload's load beyond the device's
							 * busy figure, owed by the others' next
							 * (percent x ns, <= 0; drm_others) */
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

/*
 * All the backend's state, which every device's drm_dev points to; there
 * is no file-scope mutable state.
 */
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
	pid_t			 kfd_pid;		/* the first tree process seen with /dev/kfd */
	bool			 has_scan;
	int64_t			 scan_ns;		/* previous scan */
	char			 path[64];
	char			 text[DRM_FDINFO_MAX];
	_Alignas(8) char	 dents[4096];
};

/* The backend's table of functions (drm.c). */
extern const struct source_ops drm_ops;

/* ---- drm.c ------------------------------------------------------------ */

/* Close every file of ctx and free it. */
void	drm_free(struct drm_ctx *ctx);

/* ---- drm_probe.c ------------------------------------------------------ */

int	drm_probe(const struct source_config *sc, struct device **devs, size_t *ndev,
	    struct errbuf *err);

/* ---- drm_fdinfo.c ----------------------------------------------------- */

/* A run ended and its notes are written: forget the processes it named. */
void	drm_fdinfo_end_run(struct drm_ctx *ctx);

/* One pass over the DRM fds of the tree's live processes, at t_ns. */
void	drm_scan(struct drm_ctx *ctx, const struct proctree *tree, int64_t t_ns,
	    int64_t span_ns);
/* Hand the last scan's usage on, as covering span_ns. */
void	drm_scan_emit(struct drm_ctx *ctx, int64_t span_ns, struct pid_usage_set *pids);
/* Leave a note on dev naming the processes whose fdinfo was refused. */
void	drm_finish_denied(const struct drm_ctx *ctx, struct device *dev);
/* Close the fdinfo files and the proc root, and free the tracker's lists. */
void	drm_fdinfo_free(struct drm_ctx *ctx);

#endif
