/*
 * The library-level NVML calls: init and shutdown (reference-counted;
 * nvmlInit, nvmlInit_v2 and nvmlInitWithFlags behave the same here),
 * error strings, version strings, the device count and index-to-handle
 * lookup.  Handles are pointers to the simulator's own device structs.
 * Device queries live in api_device.c, api_power.c and api_procs.c.
 */
#include "nvsim.h"

#include <stdio.h>

static const struct {
	nvmlReturn_t	 rc;
	const char	*text;
} errors[] = {
	{ NVML_SUCCESS,				"Success" },
	{ NVML_ERROR_UNINITIALIZED,		"Uninitialized" },
	{ NVML_ERROR_INVALID_ARGUMENT,		"Invalid Argument" },
	{ NVML_ERROR_NOT_SUPPORTED,		"Not Supported" },
	{ NVML_ERROR_NO_PERMISSION,		"Insufficient Permissions" },
	{ NVML_ERROR_ALREADY_INITIALIZED,	"Already Initialized" },
	{ NVML_ERROR_NOT_FOUND,			"Not Found" },
	{ NVML_ERROR_INSUFFICIENT_SIZE,		"Insufficient Size" },
	{ NVML_ERROR_INSUFFICIENT_POWER,	"Insufficient External Power" },
	{ NVML_ERROR_DRIVER_NOT_LOADED,		"Driver Not Loaded" },
	{ NVML_ERROR_TIMEOUT,			"Timeout" },
	{ NVML_ERROR_IRQ_ISSUE,			"Interrupt Request Issue" },
	{ NVML_ERROR_LIBRARY_NOT_FOUND,		"NVML Shared Library Not Found" },
	{ NVML_ERROR_FUNCTION_NOT_FOUND,	"Function Not Found" },
	{ NVML_ERROR_CORRUPTED_INFOROM,		"Corrupted infoROM" },
	{ NVML_ERROR_GPU_IS_LOST,		"GPU is lost" },
	{ NVML_ERROR_RESET_REQUIRED,		"GPU requires reset" },
	{ NVML_ERROR_OPERATING_SYSTEM,		"Blocked by the operating system" },
	{ NVML_ERROR_LIB_RM_VERSION_MISMATCH,	"Driver/library version mismatch" },
	{ NVML_ERROR_IN_USE,			"In use by another client" },
	{ NVML_ERROR_MEMORY,			"Insufficient Memory" },
	{ NVML_ERROR_NO_DATA,			"No Data" },
	{ NVML_ERROR_VGPU_ECC_NOT_SUPPORTED,	"vGPU operation unavailable with ECC enabled" },
	{ NVML_ERROR_INSUFFICIENT_RESOURCES,	"Insufficient Resources" },
	{ NVML_ERROR_FREQ_NOT_SUPPORTED,	"Frequency Not Supported" },
	{ NVML_ERROR_ARGUMENT_VERSION_MISMATCH,	"Argument Version Mismatch" },
	{ NVML_ERROR_DEPRECATED,		"Deprecated" },
	{ NVML_ERROR_NOT_READY,			"Not Ready" },
	{ NVML_ERROR_GPU_NOT_FOUND,		"GPU Not Found" },
	{ NVML_ERROR_INVALID_STATE,		"Invalid State" },
	{ NVML_ERROR_RESET_TYPE_NOT_SUPPORTED,	"Reset Type Not Supported" },
};

/* What nvmlSystemGetNVMLVersion says before any scenario is loaded. */
static const char default_nvml_version[] = "12.550.54.15";

nvmlReturn_t
nvmlInit_v2(void)
{
	return state_init();
}

/* The legacy v1 entry point: same behaviour in the simulator. */
nvmlReturn_t
nvmlInit(void)
{
	return state_init();
}

/* NO_GPUS, NO_ATTACH and FORCE_INIT change nothing for a simulated driver. */
nvmlReturn_t
nvmlInitWithFlags(unsigned int flags)
{
	(void)flags;
	return state_init();
}

nvmlReturn_t
nvmlShutdown(void)
{
	return state_shutdown();
}

const char *
nvmlErrorString(nvmlReturn_t rc)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].rc == rc)
			return errors[i].text;
	return "Unknown Error";
}

nvmlReturn_t
nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	nvmlReturn_t	 rc;

	if ((rc = state_enter(__func__)) != NVML_SUCCESS)
		return rc;
	return state_leave(state_copy_string(version, length, nvsim.sc.driver));
}

/* Documented to work without nvmlInit: no UNINITIALIZED in its error list. */
nvmlReturn_t
nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
	nvmlReturn_t	 rc;

	pthread_mutex_lock(&nvsim.lock);
	rc = state_copy_string(version, length,
	    nvsim.is_loaded ? nvsim.sc.nvml : default_nvml_version);
	return state_leave(rc);
}

nvmlReturn_t
nvmlDeviceGetCount_v2(unsigned int *count)
{
	nvmlReturn_t	 rc;

	if ((rc = state_enter(__func__)) != NVML_SUCCESS)
		return rc;
	if (count == NULL)
		return state_leave(NVML_ERROR_INVALID_ARGUMENT);
	*count = (unsigned int)nvsim.sc.ndev;
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetCount(unsigned int *count)
{
	return nvmlDeviceGetCount_v2(count);
}

/* A GPU inside a lost window cannot even be attached. */
static nvmlReturn_t
handle_by_index(const char *call, unsigned int index, nvmlDevice_t *device)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	if ((rc = state_enter(call)) != NVML_SUCCESS)
		return rc;
	if (device == NULL || index >= nvsim.sc.ndev)
		return state_leave(NVML_ERROR_INVALID_ARGUMENT);
	d = &nvsim.sc.devs[index];
	if (state_is_lost(d, state_ms(state_now_ns())))
		return state_leave(NVML_ERROR_GPU_IS_LOST);
	*device = (nvmlDevice_t)(void *)d;
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	return handle_by_index(__func__, index, device);
}

nvmlReturn_t
nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
	return handle_by_index(__func__, index, device);
}
