/*
 * The NVIDIA backend: reads every selected GPU once per tick through NVML
 * (power, energy counter, clocks, P-state, temperature, utilization,
 * clocks-event reasons, and the driver's own power samples between
 * ticks), finds out at probe which of those calls work on each GPU, and at
 * the end reads the violation counters.  The other pieces are declared in
 * nvml_priv.h: loading the library (nvml_lib.c), per-process figures
 * (nvml_procs.c) and --lock-clocks (nvml_clocks.c).
 *
 * It does not decode: every NVML answer goes through the pure functions
 * of nvml_decode.c.  It links against nothing of NVIDIA's; the types are
 * our own transcription in nvml_abi.h.  All state lives in one struct
 * nvml_ctx (the loaded library and its function table), which every
 * device's nvml_dev points to; there is no file-scope mutable state.
 * HACKING.md, "The backend contract", says what the functions of
 * nvml_ops must do.
 */
#include "joulestat/source.h"

#include <sys/types.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/backend.h"
#include "joulestat/devsel.h"
#include "joulestat/proctree.h"
#include "joulestat/util.h"

#include "nvml_priv.h"

/* Starting capacity of the driver-sample buffer; it grows on demand. */
#define NVML_SAMPLES_CAP_MIN	128

/* Defined at the end, after the functions it names. */
extern const struct source_ops nvml_ops;

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

/* One per-tick reading: call NVML, fill the sample. */
struct nvml_reader {
	unsigned	 bit;			/* enum measure */
	const char	*cap;			/* capability word in device.how */
	enum nvml_slot	 slot;
	nvmlReturn_t	(*read)(const struct nvml_dev *, struct sample *);
};

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

/* ---- sample ----------------------------------------------------------- */

/* Read device dev (index i) into s.  Returns the code that ended the reading, or SUCCESS. */
static nvmlReturn_t
nvml_sample_one(struct device *dev, size_t i, const struct proctree *tree,
    struct sample *s, struct pid_usage_set *pids)
{
	struct nvml_dev	*d = dev->priv;
	nvmlReturn_t	 r;
	size_t		 k;
	bool		 is_pid_due = s->is_pid_due;

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
	if ((d->has_pid_util || d->has_procs) && (is_pid_due || nvml_poll_due(d, s->t_ns))) {
		nvml_poll(d, i, tree, s, pids);
		nvml_ns_note(d, dev);
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
	nvmlGpuVirtualizationMode_t	 virt = NVML_GPU_VIRTUALIZATION_MODE_NONE;
	nvmlEnableState_t		 acct = NVML_FEATURE_DISABLED;

	/* d->is_mig and the MIG devices are known since the selection (nvml_mig_probe). */
	nvml_mig_notes(d, dev);
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
	if (d->is_acct && !d->ctx->is_pid_hidden)
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
	nvml_procs_probe(d, dev);
	nvml_probe_end_figures(d, dev);
	/* The counter is an unsigned long long of mJ: it does not wrap in practice. */
	dev->energy_range_mj = 0;
}

/*
 * Handle, UUID, name and bus id of device index into d and dev.  Returns
 * NVML_SUCCESS, or the code of the call that failed when the device
 * cannot be identified.
 */
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

/* Number device index and say whether it is selected, by its own ids or its MIG devices'. */
static bool
nvml_select(struct devsel *sel, unsigned int index, const struct nvml_dev *d,
    struct device *dev)
{
	struct devsel_dev	sd;
	char			local[16];

	snprintf(local, sizeof local, "%u", index);
	memset(&sd, 0, sizeof sd);
	sd.backend = "nvml";
	sd.local = local;
	sd.id = dev->id;
	sd.bus_id = dev->bus_id;
	sd.aliases = d->mig_uuids;
	sd.naliases = d->nmigs;
	sd.is_mig_unlisted = d->is_mig && d->mig_error != NVML_SUCCESS;
	sd.family = DEVSEL_F_CUDA;
	return devsel_match(sel, &sd, &dev->number);
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
		nvml_mig_probe(d);
		if (!nvml_select(sel, i, d, dev))
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
	if (nvml_load(ctx, sc->nvml_lib, err) != 0) {
		free(ctx);
		return -1;
	}
	ctx->is_pid_hidden = nvml_pids_hidden();
	snprintf(ctx->dev_prefix, sizeof ctx->dev_prefix, "%s/nvidia",
	    sc->dev_root != NULL ? sc->dev_root : "/dev");
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

const struct source_ops nvml_ops = {
	.name = "nvml",
	.probe = nvml_probe,
	.sample = nvml_sample,
	.finish = nvml_finish,
	.close = nvml_close,
	.lock_clocks = nvml_lock_clocks,
	.unlock_clocks = nvml_unlock_clocks,
};
