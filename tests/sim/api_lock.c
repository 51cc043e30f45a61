/*
 * Locked clocks: set and reset the GPU (graphics and SM) and memory clock
 * ranges.  Like the real calls they need root, so without "root yes" in
 * the scenario they answer NO_PERMISSION; a device whose scenario says
 * "lock_clocks gpuonly" or "notsupported" answers NOT_SUPPORTED for the
 * memory calls or for all four.  The graphics call takes the header's
 * words as well as MHz: TDP is the device's base clock, UNLIMITED an
 * open bound, and both UNLIMITED unlock as a reset does.  A locked range
 * clamps what nvmlDeviceGetClockInfo reports.  Every call, whatever its
 * outcome, is appended as one line to the file named by NVSIM_CALLS (if
 * set), so a test can check what a tool asked for and that it undid it.
 */
#include "nvsim.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

struct lock_req {
	const char	*call;
	bool		 is_mem;		/* memory clock, else graphics and SM */
	bool		 is_set;		/* set a range, else reset */
	unsigned	 min_mhz;		/* MHz, or an nvmlClockLimitId_t word */
	unsigned	 max_mhz;
};

/* One bound as the log shows it: the header's word, or MHz. */
static void
log_bound(FILE *f, const char *key, unsigned v)
{
	if (v == NVML_CLOCK_LIMIT_ID_TDP)
		fprintf(f, " %s=tdp", key);
	else if (v == NVML_CLOCK_LIMIT_ID_UNLIMITED)
		fprintf(f, " %s=unlimited", key);
	else
		fprintf(f, " %s=%u", key, v);
}

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
	if (r->is_set) {
		log_bound(f, "min", r->min_mhz);
		log_bound(f, "max", r->max_mhz);
	}
	fprintf(f, " rc=%d\n", (int)rc);
	fclose(f);
}

static bool
is_word(unsigned v)
{
	return v >= NVML_CLOCK_LIMIT_ID_RANGE_START;
}

/* A word as a bound in MHz: TDP is the base clock, UNLIMITED the open end. */
static nvmlReturn_t
word_mhz(const struct simdev *d, unsigned v, unsigned open_mhz, unsigned *mhz)
{
	if (v == NVML_CLOCK_LIMIT_ID_TDP)
		*mhz = model_base_mhz(d);
	else if (v == NVML_CLOCK_LIMIT_ID_UNLIMITED)
		*mhz = open_mhz;
	else
		return NVML_ERROR_INVALID_ARGUMENT;
	return NVML_SUCCESS;
}

/*
 * The range a set call asks for, in MHz.  As the header says: both bounds
 * are words or both are MHz (a mixed pair is INVALID_ARGUMENT), words
 * other than TDP and UNLIMITED are invalid, and only the graphics call
 * takes words at all.  *is_open is set for UNLIMITED on both sides, which
 * the header defines as a reset.
 */
static nvmlReturn_t
lock_range(const struct simdev *d, const struct lock_req *r, unsigned range[2],
    bool *is_open)
{
	nvmlReturn_t	 rc;

	*is_open = false;
	if (!is_word(r->min_mhz) && !is_word(r->max_mhz)) {
		range[0] = r->min_mhz;
		range[1] = r->max_mhz;
		return r->min_mhz <= r->max_mhz ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
	}
	if (r->is_mem || !is_word(r->min_mhz) || !is_word(r->max_mhz))
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((rc = word_mhz(d, r->min_mhz, 0, &range[0])) != NVML_SUCCESS ||
	    (rc = word_mhz(d, r->max_mhz, UINT_MAX, &range[1])) != NVML_SUCCESS)
		return rc;
	*is_open = r->min_mhz == NVML_CLOCK_LIMIT_ID_UNLIMITED &&
	    r->max_mhz == NVML_CLOCK_LIMIT_ID_UNLIMITED;
	return NVML_SUCCESS;
}

static bool
is_lock_supported(const struct simdev *d, const struct lock_req *r)
{
	return d->lock_support == LOCK_SUPPORTED ||
	    (d->lock_support == LOCK_GPU_ONLY && !r->is_mem);
}

/* Support first: a GPU without the feature says so to root and non-root alike. */
static nvmlReturn_t
apply_locked(struct simdev *d, const struct lock_req *r)
{
	bool		*is_locked = r->is_mem ? &d->is_mem_locked : &d->is_gpu_locked;
	unsigned	*range = r->is_mem ? d->mem_lock : d->gpu_lock;
	unsigned	 want[2];
	bool		 is_open;
	nvmlReturn_t	 rc;

	if (!is_lock_supported(d, r))
		return NVML_ERROR_NOT_SUPPORTED;
	if (!nvsim.sc.is_root)
		return NVML_ERROR_NO_PERMISSION;
	if (!r->is_set) {
		*is_locked = false;
		return NVML_SUCCESS;
	}
	if ((rc = lock_range(d, r, want, &is_open)) != NVML_SUCCESS)
		return rc;
	*is_locked = !is_open;
	range[0] = want[0];
	range[1] = want[1];
	return NVML_SUCCESS;
}

static nvmlReturn_t
lock_clocks(nvmlDevice_t device, const struct lock_req *r)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	if ((rc = state_enter_device(r->call, device, &d, NULL)) == NVML_SUCCESS)
		rc = state_leave(apply_locked(d, r));
	/* Logged with the device's index even when a fault (lost GPU) refused it. */
	log_call(r, state_index_of(device), rc);
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
