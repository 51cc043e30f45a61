/*
 * MIG devices of a MIG-enabled board (the mig_device lines of a scenario),
 * as nvml.h documents the calls: nvmlDeviceGetMaxMigDeviceCount and
 * nvmlDeviceGetMigDeviceHandleByIndex on the board (NOT_SUPPORTED when MIG
 * is off, NOT_FOUND for an index with no MIG device), and on a MIG device
 * handle nvmlDeviceGetDeviceHandleFromMigDeviceHandle,
 * nvmlDeviceIsMigDeviceHandle, nvmlDeviceGetGpuInstanceId,
 * nvmlDeviceGetComputeInstanceId, and the name and UUID (api_device.c asks
 * sim_mig_string).  Every other call on a MIG device handle is
 * INVALID_ARGUMENT here: the simulator answers board calls only on boards.
 */
#include "nvsim.h"

#include <string.h>

nvmlReturn_t
sim_mig_string(const char *call, nvmlDevice_t h, char *buf, unsigned int length, bool is_uuid)
{
	struct simdev	*d;
	struct simmig	*m;
	nvmlReturn_t	 rc;

	if ((rc = state_enter_mig(call, h, &d, &m)) != NVML_SUCCESS)
		return rc;
	return state_leave(state_copy_string(buf, length, is_uuid ? m->uuid : m->name));
}

nvmlReturn_t
nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, count != NULL, &d, NULL);
	if (rc != NVML_SUCCESS)
		return rc;
	if (d->mig == MIG_UNSUPPORTED)
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	*count = d->mig_max;
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
    nvmlDevice_t *mig_device)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	if ((rc = state_enter_device(__func__, device, &d, NULL)) != NVML_SUCCESS)
		return rc;
	if (mig_device == NULL || index >= d->mig_max)
		return state_leave(NVML_ERROR_INVALID_ARGUMENT);
	if (d->mig != MIG_ON)
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	for (size_t k = 0; k < d->nmigs; k++) {
		if (d->migs[k].index == index) {
			*mig_device = (nvmlDevice_t)(void *)&d->migs[k];
			return state_leave(NVML_SUCCESS);
		}
	}
	return state_leave(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t
nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t mig_device, nvmlDevice_t *device)
{
	struct simdev	*d;
	struct simmig	*m;
	nvmlReturn_t	 rc;

	if ((rc = state_enter_mig(__func__, mig_device, &d, &m)) != NVML_SUCCESS)
		return rc;
	if (device == NULL)
		return state_leave(NVML_ERROR_INVALID_ARGUMENT);
	*device = (nvmlDevice_t)(void *)d;
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *is_mig)
{
	if (is_mig == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (state_is_mig(device)) {
		*is_mig = 1;
		return NVML_SUCCESS;
	}
	if (state_index_of(device) < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	*is_mig = 0;
	return NVML_SUCCESS;
}

static nvmlReturn_t
instance_id(const char *call, nvmlDevice_t h, unsigned int *id, bool is_gi)
{
	struct simdev	*d;
	struct simmig	*m;
	nvmlReturn_t	 rc;

	if ((rc = state_enter_mig(call, h, &d, &m)) != NVML_SUCCESS)
		return rc;
	if (id == NULL)
		return state_leave(NVML_ERROR_INVALID_ARGUMENT);
	*id = is_gi ? m->gi : m->ci;
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
	return instance_id(__func__, device, id, true);
}

nvmlReturn_t
nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
	return instance_id(__func__, device, id, false);
}
