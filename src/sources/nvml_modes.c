/*
 * What NVML says about a GPU besides its readings, found once at probe
 * (HACKING.md, "The backend contract"): what its power readings mean, its
 * MIG, virtualization and accounting modes with the notes they call for,
 * the end-of-run figures it can give, and the driver's versions.  Split
 * from nvml.c, which calls them from nvml_probe_device.
 */
#include "joulestat/source.h"

#include <stdio.h>
#include <string.h>

#include "joulestat/backend.h"
#include "joulestat/util.h"

#include "nvml_priv.h"

/*
 * The architecture, and what the power readings mean: the POWER_INSTANT
 * field (R535 and later) is a reading of the moment; nvmlDeviceGetPowerUsage
 * depends on the GPU's generation, by the architecture, the compute
 * capability or the PCI device id.  Called after the readers were tried.
 */
void
nvml_probe_power_kind(struct nvml_dev *d, struct device *dev, unsigned int pci_device_id)
{
	static const char *const	 by[] = {
		[NVML_KIND_BY_ARCH] = "by its architecture",
		[NVML_KIND_BY_CC] = "by its CUDA compute capability",
		[NVML_KIND_BY_PCI_ID] = "by its PCI device id",
		[NVML_KIND_ASSUMED] = "assumed: the library gives neither architecture, "
		    "compute capability nor PCI id",
	};
	const struct nvml_fn		*fn = &d->ctx->fn;
	struct nvml_gpu_kind		 k;
	enum nvml_kind_basis		 basis;

	memset(&k, 0, sizeof k);
	k.has_arch = fn->architecture != NULL &&
	    fn->architecture(d->handle, &k.arch) == NVML_SUCCESS;
	if (k.has_arch)
		snprintf(dev->arch, sizeof dev->arch, "%s", nvml_decode_arch_name(k.arch));
	if (!(dev->measures & M_POWER))
		return;
	if (d->has_power_field) {
		dev->power_kind = POWER_KIND_INSTANT;
		return;
	}
	k.has_cc = fn->cuda_cc != NULL &&
	    fn->cuda_cc(d->handle, &k.cc_major, &k.cc_minor) == NVML_SUCCESS;
	k.pci_device_id = pci_device_id;
	dev->power_kind = nvml_decode_power_kind(&k, &basis);
	if (dev->power_kind != POWER_KIND_AVERAGE_1S)
		return;
	backend_note(dev, "power readings are 1 s trailing averages (%s); short phases are "
	    "smeared", by[basis]);
}

/* MIG, virtualization and accounting modes, with the notes they call for. */
void
nvml_probe_modes(struct nvml_dev *d, struct device *dev)
{
	const struct nvml_fn		*fn = &d->ctx->fn;
	nvmlGpuVirtualizationMode_t	 virt = NVML_GPU_VIRTUALIZATION_MODE_NONE;
	nvmlEnableState_t		 acct = NVML_FEATURE_DISABLED;

	/* d->is_mig and the MIG devices are known since the selection (nvml_mig_probe). */
	nvml_mig_notes(d, dev);
	if (fn->virt_mode != NULL && fn->virt_mode(d->handle, &virt) != NVML_SUCCESS)
		virt = NVML_GPU_VIRTUALIZATION_MODE_NONE;
	/* Its note waits for what the readers find (nvml_probe_guest). */
	d->is_vgpu_guest = virt == NVML_GPU_VIRTUALIZATION_MODE_VGPU;
	if (virt == NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU) {
		d->is_vgpu_host = true;
		backend_note(dev, "vGPU host: the utilization of vGPU instances is counted as "
		    "foreign load sharing the device");
	}
	if (d->ctx->is_pid_hidden) {
		dev->is_pid_hidden = true;
		d->ns_note = dev->nnotes;
		backend_note(dev, "in a pid namespace NVML's host pids cannot be matched: load "
		    "shown, not attributed; run the container with docker run --pid=host "
		    "(Kubernetes: hostPID: true)");
	}
	d->is_acct = fn->acct_mode != NULL && fn->acct_mode(d->handle, &acct) == NVML_SUCCESS &&
	    acct == NVML_FEATURE_ENABLED && fn->acct_pids != NULL && fn->acct_stats != NULL;
}

/* A vGPU guest's note, for what it was found to measure. */
void
nvml_probe_guest(const struct nvml_dev *d, struct device *dev)
{
	if (!d->is_vgpu_guest)
		return;
	if (!(dev->measures & (M_POWER | M_ENERGY)))
		backend_note(dev, "vGPU guest: the hypervisor gives the guest neither power nor "
		    "energy; utilization is still measured");
	else
		backend_note(dev, "vGPU guest: power and energy are what the hypervisor passes "
		    "on, which may be the whole physical GPU's, other guests included");
}

void
nvml_probe_end_figures(struct nvml_dev *d, struct device *dev)
{
	const struct nvml_fn	*fn = &d->ctx->fn;

	if (fn->violation != NULL &&
	    fn->violation(d->handle, NVML_PERF_POLICY_POWER, &d->viol0[0]) == NVML_SUCCESS &&
	    fn->violation(d->handle, NVML_PERF_POLICY_THERMAL, &d->viol0[1]) == NVML_SUCCESS) {
		dev->measures |= M_VIOLATION;
		backend_how(dev, "violation", nvml_found(d->ctx, NVML_S_VIOLATION));
	}
	if (d->is_acct && !d->ctx->is_pid_hidden)
		backend_how(dev, "accounting", nvml_found(d->ctx, NVML_S_ACCT_STATS));
	if (d->is_vgpu_host && fn->vgpu_util != NULL)
		backend_how(dev, "vgpu-util", nvml_found(d->ctx, NVML_S_VGPU_UTIL));
}

void
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

