/*
 * Per-process queries: utilization samples (the old array call and the
 * versioned nvmlDeviceGetProcessesUtilizationInfo), running compute and
 * graphics processes in all three entry sizes, the accounting buffer,
 * and the vGPU host view (active instances and their utilization).  They
 * follow NVML's buffer protocol exactly: a NULL or short buffer gives
 * INSUFFICIENT_SIZE with the needed count written back, and "nothing
 * newer than lastSeenTimeStamp" is NOT_FOUND, not an empty success.
 */
#include "nvsim.h"

#include <stdlib.h>
#include <string.h>

/* A MIG parent handle has no process utilization. */
static bool
has_proc_util(const struct simdev *d)
{
	return d->mig != MIG_ON;
}

/* One per-process utilization sample of one process. */
struct util_sample {
	unsigned		 pid;
	unsigned		 sm_pct;
	unsigned		 mem_pct;
	unsigned long long	 ts_us;
};

struct util_list {
	struct util_sample	*v;
	size_t			 n;
	size_t			 cap;
};

static int
util_push(struct util_list *ul, const struct util_sample *s)
{
	struct util_sample	*nv;

	if (ul->n == ul->cap) {
		ul->cap = ul->cap ? ul->cap * 2 : 64;
		if ((nv = realloc(ul->v, ul->cap * sizeof(*nv))) == NULL)
			return -1;
		ul->v = nv;
	}
	ul->v[ul->n++] = *s;
	return 0;
}

/*
 * Every per-process sample newer than last_us that the driver still keeps
 * (the newest NVSIM_UTIL_DEPTH, one every procutil_ms), oldest first: one
 * entry per process that was busy in that sample period, each with the
 * sample's own time.  Idle processes are absent, as with the real driver.
 */
static nvmlReturn_t
util_entries(struct simdev *d, int64_t now, unsigned long long last_us,
    struct util_list *ul)
{
	struct proc_list	 pl = { 0 };
	struct util_sample	 s;
	double			 newest = procs_tick_ms(d, state_ms(now)), t;
	int			 k, rc = 0;

	for (k = NVSIM_UTIL_DEPTH - 1; rc == 0 && k >= 0; k--) {
		t = newest - k * (double)d->procutil_ms;
		if (t < 0 || state_wall_us(t) <= last_us)
			continue;
		if (procs_collect(d, t, &pl) == -1) {
			rc = -1;
			break;
		}
		/* The newest sample handed out, for the attribution truth. */
		if (!d->has_util_newest || t > d->util_newest_ms) {
			d->util_newest_ms = t;
			d->has_util_newest = true;
		}
		for (size_t i = 0; rc == 0 && i < pl.n; i++) {
			s.pid = pl.v[i].pid;
			s.ts_us = state_wall_us(t);
			procs_util_sample(d, pl.v[i].spec, t, &s.sm_pct, &s.mem_pct);
			if (s.sm_pct > 0 || s.mem_pct > 0)
				rc = util_push(ul, &s);
			/* The samples that named the tree, for the attribution truth. */
			if (pl.v[i].spec->kind == PROC_TREE) {
				if (d->tree_from_ms > d->tree_to_ms || t < d->tree_from_ms)
					d->tree_from_ms = t;
				if (t > d->tree_to_ms)
					d->tree_to_ms = t;
			}
		}
		procs_free(&pl);
	}
	procs_free(&pl);
	if (rc == -1)
		return NVML_ERROR_MEMORY;
	return ul->n == 0 ? NVML_ERROR_NOT_FOUND : NVML_SUCCESS;
}

static nvmlReturn_t
util_leave(struct util_list *ul, nvmlReturn_t rc)
{
	free(ul->v);
	return state_leave(rc);
}

static nvmlReturn_t
list_leave(struct proc_list *pl, nvmlReturn_t rc)
{
	procs_free(pl);
	return state_leave(rc);
}

nvmlReturn_t
nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *buf,
    unsigned int *count, unsigned long long last_us)
{
	struct util_list	 ul = { 0 };
	struct simdev		*d;
	int64_t			 now;
	nvmlReturn_t		 rc;

	rc = state_enter_device_args(__func__, device, count != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!has_proc_util(d))
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	if ((rc = util_entries(d, now, last_us, &ul)) != NVML_SUCCESS)
		return util_leave(&ul, rc);
	if (buf == NULL || *count < ul.n) {
		*count = (unsigned)ul.n;
		return util_leave(&ul, NVML_ERROR_INSUFFICIENT_SIZE);
	}
	for (size_t i = 0; i < ul.n; i++)
		buf[i] = (nvmlProcessUtilizationSample_t){ .pid = ul.v[i].pid,
		    .timeStamp = ul.v[i].ts_us, .smUtil = ul.v[i].sm_pct,
		    .memUtil = ul.v[i].mem_pct };
	*count = (unsigned)ul.n;
	return util_leave(&ul, NVML_SUCCESS);
}

/* The caller sets version, processSamplesCount, procUtilArray and lastSeenTimeStamp. */
nvmlReturn_t
nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device, nvmlProcessesUtilizationInfo_t *info)
{
	struct util_list	 ul = { 0 };
	struct simdev		*d;
	int64_t			 now;
	nvmlReturn_t		 rc;

	rc = state_enter_device_args(__func__, device, info != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if (info->version != nvmlProcessesUtilizationInfo_v1)
		return state_leave(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	if (!has_proc_util(d))
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	if ((rc = util_entries(d, now, info->lastSeenTimeStamp, &ul)) != NVML_SUCCESS)
		return util_leave(&ul, rc);
	if (info->procUtilArray == NULL || info->processSamplesCount < ul.n) {
		info->processSamplesCount = (unsigned)ul.n;
		return util_leave(&ul, NVML_ERROR_INSUFFICIENT_SIZE);
	}
	for (size_t i = 0; i < ul.n; i++)
		info->procUtilArray[i] = (nvmlProcessUtilizationInfo_v1_t){
		    .timeStamp = ul.v[i].ts_us, .pid = ul.v[i].pid, .smUtil = ul.v[i].sm_pct,
		    .memUtil = ul.v[i].mem_pct };
	info->processSamplesCount = (unsigned)ul.n;
	return util_leave(&ul, NVML_SUCCESS);
}

/* Writes entry i of a caller's array in one of the two entry layouts. */
typedef void (*proc_put)(void *infos, size_t i, const struct proc_entry *e, bool is_mig);

static void
put_v1(void *infos, size_t i, const struct proc_entry *e, bool is_mig)
{
	(void)is_mig;
	((nvmlProcessInfo_v1_t *)infos)[i] = (nvmlProcessInfo_v1_t){ e->pid, e->gpumem_bytes };
}

/* Without MIG the instance ids are all ones; on a MIG parent, instance 0. */
static void
put_v2(void *infos, size_t i, const struct proc_entry *e, bool is_mig)
{
	unsigned	 id = is_mig ? 0 : 0xFFFFFFFFu;

	((nvmlProcessInfo_v2_t *)infos)[i] = (nvmlProcessInfo_v2_t){ e->pid, e->gpumem_bytes,
	    id, id };
}

/* Keep the processes of one kind (compute or graphics). */
static void
keep_kind(struct proc_list *pl, bool is_graphics)
{
	size_t	 n = 0;

	for (size_t i = 0; i < pl->n; i++)
		if (pl->v[i].is_graphics == is_graphics)
			pl->v[n++] = pl->v[i];
	pl->n = n;
}

/*
 * The running-process protocol: *count = 0 with infos NULL asks for the
 * count (INSUFFICIENT_SIZE, or SUCCESS when there are none); a short
 * array gets INSUFFICIENT_SIZE with the needed count.
 */
static nvmlReturn_t
running(const char *call, nvmlDevice_t device, unsigned int *count, void *infos,
    bool is_graphics, proc_put put)
{
	struct proc_list	 pl = { 0 };
	struct simdev		*d;
	int64_t			 now;
	nvmlReturn_t		 rc;

	rc = state_enter_device_args(call, device, state_is_buffer_ok(count, infos), &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if (d->mig == MIG_ON && !nvsim.sc.is_root)
		return state_leave(NVML_ERROR_NO_PERMISSION);
	if (procs_collect(d, state_ms(now), &pl) == -1)
		return list_leave(&pl, NVML_ERROR_MEMORY);
	keep_kind(&pl, is_graphics);
	if (*count < pl.n) {
		*count = (unsigned)pl.n;
		return list_leave(&pl, NVML_ERROR_INSUFFICIENT_SIZE);
	}
	for (size_t i = 0; i < pl.n; i++)
		put(infos, i, &pl.v[i], d->mig == MIG_ON);
	*count = (unsigned)pl.n;
	return list_leave(&pl, NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
    nvmlProcessInfo_t *infos)
{
	return running(__func__, device, count, infos, false, put_v2);
}

nvmlReturn_t
nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *count,
    nvmlProcessInfo_v2_t *infos)
{
	return running(__func__, device, count, infos, false, put_v2);
}

nvmlReturn_t
nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *count,
    nvmlProcessInfo_v1_t *infos)
{
	return running(__func__, device, count, infos, false, put_v1);
}

nvmlReturn_t
nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
    nvmlProcessInfo_t *infos)
{
	return running(__func__, device, count, infos, true, put_v2);
}

nvmlReturn_t
nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *count,
    nvmlProcessInfo_v2_t *infos)
{
	return running(__func__, device, count, infos, true, put_v2);
}

nvmlReturn_t
nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *count,
    nvmlProcessInfo_v1_t *infos)
{
	return running(__func__, device, count, infos, true, put_v1);
}

nvmlReturn_t
nvmlDeviceGetAccountingMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, mode != NULL, &d, NULL);
	if (rc != NVML_SUCCESS)
		return rc;
	*mode = d->has_accounting && d->mig != MIG_ON ? NVML_FEATURE_ENABLED :
	    NVML_FEATURE_DISABLED;
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetAccountingPids(nvmlDevice_t device, unsigned int *count, unsigned int *pids)
{
	struct simdev	*d;
	int64_t		 now;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, state_is_buffer_ok(count, pids), &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!procs_has_accounting(d))
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	if (procs_account(d, state_ms(now)) == -1)
		return state_leave(NVML_ERROR_MEMORY);
	if (*count < d->nacct) {
		*count = (unsigned)d->nacct;
		return state_leave(NVML_ERROR_INSUFFICIENT_SIZE);
	}
	for (size_t i = 0; i < d->nacct; i++)
		pids[i] = d->acct[i].pid;
	*count = (unsigned)d->nacct;
	return state_leave(NVML_SUCCESS);
}

static int
by_rec_pid(const void *key, const void *elem)
{
	unsigned			 pid = *(const unsigned *)key;
	const struct acct_rec		*r = elem;

	return (pid > r->pid) - (pid < r->pid);
}

/* time is 0 while the process runs; startTime is wall-clock µs. */
nvmlReturn_t
nvmlDeviceGetAccountingStats(nvmlDevice_t device, unsigned int pid, nvmlAccountingStats_t *st)
{
	const struct acct_rec	*r;
	struct simdev		*d;
	int64_t			 now;
	nvmlReturn_t		 rc;

	rc = state_enter_device_args(__func__, device, st != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!procs_has_accounting(d))
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	if (procs_account(d, state_ms(now)) == -1)
		return state_leave(NVML_ERROR_MEMORY);
	if ((r = bsearch(&pid, d->acct, d->nacct, sizeof(*r), by_rec_pid)) == NULL)
		return state_leave(NVML_ERROR_NOT_FOUND);
	*st = (nvmlAccountingStats_t){ .gpuUtilization = r->sm_pct,
	    .memoryUtilization = r->mem_pct, .maxMemoryUsage = r->gpumem_bytes,
	    .time = r->is_running ? 0 : (unsigned long long)(r->end_ms - r->start_ms),
	    .startTime = state_wall_us(r->start_ms), .isRunning = r->is_running };
	return state_leave(NVML_SUCCESS);
}

static bool
is_vgpu_host(const struct simdev *d)
{
	return d->virt == NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU;
}

nvmlReturn_t
nvmlDeviceGetActiveVgpus(nvmlDevice_t device, unsigned int *count, nvmlVgpuInstance_t *ids)
{
	struct simdev	*d;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, state_is_buffer_ok(count, ids), &d, NULL);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!is_vgpu_host(d))
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	if (*count < d->nvgpus) {
		*count = (unsigned)d->nvgpus;
		return state_leave(NVML_ERROR_INSUFFICIENT_SIZE);
	}
	for (size_t i = 0; i < d->nvgpus; i++)
		ids[i] = d->vgpus[i].id;
	*count = (unsigned)d->nvgpus;
	return state_leave(NVML_SUCCESS);
}

static nvmlReturn_t
check_vgpu_util(const struct simdev *d, const nvmlValueType_t *vt, const unsigned int *count,
    const nvmlVgpuInstanceUtilizationSample_t *samples)
{
	if (vt == NULL || count == NULL || (samples != NULL && *count == 0))
		return NVML_ERROR_INVALID_ARGUMENT;
	return is_vgpu_host(d) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

/* One sample per vGPU instance, stamped with the latest per-process tick. */
nvmlReturn_t
nvmlDeviceGetVgpuUtilization(nvmlDevice_t device, unsigned long long last_us,
    nvmlValueType_t *vt, unsigned int *count, nvmlVgpuInstanceUtilizationSample_t *samples)
{
	struct simdev		*d;
	int64_t			 now;
	unsigned long long	 ts;
	nvmlReturn_t		 rc;

	if ((rc = state_enter_device(__func__, device, &d, &now)) != NVML_SUCCESS)
		return rc;
	if ((rc = check_vgpu_util(d, vt, count, samples)) != NVML_SUCCESS)
		return state_leave(rc);
	*vt = NVML_VALUE_TYPE_UNSIGNED_INT;
	ts = state_wall_us(procs_tick_ms(d, state_ms(now)));
	if (d->nvgpus > 0 && ts <= last_us)
		return state_leave(NVML_ERROR_NOT_FOUND);
	if (samples == NULL || *count < d->nvgpus) {
		*count = (unsigned)d->nvgpus;
		return state_leave(d->nvgpus == 0 ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE);
	}
	for (size_t i = 0; i < d->nvgpus; i++) {
		memset(&samples[i], 0, sizeof(samples[i]));
		samples[i].vgpuInstance = d->vgpus[i].id;
		samples[i].timeStamp = ts;
		samples[i].smUtil.uiVal = d->vgpus[i].sm_pct;
		samples[i].memUtil.uiVal = d->vgpus[i].mem_pct;
	}
	*count = (unsigned)d->nvgpus;
	return state_leave(NVML_SUCCESS);
}
