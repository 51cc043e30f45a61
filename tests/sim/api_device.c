/*
 * Device identity and state queries: name, UUID, PCI info, index, clocks
 * (current and maximum), P-state, temperature, utilization, clocks event
 * reasons, memory (v1 and versioned v2), power limits, violation time,
 * MIG and virtualization modes.  Values come from the phase in force at
 * the moment of the call (model.c); power and energy readings are in
 * api_power.c.  Every function starts at state_enter_device, which has
 * already applied the init, handle and fault checks, most of them by way
 * of state_enter_device_args, which then checks the arguments.
 */
#include "nvsim.h"

#include <stdio.h>
#include <string.h>

/* The throttle reasons each violation policy counts. */
#define POWER_REASONS	(nvmlClocksEventReasonSwPowerCap | \
			 nvmlClocksThrottleReasonHwPowerBrakeSlowdown)
#define THERMAL_REASONS	(nvmlClocksEventReasonSwThermalSlowdown | \
			 nvmlClocksThrottleReasonHwThermalSlowdown)

/* The name (is_uuid false) or the UUID, of a board or of a MIG device. */
static nvmlReturn_t
device_string(const char *call, nvmlDevice_t device, char *buf, unsigned int length,
    bool is_uuid)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	if (state_is_mig(device))
		return sim_mig_string(call, device, buf, length, is_uuid);
	if ((rc = state_enter_device(call, device, &d, NULL)) != NVML_SUCCESS)
		return rc;
	return state_leave(state_copy_string(buf, length, is_uuid ? d->uuid : d->name));
}

nvmlReturn_t
nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	return device_string(__func__, device, name, length, false);
}

nvmlReturn_t
nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	return device_string(__func__, device, uuid, length, true);
}

nvmlReturn_t
nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, index != NULL, &d, NULL);
	if (rc != NVML_SUCCESS)
		return rc;
	*index = d->index;
	return state_leave(NVML_SUCCESS);
}

/* Both bus id spellings, as only the v3 call fills them. */
nvmlReturn_t
nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, pci != NULL, &d, NULL);
	if (rc != NVML_SUCCESS)
		return rc;
	memset(pci, 0, sizeof(*pci));
	pci->domain = d->pci_domain;
	pci->bus = d->pci_bus;
	pci->device = d->pci_device;
	pci->pciDeviceId = d->pci_id;
	pci->pciSubSystemId = d->pci_subsys;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0",
	    d->pci_domain & 0xFFFF, d->pci_bus, d->pci_device);
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", d->pci_domain,
	    d->pci_bus, d->pci_device);
	return state_leave(NVML_SUCCESS);
}

/* Only with "arch" in the scenario; without it, as on drivers before R470. */
nvmlReturn_t
nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, arch != NULL, &d, NULL);
	if (rc != NVML_SUCCESS)
		return rc;
	if (d->arch == 0)
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	*arch = d->arch;
	return state_leave(NVML_SUCCESS);
}

static unsigned
clamp_lock(unsigned mhz, bool is_locked, const unsigned lock[2])
{
	if (!is_locked)
		return mhz;
	return mhz < lock[0] ? lock[0] : mhz > lock[1] ? lock[1] : mhz;
}

/* The current clock of a domain, after any locked-clocks range. */
static unsigned
clock_now(const struct simdev *d, const struct phase *ph, nvmlClockType_t type)
{
	switch (type) {
	case NVML_CLOCK_GRAPHICS:
		return clamp_lock(ph->gfx_mhz, d->is_gpu_locked, d->gpu_lock);
	case NVML_CLOCK_SM:
		return clamp_lock(ph->sm_mhz, d->is_gpu_locked, d->gpu_lock);
	default:
		return clamp_lock(ph->mem_mhz, d->is_mem_locked, d->mem_lock);
	}
}

/* VIDEO exists in the enum but the simulator has no video clock. */
static nvmlReturn_t
check_clock_type(nvmlClockType_t type, const unsigned int *clock)
{
	if (clock == NULL || (unsigned)type >= NVML_CLOCK_COUNT)
		return NVML_ERROR_INVALID_ARGUMENT;
	return type == NVML_CLOCK_VIDEO ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
	struct simdev	*d;
	int64_t		 now;
	nvmlReturn_t	 rc;

	if ((rc = state_enter_device(__func__, device, &d, &now)) != NVML_SUCCESS)
		return rc;
	if ((rc = check_clock_type(type, clock)) != NVML_SUCCESS)
		return state_leave(rc);
	if (d->clock_absent & (1u << type))
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	*clock = clock_now(d, model_phase_at(d, state_ms(now)), type);
	return state_leave(NVML_SUCCESS);
}

/* Without max_clocks in the scenario, the highest clock any phase uses. */
nvmlReturn_t
nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	if ((rc = state_enter_device(__func__, device, &d, NULL)) != NVML_SUCCESS)
		return rc;
	if ((rc = check_clock_type(type, clock)) != NVML_SUCCESS)
		return state_leave(rc);
	*clock = model_max_mhz(d, type);
	return state_leave(NVML_SUCCESS);
}

/* A reading call: it extends the ground-truth window. */
nvmlReturn_t
nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pstate)
{
	struct simdev	*d;
	int64_t		 now;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, pstate != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	*pstate = (nvmlPstates_t)model_phase_at(d, state_ms(now))->pstate;
	state_note_read(d, now);
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor,
    unsigned int *temp)
{
	struct simdev	*d;
	int64_t		 now;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device,
	    temp != NULL && sensor == NVML_TEMPERATURE_GPU, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	*temp = model_phase_at(d, state_ms(now))->temp_c;
	return state_leave(NVML_SUCCESS);
}

/* Not supported on the parent handle of a MIG-enabled GPU. */
nvmlReturn_t
nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *util)
{
	const struct phase *ph;
	struct simdev	*d;
	int64_t		 now;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, util != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if (d->mig == MIG_ON)
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	ph = model_phase_at(d, state_ms(now));
	util->gpu = ph->util_pct;
	util->memory = ph->memutil_pct;
	return state_leave(NVML_SUCCESS);
}

static nvmlReturn_t
clocks_reasons(const char *call, nvmlDevice_t device, unsigned long long *mask)
{
	struct simdev	*d;
	int64_t		 now;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(call, device, mask != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	*mask = model_phase_at(d, state_ms(now))->throttle;
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *mask)
{
	return clocks_reasons(__func__, device, mask);
}

nvmlReturn_t
nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *mask)
{
	return clocks_reasons(__func__, device, mask);
}

/*
 * Memory in use is the reserved amount plus what the running processes
 * hold.  Aggregate figures on a MIG parent need privileges.
 */
static nvmlReturn_t
memory_now(const struct simdev *d, int64_t now, unsigned long long *used)
{
	struct proc_list pl = { 0 };

	if (d->mig == MIG_ON && !nvsim.sc.is_root)
		return NVML_ERROR_NO_PERMISSION;
	if (procs_collect(d, state_ms(now), &pl) == -1) {
		procs_free(&pl);
		return NVML_ERROR_MEMORY;
	}
	*used = d->mem_reserved;
	for (size_t i = 0; i < pl.n; i++)
		*used += pl.v[i].gpumem_bytes;
	if (*used > d->mem_total)
		*used = d->mem_total;
	procs_free(&pl);
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *mem)
{
	struct simdev		*d;
	int64_t			 now;
	unsigned long long	 used;
	nvmlReturn_t		 rc;

	rc = state_enter_device_args(__func__, device, mem != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if ((rc = memory_now(d, now, &used)) != NVML_SUCCESS)
		return state_leave(rc);
	mem->total = d->mem_total;
	mem->used = used;
	mem->free = d->mem_total - used;
	return state_leave(NVML_SUCCESS);
}

/* The caller must have set version to nvmlMemory_v2 (size 40, version 2). */
nvmlReturn_t
nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *mem)
{
	struct simdev		*d;
	int64_t			 now;
	unsigned long long	 used;
	nvmlReturn_t		 rc;

	rc = state_enter_device_args(__func__, device, mem != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if (mem->version != nvmlMemory_v2)
		return state_leave(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	if ((rc = memory_now(d, now, &used)) != NVML_SUCCESS)
		return state_leave(rc);
	mem->total = d->mem_total;
	mem->reserved = d->mem_reserved;
	mem->used = used;
	mem->free = d->mem_total - used;
	return state_leave(NVML_SUCCESS);
}

/* A vGPU guest sees no power figures at all. */
static nvmlReturn_t
power_limit(const char *call, nvmlDevice_t device, unsigned int *limit)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(call, device, limit != NULL, &d, NULL);
	if (rc != NVML_SUCCESS)
		return rc;
	if (d->virt == NVML_GPU_VIRTUALIZATION_MODE_VGPU)
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	*limit = d->limit_mw;
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
	return power_limit(__func__, device, limit);
}

nvmlReturn_t
nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
	return power_limit(__func__, device, limit);
}

static nvmlReturn_t
policy_mask(nvmlPerfPolicyType_t policy, unsigned long long *mask)
{
	switch (policy) {
	case NVML_PERF_POLICY_POWER:
		*mask = POWER_REASONS;
		return NVML_SUCCESS;
	case NVML_PERF_POLICY_THERMAL:
		*mask = THERMAL_REASONS;
		return NVML_SUCCESS;
	case NVML_PERF_POLICY_SYNC_BOOST:
	case NVML_PERF_POLICY_BOARD_LIMIT:
	case NVML_PERF_POLICY_LOW_UTILIZATION:
	case NVML_PERF_POLICY_RELIABILITY:
	case NVML_PERF_POLICY_TOTAL_APP_CLOCKS:
	case NVML_PERF_POLICY_TOTAL_BASE_CLOCKS:
		return NVML_ERROR_NOT_SUPPORTED;
	}
	return NVML_ERROR_INVALID_ARGUMENT;
}

/* referenceTime is wall-clock µs; violationTime is ns since time 0. */
nvmlReturn_t
nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t policy,
    nvmlViolationTime_t *viol)
{
	struct simdev		*d;
	int64_t			 now;
	unsigned long long	 mask;
	nvmlReturn_t		 rc;

	rc = state_enter_device_args(__func__, device, viol != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if ((rc = policy_mask(policy, &mask)) != NVML_SUCCESS)
		return state_leave(rc);
	viol->referenceTime = state_wall_us(state_ms(now));
	viol->violationTime = model_violation_ns(d, state_ms(now), mask);
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current, unsigned int *pending)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, current != NULL && pending != NULL, &d,
	    NULL);
	if (rc != NVML_SUCCESS)
		return rc;
	if (d->mig == MIG_UNSUPPORTED)
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	*current = *pending = d->mig == MIG_ON ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
	return state_leave(NVML_SUCCESS);
}

/* The scenario's cuda_cc; without one, a library that cannot tell. */
nvmlReturn_t
nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, major != NULL && minor != NULL, &d, NULL);
	if (rc != NVML_SUCCESS)
		return rc;
	if (d->cc_major == 0)
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	*major = d->cc_major;
	*minor = d->cc_minor;
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetVirtualizationMode(nvmlDevice_t device, nvmlGpuVirtualizationMode_t *mode)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, mode != NULL, &d, NULL);
	if (rc != NVML_SUCCESS)
		return rc;
	*mode = d->virt;
	return state_leave(NVML_SUCCESS);
}
