/*
 * The backend contract (HACKING.md, "The backend contract").  A device source is a table
 * of three functions that find devices, read all of them once per tick,
 * and let go of them.  Backends fill plain structs in fixed units (mW, mJ,
 * MHz, %, ns, KiB); the loop and the accounting never learn which vendor a
 * number came from.  Every field has a validity bit: unknown is not zero.
 */
#ifndef JOULESTAT_SOURCE_H
#define JOULESTAT_SOURCE_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/util.h"

struct devsel;
struct proctree;

/*
 * What a backend needs from the command line and the environment, resolved
 * once by the option parser: never struct config.
 */
struct source_config {
	struct devsel	*sel;		/* -d and the visible-device masks, parsed once */
	const char	*nvml_lib;	/* --nvml-lib or JOULESTAT_NVML_LIB, else NULL */
	const char	*pci_lib;	/* JOULESTAT_LIBPCI (device names), else NULL */
	const char	*sysfs_root;	/* JOULESTAT_SYSFS_ROOT (fixtures), else "/sys" */
	const char	*proc_root;	/* JOULESTAT_PROC_ROOT (fixtures), else "/proc" */
	const char	*dev_root;	/* JOULESTAT_DEV_ROOT (tests), else "/dev" */
};

/* What a device can report (device.measures), and what was read (sample.valid). */
enum measure {
	M_POWER		= 1u << 0,	/* power_mw */
	M_ENERGY	= 1u << 1,	/* energy_mj: monotonic hardware counter */
	M_CLOCKS	= 1u << 2,	/* gfx_mhz: the graphics clock */
	M_PSTATE	= 1u << 3,	/* pstate */
	M_UTIL		= 1u << 4,	/* util_pct, mem_util_pct */
	M_PID_UTIL	= 1u << 5,	/* per-process usage in struct pid_usage */
	M_TEMP		= 1u << 6,	/* temp_c */
	M_THROTTLE	= 1u << 7,	/* throttle (enum throttle) */
	M_POWER_POINTS	= 1u << 8,	/* points: driver power samples between ticks */
	M_VIOLATION	= 1u << 9,	/* device.throttle_*_ns at the end of the run */
	M_FOREIGN	= 1u << 10,	/* foreign_*_pct: load of processes outside the tree */
	M_MEM_CLOCK	= 1u << 11,	/* mem_mhz */
	M_SM_CLOCK	= 1u << 12,	/* sm_mhz */
};

#define PSTATE_UNKNOWN		(-1)
#define PID_SLOTS_MAX		16	/* driver samples kept apart in one reading */
/*
 * The longest period a driver samples per-process utilization over (1/6 s
 * to 1 s by product: NVIDIA's NVML reference, nvmlDeviceGetUtilizationRates):
 * what one sample stands for at most while the period is not known.
 */
#define PID_PERIOD_MAX_NS	1000000000LL

/*
 * A sample that comes this long after the one before, in any unit, stands
 * for the whole spacing (a late one: the driver's timer jitters); beyond
 * it, for one period, and the rest had samples in which nobody was busy.
 */
static inline uint64_t
pid_late_limit(uint64_t period)
{
	return period + period / 2;
}
#define PSTATE_MAX		15
#define DEVICE_MAX_NOTES	16	/* a MIG board lists its up to 7 MIG devices */
#define DEVICE_NOTE_LEN		200

/*
 * Why clocks were held down during a reading, one bit per reason (the
 * backend maps its vendor's reasons to these; NVIDIA's clocks-event
 * reasons map one to one).  Each reason's one entry: its name, and its word
 * in every output (CSV columns reason_WORD_s and reason_WORD_err_s, JSON
 * keys, the text and the timeline).  X(a, NAME, word) is called for each,
 * in bit order; a is passed through.
 */
#define THROTTLE_REASONS(X, a)						\
	X(a, IDLE, idle)		/* nothing runs: clocks drop to idle */	\
	X(a, APP_CLOCKS, applications_clocks) /* the applications clocks setting */ \
	X(a, SW_POWER, sw_power_cap)	/* software power cap */		\
	X(a, HW_SLOWDOWN, hw_slowdown)	/* hardware slowdown (thermal, brake, ...) */ \
	X(a, SYNC_BOOST, sync_boost)	/* held with other GPUs of a sync-boost group */ \
	X(a, SW_THERMAL, sw_thermal)	/* software thermal slowdown */	\
	X(a, HW_THERMAL, hw_thermal)	/* hardware thermal slowdown */	\
	X(a, POWER_BRAKE, hw_power_brake) /* hardware power brake */		\
	X(a, DISPLAY, display_clocks)	/* held by the display clock setting */ \
	X(a, OTHER, other)		/* a reason not listed here */

#define THROTTLE_BIT_OF(a, name, word)	THROTTLE_BIT_##name,
#define THROTTLE_MASK_OF(a, name, word)	THROTTLE_##name = 1u << THROTTLE_BIT_##name,
/* Reason i is bit 1 << i; THROTTLE_NREASONS counts them. */
enum throttle_bit { THROTTLE_REASONS(THROTTLE_BIT_OF, ~) THROTTLE_NREASONS };
enum throttle { THROTTLE_REASONS(THROTTLE_MASK_OF, ~) };
#undef THROTTLE_BIT_OF
#undef THROTTLE_MASK_OF
/* Reasons that slow the work down, as opposed to idle and settings. */
#define THROTTLE_SLOWING	(THROTTLE_SW_POWER | THROTTLE_HW_SLOWDOWN | THROTTLE_SYNC_BOOST | \
	    THROTTLE_SW_THERMAL | THROTTLE_HW_THERMAL | THROTTLE_POWER_BRAKE | THROTTLE_OTHER)

/* How a device's states (sample.pstate) are named in the report. */
enum pstate_names {
	PSTATE_NAMES_P,			/* P0..P15, as NVIDIA names them */
	PSTATE_NAMES_DPM,		/* DPM0..DPM14 by the kernel's label, PSTATE_MAX deep sleep */
	PSTATE_NAMES_RC6,		/* 0 awake, PSTATE_MAX asleep in RC6 */
};

/* What a power reading means; integration error depends on it. */
enum power_kind {
	POWER_KIND_UNKNOWN,
	POWER_KIND_INSTANT,		/* a reading of the moment */
	POWER_KIND_AVERAGE_1S,		/* trailing ~1 s average (NVIDIA Ampere and later) */
	POWER_KIND_AVERAGE_FW,		/* a firmware average over an unspecified window */
};

struct device {
	const struct source_ops	*ops;		/* owning backend */
	char		 id[96];		/* stable: GPU UUID, PCI slot, "package-0" */
	char		 name[96];		/* marketing name for the report */
	char		 bus_id[32];		/* PCI bus id, or empty */
	unsigned	 index;			/* the backend's own index */
	unsigned	 number;		/* the one numbering (devsel_match): -d N, the report */
	int		 family;		/* enum devsel_family: whose runtime sees it */
	unsigned	 measures;		/* enum measure: what probe found */
	bool		 is_unprobed;		/* it did not answer at probe and has not
						   since: what it measures is not known */
	enum power_kind	 power_kind;
	enum pstate_names pstate_names;
	char		 version[96];		/* driver / library versions, for --list-devices */
	char		 arch[16];		/* "Hopper", as the library names it; "" unknown */
	char		 how[512];		/* "power=CALL energy=CALL ...", for --list-devices */
	uint64_t	 energy_range_mj;	/* counter wraps above this; 0 = never */
	int64_t		 counter_step_ns;	/* the counter moves this often, so a value
						   lags up to this behind; 0 = at once */
	int64_t		 max_gap_ns;		/* sample at least this often; 0 = no need */
	int64_t		 driver_period_ns;	/* the driver's own power sampling period; 0 = unknown */
	char		 notes[DEVICE_MAX_NOTES][DEVICE_NOTE_LEN]; /* context for the report */
	unsigned	 nnotes;
	bool		 is_pid_hidden;		/* its per-process pids are another pid namespace's */
	bool		 is_use_unseen;		/* the workload used it in a way the per-process
						   data cannot show: its share is unknown */
	/* What a figure covers, so that totals count each joule once (report.h, in_total). */
	bool		 is_soc;		/* an APU: the whole SoC, CPU cores included */
	bool		 is_cpu_package;	/* a CPU package counter (RAPL package or die) */
	unsigned	 final_valid;		/* M_VIOLATION when the fields below are set */
	int64_t		 throttle_power_ns;	/* time throttled by power over the run */
	int64_t		 throttle_thermal_ns;	/* time throttled by temperature */
	void		*priv;			/* backend-private state */
};

/*
 * One sample of per-process utilization the driver took since the last
 * reading: how long it stands for, and the load of processes outside the
 * tree in it.  The tree's usage in it is in pid_usage entries of that slot.
 */
struct pid_slot {
	int64_t		 span_ns;
	uint16_t	 foreign_sm_pct;
	uint16_t	 foreign_mem_pct;
};

/* One power sample the driver took between two of our ticks. */
struct power_point {
	int64_t		 t_ns;			/* CLOCK_MONOTONIC */
	uint32_t	 power_mw;
};

/* One reading of one device. */
struct sample {
	int64_t		 t_ns;			/* CLOCK_MONOTONIC when read */
	unsigned	 valid;			/* enum measure bits read this tick */
	bool		 is_lost;		/* the device stopped answering */
	bool		 is_asleep;		/* runtime-suspended, so no power: none to what it drew awake */
	int64_t		 read_ns;		/* how long its calls took, t_ns at one end; 0 = unknown */
	uint32_t	 power_mw;
	uint64_t	 energy_mj;
	uint32_t	 gfx_mhz;
	uint32_t	 sm_mhz;
	uint32_t	 mem_mhz;
	int		 pstate;		/* 0..15 or PSTATE_UNKNOWN */
	uint8_t		 util_pct;
	uint8_t		 mem_util_pct;
	int16_t		 temp_c;
	unsigned	 throttle;		/* enum throttle bits, mapped by the backend */
	uint16_t	 foreign_sm_pct;	/* summed over pids not in the tree */
	uint16_t	 foreign_mem_pct;
	uint16_t	 foreign_npids;		/* how many such pids the driver named */
	int64_t		 pid_span_ns;		/* new per-process data covering this long; 0 = none */
	int64_t		 pid_to_ns;		/* ... up to this time (CLOCK_MONOTONIC, may be
						   after t_ns: a slow call); 0 = t_ns */
	bool		 is_pid_unchanged;	/* asked, and nothing new */
	bool		 is_pid_failed;		/* asked, and the call failed: nothing known */
	bool		 is_pid_due;		/* in: read per-process data now, whatever its schedule */
	/* The driver samples behind that data, oldest first; 0: one, with foreign_*. */
	unsigned	 npid_slots;
	struct pid_slot	 pid_slots[PID_SLOTS_MAX];
	const struct power_point *points;	/* M_POWER_POINTS; backend-owned until next call */
	size_t		 npoints;
};

/* One workload process on one device, over the last interval. */
struct pid_usage {
	size_t		 dev;			/* index into the devs array */
	pid_t		 pid;			/* host pid, NSpid already resolved */
	uint8_t		 sm_pct;
	uint8_t		 mem_pct;
	unsigned	 slot;			/* which of the sample's pid_slots, or 0 */
	int64_t		 span_ns;		/* time the percentages cover; 0 = one tick */
	uint64_t	 engine_ns;		/* fdinfo engine time delta, when that is the source */
	uint64_t	 gpu_mem_kib;		/* device memory in use; 0 = unknown */
	bool		 has_util;		/* sm_pct and mem_pct are valid */
	bool		 is_between_ticks;	/* known only from end-of-run accounting */
};

struct pid_usage_set {
	struct pid_usage *v;
	size_t		 n;
	size_t		 cap;
};

/* Append one entry to set, growing it.  Returns the entry, zeroed. */
struct pid_usage *pid_usage_add(struct pid_usage_set *set);

/* --lock-clocks: what to hold a device's clocks at during the runs. */
enum clock_lock_kind {
	CLOCK_LOCK_NONE,
	CLOCK_LOCK_BASE,	/* graphics at the base (TDP) clock; memory left alone */
	CLOCK_LOCK_MAX,		/* graphics and memory at their highest clocks */
	CLOCK_LOCK_MHZ,		/* graphics at gpu_mhz; memory at mem_mhz unless 0 */
};

struct clock_lock {
	enum clock_lock_kind	kind;
	unsigned		gpu_mhz;
	unsigned		mem_mhz;
};

struct source_ops {
	const char	*name;			/* "nvml", "drm", "rapl" */
	/*
	 * sample and finish look at the tree's members (their pids, start
	 * times, names): the cgroup tracker then reads each new member's
	 * /proc files (proctree.h, is_bare_ok).
	 */
	bool		 reads_tree;
	/*
	 * Find devices.  Returns 0 and sets *ndev (possibly 0: "nothing here"
	 * is not an error), or -1 with a one-line reason in err ("library not
	 * found").  *devs is allocated with malloc and owned by the caller
	 * until close.  A note for the report may be left in err with 0.
	 * Every device the backend could measure is shown to sc->sel
	 * (devsel_match), selected or not and in the backend's order, which
	 * numbers it; only the selected ones are returned.
	 */
	int	(*probe)(const struct source_config *sc, struct device **devs, size_t *ndev,
		    struct errbuf *err);
	/*
	 * Read every device once.  Fills out[i] for devs[i] and appends usage
	 * for pids in tree only.  A device that fails is marked in out[i], not
	 * returned as -1; -1 means the whole backend is gone.
	 */
	int	(*sample)(struct device *devs, size_t ndev, const struct proctree *tree,
		    struct sample *out, struct pid_usage_set *pids, struct errbuf *err);
	/*
	 * After each run's last sample, and after note_counts: fill end-of-run
	 * figures (final_valid), append processes of the tree that only
	 * end-of-run accounting knows about, and note what only the end of a
	 * run tells.  The next run starts without the notes finish and
	 * note_counts added (setup_reset).  May be NULL.
	 */
	void	(*finish)(struct device *devs, size_t ndev, const struct proctree *tree,
		    struct pid_usage_set *pids);
	/*
	 * Note what the readings since the last call counted (failed reads,
	 * readings asleep, ...), and count from 0 again: at the end of every
	 * run, and after --idle-baseline, whose notes stay for every run
	 * (reading_idle_baseline).  May be NULL.
	 */
	void	(*note_counts)(struct device *devs, size_t ndev);
	void	(*close)(struct device *devs, size_t ndev);
	/*
	 * --lock-clocks: lock every device's clocks as req says, and leave a
	 * device note saying what was locked.  Returns 0, or -1 with the
	 * first device's failure in err ("GPU 0: no permission ...") after
	 * trying every device.  unlock_clocks resets exactly what lock_clocks
	 * set and may be called more than once.  Both may be NULL.
	 */
	int	(*lock_clocks)(struct device *devs, size_t ndev, const struct clock_lock *req,
		    struct errbuf *err);
	void	(*unlock_clocks)(struct device *devs, size_t ndev);
};

/* The backends, in probe order; NULL-terminated (src/sources/registry.c). */
extern const struct source_ops *const sources[];

#endif
