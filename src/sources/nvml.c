/*
 * The NVIDIA backend (DESIGN §3, §4; STYLE §3): loads libnvidia-ml.so.1
 * with dlopen (or the library named by --nvml-lib or JOULESTAT_NVML_LIB,
 * which is also how the simulator in tests/sim is reached; there is no
 * other path), resolves the symbols it knows from one table, newest
 * version first, and reads every selected GPU once per tick: power,
 * energy counter, clocks, P-state, temperature, utilization, clocks-event
 * reasons, the driver's own power samples between ticks, and, at most
 * every NVML_PID_POLL_NS, per-process utilization and memory.  At the end
 * it reads the violation counters and, when accounting mode is on, the
 * processes that lived and died between two polls.  For --lock-clocks
 * it locks the graphics and memory clocks of every GPU for the run, and
 * resets exactly what it locked.
 *
 * It does not decode: every NVML answer goes through the pure functions
 * of nvml_decode.c.  It links against nothing of NVIDIA's; the types are
 * our own transcription in nvml_abi.h.  All state lives in one struct
 * nvml_ctx (the loaded library and its function table) shared by the
 * devices' priv; there is no file-scope mutable state.
 */
#include "joulestat/source.h"

#include <sys/types.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/backend.h"
#include "joulestat/devsel.h"
#include "joulestat/procfs.h"
#include "joulestat/proctree.h"
#include "joulestat/util.h"

#include "nvml_abi.h"
#include "nvml_decode.h"

#define NVML_LIB_DEFAULT	"libnvidia-ml.so.1"

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
#define NVML_PID_POLL_NS	(500 * NSEC_PER_MSEC)

/* How far an accounting record may stray from the tree's view of a process. */
#define NVML_ACCT_SLACK_NS	(1 * NSEC_PER_SEC)

/* Starting capacities of the reused buffers; they grow on demand. */
#define NVML_UTIL_CAP_MIN	32
#define NVML_PROC_CAP_MIN	16
#define NVML_SAMPLES_CAP_MIN	128


/* The initial pid namespace's inode number (PROC_PID_INIT_INO, linux 3.8). */
#define NVML_INIT_PIDNS		"pid:[4026531836]"

#define NVML_NAMES_MAX		3

/*
 * Our declarations of the NVML functions (nvml-abi-facts §2).  Each slot
 * is filled by dlsym with one of the exact names listed for it in
 * nvml_syms, all of which share the prototype.  The running-process
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
};

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
	NVML_NSLOTS
};

struct nvml_sym {
	const char	*names[NVML_NAMES_MAX];	/* exact dlsym names, newest first */
	size_t		 off;			/* offsetof(struct nvml_fn, slot) */
	bool		 is_required;
};

#define NVML_SYM(slot, member, req, ...) \
	[slot] = { { __VA_ARGS__ }, offsetof(struct nvml_fn, member), req }

/*
 * Which symbols, under which names (nvml-abi-facts §1: the header's plain
 * names are macros for the versioned ones, so dlsym must ask for those).
 */
static const struct nvml_sym nvml_syms[NVML_NSLOTS] = {
	NVML_SYM(NVML_S_INIT, init, true, "nvmlInit_v2", "nvmlInit"),
	NVML_SYM(NVML_S_SHUTDOWN, shutdown, true, "nvmlShutdown"),
	NVML_SYM(NVML_S_ERROR_STRING, error_string, true, "nvmlErrorString"),
	NVML_SYM(NVML_S_DRIVER_VERSION, driver_version, false, "nvmlSystemGetDriverVersion"),
	NVML_SYM(NVML_S_NVML_VERSION, nvml_version, false, "nvmlSystemGetNVMLVersion"),
	NVML_SYM(NVML_S_COUNT, count, true, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"),
	NVML_SYM(NVML_S_HANDLE, handle_by_index, true, "nvmlDeviceGetHandleByIndex_v2",
	    "nvmlDeviceGetHandleByIndex"),
	NVML_SYM(NVML_S_NAME, name, false, "nvmlDeviceGetName"),
	NVML_SYM(NVML_S_UUID, uuid, false, "nvmlDeviceGetUUID"),
	NVML_SYM(NVML_S_PCI, pci_info, false, "nvmlDeviceGetPciInfo_v3"),
	NVML_SYM(NVML_S_ARCH, architecture, false, "nvmlDeviceGetArchitecture"),
	NVML_SYM(NVML_S_MIG, mig_mode, false, "nvmlDeviceGetMigMode"),
	NVML_SYM(NVML_S_VIRT, virt_mode, false, "nvmlDeviceGetVirtualizationMode"),
	NVML_SYM(NVML_S_FIELDS, field_values, false, "nvmlDeviceGetFieldValues"),
	NVML_SYM(NVML_S_POWER, power_usage, false, "nvmlDeviceGetPowerUsage"),
	NVML_SYM(NVML_S_ENERGY, energy, false, "nvmlDeviceGetTotalEnergyConsumption"),
	NVML_SYM(NVML_S_CLOCK, clock_info, false, "nvmlDeviceGetClockInfo"),
	NVML_SYM(NVML_S_PSTATE, pstate, false, "nvmlDeviceGetPerformanceState",
	    "nvmlDeviceGetPowerState"),
	NVML_SYM(NVML_S_TEMP, temperature, false, "nvmlDeviceGetTemperature"),
	NVML_SYM(NVML_S_UTIL, utilization, false, "nvmlDeviceGetUtilizationRates"),
	NVML_SYM(NVML_S_REASONS, reasons, false, "nvmlDeviceGetCurrentClocksEventReasons",
	    "nvmlDeviceGetCurrentClocksThrottleReasons"),
	NVML_SYM(NVML_S_SAMPLES, samples, false, "nvmlDeviceGetSamples"),
	NVML_SYM(NVML_S_VIOLATION, violation, false, "nvmlDeviceGetViolationStatus"),
	NVML_SYM(NVML_S_PROCS_UTIL_INFO, procs_util_info, false,
	    "nvmlDeviceGetProcessesUtilizationInfo"),
	NVML_SYM(NVML_S_PROC_UTIL, proc_util, false, "nvmlDeviceGetProcessUtilization"),
	NVML_SYM(NVML_S_COMPUTE_PROCS, compute_procs, false,
	    "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
	    "nvmlDeviceGetComputeRunningProcesses"),
	NVML_SYM(NVML_S_GRAPHICS_PROCS, graphics_procs, false,
	    "nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2",
	    "nvmlDeviceGetGraphicsRunningProcesses"),
	NVML_SYM(NVML_S_ACCT_MODE, acct_mode, false, "nvmlDeviceGetAccountingMode"),
	NVML_SYM(NVML_S_ACCT_PIDS, acct_pids, false, "nvmlDeviceGetAccountingPids"),
	NVML_SYM(NVML_S_ACCT_STATS, acct_stats, false, "nvmlDeviceGetAccountingStats"),
	NVML_SYM(NVML_S_VGPU_UTIL, vgpu_util, false, "nvmlDeviceGetVgpuUtilization"),
	NVML_SYM(NVML_S_MAX_CLOCK, max_clock, false, "nvmlDeviceGetMaxClockInfo"),
	NVML_SYM(NVML_S_SET_GPU_LOCK, set_gpu_lock, false, "nvmlDeviceSetGpuLockedClocks"),
	NVML_SYM(NVML_S_RESET_GPU_LOCK, reset_gpu_lock, false,
	    "nvmlDeviceResetGpuLockedClocks"),
	NVML_SYM(NVML_S_SET_MEM_LOCK, set_mem_lock, false, "nvmlDeviceSetMemoryLockedClocks"),
	NVML_SYM(NVML_S_RESET_MEM_LOCK, reset_mem_lock, false,
	    "nvmlDeviceResetMemoryLockedClocks"),
};

/* Entry size written by each name of the running-process slots. */
static const size_t nvml_proc_strides[NVML_NAMES_MAX] = {
	sizeof(nvmlProcessInfo_v2_t),		/* _v3 */
	sizeof(nvmlProcessInfo_v2_t),		/* _v2 */
	sizeof(nvmlProcessInfo_v1_t),		/* plain */
};

struct nvml_ctx;

/* One GPU: devs[i].priv. */
struct nvml_dev {
	struct nvml_ctx		*ctx;
	nvmlDevice_t		 handle;
	bool			 has_power_field;	/* NVML_FI_DEV_POWER_INSTANT works */
	bool			 is_mig;
	bool			 is_vgpu_host;
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
	uint64_t		 util_seen_us;
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
	bool			 has_foreign;
	uint16_t		 foreign_sm_pct;
	uint16_t		 foreign_mem_pct;
	struct backend_intset	 seen;			/* pids reported so far */
	/* What --lock-clocks locked, and unlock_clocks must reset. */
	bool			 is_gpu_locked;
	bool			 is_mem_locked;
};

struct nvml_ctx {
	void			*dl;
	struct nvml_fn		 fn;
	int			 found[NVML_NSLOTS];	/* index into names, or -1 */
	bool			 is_nested_pidns;
	int64_t			 real_minus_mono_ns;
	struct nvml_dev		*devs;
	size_t			 ndev;
};

/* One per-tick reading: call NVML, fill the sample. */
struct nvml_reader {
	unsigned	 bit;			/* enum measure */
	const char	*cap;			/* capability word in device.how */
	enum nvml_slot	 slot;
	nvmlReturn_t	(*read)(const struct nvml_dev *, struct sample *);
};

static nvmlReturn_t nvml_read_power(const struct nvml_dev *, struct sample *);
static nvmlReturn_t nvml_read_energy(const struct nvml_dev *, struct sample *);
static nvmlReturn_t nvml_read_clocks(const struct nvml_dev *, struct sample *);
static nvmlReturn_t nvml_read_pstate(const struct nvml_dev *, struct sample *);
static nvmlReturn_t nvml_read_temp(const struct nvml_dev *, struct sample *);
static nvmlReturn_t nvml_read_util(const struct nvml_dev *, struct sample *);
static nvmlReturn_t nvml_read_throttle(const struct nvml_dev *, struct sample *);

/* In this order on every tick: power and energy first, nearest to t_ns. */
static const struct nvml_reader nvml_readers[] = {
	{ M_POWER,	"power",	NVML_S_POWER,	nvml_read_power },
	{ M_ENERGY,	"energy",	NVML_S_ENERGY,	nvml_read_energy },
	{ M_CLOCKS,	"clocks",	NVML_S_CLOCK,	nvml_read_clocks },
	{ M_PSTATE,	"pstate",	NVML_S_PSTATE,	nvml_read_pstate },
	{ M_TEMP,	"temp",		NVML_S_TEMP,	nvml_read_temp },
	{ M_UTIL,	"util",		NVML_S_UTIL,	nvml_read_util },
	{ M_THROTTLE,	"throttle",	NVML_S_REASONS,	nvml_read_throttle },
};

static int	nvml_probe(const struct source_config *, struct device **, size_t *,
		    struct errbuf *);
static int	nvml_sample(struct device *, size_t, const struct proctree *,
		    struct sample *, struct pid_usage_set *, struct errbuf *);
static void	nvml_finish(struct device *, size_t, const struct proctree *,
		    struct pid_usage_set *);
static void	nvml_close(struct device *, size_t);
static int	nvml_lock_clocks(struct device *, size_t, const struct clock_lock *,
		    struct errbuf *);
static void	nvml_unlock_clocks(struct device *, size_t);

const struct source_ops nvml_ops = {
	.name = "nvml",
	.probe = nvml_probe,
	.sample = nvml_sample,
	.finish = nvml_finish,
	.close = nvml_close,
	.lock_clocks = nvml_lock_clocks,
	.unlock_clocks = nvml_unlock_clocks,
};

/* ---- small helpers ---------------------------------------------------- */

static const char *
nvml_strerror(const struct nvml_ctx *ctx, nvmlReturn_t r)
{
	const char	*s = ctx->fn.error_string != NULL ? ctx->fn.error_string(r) : NULL;

	return s != NULL ? s : "unknown error";
}

/* The name found for slot, or NULL. */
static const char *
nvml_found(const struct nvml_ctx *ctx, enum nvml_slot slot)
{
	return ctx->found[slot] < 0 ? NULL : nvml_syms[slot].names[ctx->found[slot]];
}

/* Errors after which the device may come back: it is marked lost. */
static bool
nvml_is_lost(nvmlReturn_t r)
{
	return r == NVML_ERROR_GPU_IS_LOST || r == NVML_ERROR_UNINITIALIZED ||
	    r == NVML_ERROR_DRIVER_NOT_LOADED;
}

/* Errors that mean the library as a whole is gone. */
static bool
nvml_is_gone(nvmlReturn_t r)
{
	return r == NVML_ERROR_UNINITIALIZED || r == NVML_ERROR_DRIVER_NOT_LOADED;
}

/* Append "; text" (or text) to the note already in err. */
static void
nvml_note(struct errbuf *err, const char *fmt, ...)
{
	char	old[sizeof err->msg], add[sizeof err->msg];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(add, sizeof add, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	if (old[0] == '\0')
		errbuf_set(err, "%s", add);
	else
		errbuf_set(err, "%s; %s", old, add);
}

/* ---- loading ---------------------------------------------------------- */


/* Store a dlsym result in the slot at off of fn. */
static void
nvml_set_slot(struct nvml_fn *fn, size_t off, void *sym)
{
	void	(*f)(void);

	/* POSIX makes data and function pointers interchangeable for dlsym. */
	_Static_assert(sizeof f == sizeof sym, "function and data pointers differ");
	memcpy(&f, &sym, sizeof f);
	memcpy((char *)fn + off, &f, sizeof f);
}

static int
nvml_resolve(struct nvml_ctx *ctx, const char *path, struct errbuf *err)
{
	const struct nvml_sym	*s;
	void			*sym;
	size_t			 i;
	int			 k;

	for (i = 0; i < NVML_NSLOTS; i++) {
		s = &nvml_syms[i];
		ctx->found[i] = -1;
		for (k = 0; k < NVML_NAMES_MAX && s->names[k] != NULL; k++) {
			if ((sym = dlsym(ctx->dl, s->names[k])) != NULL) {
				nvml_set_slot(&ctx->fn, s->off, sym);
				ctx->found[i] = k;
				break;
			}
		}
		if (ctx->found[i] < 0 && s->is_required) {
			errbuf_set(err, "not available: %s: no symbol %s", path, s->names[0]);
			return -1;
		}
	}
	return 0;
}

/* dlopen, resolve and nvmlInit.  Returns 0, or -1 with "not available: ...". */
static int
nvml_load(struct nvml_ctx *ctx, const char *path, struct errbuf *err)
{
	nvmlReturn_t	r;

	if ((ctx->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		errbuf_set(err, "not available: %s", dlerror());
		return -1;
	}
	if (nvml_resolve(ctx, path, err) != 0) {
		dlclose(ctx->dl);
		return -1;
	}
	if ((r = ctx->fn.init()) != NVML_SUCCESS) {
		errbuf_set(err, "not available: %s: %s", nvml_found(ctx, NVML_S_INIT),
		    nvml_strerror(ctx, r));
		dlclose(ctx->dl);
		return -1;
	}
	return 0;
}

static void
nvml_dev_free(struct nvml_dev *d)
{
	free(d->samples);
	free(d->points);
	free(d->utilbuf);
	free(d->norm);
	free(d->procbuf);
	free(d->procs);
	free(d->vgpu);
	free(d->held);
	backend_intset_free(&d->seen);
}

static void
nvml_unload(struct nvml_ctx *ctx)
{
	size_t	i;

	for (i = 0; i < ctx->ndev; i++)
		nvml_dev_free(&ctx->devs[i]);
	free(ctx->devs);
	ctx->fn.shutdown();
	dlclose(ctx->dl);
	free(ctx);
}

/*
 * Whether NVML's pids (those of the initial pid namespace) can differ
 * from the ones the process tree sees: true when this process is in
 * another pid namespace than the initial one, or when /proc/self/status
 * lists more than one NSpid.
 */
static bool
nvml_is_nested_pidns(void)
{
	struct proc_status	st;
	char			buf[4096];
	ssize_t			n;

	n = readlink("/proc/self/ns/pid", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = '\0';
		if (strcmp(buf, NVML_INIT_PIDNS) != 0)
			return true;
	}
	if (read_file(AT_FDCWD, "/proc/self/status", buf, sizeof buf) < 0)
		return false;
	memset(&st, 0, sizeof st);
	return procfs_parse_status(buf, &st) == 0 && st.nnspid > 1;
}

/* ---- per-tick readers ------------------------------------------------- */

static nvmlReturn_t
nvml_read_power_field(const struct nvml_dev *d, uint32_t *mw)
{
	nvmlFieldValue_t	fv;
	nvmlReturn_t		r;
	uint64_t		v;

	/* Zeroed, so scopeId is NVML_POWER_SCOPE_GPU. */
	memset(&fv, 0, sizeof fv);
	fv.fieldId = NVML_FI_DEV_POWER_INSTANT;
	fv.scopeId = NVML_POWER_SCOPE_GPU;
	if (d->ctx->fn.field_values == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	/* The call's SUCCESS covers the call only; the field has its own code. */
	if ((r = d->ctx->fn.field_values(d->handle, 1, &fv)) != NVML_SUCCESS)
		return r;
	if ((r = nvml_decode_field(&fv, &v)) != NVML_SUCCESS)
		return r;
	if (v > UINT32_MAX)
		return NVML_ERROR_UNKNOWN;
	*mw = (uint32_t)v;
	return NVML_SUCCESS;
}

static nvmlReturn_t
nvml_read_power(const struct nvml_dev *d, struct sample *s)
{
	unsigned int	mw;
	nvmlReturn_t	r;

	if (d->has_power_field)
		return nvml_read_power_field(d, &s->power_mw);
	if (d->ctx->fn.power_usage == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	if ((r = d->ctx->fn.power_usage(d->handle, &mw)) == NVML_SUCCESS)
		s->power_mw = mw;
	return r;
}

static nvmlReturn_t
nvml_read_energy(const struct nvml_dev *d, struct sample *s)
{
	unsigned long long	mj;
	nvmlReturn_t		r;

	if (d->ctx->fn.energy == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	if ((r = d->ctx->fn.energy(d->handle, &mj)) == NVML_SUCCESS)
		s->energy_mj = mj;
	return r;
}

static nvmlReturn_t
nvml_read_clocks(const struct nvml_dev *d, struct sample *s)
{
	unsigned int	gfx, sm, mem;
	nvmlReturn_t	r;

	if (d->ctx->fn.clock_info == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	if ((r = d->ctx->fn.clock_info(d->handle, NVML_CLOCK_GRAPHICS, &gfx)) != NVML_SUCCESS ||
	    (r = d->ctx->fn.clock_info(d->handle, NVML_CLOCK_SM, &sm)) != NVML_SUCCESS ||
	    (r = d->ctx->fn.clock_info(d->handle, NVML_CLOCK_MEM, &mem)) != NVML_SUCCESS)
		return r;
	s->gfx_mhz = gfx;
	s->sm_mhz = sm;
	s->mem_mhz = mem;
	return NVML_SUCCESS;
}

static nvmlReturn_t
nvml_read_pstate(const struct nvml_dev *d, struct sample *s)
{
	nvmlPstates_t	p;
	nvmlReturn_t	r;

	if (d->ctx->fn.pstate == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	/* A valid reading may still be PSTATE_UNKNOWN (NVML's 32). */
	if ((r = d->ctx->fn.pstate(d->handle, &p)) == NVML_SUCCESS)
		s->pstate = nvml_decode_pstate(p);
	return r;
}

static nvmlReturn_t
nvml_read_temp(const struct nvml_dev *d, struct sample *s)
{
	unsigned int	c;
	nvmlReturn_t	r;

	if (d->ctx->fn.temperature == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	if ((r = d->ctx->fn.temperature(d->handle, NVML_TEMPERATURE_GPU, &c)) != NVML_SUCCESS)
		return r;
	if (c > INT16_MAX)
		return NVML_ERROR_UNKNOWN;
	s->temp_c = (int16_t)c;
	return NVML_SUCCESS;
}

static nvmlReturn_t
nvml_read_util(const struct nvml_dev *d, struct sample *s)
{
	nvmlUtilization_t	u;
	nvmlReturn_t		r;

	if (d->ctx->fn.utilization == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	if ((r = d->ctx->fn.utilization(d->handle, &u)) != NVML_SUCCESS)
		return r;
	if (u.gpu > 100 || u.memory > 100)
		return NVML_ERROR_UNKNOWN;
	s->util_pct = (uint8_t)u.gpu;
	s->mem_util_pct = (uint8_t)u.memory;
	return NVML_SUCCESS;
}

static nvmlReturn_t
nvml_read_throttle(const struct nvml_dev *d, struct sample *s)
{
	unsigned long long	reasons;
	nvmlReturn_t		r;

	if (d->ctx->fn.reasons == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	if ((r = d->ctx->fn.reasons(d->handle, &reasons)) == NVML_SUCCESS)
		s->throttle = nvml_decode_throttle(reasons);
	return r;
}

/* Room for n driver samples and as many points. */
static int
nvml_points_reserve(struct nvml_dev *d, size_t n)
{
	size_t	cap = d->capsamples, cappoints = d->capsamples;

	if (backend_grow(&d->points, &cappoints, n, sizeof *d->points) != 0 ||
	    backend_grow(&d->samples, &cap, cappoints, sizeof *d->samples) != 0)
		return -1;
	/* Both hold at least cappoints now; samples may hold more. */
	d->capsamples = cappoints;
	return 0;
}

/*
 * Driver power samples since the previous call, into the reused buffer.
 * NOT_FOUND means nothing new: a valid answer with no points.
 */
static nvmlReturn_t
nvml_read_points(struct nvml_dev *d, struct sample *s)
{
	const struct nvml_fn	*fn = &d->ctx->fn;
	nvmlValueType_t		 type = NVML_VALUE_TYPE_UNSIGNED_INT;
	unsigned int		 n;
	nvmlReturn_t		 r;
	int			 attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		n = (unsigned int)d->capsamples;
		r = fn->samples(d->handle, NVML_TOTAL_POWER_SAMPLES, d->samples_seen_us, &type, &n,
		    d->samples);
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			break;
		if (nvml_points_reserve(d, n) != 0)
			return NVML_ERROR_MEMORY;
	}
	if (r == NVML_ERROR_NOT_FOUND)
		n = 0;
	else if (r != NVML_SUCCESS)
		return r;
	if (n > d->capsamples)
		n = (unsigned int)d->capsamples;
	s->points = d->points;
	s->npoints = nvml_decode_power_samples(d->samples, n, type, d->samples_seen_us,
	    d->ctx->real_minus_mono_ns, d->points, &d->samples_seen_us);
	return NVML_SUCCESS;
}

/* ---- per-process polling ---------------------------------------------- */

static bool
nvml_is_mine(pid_t pid, const void *arg)
{
	return proctree_find_live(arg, pid) != NULL;
}

static int
nvml_util_reserve(struct nvml_dev *d, size_t want)
{
	size_t	cap = d->caputil, capnorm = d->caputil;

	/* Room for entries of the larger of the two layouts. */
	_Static_assert(sizeof(nvmlProcessUtilizationInfo_v1_t) >=
	    sizeof(nvmlProcessUtilizationSample_t), "largest util entry");
	if (backend_grow(&d->utilbuf, &cap, want, sizeof(nvmlProcessUtilizationInfo_v1_t)) != 0 ||
	    backend_grow(&d->norm, &capnorm, cap, sizeof *d->norm) != 0)
		return -1;
	d->caputil = cap;
	return 0;
}

/* nvmlDeviceGetProcessesUtilizationInfo: versioned, entries start with timeStamp. */
static nvmlReturn_t
nvml_util_info(struct nvml_dev *d, size_t *n)
{
	nvmlProcessesUtilizationInfo_t	info;
	nvmlReturn_t			r = NVML_ERROR_UNKNOWN;
	int				attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		memset(&info, 0, sizeof info);
		info.version = nvmlProcessesUtilizationInfo_v1;
		info.processSamplesCount = (unsigned int)d->caputil;
		info.lastSeenTimeStamp = d->util_seen_us;
		info.procUtilArray = d->caputil > 0 ? d->utilbuf : NULL;
		r = d->ctx->fn.procs_util_info(d->handle, &info);
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			break;
		if (nvml_util_reserve(d, info.processSamplesCount) != 0)
			return NVML_ERROR_MEMORY;
	}
	if (r != NVML_SUCCESS)
		return r;
	*n = info.processSamplesCount < d->caputil ? info.processSamplesCount : d->caputil;
	*n = nvml_decode_util_info(d->utilbuf, *n, d->util_seen_us, d->norm, &d->util_seen_us);
	return NVML_SUCCESS;
}

/* nvmlDeviceGetProcessUtilization: the older call, entries start with pid. */
static nvmlReturn_t
nvml_util_samples(struct nvml_dev *d, size_t *n)
{
	unsigned int	count = 0;
	nvmlReturn_t	r = NVML_ERROR_UNKNOWN;
	int		attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		count = (unsigned int)d->caputil;
		/* The timestamp goes by value, after the count pointer. */
		r = d->ctx->fn.proc_util(d->handle, d->caputil > 0 ? d->utilbuf : NULL, &count,
		    d->util_seen_us);
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			break;
		if (nvml_util_reserve(d, count) != 0)
			return NVML_ERROR_MEMORY;
	}
	if (r != NVML_SUCCESS)
		return r;
	*n = count < d->caputil ? count : d->caputil;
	*n = nvml_decode_util_samples(d->utilbuf, *n, d->util_seen_us, d->norm, &d->util_seen_us);
	return NVML_SUCCESS;
}

/*
 * Per-process utilization since the last poll, through the call chosen at
 * probe (slot); NOT_FOUND is "nobody was busy", a valid empty answer.
 */
static nvmlReturn_t
nvml_util_read(struct nvml_dev *d, enum nvml_slot slot, size_t *n)
{
	nvmlReturn_t	r;

	*n = 0;
	if (slot == NVML_S_PROCS_UTIL_INFO && d->ctx->fn.procs_util_info != NULL)
		r = nvml_util_info(d, n);
	else if (slot == NVML_S_PROC_UTIL && d->ctx->fn.proc_util != NULL)
		r = nvml_util_samples(d, n);
	else
		r = NVML_ERROR_FUNCTION_NOT_FOUND;
	return r == NVML_ERROR_NOT_FOUND ? NVML_SUCCESS : r;
}

static uint16_t
nvml_add_sat(uint16_t a, uint64_t b)
{
	return a + b > UINT16_MAX ? UINT16_MAX : (uint16_t)(a + b);
}

/* Add the utilization of vGPU instances (host side) to the foreign load. */
static void
nvml_vgpu_foreign(struct nvml_dev *d)
{
	nvmlValueType_t	type = NVML_VALUE_TYPE_UNSIGNED_INT;
	unsigned int	n = 0;
	uint64_t	sm, mem;
	size_t		i;
	nvmlReturn_t	r = NVML_ERROR_UNKNOWN;
	int		attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		n = (unsigned int)d->capvgpu;
		r = d->ctx->fn.vgpu_util(d->handle, d->vgpu_seen_us, &type, &n,
		    d->capvgpu > 0 ? d->vgpu : NULL);
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			break;
		if (backend_grow(&d->vgpu, &d->capvgpu, n, sizeof *d->vgpu) != 0)
			return;
	}
	if (r != NVML_SUCCESS)
		return;
	for (i = 0; i < n && i < d->capvgpu; i++) {
		if (d->vgpu[i].timeStamp <= d->vgpu_seen_us)
			continue;
		if (nvml_decode_value(type, &d->vgpu[i].smUtil, &sm) == 0 && sm <= 100)
			d->foreign_sm_pct = nvml_add_sat(d->foreign_sm_pct, sm);
		if (nvml_decode_value(type, &d->vgpu[i].memUtil, &mem) == 0 && mem <= 100)
			d->foreign_mem_pct = nvml_add_sat(d->foreign_mem_pct, mem);
	}
	for (i = 0; i < n && i < d->capvgpu; i++) {
		if (d->vgpu[i].timeStamp > d->vgpu_seen_us)
			d->vgpu_seen_us = d->vgpu[i].timeStamp;
	}
}

static int
nvml_procs_reserve(struct nvml_dev *d, size_t want)
{
	unsigned char		*buf;
	struct nvml_proc_mem	*procs;

	if (want <= d->capprocs)
		return 0;
	/* Grown to exactly want: capprocs is what the buffer holds. */
	if ((buf = reallocarray(d->procbuf, want, NVML_PROCESS_INFO_R535_SIZE)) == NULL)
		return -1;
	d->procbuf = buf;
	/* Compute and graphics lists end up side by side in procs. */
	if ((procs = reallocarray(d->procs, want * 2, sizeof *procs)) == NULL)
		return -1;
	d->procs = procs;
	d->capprocs = want;
	return 0;
}

/*
 * One running-process list (compute or graphics) appended to d->procs at
 * *n.  The buffer holds capprocs entries of the largest stride a driver
 * has been seen to write (32 bytes), while NVML is told capprocs entries:
 * a driver that writes another stride than its symbol promises cannot
 * overrun it, and nvml_decode_stride() finds out what was written.
 */
static nvmlReturn_t
nvml_procs_one(struct nvml_dev *d, enum nvml_slot slot, size_t *n)
{
	nvmlReturn_t	(*fn)(nvmlDevice_t, unsigned int *, void *);
	size_t		stride, bytes = 0;
	unsigned int	count = 0;
	nvmlReturn_t	r = NVML_ERROR_UNKNOWN;
	int		attempt;

	fn = slot == NVML_S_COMPUTE_PROCS ? d->ctx->fn.compute_procs : d->ctx->fn.graphics_procs;
	if (fn == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	for (attempt = 0; attempt < 2; attempt++) {
		bytes = d->capprocs * NVML_PROCESS_INFO_R535_SIZE;
		if (bytes > 0)
			memset(d->procbuf, NVML_PROC_FILL_BYTE, bytes);
		count = (unsigned int)d->capprocs;
		r = fn(d->handle, &count, d->capprocs > 0 ? d->procbuf : NULL);
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			break;
		/* Twice the need: processes come and go between the two calls. */
		if (nvml_procs_reserve(d, (size_t)count * 2 + NVML_PROC_CAP_MIN) != 0)
			return NVML_ERROR_MEMORY;
	}
	if (r != NVML_SUCCESS)
		return r;
	if (count > d->capprocs)
		count = (unsigned int)d->capprocs;
	stride = nvml_decode_stride(d->procbuf, bytes, count,
	    nvml_proc_strides[d->ctx->found[slot]]);
	*n += nvml_decode_procs(d->procbuf, count, stride, d->procs + *n);
	return NVML_SUCCESS;
}

/* The held entry for pid, created (zeroed) when missing; NULL without memory. */
static struct pid_usage *
nvml_held(struct nvml_dev *d, pid_t pid)
{
	struct pid_usage	*u;
	size_t			 i;

	for (i = 0; i < d->nheld; i++) {
		if (d->held[i].pid == pid)
			return &d->held[i];
	}
	if (backend_grow(&d->held, &d->capheld, d->nheld + 1, sizeof *d->held) != 0)
		return NULL;
	u = &d->held[d->nheld++];
	memset(u, 0, sizeof *u);
	u->pid = pid;
	return u;
}

/*
 * Device memory of the tree's processes, from the running-process lists.
 * A listed process without a utilization entry was idle (NVML lists only
 * busy processes): 0 %, when the utilization read worked.
 */
static void
nvml_poll_memory(struct nvml_dev *d, const struct proctree *tree, bool is_util_ok)
{
	struct pid_usage	*u;
	size_t			 i, n = 0;

	if (!d->has_procs)
		return;
	nvml_procs_one(d, NVML_S_COMPUTE_PROCS, &n);
	nvml_procs_one(d, NVML_S_GRAPHICS_PROCS, &n);
	for (i = 0; i < n; i++) {
		if (!nvml_is_mine(d->procs[i].pid, tree))
			continue;
		if ((u = nvml_held(d, d->procs[i].pid)) == NULL)
			return;
		if (!u->has_util && is_util_ok)
			u->has_util = true;
		if (d->procs[i].gpu_mem_kib > u->gpu_mem_kib)
			u->gpu_mem_kib = d->procs[i].gpu_mem_kib;
	}
}

/* Hand this poll's usage to the caller: span_ns is the time it covers. */
static void
nvml_poll_emit(struct nvml_dev *d, size_t dev, int64_t span_ns, struct pid_usage_set *pids)
{
	struct pid_usage	*u;
	size_t			 i;

	for (i = 0; i < d->nheld; i++) {
		if (!d->held[i].has_util && d->held[i].gpu_mem_kib == 0)
			continue;
		u = pid_usage_add(pids);
		*u = d->held[i];
		u->dev = dev;
		u->span_ns = span_ns;
		/* Remembered for end-of-run accounting. */
		backend_intset_add(&d->seen, u->pid);
	}
}

/* One per-process poll of device d (index dev) at t_ns. */
static void
nvml_poll(struct nvml_dev *d, size_t dev, const struct proctree *tree, int64_t t_ns,
    struct pid_usage_set *pids)
{
	size_t		n = 0;
	bool		is_util_ok;

	d->nheld = 0;
	is_util_ok = d->has_pid_util && nvml_util_read(d, d->util_slot, &n) == NVML_SUCCESS;
	if (is_util_ok) {
		/* Out of memory, the split keeps what fits. */
		(void)backend_grow(&d->held, &d->capheld, n, sizeof *d->held);
		d->nheld = nvml_decode_split(d->norm, n, nvml_is_mine, tree, dev, d->held,
		    d->capheld, &d->foreign_sm_pct, &d->foreign_mem_pct);
		if (d->is_vgpu_host && d->ctx->fn.vgpu_util != NULL)
			nvml_vgpu_foreign(d);
	}
	d->has_foreign = is_util_ok;
	nvml_poll_memory(d, tree, is_util_ok);
	nvml_poll_emit(d, dev, t_ns - d->poll_ns, pids);
	d->poll_ns = t_ns;
}

/* ---- sample ----------------------------------------------------------- */

/* Read device d into s.  Returns the code that ended the reading, or SUCCESS. */
static nvmlReturn_t
nvml_sample_one(struct device *dev, size_t i, const struct proctree *tree,
    struct sample *s, struct pid_usage_set *pids)
{
	struct nvml_dev	*d = dev->priv;
	nvmlReturn_t	 r;
	size_t		 k;

	memset(s, 0, sizeof *s);
	s->pstate = PSTATE_UNKNOWN;
	for (k = 0; k < ARRAY_SIZE(nvml_readers); k++) {
		if (!(dev->measures & nvml_readers[k].bit))
			continue;
		r = nvml_readers[k].read(d, s);
		if (r == NVML_SUCCESS)
			s->valid |= nvml_readers[k].bit;
		else if (nvml_is_lost(r)) {
			/* It may come back: the next tick tries again. */
			s->valid = 0;
			s->is_lost = true;
			s->t_ns = now_ns();
			return r;
		}
	}
	/* Stamped when the readings are in: a call that took long must not date them early. */
	s->t_ns = now_ns();
	if ((dev->measures & M_POWER_POINTS) && nvml_read_points(d, s) == NVML_SUCCESS)
		s->valid |= M_POWER_POINTS;
	if (d->has_pid_util || d->has_procs) {
		if (s->t_ns - d->poll_ns >= NVML_PID_POLL_NS) {
			s->pid_span_ns = s->t_ns - d->poll_ns;
			nvml_poll(d, i, tree, s->t_ns, pids);
		}
		if (!d->has_foreign)
			s->pid_span_ns = 0;
		if (d->has_foreign) {
			s->foreign_sm_pct = d->foreign_sm_pct;
			s->foreign_mem_pct = d->foreign_mem_pct;
			s->valid |= M_PID_UTIL | M_FOREIGN;
		}
	}
	return NVML_SUCCESS;
}

static int
nvml_sample(struct device *devs, size_t ndev, const struct proctree *tree,
    struct sample *out, struct pid_usage_set *pids, struct errbuf *err)
{
	struct nvml_ctx	*ctx;
	nvmlReturn_t	 r = NVML_SUCCESS;
	size_t		 i, ngone = 0;

	if (ndev == 0)
		return 0;
	ctx = ((struct nvml_dev *)devs[0].priv)->ctx;
	ctx->real_minus_mono_ns = realtime_ns() - now_ns();
	for (i = 0; i < ndev; i++) {
		r = nvml_sample_one(&devs[i], i, tree, &out[i], pids);
		if (nvml_is_gone(r))
			ngone++;
	}
	if (ngone == ndev) {
		errbuf_set(err, "%s", nvml_strerror(ctx, r));
		return -1;
	}
	return 0;
}

/* ---- probe ------------------------------------------------------------ */

/* Try every per-tick reader once; what works is what the device measures. */
static void
nvml_probe_readers(struct nvml_dev *d, struct device *dev)
{
	const struct nvml_reader	*rd;
	struct sample			 s;
	size_t				 k;

	for (k = 0; k < ARRAY_SIZE(nvml_readers); k++) {
		rd = &nvml_readers[k];
		memset(&s, 0, sizeof s);
		if (rd->read(d, &s) != NVML_SUCCESS)
			continue;
		dev->measures |= rd->bit;
		if (rd->bit == M_POWER && d->has_power_field)
			backend_how(dev, rd->cap, "field:POWER_INSTANT");
		else
			backend_how(dev, rd->cap, nvml_found(d->ctx, rd->slot));
	}
}

/*
 * What the power readings mean: the POWER_INSTANT field (R535 and later)
 * is a reading of the moment; nvmlDeviceGetPowerUsage depends on the
 * architecture.  Called after the readers were tried.
 */
static void
nvml_probe_power_kind(struct nvml_dev *d, struct device *dev, unsigned int pci_device_id)
{
	const struct nvml_fn		*fn = &d->ctx->fn;
	nvmlDeviceArchitecture_t	 arch = NVML_DEVICE_ARCH_UNKNOWN;
	bool				 has_arch, is_assumed;

	if (!(dev->measures & M_POWER))
		return;
	if (d->has_power_field) {
		dev->power_kind = POWER_KIND_INSTANT;
		return;
	}
	has_arch = fn->architecture != NULL &&
	    fn->architecture(d->handle, &arch) == NVML_SUCCESS;
	dev->power_kind = nvml_decode_power_kind(has_arch, arch, pci_device_id, &is_assumed);
	if (dev->power_kind != POWER_KIND_AVERAGE_1S)
		return;
	backend_note(dev, "%s", is_assumed ?
	    "power readings are assumed to be 1 s trailing averages (architecture unknown); "
	    "short phases are smeared" :
	    "power readings are 1 s trailing averages; short phases are smeared");
}

/* MIG, virtualization and accounting modes, with the notes they call for. */
static void
nvml_probe_modes(struct nvml_dev *d, struct device *dev)
{
	const struct nvml_fn		*fn = &d->ctx->fn;
	unsigned int			 mig = 0, pending = 0;
	nvmlGpuVirtualizationMode_t	 virt = NVML_GPU_VIRTUALIZATION_MODE_NONE;
	nvmlEnableState_t		 acct = NVML_FEATURE_DISABLED;

	if (fn->mig_mode != NULL && fn->mig_mode(d->handle, &mig, &pending) == NVML_SUCCESS &&
	    mig == NVML_DEVICE_MIG_ENABLE) {
		d->is_mig = true;
		backend_note(dev, "MIG mode is on: per-process utilization is not available, "
		    "and power and energy are for the whole board");
	}
	if (fn->virt_mode != NULL && fn->virt_mode(d->handle, &virt) != NVML_SUCCESS)
		virt = NVML_GPU_VIRTUALIZATION_MODE_NONE;
	if (virt == NVML_GPU_VIRTUALIZATION_MODE_VGPU)
		backend_note(dev, "vGPU guest: the hypervisor does not give power or energy "
		    "to the guest; utilization is still measured");
	if (virt == NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU) {
		d->is_vgpu_host = true;
		backend_note(dev, "vGPU host: the utilization of vGPU instances is counted as "
		    "foreign load sharing the device");
	}
	if (d->ctx->is_nested_pidns)
		backend_note(dev, "running in a nested pid namespace: NVML reports host pids, "
		    "which cannot be matched to the workload's processes, so per-process "
		    "attribution is unavailable");
	d->is_acct = fn->acct_mode != NULL && fn->acct_mode(d->handle, &acct) == NVML_SUCCESS &&
	    acct == NVML_FEATURE_ENABLED && fn->acct_pids != NULL && fn->acct_stats != NULL;
}

/* Size the driver-sample buffer once, so that ticks do not allocate. */
static void
nvml_probe_points(struct nvml_dev *d, struct device *dev)
{
	nvmlValueType_t	type;
	unsigned int	n = 0;
	nvmlReturn_t	r;

	if (d->ctx->fn.samples == NULL)
		return;
	r = d->ctx->fn.samples(d->handle, NVML_TOTAL_POWER_SAMPLES, 0, &type, &n, NULL);
	if (r != NVML_SUCCESS && r != NVML_ERROR_INSUFFICIENT_SIZE && r != NVML_ERROR_NOT_FOUND)
		return;
	d->capsamples = n < NVML_SAMPLES_CAP_MIN ? NVML_SAMPLES_CAP_MIN : n;
	d->samples = xcalloc(d->capsamples, sizeof *d->samples);
	d->points = xcalloc(d->capsamples, sizeof *d->points);
	d->samples_seen_us = (uint64_t)(realtime_ns() / NSEC_PER_USEC);
	dev->measures |= M_POWER_POINTS;
	backend_how(dev, "samples", nvml_found(d->ctx, NVML_S_SAMPLES));
}

/* Per-process utilization and running processes, tried once. */
static void
nvml_probe_pids(struct nvml_dev *d, struct device *dev)
{
	const struct nvml_ctx	*ctx = d->ctx;
	size_t			 n;

	d->util_seen_us = (uint64_t)(realtime_ns() / NSEC_PER_USEC);
	d->vgpu_seen_us = d->util_seen_us;
	d->poll_ns = now_ns();
	if (ctx->is_nested_pidns)
		return;
	if (nvml_util_reserve(d, NVML_UTIL_CAP_MIN) != 0 ||
	    nvml_procs_reserve(d, NVML_PROC_CAP_MIN) != 0)
		return;
	/* The versioned call first (R550), else the older one. */
	d->util_slot = NVML_S_PROCS_UTIL_INFO;
	if (!d->is_mig && nvml_util_read(d, d->util_slot, &n) != NVML_SUCCESS)
		d->util_slot = NVML_S_PROC_UTIL;
	if (!d->is_mig && nvml_util_read(d, d->util_slot, &n) == NVML_SUCCESS) {
		d->has_pid_util = true;
		dev->measures |= M_PID_UTIL;
		backend_how(dev, "pid-util", nvml_found(ctx, d->util_slot));
	}
	n = 0;
	if (nvml_procs_one(d, NVML_S_COMPUTE_PROCS, &n) == NVML_SUCCESS) {
		d->has_procs = true;
		backend_how(dev, "pid-mem", nvml_found(ctx, NVML_S_COMPUTE_PROCS));
	}
	if (dev->measures & M_PID_UTIL && !d->is_acct)
		backend_note(dev, "accounting mode is off: processes that start and end "
		    "between two per-process polls (500 ms) are not seen");
}

static void
nvml_probe_end_figures(struct nvml_dev *d, struct device *dev)
{
	const struct nvml_fn	*fn = &d->ctx->fn;

	if (fn->violation != NULL &&
	    fn->violation(d->handle, NVML_PERF_POLICY_POWER, &d->viol0[0]) == NVML_SUCCESS &&
	    fn->violation(d->handle, NVML_PERF_POLICY_THERMAL, &d->viol0[1]) == NVML_SUCCESS) {
		dev->measures |= M_VIOLATION;
		backend_how(dev, "violation", nvml_found(d->ctx, NVML_S_VIOLATION));
	}
	if (d->is_acct && !d->ctx->is_nested_pidns)
		backend_how(dev, "accounting", nvml_found(d->ctx, NVML_S_ACCT_STATS));
	if (d->is_vgpu_host && fn->vgpu_util != NULL)
		backend_how(dev, "vgpu-util", nvml_found(d->ctx, NVML_S_VGPU_UTIL));
}

static void
nvml_probe_version(const struct nvml_ctx *ctx, struct device *dev)
{
	char	driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "unknown";
	char	lib[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE] = "unknown";

	if (ctx->fn.driver_version == NULL ||
	    ctx->fn.driver_version(driver, sizeof driver) != NVML_SUCCESS)
		snprintf(driver, sizeof driver, "unknown");
	if (ctx->fn.nvml_version == NULL || ctx->fn.nvml_version(lib, sizeof lib) != NVML_SUCCESS)
		snprintf(lib, sizeof lib, "unknown");
	snprintf(dev->version, sizeof dev->version, "driver %.40s, NVML %.40s", driver, lib);
}

/* Everything probe learns about one selected device. */
static void
nvml_probe_device(struct nvml_dev *d, struct device *dev, unsigned int pci_device_id)
{
	nvml_probe_version(d->ctx, dev);
	nvml_probe_modes(d, dev);
	d->has_power_field = nvml_read_power_field(d, &(uint32_t){ 0 }) == NVML_SUCCESS;
	nvml_probe_readers(d, dev);
	nvml_probe_power_kind(d, dev, pci_device_id);
	nvml_probe_points(d, dev);
	nvml_probe_pids(d, dev);
	nvml_probe_end_figures(d, dev);
	/* The counter is an unsigned long long of mJ: it does not wrap in practice. */
	dev->energy_range_mj = 0;
}

/* Name, UUID and bus id of device index; -1 when it cannot be identified. */
static nvmlReturn_t
nvml_identify(struct nvml_ctx *ctx, unsigned int index, struct nvml_dev *d,
    struct device *dev, unsigned int *pci_device_id)
{
	const struct nvml_fn	*fn = &ctx->fn;
	nvmlPciInfo_t		 pci;
	nvmlReturn_t		 r;

	memset(dev, 0, sizeof *dev);
	memset(d, 0, sizeof *d);
	d->ctx = ctx;
	if ((r = fn->handle_by_index(index, &d->handle)) != NVML_SUCCESS)
		return r;
	if (fn->uuid == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	if ((r = fn->uuid(d->handle, dev->id, sizeof dev->id)) != NVML_SUCCESS)
		return r;
	if (fn->name == NULL || fn->name(d->handle, dev->name, sizeof dev->name) != NVML_SUCCESS)
		snprintf(dev->name, sizeof dev->name, "NVIDIA GPU %u", index);
	*pci_device_id = 0;
	memset(&pci, 0, sizeof pci);
	if (fn->pci_info != NULL && fn->pci_info(d->handle, &pci) == NVML_SUCCESS) {
		snprintf(dev->bus_id, sizeof dev->bus_id, "%.*s", (int)sizeof pci.busId - 1,
		    pci.busId);
		*pci_device_id = pci.pciDeviceId;
	}
	dev->ops = &nvml_ops;
	dev->index = index;
	dev->priv = d;
	return NVML_SUCCESS;
}

/* Find, select and probe the devices; notes about skipped ones go in err. */
static int
nvml_enumerate(struct nvml_ctx *ctx, struct devsel *sel, struct device **devs,
    size_t *ndev, struct errbuf *err)
{
	struct device	*dev;
	struct nvml_dev	*d;
	unsigned int	 count = 0, i, pci_id;
	nvmlReturn_t	 r;

	if ((r = ctx->fn.count(&count)) != NVML_SUCCESS) {
		errbuf_set(err, "not available: %s: %s", nvml_found(ctx, NVML_S_COUNT),
		    nvml_strerror(ctx, r));
		return -1;
	}
	*devs = xcalloc(count > 0 ? count : 1, sizeof **devs);
	ctx->devs = xcalloc(count > 0 ? count : 1, sizeof *ctx->devs);
	for (i = 0; i < count; i++) {
		dev = &(*devs)[*ndev];
		d = &ctx->devs[*ndev];
		if ((r = nvml_identify(ctx, i, d, dev, &pci_id)) != NVML_SUCCESS) {
			nvml_note(err, "GPU %u skipped: %s", i, nvml_strerror(ctx, r));
			continue;
		}
		if (!devsel_match(sel, i, dev->id, dev->bus_id))
			continue;
		nvml_probe_device(d, dev, pci_id);
		(*ndev)++;
		ctx->ndev = *ndev;
	}
	return 0;
}

static int
nvml_probe(const struct source_config *sc, struct device **devs, size_t *ndev,
    struct errbuf *err)
{
	struct nvml_ctx	*ctx;
	int		 rc;

	*devs = NULL;
	*ndev = 0;
	ctx = xcalloc(1, sizeof *ctx);
	if (nvml_load(ctx, sc->nvml_lib != NULL ? sc->nvml_lib : NVML_LIB_DEFAULT, err) != 0) {
		free(ctx);
		return -1;
	}
	ctx->is_nested_pidns = nvml_is_nested_pidns();
	rc = nvml_enumerate(ctx, sc->sel, devs, ndev, err);
	if (rc != 0 || *ndev == 0) {
		/* Nothing to measure: let go of the library now. */
		nvml_unload(ctx);
		free(*devs);
		*devs = NULL;
		*ndev = 0;
	}
	return rc;
}

/* ---- locked clocks ---------------------------------------------------- */

/* One domain's lock: the set call and the reset that undoes it. */
struct nvml_lock_calls {
	nvmlReturn_t	(*set)(nvmlDevice_t, unsigned int, unsigned int);
	nvmlReturn_t	(*reset)(nvmlDevice_t);
};

/* What locking one device came to; an empty why means locked (or left alone). */
struct nvml_lock_outcome {
	struct nvml_lock_range	gpu;
	struct nvml_lock_range	mem;
	char			gpu_why[128];
	char			mem_why[128];
};

/* Why a call failed, in the report's words. */
static void
nvml_lock_reason(const struct nvml_ctx *ctx, nvmlReturn_t r, char *buf, size_t size)
{
	const char	*s = nvml_decode_lock_reason(r);

	snprintf(buf, size, "%s", s != NULL ? s : nvml_strerror(ctx, r));
}

/* The highest clock of a domain, for CLOCK_LOCK_MAX; 0 with why set when unknown. */
static unsigned int
nvml_lock_max(const struct nvml_dev *d, nvmlClockType_t type, char *why, size_t size)
{
	unsigned int	mhz = 0;
	nvmlReturn_t	r = NVML_ERROR_FUNCTION_NOT_FOUND;
	char		text[96];

	if (d->ctx->fn.max_clock != NULL)
		r = d->ctx->fn.max_clock(d->handle, type, &mhz);
	if (r == NVML_SUCCESS)
		return mhz;
	nvml_lock_reason(d->ctx, r, text, sizeof text);
	snprintf(why, size, "the highest clock is unknown: %s", text);
	return 0;
}

/*
 * Lock one domain of d to r, unless why already says why not.  A library
 * that has the set call but not its reset counts as not having it: a
 * lock that cannot be undone would outlive joulestat.  Returns true when
 * the domain was locked.
 */
static bool
nvml_lock_domain(const struct nvml_dev *d, const struct nvml_lock_calls *c,
    const struct nvml_lock_range *r, char *why, size_t size)
{
	nvmlReturn_t	rc;

	if (why[0] != '\0')
		return false;
	if (r->action != NVML_LOCK_SET) {
		snprintf(why, size, "no valid clock to lock to");
		return false;
	}
	if (c->set == NULL || c->reset == NULL)
		rc = NVML_ERROR_FUNCTION_NOT_FOUND;
	else
		rc = c->set(d->handle, r->min_mhz, r->max_mhz);
	if (rc == NVML_SUCCESS)
		return true;
	nvml_lock_reason(d->ctx, rc, why, size);
	return false;
}

/*
 * Lock device d as req says, graphics first.  When graphics fails memory
 * is not tried, so that a GPU is either locked as asked, or left alone,
 * or has only its graphics lock when the memory one failed.
 */
static void
nvml_lock_one(struct nvml_dev *d, const struct clock_lock *req, struct nvml_lock_outcome *o)
{
	const struct nvml_fn		*fn = &d->ctx->fn;
	const struct nvml_lock_calls	 gpu_calls = { fn->set_gpu_lock, fn->reset_gpu_lock };
	const struct nvml_lock_calls	 mem_calls = { fn->set_mem_lock, fn->reset_mem_lock };
	unsigned int			 max_gfx = 0, max_mem = 0;

	memset(o, 0, sizeof *o);
	if (req->kind == CLOCK_LOCK_MAX) {
		max_gfx = nvml_lock_max(d, NVML_CLOCK_GRAPHICS, o->gpu_why, sizeof o->gpu_why);
		max_mem = nvml_lock_max(d, NVML_CLOCK_MEM, o->mem_why, sizeof o->mem_why);
	}
	nvml_decode_lock(req, max_gfx, max_mem, &o->gpu, &o->mem);
	if (!nvml_lock_domain(d, &gpu_calls, &o->gpu, o->gpu_why, sizeof o->gpu_why))
		return;
	d->is_gpu_locked = true;
	if (o->mem.action == NVML_LOCK_LEAVE)
		return;
	if (nvml_lock_domain(d, &mem_calls, &o->mem, o->mem_why, sizeof o->mem_why))
		d->is_mem_locked = true;
}

/*
 * Leave the outcome of dev's lock in its notes, and a failure in err
 * (which may be NULL).  Returns 0 when everything asked for was locked,
 * else -1.
 */
static int
nvml_lock_report(struct device *dev, const struct nvml_lock_outcome *o, struct errbuf *err)
{
	char	note[DEVICE_NOTE_LEN];

	if (o->gpu_why[0] != '\0') {
		snprintf(note, sizeof note, "clocks not locked: %s", o->gpu_why);
		backend_note(dev, "%s", note);
		errbuf_set(err, "GPU %u (%s): cannot lock clocks: %s", dev->index, dev->id,
		    o->gpu_why);
		return -1;
	}
	nvml_decode_lock_note(&o->gpu, o->mem_why[0] == '\0' ? &o->mem : NULL, note,
	    sizeof note);
	backend_note(dev, "%s", note);
	if (o->mem.action == NVML_LOCK_LEAVE || o->mem_why[0] == '\0')
		return 0;
	/* The graphics lock stays: unlock_clocks resets it with the rest. */
	snprintf(note, sizeof note, "memory clock not locked: %s", o->mem_why);
	backend_note(dev, "%s", note);
	errbuf_set(err, "GPU %u (%s): cannot lock the memory clock: %s", dev->index, dev->id,
	    o->mem_why);
	return -1;
}

/*
 * Every device is a whole GPU: probe enumerates boards by index, a
 * MIG-enabled board is one device (its instances are not enumerated) and
 * a vGPU guest sees each of its vGPUs once.  So no GPU is locked twice.
 * Every device is tried even after one failed; err holds the first
 * failure.
 */
static int
nvml_lock_clocks(struct device *devs, size_t ndev, const struct clock_lock *req,
    struct errbuf *err)
{
	struct nvml_lock_outcome	o;
	size_t				i;
	int				rc = 0;

	if (req->kind == CLOCK_LOCK_NONE)
		return 0;
	for (i = 0; i < ndev; i++) {
		if (devs[i].priv == NULL)
			continue;
		nvml_lock_one(devs[i].priv, req, &o);
		if (nvml_lock_report(&devs[i], &o, rc == 0 ? err : NULL) != 0)
			rc = -1;
	}
	return rc;
}

/*
 * Reset what nvml_lock_clocks locked, once.  Errors are ignored: a GPU
 * that answered GPU_IS_LOST may still take the reset, and there is
 * nothing else to try.
 */
static void
nvml_unlock_clocks(struct device *devs, size_t ndev)
{
	struct nvml_dev	*d;
	size_t		 i;

	for (i = 0; i < ndev; i++) {
		if ((d = devs[i].priv) == NULL)
			continue;
		if (d->is_gpu_locked)
			d->ctx->fn.reset_gpu_lock(d->handle);
		if (d->is_mem_locked)
			d->ctx->fn.reset_mem_lock(d->handle);
		d->is_gpu_locked = false;
		d->is_mem_locked = false;
	}
}

/* ---- finish and close ------------------------------------------------- */

/* Time throttled by power and by temperature over the run. */
static void
nvml_finish_violation(struct nvml_dev *d, struct device *dev)
{
	const struct nvml_fn	*fn = &d->ctx->fn;
	nvmlViolationTime_t	 v[2];
	int64_t			 power_ns, thermal_ns;

	if (!(dev->measures & M_VIOLATION))
		return;
	if (fn->violation(d->handle, NVML_PERF_POLICY_POWER, &v[0]) != NVML_SUCCESS ||
	    fn->violation(d->handle, NVML_PERF_POLICY_THERMAL, &v[1]) != NVML_SUCCESS)
		return;
	power_ns = nvml_decode_violation_ns(&d->viol0[0], &v[0]);
	thermal_ns = nvml_decode_violation_ns(&d->viol0[1], &v[1]);
	if (power_ns < 0 || thermal_ns < 0)
		return;
	dev->throttle_power_ns = power_ns;
	dev->throttle_thermal_ns = thermal_ns;
	dev->final_valid |= M_VIOLATION;
}

/* The pids accounting knows on this device, sorted; NULL when none. */
static unsigned int *
nvml_acct_pids(const struct nvml_dev *d, unsigned int *n)
{
	unsigned int	*pids, cap;

	*n = 0;
	if (d->ctx->fn.acct_pids(d->handle, n, NULL) != NVML_ERROR_INSUFFICIENT_SIZE || *n == 0)
		return NULL;
	cap = *n * 2;
	if ((pids = calloc(cap, sizeof *pids)) == NULL)
		return NULL;
	*n = cap;
	if (d->ctx->fn.acct_pids(d->handle, n, pids) != NVML_SUCCESS || *n > cap) {
		free(pids);
		return NULL;
	}
	qsort(pids, *n, sizeof *pids, backend_cmp_uint);
	return pids;
}

/* Append the tree's process p when only accounting has seen it. */
static void
nvml_finish_acct_one(struct nvml_dev *d, size_t dev, const struct proc *p,
    struct pid_usage_set *pids)
{
	nvmlAccountingStats_t	 st;
	struct pid_usage	*u;

	memset(&st, 0, sizeof st);
	if (d->ctx->fn.acct_stats(d->handle, (unsigned int)p->pid, &st) != NVML_SUCCESS)
		return;
	if (!nvml_decode_accounting_matches(&st, d->ctx->real_minus_mono_ns, p->first_seen_ns,
	    p->last_seen_ns, NVML_ACCT_SLACK_NS))
		return;
	u = pid_usage_add(pids);
	u->dev = dev;
	u->pid = p->pid;
	nvml_decode_accounting(&st, u);
	/* The figures cover the process's lifetime, when it is known. */
	if (st.time != 0 && st.time < (unsigned long long)(INT64_MAX / NSEC_PER_MSEC))
		u->span_ns = (int64_t)st.time * NSEC_PER_MSEC;
	backend_intset_add(&d->seen, p->pid);
}

/*
 * Processes of the tree that lived and died between two polls: accounting
 * mode keeps their lifetime utilization and largest memory use.
 */
static void
nvml_finish_accounting(struct nvml_dev *d, size_t dev, const struct proctree *tree,
    struct pid_usage_set *pids)
{
	const struct proc	*p;
	unsigned int		*acct, n, pid;
	size_t			 i;

	if (!d->is_acct || d->ctx->is_nested_pidns || tree == NULL)
		return;
	if ((acct = nvml_acct_pids(d, &n)) == NULL)
		return;
	for (i = 0; i < tree->nproc; i++) {
		p = &tree->procs[i];
		pid = (unsigned int)p->pid;
		if (p->pid <= 0 || backend_intset_has(&d->seen, p->pid) ||
		    bsearch(&pid, acct, n, sizeof *acct, backend_cmp_uint) == NULL)
			continue;
		nvml_finish_acct_one(d, dev, p, pids);
	}
	free(acct);
}

static void
nvml_finish(struct device *devs, size_t ndev, const struct proctree *tree,
    struct pid_usage_set *pids)
{
	struct nvml_dev	*d;
	size_t		 i;

	if (ndev == 0)
		return;
	d = devs[0].priv;
	d->ctx->real_minus_mono_ns = realtime_ns() - now_ns();
	for (i = 0; i < ndev; i++) {
		d = devs[i].priv;
		nvml_finish_violation(d, &devs[i]);
		nvml_finish_accounting(d, i, tree, pids);
	}
}

static void
nvml_close(struct device *devs, size_t ndev)
{
	size_t	i;

	if (ndev == 0)
		return;
	/* A lock must not outlive the library, whatever path led here. */
	nvml_unlock_clocks(devs, ndev);
	nvml_unload(((struct nvml_dev *)devs[0].priv)->ctx);
	for (i = 0; i < ndev; i++)
		devs[i].priv = NULL;
}
