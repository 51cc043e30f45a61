/*
 * Loading NVML (nvml_priv.h): dlopen of libnvidia-ml.so.1, or of the
 * library named by --nvml-lib or JOULESTAT_NVML_LIB, which is also how the
 * simulator in tests/sim is reached; there is no other path.  Every symbol
 * is resolved from one table, newest version first, so that a driver
 * without the _v3 or _v2 name of a call falls back to the older one; a
 * missing required symbol makes the library unusable, a missing optional
 * one leaves its slot NULL and the measures that need it out.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/util.h"

#include "nvml_priv.h"

#define NVML_LIB_DEFAULT	"libnvidia-ml.so.1"
#define NVML_NAMES_MAX		3

struct nvml_sym {
	const char	*names[NVML_NAMES_MAX];	/* exact dlsym names, newest first */
	size_t		 off;			/* offsetof(struct nvml_fn, slot) */
	bool		 is_required;
};

#define NVML_SYM(slot, member, req, ...) \
	[slot] = { { __VA_ARGS__ }, offsetof(struct nvml_fn, member), req }

/*
 * Which symbols, under which names.  In nvml.h the plain names of
 * versioned calls are macros for the newest version (nvmlInit is
 * nvmlInit_v2), so dlsym must ask for the versioned names themselves.
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
	NVML_SYM(NVML_S_CUDA_CC, cuda_cc, false, "nvmlDeviceGetCudaComputeCapability"),
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
	NVML_SYM(NVML_S_MIG_MAX, mig_max, false, "nvmlDeviceGetMaxMigDeviceCount"),
	NVML_SYM(NVML_S_MIG_HANDLE, mig_handle, false, "nvmlDeviceGetMigDeviceHandleByIndex"),
	NVML_SYM(NVML_S_MIG_PARENT, mig_parent, false,
	    "nvmlDeviceGetDeviceHandleFromMigDeviceHandle"),
	NVML_SYM(NVML_S_GI_ID, gi_id, false, "nvmlDeviceGetGpuInstanceId"),
	NVML_SYM(NVML_S_CI_ID, ci_id, false, "nvmlDeviceGetComputeInstanceId"),
};

/* Entry size written by each name of the running-process slots, in nvml_syms order. */
static const size_t nvml_proc_strides[NVML_NAMES_MAX] = {
	sizeof(nvmlProcessInfo_v2_t),		/* _v3 */
	sizeof(nvmlProcessInfo_v2_t),		/* _v2 */
	sizeof(nvmlProcessInfo_v1_t),		/* plain */
};

const char *
nvml_strerror(const struct nvml_ctx *ctx, nvmlReturn_t r)
{
	const char	*s = ctx->fn.error_string != NULL ? ctx->fn.error_string(r) : NULL;

	return s != NULL ? s : "unknown error";
}

const char *
nvml_found(const struct nvml_ctx *ctx, enum nvml_slot slot)
{
	return ctx->found[slot] < 0 ? NULL : nvml_syms[slot].names[ctx->found[slot]];
}

size_t
nvml_proc_stride(const struct nvml_ctx *ctx, enum nvml_slot slot)
{
	return nvml_proc_strides[ctx->found[slot]];
}

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

/* WSL2's GPU device: NVML reaches the GPU through it, with no NVIDIA module loaded. */
static bool
has_wsl_gpu(const char *dev_root)
{
	char	path[512];

	snprintf(path, sizeof path, "%s/dxg", dev_root);
	return access(path, F_OK) == 0;
}

int
nvml_load(struct nvml_ctx *ctx, const char *path, const char *dev_root, struct errbuf *err)
{
	nvmlReturn_t	r;

	/*
	 * Without the NVIDIA kernel module (which creates /proc/driver/nvidia)
	 * NVML cannot start, but on WSL2, where the GPU is /dev/dxg: spare the
	 * loader's search of every library directory for a library that is
	 * not there.  A path given is tried.
	 */
	if (path == NULL && access("/proc/driver/nvidia", F_OK) != 0 && errno == ENOENT &&
	    !has_wsl_gpu(dev_root)) {
		errbuf_set(err, "not available: no NVIDIA driver loaded (no /proc/driver/nvidia)");
		return -1;
	}
	if (path == NULL)
		path = NVML_LIB_DEFAULT;
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

void
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
