/*
 * Pure functions that turn NVML's answers into joulestat's structs
 * (HACKING.md, "The pipeline" and "Measurement rules"): field values with their per-field return codes,
 * P-states, NVML's CLOCK_REALTIME microsecond timestamps, process
 * utilization samples of both layouts, running-process entries of any
 * stride, clocks-event reasons, violation counters and accounting
 * records; and, for --lock-clocks, the other way: a request into the
 * arguments of the locked-clocks calls, their outcome into the report's
 * words.  Nothing here calls NVML, reads a clock or allocates, so the
 * unit tests can feed byte-exact structs (tests/unit/test_nvml.c).
 */
#ifndef JOULESTAT_NVML_DECODE_H
#define JOULESTAT_NVML_DECODE_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/source.h"

#include "nvml_abi.h"

/* Running-process buffers are filled with this byte before each call. */
#define NVML_PROC_FILL_BYTE	0xa5


/* One process-utilization entry, whichever NVML layout it came from. */
struct nvml_pid_util {
	uint64_t	ts_us;			/* CLOCK_REALTIME, us */
	pid_t		pid;			/* host pid */
	uint8_t		sm_pct;
	uint8_t		mem_pct;
	double		w;			/* us the sample stands for (nvml_decode_split) */
	unsigned	slot;			/* which of the answer's samples */
};

/* One running-process entry. */
struct nvml_proc_mem {
	pid_t		pid;
	uint64_t	gpu_mem_kib;		/* 0 = unknown */
};

/* What --lock-clocks does to one clock domain of one GPU. */
enum nvml_lock_action {
	NVML_LOCK_LEAVE,		/* leave the domain alone */
	NVML_LOCK_SET,			/* lock it to [min_mhz, max_mhz] */
	NVML_LOCK_INVALID,		/* asked for, but no valid range can be made */
};

/* The arguments of one nvmlDeviceSet{Gpu,Memory}LockedClocks call. */
struct nvml_lock_range {
	enum nvml_lock_action	 action;
	unsigned int		 min_mhz;	/* MHz, or NVML_CLOCK_LIMIT_ID_* */
	unsigned int		 max_mhz;
};

/* Tells whether a host pid belongs to the measured tree. */
typedef bool	(*nvml_is_mine_fn)(pid_t pid, const void *arg);

/*
 * Read an nvmlValue_t of the given type as an unsigned integer.  Doubles
 * are rounded; negative values and NaN are refused, and so is
 * NVML_VALUE_NOT_AVAILABLE (all ones) in the unsigned types.  Returns 0
 * with *out set, or -1.
 */
int	nvml_decode_value(nvmlValueType_t type, const nvmlValue_t *v, uint64_t *out);

/*
 * Decode one field of an nvmlDeviceGetFieldValues answer.  The call's
 * overall SUCCESS says nothing about a field: its own nvmlReturn decides.
 * Returns NVML_SUCCESS with *out set; the field's own error code when it
 * failed; NVML_ERROR_UNKNOWN when it claims success with an unusable
 * value (unknown type, negative, not available).
 */
nvmlReturn_t nvml_decode_field(const nvmlFieldValue_t *fv, uint64_t *out);

/* NVML P-state to 0..15, or PSTATE_UNKNOWN for 32 and anything else. */
int	nvml_decode_pstate(nvmlPstates_t p);

/*
 * An NVML timestamp (CLOCK_REALTIME, us since 1970) on the CLOCK_MONOTONIC
 * ns scale.  real_minus_mono_ns is realtime_ns() - now_ns() read together
 * just before the call that returned the timestamp.
 */
int64_t	nvml_decode_time_ns(uint64_t ts_us, int64_t real_minus_mono_ns);

/*
 * Clocks-event (throttle) reasons (nvml.h, nvmlClocksEventReasons) to enum
 * throttle bits, one to one; a bit nvml.h does not define here is
 * THROTTLE_OTHER.
 */
unsigned nvml_decode_throttle(unsigned long long reasons);

/*
 * Normalize process-utilization entries of the versioned layout
 * (nvmlDeviceGetProcessesUtilizationInfo, timeStamp first) or of the old
 * one (nvmlDeviceGetProcessUtilization, pid first) into out[0..n).
 * Entries not newer than last_seen_us, with a utilization above 100 % or
 * with pid 0 or above INT_MAX are dropped (drivers have been seen to
 * return all three).  *newest_us is raised to the newest timestamp kept.
 * Returns the number of entries written.
 */
size_t	nvml_decode_util_info(const nvmlProcessUtilizationInfo_v1_t *v, size_t n,
	    uint64_t last_seen_us, struct nvml_pid_util *out, uint64_t *newest_us);
size_t	nvml_decode_util_samples(const nvmlProcessUtilizationSample_t *v, size_t n,
	    uint64_t last_seen_us, struct nvml_pid_util *out, uint64_t *newest_us);

/* What one answer of per-process samples came to, besides the tree's usage. */
struct nvml_split {
	uint64_t	span_us;		/* the time the answer covers */
	uint64_t	gap_us;			/* smallest spacing of its samples; 0 = one */
	uint16_t	foreign_npids;		/* how many pids everybody else is */
	uint16_t	foreign_sm_pct;		/* everybody else, summed, over the answer */
	uint16_t	foreign_mem_pct;
	unsigned	nslots;			/* its samples (the oldest merged past PID_SLOTS_MAX) */
	uint64_t	slot_us[PID_SLOTS_MAX];	/* how long each stands for */
	uint16_t	slot_foreign_sm_pct[PID_SLOTS_MAX];
	uint16_t	slot_foreign_mem_pct[PID_SLOTS_MAX];
};

/*
 * Split normalized entries, all newer than since_us (the newest timestamp
 * of the previous answer), into usage of the tree's pids and the load of
 * everybody else.  A driver may return several samples per process: each
 * distinct timestamp is one sample, standing for the time since the one
 * before (since_us for the first), but for one sample period only when
 * that is 1.5 periods or more (a shorter one is a late sample): period_us,
 * the driver's spacing when known (else 0: the smallest spacing in the
 * answer, and with one sample the longest period a driver samples at,
 * PID_PERIOD_MAX_NS); the rest of a longer spacing is samples in which
 * nobody was busy.  A process's figure is its time-weighted mean over the whole
 * answer, 0 in the samples it is absent from (the driver lists only busy
 * processes).  v is reordered.  For each pid that is_mine accepts and each
 * sample it is in, one struct pid_usage with dev, pid, slot, sm_pct,
 * mem_pct, span_ns and has_util is written to mine[0..cap), by pid; the
 * others are summed into out, per sample and over the answer (saturating
 * at UINT16_MAX; a sum above 100 means the device was time-shared).
 * Returns the number of pid_usage entries written (at most cap; the rest
 * are dropped).
 */
size_t	nvml_decode_split(struct nvml_pid_util *v, size_t n, uint64_t since_us,
	    uint64_t period_us, nvml_is_mine_fn is_mine, const void *arg, size_t dev, struct pid_usage *mine,
	    size_t cap, struct nvml_split *out);

/*
 * Guess the entry size a driver really wrote into a running-process buffer
 * that was filled with NVML_PROC_FILL_BYTE before the call (as nvml.c does).
 * nominal is the size the symbol is documented to write (16 for the plain
 * symbol, 24 for _v2 and _v3); drivers have also written 16 and 32 from
 * _v3.  The candidate (16, 24 or 32) whose count entries end exactly at
 * the last byte that is not the fill byte wins, the nominal size first.  Returns
 * the stride, or nominal when the buffer gives no answer.
 */
size_t	nvml_decode_stride(const unsigned char *buf, size_t size, unsigned count,
	    size_t nominal);

/*
 * Read count running-process entries of the given stride (pid at offset
 * 0 and usedGpuMemory at offset 8 in all three layouts) into out.
 * Entries with pid 0 or above INT_MAX are skipped; memory that is not
 * available becomes 0 (unknown).  The buffer must hold count * stride
 * bytes.  Returns the number of entries written.
 */
size_t	nvml_decode_procs(const unsigned char *buf, unsigned count, size_t stride,
	    struct nvml_proc_mem *out);

/*
 * Convert driver power samples (nvmlDeviceGetSamples with
 * NVML_TOTAL_POWER_SAMPLES, value type as returned) to power points on the
 * CLOCK_MONOTONIC scale, sorted by time; the driver's buffer is a ring
 * and need not come back in order.  Samples not newer than last_seen_us
 * and values that cannot be read are dropped; v is sorted in place.
 * *newest_us is raised to the newest timestamp kept.  Returns the number
 * of points written to out (at most n).
 */
size_t	nvml_decode_power_samples(nvmlSample_t *v, size_t n, nvmlValueType_t type,
	    uint64_t last_seen_us, int64_t real_minus_mono_ns, struct power_point *out,
	    uint64_t *newest_us);

/*
 * Time throttled between two violation readings, in ns (NVML counts
 * violationTime in ns).  Returns -1 when the counter went backwards
 * (driver reload), which makes the figure unknown.
 */
int64_t	nvml_decode_violation_ns(const nvmlViolationTime_t *start,
	    const nvmlViolationTime_t *end);

/*
 * Whether an accounting record can belong to a process of the tree that
 * was seen from first_seen_ns to last_seen_ns (CLOCK_MONOTONIC): NVML
 * keeps only the newest process per pid, so a record that started after
 * the process was last seen, or ended before it was first seen, belongs
 * to another process with a reused pid.  slack_ns allows for the tree's
 * own sampling delay.
 */
bool	nvml_decode_accounting_matches(const nvmlAccountingStats_t *st,
	    int64_t real_minus_mono_ns, int64_t first_seen_ns, int64_t last_seen_ns,
	    int64_t slack_ns);

/*
 * Fill a pid_usage from an accounting record: lifetime SM and memory
 * utilization (has_util only when both are within 0..100), the largest
 * memory use, and is_between_ticks.  dev and pid are set by the caller.
 */
void	nvml_decode_accounting(const nvmlAccountingStats_t *st, struct pid_usage *out);

/* What the library told about a GPU's generation; has_* false when a call was missing or failed. */
struct nvml_gpu_kind {
	bool			 has_arch;
	nvmlDeviceArchitecture_t arch;		/* nvmlDeviceGetArchitecture */
	bool			 has_cc;
	int			 cc_major;	/* nvmlDeviceGetCudaComputeCapability */
	int			 cc_minor;
	unsigned int		 pci_device_id;	/* 0xDDDD10de; 0 = unknown */
};

/* What the power-reading semantics were decided by. */
enum nvml_kind_basis {
	NVML_KIND_BY_ARCH,
	NVML_KIND_BY_CC,
	NVML_KIND_BY_PCI_ID,
	NVML_KIND_ASSUMED,
};

/*
 * What nvmlDeviceGetPowerUsage means on this device (nvml.h): Ampere and
 * newer report a 1 s trailing average, except GA100 (compute capability
 * 8.0, PCI device ids 0x20xx), which stays instantaneous like Pascal,
 * Volta, Turing and older.  Decided by the architecture when the library
 * gives it, else by the CUDA compute capability (6.x Pascal, 7.0 Volta,
 * 7.5 Turing, 8.0 GA100, 8.6 and later GA10x, Ada, Hopper, Blackwell),
 * else by the PCI device id (0x21xx and below: Turing TU11x and older,
 * and GA100; 0x22xx and above: GA10x and later).  With none of them the
 * answer is POWER_KIND_AVERAGE_1S, NVML_KIND_ASSUMED, since every current
 * GPU averages.
 */
/*
 * The name of an architecture as nvml.h's NVML_DEVICE_ARCH_* names it
 * ("Ampere"), or "" for a value it does not define.
 */
const char *nvml_decode_arch_name(nvmlDeviceArchitecture_t arch);

enum power_kind nvml_decode_power_kind(const struct nvml_gpu_kind *k, enum nvml_kind_basis *basis);

/*
 * Work out the locked-clocks calls for a --lock-clocks request.
 * CLOCK_LOCK_BASE locks graphics with NVML_CLOCK_LIMIT_ID_TDP for both
 * bounds and leaves memory alone; CLOCK_LOCK_MAX locks graphics and
 * memory to max_gfx_mhz and max_mem_mhz (nvmlDeviceGetMaxClockInfo's
 * answers) for both bounds; CLOCK_LOCK_MHZ locks graphics to
 * req->gpu_mhz and, unless req->mem_mhz is 0, memory to req->mem_mhz.
 * A clock of 0 (unknown) or one NVML would read as a word (from
 * NVML_CLOCK_LIMIT_ID_RANGE_START up) makes that domain
 * NVML_LOCK_INVALID.  CLOCK_LOCK_NONE leaves both alone.
 */
void	nvml_decode_lock(const struct clock_lock *req, unsigned int max_gfx_mhz,
	    unsigned int max_mem_mhz, struct nvml_lock_range *gpu, struct nvml_lock_range *mem);

/*
 * The words the report uses for a failed lock call, or NULL when NVML's
 * own nvmlErrorString text says it best: NO_PERMISSION is "no permission
 * (needs root)", NOT_SUPPORTED "not supported on this GPU", and
 * FUNCTION_NOT_FOUND (the library lacks the call) "not supported by this
 * driver".
 */
const char *nvml_decode_lock_reason(nvmlReturn_t r);

/*
 * The device note for a lock that took effect, into buf (size bytes,
 * always terminated): "clocks locked for the run: graphics 1980 MHz,
 * memory 2619 MHz", "... graphics at the base clock (TDP)", or a range
 * "graphics 1200-1400 MHz".  gpu must be NVML_LOCK_SET; mem is left out
 * when it is NULL or not NVML_LOCK_SET.
 */
void	nvml_decode_lock_note(const struct nvml_lock_range *gpu,
	    const struct nvml_lock_range *mem, char *buf, size_t size);

#endif
