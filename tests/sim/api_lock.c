/*
 * Locked clocks: set and reset the GPU (graphics and SM) and memory clock
 * ranges.  Like the real calls they need root, so without "root yes" in
 * the scenario they answer NO_PERMISSION.  A locked range clamps what
 * nvmlDeviceGetClockInfo reports.  Every call, whatever its outcome, is
 * appended as one line to the file named by NVSIM_CALLS (if set), so a
 * test can check what a tool asked for and that it undid it.
 */
#include "nvsim.h"

#include <stdio.h>
#include <stdlib.h>

struct lock_req {
	const char	*call;
	bool		 is_mem;		/* memory clock, else graphics and SM */
	bool		 is_set;		/* set a range, else reset */
	unsigned	 min_mhz;
	unsigned	 max_mhz;
};

static void
log_call(const struct lock_req *r, int index, nvmlReturn_t rc)
{
	const char	*path = getenv("NVSIM_CALLS");
	FILE		*f;

	if (path == NULL || *path == '\0')
		return;
	if ((f = fopen(path, "a")) == NULL) {
		perror("nvsim: NVSIM_CALLS");
		return;
	}
	fprintf(f, "%s index=%d", r->call, index);
	if (r->is_set)
		fprintf(f, " min=%u max=%u", r->min_mhz, r->max_mhz);
	fprintf(f, " rc=%d\n", (int)rc);
	fclose(f);
}

static nvmlReturn_t
apply_locked(struct simdev *d, const struct lock_req *r)
{
	bool		*is_locked = r->is_mem ? &d->is_mem_locked : &d->is_gpu_locked;
	unsigned	*range = r->is_mem ? d->mem_lock : d->gpu_lock;

	if (!nvsim.sc.is_root)
		return NVML_ERROR_NO_PERMISSION;
	if (r->is_set && r->min_mhz > r->max_mhz)
		return NVML_ERROR_INVALID_ARGUMENT;
	*is_locked = r->is_set;
	range[0] = r->min_mhz;
	range[1] = r->max_mhz;
	return NVML_SUCCESS;
}

static nvmlReturn_t
lock_clocks(nvmlDevice_t device, const struct lock_req *r)
{
	struct simdev	*d;
	int64_t		 now;
	int		 index = -1;
	nvmlReturn_t	 rc;

	if ((rc = state_enter_device(r->call, device, &d, &now)) == NVML_SUCCESS) {
		index = (int)d->index;
		rc = state_leave(apply_locked(d, r));
	}
	log_call(r, index, rc);
	return rc;
}

nvmlReturn_t
nvmlDeviceSetGpuLockedClocks(nvmlDevice_t device, unsigned int min_mhz, unsigned int max_mhz)
{
	const struct lock_req r = { __func__, false, true, min_mhz, max_mhz };

	return lock_clocks(device, &r);
}

nvmlReturn_t
nvmlDeviceResetGpuLockedClocks(nvmlDevice_t device)
{
	const struct lock_req r = { __func__, false, false, 0, 0 };

	return lock_clocks(device, &r);
}

nvmlReturn_t
nvmlDeviceSetMemoryLockedClocks(nvmlDevice_t device, unsigned int min_mhz, unsigned int max_mhz)
{
	const struct lock_req r = { __func__, true, true, min_mhz, max_mhz };

	return lock_clocks(device, &r);
}

nvmlReturn_t
nvmlDeviceResetMemoryLockedClocks(nvmlDevice_t device)
{
	const struct lock_req r = { __func__, true, false, 0, 0 };

	return lock_clocks(device, &r);
}
