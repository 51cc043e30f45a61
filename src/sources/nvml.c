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
/*
 * How often the driver moves the energy counter: about every 100 ms
 * (measured by Zeus and in ml.energy's "Thermally Stable Profiling for
 * Accurate GPU Energy Measurement"); between moves it reads the last value.
 */
#define NVML_COUNTER_STEP_NS	(100 * NSEC_PER_MSEC)

/* Defined at the end, after the functions it names. */
extern const struct source_ops nvml_ops;

static nvmlReturn_t nvml_identify_late(struct device *dev, struct nvml_dev *d);

/*
 * The only answers that mean "this device does not measure it": any other
 * error (GPU_IS_LOST, TIMEOUT, UNKNOWN, ...) may pass, and the call is
 * tried again on the next reading.
 */
static bool
nvml_is_absent(nvmlReturn_t r)
{
	return r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND;
}

/*
 * Errors at probe after which a GPU is kept and identified on a later
 * reading: it fell off the bus or did not answer in time for now.  Others
 * (no permission, say) skip it.
 */
static bool
nvml_is_transient(nvmlReturn_t r)
{
	return r == NVML_ERROR_GPU_IS_LOST || r == NVML_ERROR_TIMEOUT || r == NVML_ERROR_UNKNOWN;
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
	/* Each clock valid on its own: one the GPU does not report leaves the others. */
	if (d->ctx->fn.clock_info(d->handle, NVML_CLOCK_SM, &sm) == NVML_SUCCESS) {
		s->sm_mhz = sm;
		s->valid |= M_SM_CLOCK;
	}
	if (d->ctx->fn.clock_info(d->handle, NVML_CLOCK_MEM, &mem) == NVML_SUCCESS) {
		s->mem_mhz = mem;
		s->valid |= M_MEM_CLOCK;
	}
	/* The graphics clock's answer is the reader's (M_CLOCKS). */
	if ((r = d->ctx->fn.clock_info(d->handle, NVML_CLOCK_GRAPHICS, &gfx)) == NVML_SUCCESS)
		s->gfx_mhz = gfx;
	return r;
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

/*
 * Read device dev (index i) into s, each field on its own: a call that
 * fails leaves its field unknown and the others stand.  The reading is
 * lost only when nothing was read.  Returns the code of the last failure
 * when nothing was read, else SUCCESS.
 */
static nvmlReturn_t
nvml_sample_one(struct device *dev, size_t i, const struct proctree *tree,
    struct sample *s, struct pid_usage_set *pids)
{
	struct nvml_dev	*d = dev->priv;
	nvmlReturn_t	 r, last = NVML_SUCCESS;
	int64_t		 t0;
	size_t		 k;
	unsigned	 nlost = 0;
	bool		 is_pid_due = s->is_pid_due;

	memset(s, 0, sizeof *s);
	s->pstate = PSTATE_UNKNOWN;
	if (d->is_pending && (r = nvml_identify_late(dev, d)) != NVML_SUCCESS) {
		s->t_ns = now_ns();
		s->is_lost = true;
		return r;
	}
	t0 = now_ns();
	for (k = 0; k < ARRAY_SIZE(nvml_readers); k++) {
		if (!(dev->measures & nvml_readers[k].bit))
			continue;
		if ((r = nvml_readers[k].read(d, s)) == NVML_SUCCESS) {
			s->valid |= nvml_readers[k].bit;
			continue;
		}
		last = r;
		/*
		 * The library is gone, or the first two calls found the GPU
		 * lost: the rest would only wait for the same answer.
		 */
		if (nvml_is_gone(r) || (r == NVML_ERROR_GPU_IS_LOST && s->valid == 0 &&
		    ++nlost == 2))
			break;
	}
	/* Stamped when the readings are in: a call that took long must not date them early. */
	s->t_ns = now_ns();
	s->read_ns = s->t_ns - t0;
	if (s->valid == 0 && last != NVML_SUCCESS) {
		s->is_lost = true;
		return last;
	}
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

/*
 * Try every per-tick reader once.  What answers is what the device
 * measures; so is what fails with anything but NOT_SUPPORTED (or a
 * missing function): it is tried again on every reading, with a note.
 */
static void
nvml_probe_readers(struct nvml_dev *d, struct device *dev)
{
	const struct nvml_reader	*rd;
	struct sample			 s;
	nvmlReturn_t			 r;
	size_t				 k;
	char				 failed[DEVICE_NOTE_LEN] = "";
	size_t				 len = 0;

	for (k = 0; k < ARRAY_SIZE(nvml_readers); k++) {
		rd = &nvml_readers[k];
		memset(&s, 0, sizeof s);
		if ((r = rd->read(d, &s)) != NVML_SUCCESS && nvml_is_absent(r))
			continue;
		dev->measures |= rd->bit;
		if (r != NVML_SUCCESS && len < sizeof failed)
			len += (size_t)snprintf(failed + len, sizeof failed - len, "%s%s (%s)",
			    len > 0 ? ", " : "", rd->cap, nvml_strerror(d->ctx, r));
		if (rd->bit == M_POWER && d->has_power_field)
			backend_how(dev, rd->cap, "field:POWER_INSTANT");
		else
			backend_how(dev, rd->cap, nvml_found(d->ctx, rd->slot));
	}
	if (len > 0)
		backend_note(dev, "failed at start: %s; tried again on every reading", failed);
}

/*
 * The driver's own power sampling period, from the spacing of the samples
 * it holds now: the shortest step between two of them.  A run shorter
 * than that may see the counter and the power readings unchanged.
 */
static void
nvml_probe_period(struct nvml_dev *d, struct device *dev)
{
	struct sample	s;
	size_t		i;
	int64_t		step;

	memset(&s, 0, sizeof s);
	d->samples_seen_us = 0;
	d->ctx->real_minus_mono_ns = realtime_ns() - now_ns();
	if (nvml_read_points(d, &s) != NVML_SUCCESS)
		return;
	for (i = 1; i < s.npoints; i++) {
		step = s.points[i].t_ns - s.points[i - 1].t_ns;
		if (step > 0 && (dev->driver_period_ns == 0 || step < dev->driver_period_ns))
			dev->driver_period_ns = step;
	}
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
	if (nvml_is_absent(r) || r == NVML_ERROR_INVALID_ARGUMENT)
		return;
	/* Another error may pass: the buffer grows on demand once it answers. */
	if (r != NVML_SUCCESS && r != NVML_ERROR_INSUFFICIENT_SIZE && r != NVML_ERROR_NOT_FOUND) {
		backend_note(dev, "failed at start: the driver's power samples (%s); tried again "
		    "on every reading", nvml_strerror(d->ctx, r));
		n = 0;
	}
	d->capsamples = n < NVML_SAMPLES_CAP_MIN ? NVML_SAMPLES_CAP_MIN : n;
	d->samples = xcalloc(d->capsamples, sizeof *d->samples);
	d->points = xcalloc(d->capsamples, sizeof *d->points);
	nvml_probe_period(d, dev);
	d->samples_seen_us = (uint64_t)(realtime_ns() / NSEC_PER_USEC);
	dev->measures |= M_POWER_POINTS;
	backend_how(dev, "samples", nvml_found(d->ctx, NVML_S_SAMPLES));
}

/* Everything probe learns about one selected device. */
static void
nvml_probe_device(struct nvml_dev *d, struct device *dev, unsigned int pci_device_id)
{
	nvmlReturn_t	r;

	nvml_probe_version(d->ctx, dev);
	nvml_probe_modes(d, dev);
	/*
	 * The instantaneous power field where the driver has it; one that
	 * failed for a moment (a timeout at start) is still read, and tried
	 * again on every reading (the readers' probe says so), rather than
	 * 1 s averages for the whole run.
	 */
	r = nvml_read_power_field(d, &(uint32_t){ 0 });
	d->has_power_field = r == NVML_SUCCESS || nvml_is_transient(r);
	nvml_probe_readers(d, dev);
	nvml_probe_power_kind(d, dev, pci_device_id);
	nvml_probe_guest(d, dev);
	nvml_probe_points(d, dev);
	nvml_procs_probe(d, dev);
	nvml_probe_end_figures(d, dev);
	/* The counter is an unsigned long long of mJ: it does not wrap in practice. */
	dev->energy_range_mj = 0;
	if (dev->measures & M_ENERGY) {
		dev->counter_step_ns = NVML_COUNTER_STEP_NS;
		backend_note(dev, "the driver moves the energy counter about every 100 ms: each "
		    "end of a figure may lag by that much of its power, and its bound says so");
	}
}

/* What names a GPU, read before anything is kept of it. */
struct nvml_ident {
	nvmlDevice_t	 handle;
	unsigned int	 pci_device_id;		/* 0 when the PCI info did not answer */
	char		 id[sizeof ((struct device *)NULL)->id];
	char		 name[sizeof ((struct device *)NULL)->name];
	char		 bus_id[sizeof ((struct device *)NULL)->bus_id];
};

/*
 * Handle, UUID, name and bus id of device index.  Returns NVML_SUCCESS, or
 * the code of the call that failed when the device cannot be identified.
 */
static nvmlReturn_t
nvml_identify(const struct nvml_fn *fn, unsigned int index, struct nvml_ident *id)
{
	nvmlPciInfo_t	 pci;
	nvmlReturn_t	 r;

	memset(id, 0, sizeof *id);
	if ((r = fn->handle_by_index(index, &id->handle)) != NVML_SUCCESS)
		return r;
	if (fn->uuid == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	if ((r = fn->uuid(id->handle, id->id, sizeof id->id)) != NVML_SUCCESS)
		return r;
	if (fn->name == NULL || fn->name(id->handle, id->name, sizeof id->name) != NVML_SUCCESS)
		snprintf(id->name, sizeof id->name, "NVIDIA GPU %u", index);
	memset(&pci, 0, sizeof pci);
	if (fn->pci_info != NULL && fn->pci_info(id->handle, &pci) == NVML_SUCCESS) {
		snprintf(id->bus_id, sizeof id->bus_id, "%.*s", (int)sizeof pci.busId - 1,
		    pci.busId);
		id->pci_device_id = pci.pciDeviceId;
	}
	return NVML_SUCCESS;
}

/* A device of this backend under index, with nothing known about it yet. */
static void
nvml_dev_init(struct nvml_ctx *ctx, unsigned int index, struct nvml_dev *d,
    struct device *dev)
{
	memset(dev, 0, sizeof *dev);
	memset(d, 0, sizeof *d);
	d->ctx = ctx;
	dev->ops = &nvml_ops;
	dev->index = index;
	dev->priv = d;
}

static void
nvml_take_ident(struct nvml_dev *d, struct device *dev, const struct nvml_ident *id)
{
	d->handle = id->handle;
	snprintf(dev->id, sizeof dev->id, "%s", id->id);
	snprintf(dev->name, sizeof dev->name, "%s", id->name);
	snprintf(dev->bus_id, sizeof dev->bus_id, "%s", id->bus_id);
}

/*
 * A GPU that did not answer at probe with an error it may recover from:
 * kept under its index, and identified and probed on the first reading it
 * answers (nvml_identify_late).  Until then it measures nothing and its
 * readings are lost.
 */
static void
nvml_keep_pending(struct nvml_ctx *ctx, unsigned int index, struct nvml_dev *d,
    struct device *dev, nvmlReturn_t r)
{
	nvml_dev_init(ctx, index, d, dev);
	d->is_pending = true;
	dev->is_unprobed = true;
	snprintf(dev->id, sizeof dev->id, "nvml:%u", index);
	snprintf(dev->name, sizeof dev->name, "NVIDIA GPU %u", index);
	backend_note(dev, "did not answer at start (%s): kept, and tried again on every "
	    "reading", nvml_strerror(ctx, r));
}

/*
 * Identify and probe a GPU kept by nvml_keep_pending.  Until it answers,
 * dev is left as it is; then what selection gave it (its number and
 * family) and its notes stay, and the rest is found as at probe.
 */
static nvmlReturn_t
nvml_identify_late(struct device *dev, struct nvml_dev *d)
{
	struct nvml_ident	 id;
	nvmlReturn_t		 r;

	if ((r = nvml_identify(&d->ctx->fn, dev->index, &id)) != NVML_SUCCESS)
		return r;
	d->is_pending = false;
	dev->is_unprobed = false;
	nvml_take_ident(d, dev, &id);
	nvml_mig_probe(d);
	nvml_probe_device(d, dev, id.pci_device_id);
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
	dev->family = sd.family;
	return devsel_match(sel, &sd, &dev->number);
}

/* Find, select and probe the devices; notes about skipped ones go in err. */
static int
nvml_enumerate(struct nvml_ctx *ctx, struct devsel *sel, struct device **devs,
    size_t *ndev, struct errbuf *err)
{
	struct nvml_ident id;
	struct device	*dev;
	struct nvml_dev	*d;
	unsigned int	 count = 0, i;
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
		if ((r = nvml_identify(&ctx->fn, i, &id)) != NVML_SUCCESS) {
			if (!nvml_is_transient(r)) {
				nvml_note(err, "GPU %u skipped: %s", i, nvml_strerror(ctx, r));
				continue;
			}
			nvml_keep_pending(ctx, i, d, dev, r);
		} else {
			nvml_dev_init(ctx, i, d, dev);
			nvml_take_ident(d, dev, &id);
			nvml_mig_probe(d);
		}
		if (!nvml_select(sel, i, d, dev))
			continue;
		if (!d->is_pending)
			nvml_probe_device(d, dev, id.pci_device_id);
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
	const char	*dev_root = sc->dev_root != NULL ? sc->dev_root : "/dev";
	int		 rc;

	*devs = NULL;
	*ndev = 0;
	ctx = xcalloc(1, sizeof *ctx);
	if (nvml_load(ctx, sc->nvml_lib, dev_root, err) != 0) {
		free(ctx);
		return -1;
	}
	ctx->is_pid_hidden = nvml_pids_hidden();
	snprintf(ctx->dev_prefix, sizeof ctx->dev_prefix, "%s/nvidia", dev_root);
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
	.reads_tree = true,
	.probe = nvml_probe,
	.sample = nvml_sample,
	.finish = nvml_finish,
	.close = nvml_close,
	.lock_clocks = nvml_lock_clocks,
	.unlock_clocks = nvml_unlock_clocks,
};
