/*
 * What the pieces of the NVIDIA backend share, and nothing else includes:
 * the table of NVML functions found by dlsym, the one context that holds
 * it, each GPU's state, and the functions called across files.
 *
 *	nvml.c		per-tick readers, sample, probe, finish, close, nvml_ops
 *	nvml_lib.c	dlopen, the symbol table with its _vN names, error strings
 *	nvml_procs.c	per-process polling, accounting mode at polls and at the end
 *	nvml_clocks.c	--lock-clocks: lock and unlock
 *	nvml_mig.c	the MIG devices of a MIG-enabled board
 *
 * The types are our own transcription of NVIDIA's in nvml_abi.h, and every
 * answer is decoded by the pure functions of nvml_decode.c.
 */
#ifndef JOULESTAT_NVML_PRIV_H
#define JOULESTAT_NVML_PRIV_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/backend.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

#include "nvml_abi.h"
#include "nvml_decode.h"

struct proctree;

/*
 * Per-process polling policy.  nvmlDeviceGetProcessesUtilizationInfo and
 * the running-process lists are slow and take the driver's lock, and the
 * driver itself refreshes per-process utilization only every 1/6 s to
 * 1 s.  So a device is polled at most once every 500 ms (every 5 ticks at
 * the default 100 ms interval, every tick at intervals of 500 ms or more),
 * counted from probe.  Each poll asks for the samples since the previous
 * one (lastSeenTimeStamp), and its pid_usage entries carry span_ns, the
 * time since the previous poll, which they cover.  The foreign load of the
 * last poll is repeated on every tick until the next one.
 */

/*
 * Our declarations of the NVML functions, with the prototypes of nvml.h.
 * Each slot is filled by dlsym with one of the exact names listed for it
 * in nvml_lib.c, all of which share the prototype.  The running-process
 * functions write 16- or 24-byte entries depending on the name found, so
 * they take a byte buffer.
 */
struct nvml_fn {
	nvmlReturn_t	(*init)(void);
	nvmlReturn_t	(*shutdown)(void);
	const char	*(*error_string)(nvmlReturn_t);
	nvmlReturn_t	(*driver_version)(char *, unsigned int);
	nvmlReturn_t	(*nvml_version)(char *, unsigned int);
	nvmlReturn_t	(*count)(unsigned int *);
	nvmlReturn_t	(*handle_by_index)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t	(*name)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t	(*uuid)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t	(*pci_info)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t	(*architecture)(nvmlDevice_t, nvmlDeviceArchitecture_t *);
	nvmlReturn_t	(*cuda_cc)(nvmlDevice_t, int *, int *);
	nvmlReturn_t	(*mig_mode)(nvmlDevice_t, unsigned int *, unsigned int *);
	nvmlReturn_t	(*virt_mode)(nvmlDevice_t, nvmlGpuVirtualizationMode_t *);
	nvmlReturn_t	(*field_values)(nvmlDevice_t, int, nvmlFieldValue_t *);
	nvmlReturn_t	(*power_usage)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t	(*energy)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t	(*clock_info)(nvmlDevice_t, nvmlClockType_t, unsigned int *);
	nvmlReturn_t	(*pstate)(nvmlDevice_t, nvmlPstates_t *);
	nvmlReturn_t	(*temperature)(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int *);
	nvmlReturn_t	(*utilization)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t	(*reasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t	(*samples)(nvmlDevice_t, nvmlSamplingType_t, unsigned long long,
			    nvmlValueType_t *, unsigned int *, nvmlSample_t *);
	nvmlReturn_t	(*violation)(nvmlDevice_t, nvmlPerfPolicyType_t, nvmlViolationTime_t *);
	nvmlReturn_t	(*procs_util_info)(nvmlDevice_t, nvmlProcessesUtilizationInfo_t *);
	nvmlReturn_t	(*proc_util)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
			    unsigned int *, unsigned long long);
	nvmlReturn_t	(*compute_procs)(nvmlDevice_t, unsigned int *, void *);
	nvmlReturn_t	(*graphics_procs)(nvmlDevice_t, unsigned int *, void *);
	nvmlReturn_t	(*acct_mode)(nvmlDevice_t, nvmlEnableState_t *);
	nvmlReturn_t	(*acct_pids)(nvmlDevice_t, unsigned int *, unsigned int *);
	nvmlReturn_t	(*acct_stats)(nvmlDevice_t, unsigned int, nvmlAccountingStats_t *);
	nvmlReturn_t	(*vgpu_util)(nvmlDevice_t, unsigned long long, nvmlValueType_t *,
			    unsigned int *, nvmlVgpuInstanceUtilizationSample_t *);
	nvmlReturn_t	(*max_clock)(nvmlDevice_t, nvmlClockType_t, unsigned int *);
	nvmlReturn_t	(*set_gpu_lock)(nvmlDevice_t, unsigned int, unsigned int);
	nvmlReturn_t	(*reset_gpu_lock)(nvmlDevice_t);
	nvmlReturn_t	(*set_mem_lock)(nvmlDevice_t, unsigned int, unsigned int);
	nvmlReturn_t	(*reset_mem_lock)(nvmlDevice_t);
	nvmlReturn_t	(*mig_max)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t	(*mig_handle)(nvmlDevice_t, unsigned int, nvmlDevice_t *);
	nvmlReturn_t	(*mig_parent)(nvmlDevice_t, nvmlDevice_t *);
	nvmlReturn_t	(*gi_id)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t	(*ci_id)(nvmlDevice_t, unsigned int *);
};

/* The slots of struct nvml_fn, in the order of the symbol table of nvml_lib.c. */
enum nvml_slot {
	NVML_S_INIT,
	NVML_S_SHUTDOWN,
	NVML_S_ERROR_STRING,
	NVML_S_DRIVER_VERSION,
	NVML_S_NVML_VERSION,
	NVML_S_COUNT,
	NVML_S_HANDLE,
	NVML_S_NAME,
	NVML_S_UUID,
	NVML_S_PCI,
	NVML_S_ARCH,
	NVML_S_CUDA_CC,
	NVML_S_MIG,
	NVML_S_VIRT,
	NVML_S_FIELDS,
	NVML_S_POWER,
	NVML_S_ENERGY,
	NVML_S_CLOCK,
	NVML_S_PSTATE,
	NVML_S_TEMP,
	NVML_S_UTIL,
	NVML_S_REASONS,
	NVML_S_SAMPLES,
	NVML_S_VIOLATION,
	NVML_S_PROCS_UTIL_INFO,
	NVML_S_PROC_UTIL,
	NVML_S_COMPUTE_PROCS,
	NVML_S_GRAPHICS_PROCS,
	NVML_S_ACCT_MODE,
	NVML_S_ACCT_PIDS,
	NVML_S_ACCT_STATS,
	NVML_S_VGPU_UTIL,
	NVML_S_MAX_CLOCK,
	NVML_S_SET_GPU_LOCK,
	NVML_S_RESET_GPU_LOCK,
	NVML_S_SET_MEM_LOCK,
	NVML_S_RESET_MEM_LOCK,
	NVML_S_MIG_MAX,
	NVML_S_MIG_HANDLE,
	NVML_S_MIG_PARENT,
	NVML_S_GI_ID,
	NVML_S_CI_ID,
	NVML_NSLOTS
};

struct nvml_ctx;

/* MIG devices kept per board: an A100 or H100 has at most seven. */
#define NVML_MIG_MAX		8

/* One MIG device of a MIG-enabled board (nvml_mig.c). */
struct nvml_mig {
	char			 uuid[96];		/* MIG-... */
	char			 name[96];		/* "NVIDIA A100-SXM4-40GB MIG 1g.5gb" */
	unsigned int		 gi, ci;		/* GPU and compute instance ids */
	bool			 has_ids;
};

/* One GPU: devs[i].priv. */
struct nvml_dev {
	struct nvml_ctx		*ctx;
	nvmlDevice_t		 handle;
	bool			 has_power_field;	/* NVML_FI_DEV_POWER_INSTANT works */
	bool			 is_mig;
	struct nvml_mig		 migs[NVML_MIG_MAX];	/* its MIG devices, when is_mig */
	size_t			 nmigs;
	const char		*mig_uuids[NVML_MIG_MAX]; /* their UUIDs, for devsel */
	nvmlReturn_t		 mig_error;		/* why they could not be listed */
	bool			 is_vgpu_host;
	bool			 is_vgpu_guest;
	bool			 is_pending;		/* not answering at probe: identified later */
	bool			 is_acct;		/* accounting mode enabled */
	bool			 has_pid_util;		/* per-process utilization works */
	enum nvml_slot		 util_slot;		/* ... through this call */
	bool			 has_procs;		/* running-process lists work */
	nvmlViolationTime_t	 viol0[2];		/* power, thermal at probe */
	/* Driver power samples since the previous tick. */
	nvmlSample_t		*samples;
	struct power_point	*points;
	size_t			 capsamples;
	uint64_t		 samples_seen_us;
	/* Per-process polling. */
	int64_t			 poll_ns;		/* previous poll (or probe) */
	uint64_t		 util_seen_us;		/* newest sample so far (or probe) */
	bool			 has_util_seen;		/* util_seen_us is a sample's */
	uint64_t		 util_gap_us;		/* the driver's sample spacing; 0 = not known */
	uint64_t		 vgpu_seen_us;
	void			*utilbuf;		/* raw entries of either layout */
	struct nvml_pid_util	*norm;
	size_t			 caputil;
	unsigned char		*procbuf;		/* capprocs entries of the largest stride */
	struct nvml_proc_mem	*procs;			/* compute then graphics */
	size_t			 capprocs;
	nvmlVgpuInstanceUtilizationSample_t *vgpu;
	size_t			 capvgpu;
	struct pid_usage	*held;			/* this poll's usage of tree pids */
	size_t			 nheld;
	size_t			 capheld;
	uint16_t		 foreign_sm_pct;
	uint16_t		 foreign_mem_pct;
	struct backend_intset	 seen;			/* pids reported so far */
	/* In a pid namespace: the match by container (nvml_ns_match). */
	bool			 is_ns_match;		/* this poll's pids taken as the tree's */
	unsigned		 ns_polls[2];		/* answers naming pids: unmatched, matched */
	unsigned		 ns_noted[2];		/* ... as the note last said */
	unsigned		 ns_note;		/* index of the device's pid-namespace note */
	/* What --lock-clocks locked, and unlock_clocks must reset. */
	bool			 is_gpu_locked;
	bool			 is_mem_locked;
};

/*
 * The loaded library, shared by every device through its nvml_dev: all
 * the backend's state, so there is no file-scope mutable state.
 */
struct nvml_ctx {
	void			*dl;
	struct nvml_fn		 fn;
	int			 found[NVML_NSLOTS];	/* the name found, or -1 */
	bool			 is_pid_hidden;		/* nvml_pids_hidden() */
	bool			 has_dev_fd;		/* the tree held an NVIDIA device file open */
	char			 dev_prefix[256];	/* JOULESTAT_DEV_ROOT "/nvidia" */
	int64_t			 real_minus_mono_ns;
	struct nvml_dev		*devs;
	size_t			 ndev;
};

/* ---- nvml_mig.c ------------------------------------------------------- */

/*
 * The MIG devices of d's board, when MIG mode is on: sets d->is_mig and
 * fills d->migs and d->mig_uuids, or d->mig_error.
 */
void		 nvml_mig_probe(struct nvml_dev *d);
/* The notes that list them and say what is measured. */
void		 nvml_mig_notes(const struct nvml_dev *d, struct device *dev);

/* ---- nvml_lib.c ------------------------------------------------------- */

/*
 * dlopen path (NULL: libnvidia-ml.so.1, unless no NVIDIA driver is there:
 * no /proc/driver/nvidia and no WSL2 GPU under dev_root), resolve the
 * symbols and call nvmlInit.  Returns 0, or -1 with "not available: ..."
 * in err.
 */
int		 nvml_load(struct nvml_ctx *ctx, const char *path, const char *dev_root,
		    struct errbuf *err);
/* nvmlShutdown, dlclose, and free ctx with its devices' buffers. */
void		 nvml_unload(struct nvml_ctx *ctx);
/* nvmlErrorString, or "unknown error". */
const char	*nvml_strerror(const struct nvml_ctx *ctx, nvmlReturn_t r);
/* The name found for slot, or NULL. */
const char	*nvml_found(const struct nvml_ctx *ctx, enum nvml_slot slot);
/* The entry size written by the name found for a running-process slot. */
size_t		 nvml_proc_stride(const struct nvml_ctx *ctx, enum nvml_slot slot);

/* ---- nvml_procs.c ----------------------------------------------------- */

/* Whether NVML's pids can differ from the ones the process tree sees. */
bool		 nvml_pids_hidden(void);
/* Per-process utilization and running processes, tried once at probe. */
void		 nvml_procs_probe(struct nvml_dev *d, struct device *dev);
/*
 * Whether a per-process poll is due at t_ns: twice per sample of the
 * driver (its spacing is learnt from the answers), at every reading until
 * that spacing is known.
 */
bool		 nvml_poll_due(const struct nvml_dev *d, int64_t t_ns);
/*
 * One per-process poll of device d (index dev) for its reading s: every
 * sample the driver took since the last answer, and the running
 * processes' memory.  Returns 1 when new samples came (into s: their span,
 * slots and foreign load), 0 when there was nothing new (s says the last
 * shares stand), -1 when per-process utilization cannot be read.
 */
int		 nvml_poll(struct nvml_dev *d, size_t dev, const struct proctree *tree,
		    struct sample *s, struct pid_usage_set *pids);
/*
 * After a poll, in a pid namespace: say in the device's note whether the
 * driver's pids were matched to the workload by container (nvml_ns_match).
 */
void		 nvml_ns_note(struct nvml_dev *d, struct device *dev);
/* The tree's processes that only accounting mode has seen, at the end. */
void		 nvml_finish_accounting(struct nvml_dev *d, size_t dev,
		    const struct proctree *tree, struct pid_usage_set *pids);

/* ---- nvml_clocks.c ---------------------------------------------------- */

int		 nvml_lock_clocks(struct device *devs, size_t ndev, const struct clock_lock *req,
		    struct errbuf *err);
void		 nvml_unlock_clocks(struct device *devs, size_t ndev);

/* nvml_modes.c: what probe learns about a GPU besides its readings. */
void	nvml_probe_power_kind(struct nvml_dev *d, struct device *dev, unsigned int pci_device_id);
void	nvml_probe_modes(struct nvml_dev *d, struct device *dev);
void	nvml_probe_guest(const struct nvml_dev *d, struct device *dev);
void	nvml_probe_end_figures(struct nvml_dev *d, struct device *dev);
void	nvml_probe_version(const struct nvml_ctx *ctx, struct device *dev);

#endif
