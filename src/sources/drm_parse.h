/*
 * Pure parsers and arithmetic of the DRM backend (drm.c; HACKING.md, "The backend contract"):
 * the text of a DRM client's /proc/PID/fdinfo/FD, the pp_dpm_* tables of
 * amdgpu, the uevent of a PCI device and single sysfs values, plus the
 * per-engine bookkeeping that turns cumulative busy counters into busy
 * time per tick and the dithering that turns an idle-residency counter
 * into per-reading states.  No file access and no clock: everything comes
 * in as text or numbers, so the functions can be unit-tested with strings
 * copied from real kernels and fuzzed (each parser takes one
 * NUL-terminated string).
 */
#ifndef JOULESTAT_DRM_PARSE_H
#define DRM_CAPACITY_MAX	4096	/* engines of one class, at most */
#define JOULESTAT_DRM_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRM_ENGINES_MAX		16	/* engine classes kept per client */
#define DRM_NAME_MAX		24	/* engine class or driver name, with NUL */
#define DRM_PDEV_MAX		32	/* "0000:03:00.0", with NUL */

/* Which counters of an engine class a client's fdinfo carried. */
enum drm_engine_has {
	DRM_E_NS	= 1u << 0,	/* drm-engine-<e>: busy ns */
	DRM_E_CYCLES	= 1u << 1,	/* drm-cycles-<e> */
	DRM_E_TOTAL	= 1u << 2,	/* drm-total-cycles-<e> */
	DRM_E_PCT	= 1u << 3,	/* amdgpu 5.14-5.18: "<e><ring>: x.y%" */
};

/* One engine class of one client, as read. */
struct drm_engine {
	char		 name[DRM_NAME_MAX];
	unsigned	 has;			/* enum drm_engine_has */
	uint64_t	 busy_ns;
	uint64_t	 cycles;
	uint64_t	 total_cycles;
	uint64_t	 capacity;		/* drm-engine-capacity-<e>; 1 when absent */
	double		 pct;			/* DRM_E_PCT: summed over the class's rings */
};

/* The keys of one DRM fdinfo file that joulestat uses. */
struct drm_fdinfo {
	char		 driver[DRM_NAME_MAX];	/* drm-driver ("amdgpu" for the old format) */
	char		 pdev[DRM_PDEV_MAX];	/* drm-pdev, or old "pdev"; "" when absent */
	bool		 has_client_id;
	uint64_t	 client_id;		/* drm-client-id */
	bool		 has_pasid;
	uint64_t	 pasid;			/* amdgpu "pasid" */
	bool		 is_legacy;		/* amdgpu 5.14-5.18 format (no drm- keys) */
	bool		 has_dev_mem;
	uint64_t	 dev_mem_kib;		/* device-local memory: vram*, local* regions */
	struct drm_engine engines[DRM_ENGINES_MAX];
	size_t		 nengines;
	unsigned	 nbad;			/* known keys whose value did not parse */
};

/*
 * Parse the text of /proc/PID/fdinfo/FD (drm-usage-stats.rst; amdgpu's
 * pre-5.19 keys too).  Unknown keys are ignored; a known key whose value
 * is malformed, or has another unit than the documented ones, is skipped
 * and counted in nbad.  Returns 0 for a DRM client's fdinfo (a drm-driver
 * key, or the old amdgpu "pdev" key), -ENOENT for any other file's fdinfo.
 */
int	drm_parse_fdinfo(const char *text, struct drm_fdinfo *out);

/*
 * A memory size as fdinfo prints it: a number, alone (bytes) or followed
 * by one space and KiB, MiB, GiB, or the old amdgpu "kB".  In KiB,
 * rounded up.  0, -EINVAL or -ERANGE.
 */
int	drm_parse_size_kib(const char *value, uint64_t *kib);

/* The current line of an amdgpu pp_dpm_* table. */
struct drm_dpm {
	bool		 has_current;		/* some line carries the '*' */
	bool		 is_sleep;		/* deep sleep: the current line is "S:", or ... */
	bool		 is_deduced_sleep;	/* ... its clock is below half the lowest level */
	bool		 is_lowest;		/* the current line is the first level line */
	bool		 is_by_clock;		/* no line was marked: the level nearest clock_mhz */
	unsigned	 level;			/* current line's label, else its place */
	uint32_t	 mhz;			/* current line's clock */
	unsigned	 nlevels;		/* level lines (all but "S:") */
	/* Two level lines, none marked, no "S:" line: the second's label and clock. */
	bool		 is_two_unmarked;
	unsigned	 top_level;
	uint32_t	 top_mhz;
};

/*
 * Parse a pp_dpm_sclk / pp_dpm_mclk table: lines "<label>: <f>Mhz[ *]"
 * where the label is a level number, "S" for deep sleep (newer kernels),
 * or missing (renoir's unnumbered current line).  The level of the
 * current line is the kernel's label, so the same operating point keeps
 * its name whether or not an "S:" line is printed above it; an unlabelled
 * line takes its place among the level lines.  A current clock below half
 * the lowest other level is deep sleep, the kernel's own rule, which
 * fine-grained tables of kernels without "S:" show as "1: 0Mhz *".
 * When no line is marked and clock_mhz (another reading of the current
 * clock, 0 when there is none) is within 1 % of a level, that level is the
 * current one (is_by_clock).  Returns 0 (has_current false when the
 * current level is not known), or -EINVAL for a line of another shape.
 */
int	drm_parse_dpm(const char *text, uint32_t clock_mhz, struct drm_dpm *out);

/* What a PCI device's uevent says. */
struct drm_uevent {
	char		 driver[DRM_NAME_MAX];	/* DRIVER= */
	char		 slot[DRM_PDEV_MAX];	/* PCI_SLOT_NAME= */
	uint32_t	 vendor;		/* PCI_ID=VVVV:DDDD */
	uint32_t	 device;
};

/* Parse a uevent file ("KEY=value" lines).  0, or -EINVAL without DRIVER=. */
int	drm_parse_uevent(const char *text, struct drm_uevent *out);

/*
 * A single unsigned decimal sysfs value with at most one trailing
 * newline ("123\n").  0, -EINVAL or -ERANGE.
 */
int	drm_parse_value(const char *text, uint64_t *out);

/* True for the copy engine classes: amdgpu "dma", i915 "copy", xe "bcs". */
bool	drm_is_copy_engine(const char *name);

/*
 * What joulestat remembers of one engine class of one client between
 * readings (drm-usage-stats.rst, "drm-cycles-<e>": values may go
 * backwards, and userspace keeps the larger previous one until the
 * counter has caught up).
 */
struct drm_engine_state {
	char		 name[DRM_NAME_MAX];
	bool		 has_last;
	uint64_t	 last;			/* busy ns or busy cycles */
	uint64_t	 last_total;		/* total cycles */
	int64_t		 last_t_ns;		/* when last was read */
	uint64_t	 capacity;
	uint64_t	 carry_ns;		/* busy time not yet handed out */
	int64_t		 moved_t_ns;		/* when the ns counter was first read or last rose */
};

/*
 * Busy time of engine class e over the tick that ends at t_ns and lasted
 * span_ns, in ns of engine time (up to span_ns * capacity).  The first
 * reading only sets the baseline, unless is_fresh: then ns counters
 * count from zero (a client that was created during the run).  A counter
 * that went backwards contributes nothing and the previous values are
 * kept, so the reading that catches up carries the whole stretch; busy
 * time beyond what one tick can hold is carried over to the next ticks,
 * so the run's total is exact.  Busy time beyond what the class could
 * hold since the counter last rose (amdgpu sums its rings) is dropped.  Cycle counters are turned into time with
 * their own total-cycles clock: busy = dcycles / dtotal * (wall time of
 * the stretch).
 */
uint64_t drm_engine_update(struct drm_engine_state *st, const struct drm_engine *e,
	    int64_t t_ns, int64_t span_ns, bool is_fresh);

/*
 * The idle-residency dither.  A residency counter (i915 RC6, xe gt-idle)
 * tells how long the GT slept in each interval, but a reading can carry
 * only one state, and the accounting splits an interval whose ends
 * disagree in half.  Each reading's state is chosen so that the idle time
 * the accounting will credit stays within about one interval of the
 * counter's total: error diffusion over the run.
 */
struct drm_dither {
	bool		 has_prev;
	bool		 was_idle;		/* state given to the previous reading */
	double		 owed_ns;		/* counter idle time minus credited idle time */
};

/*
 * The state of a reading that ends an interval of dt_ns during which the
 * counter advanced idle_ns: true for idle.  The first call (no interval
 * yet) returns is_idle_now, the caller's best guess.
 */
bool	drm_dither_step(struct drm_dither *d, int64_t dt_ns, int64_t idle_ns,
	    bool is_idle_now);

#endif
