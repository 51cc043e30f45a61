/*
 * The MIG devices of a MIG-enabled board (nvml_priv.h).  NVIDIA's nvml.h:
 * nvmlDeviceGetMaxMigDeviceCount gives the number of MIG device slots of
 * the board, nvmlDeviceGetMigDeviceHandleByIndex the handle of the MIG
 * device in a slot (NOT_FOUND for an empty one), and on that handle
 * nvmlDeviceGetUUID its "MIG-..." UUID, the one CUDA_VISIBLE_DEVICES
 * takes, nvmlDeviceGetName its profile, nvmlDeviceGetGpuInstanceId and
 * nvmlDeviceGetComputeInstanceId its place, and
 * nvmlDeviceGetDeviceHandleFromMigDeviceHandle its board.  NVML gives
 * power and energy only for the whole board, so a MIG device is measured
 * as its board and said to be; -d and the visible-device masks find the
 * board by the UUIDs of its MIG devices (devsel.h, aliases).
 */
#include <stdio.h>
#include <string.h>

#include "joulestat/backend.h"
#include "joulestat/source.h"

#include "nvml_priv.h"

/* The MIG device in slot index of d's board into m; false when there is none. */
static bool
nvml_mig_read(struct nvml_dev *d, unsigned int index, struct nvml_mig *m)
{
	const struct nvml_fn	*fn = &d->ctx->fn;
	nvmlDevice_t		 h, parent;
	nvmlReturn_t		 r;

	memset(m, 0, sizeof *m);
	if ((r = fn->mig_handle(d->handle, index, &h)) != NVML_SUCCESS) {
		if (r != NVML_ERROR_NOT_FOUND && d->mig_error == NVML_SUCCESS)
			d->mig_error = r;
		return false;
	}
	/* A handle that names another board is not this one's (never, by the header). */
	if (fn->mig_parent != NULL && fn->mig_parent(h, &parent) == NVML_SUCCESS &&
	    parent != d->handle)
		return false;
	if ((r = fn->uuid(h, m->uuid, sizeof m->uuid)) != NVML_SUCCESS || m->uuid[0] == '\0') {
		if (d->mig_error == NVML_SUCCESS)
			d->mig_error = r != NVML_SUCCESS ? r : NVML_ERROR_UNKNOWN;
		return false;
	}
	if (fn->name == NULL || fn->name(h, m->name, sizeof m->name) != NVML_SUCCESS)
		m->name[0] = '\0';
	m->has_ids = fn->gi_id != NULL && fn->ci_id != NULL &&
	    fn->gi_id(h, &m->gi) == NVML_SUCCESS && fn->ci_id(h, &m->ci) == NVML_SUCCESS;
	return true;
}

void
nvml_mig_probe(struct nvml_dev *d)
{
	const struct nvml_fn	*fn = &d->ctx->fn;
	unsigned int		 mig = 0, pending = 0, max = 0, i;

	d->nmigs = 0;
	d->mig_error = NVML_SUCCESS;
	if (fn->mig_mode == NULL || fn->mig_mode(d->handle, &mig, &pending) != NVML_SUCCESS ||
	    mig != NVML_DEVICE_MIG_ENABLE)
		return;
	d->is_mig = true;
	if (fn->mig_max == NULL || fn->mig_handle == NULL) {
		d->mig_error = NVML_ERROR_FUNCTION_NOT_FOUND;
		return;
	}
	if ((d->mig_error = fn->mig_max(d->handle, &max)) != NVML_SUCCESS)
		return;
	for (i = 0; i < max && d->nmigs < NVML_MIG_MAX; i++) {
		if (nvml_mig_read(d, i, &d->migs[d->nmigs])) {
			d->mig_uuids[d->nmigs] = d->migs[d->nmigs].uuid;
			d->nmigs++;
		}
	}
}

void
nvml_mig_notes(const struct nvml_dev *d, struct device *dev)
{
	const struct nvml_mig	*m;
	char			 where[64];
	size_t			 k;

	if (!d->is_mig)
		return;
	backend_note(dev, "MIG mode is on with %zu MIG device%s: power and energy are for the "
	    "whole board, whichever MIG device was asked for; per-process utilization is "
	    "not available", d->nmigs, d->nmigs == 1 ? "" : "s");
	if (d->nmigs == 0 && d->mig_error != NVML_SUCCESS)
		backend_note(dev, "its MIG devices could not be listed: %s",
		    nvml_strerror(d->ctx, d->mig_error));
	for (k = 0; k < d->nmigs; k++) {
		m = &d->migs[k];
		where[0] = '\0';
		if (m->has_ids)
			snprintf(where, sizeof where, " (GPU instance %u, compute instance %u)",
			    m->gi, m->ci);
		backend_note(dev, "MIG device %s: %s%s, measured as this board", m->uuid,
		    m->name[0] != '\0' ? m->name : "unnamed", where);
	}
}
