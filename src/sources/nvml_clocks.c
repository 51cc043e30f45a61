/*
 * --lock-clocks on NVIDIA GPUs (nvml_priv.h): lock the graphics and
 * memory clocks of every GPU for the run with nvmlDeviceSetGpuLockedClocks
 * and nvmlDeviceSetMemoryLockedClocks, and reset exactly what was locked
 * (NVML API Reference, nvmlDeviceResetGpuLockedClocks).  The request is
 * turned into the calls' arguments, and their outcome into the report's
 * words, by nvml_decode.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "joulestat/backend.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

#include "nvml_priv.h"

/* One domain's lock: the set call and the reset that undoes it. */
struct nvml_lock_calls {
	nvmlReturn_t	(*set)(nvmlDevice_t, unsigned int, unsigned int);
	nvmlReturn_t	(*reset)(nvmlDevice_t);
};

/* What locking one device came to; an empty why means locked (or left alone). */
struct nvml_lock_outcome {
	struct nvml_lock_range	gpu;
	struct nvml_lock_range	mem;
	char			gpu_why[128];
	char			mem_why[128];
};

/* Why a call failed, in the report's words. */
static void
nvml_lock_reason(const struct nvml_ctx *ctx, nvmlReturn_t r, char *buf, size_t size)
{
	const char	*s = nvml_decode_lock_reason(r);

	snprintf(buf, size, "%s", s != NULL ? s : nvml_strerror(ctx, r));
}

/* The highest clock of a domain, for CLOCK_LOCK_MAX; 0 with why set when unknown. */
static unsigned int
nvml_lock_max(const struct nvml_dev *d, nvmlClockType_t type, char *why, size_t size)
{
	unsigned int	mhz = 0;
	nvmlReturn_t	r = NVML_ERROR_FUNCTION_NOT_FOUND;
	char		text[96];

	if (d->ctx->fn.max_clock != NULL)
		r = d->ctx->fn.max_clock(d->handle, type, &mhz);
	if (r == NVML_SUCCESS)
		return mhz;
	nvml_lock_reason(d->ctx, r, text, sizeof text);
	snprintf(why, size, "the highest clock is unknown: %s", text);
	return 0;
}

/*
 * Lock one domain of d to r, unless why already says why not.  A library
 * that has the set call but not its reset counts as not having it: a
 * lock that cannot be undone would outlive joulestat.  Returns true when
 * the domain was locked.
 */
static bool
nvml_lock_domain(const struct nvml_dev *d, const struct nvml_lock_calls *c,
    const struct nvml_lock_range *r, char *why, size_t size)
{
	nvmlReturn_t	rc;

	if (why[0] != '\0')
		return false;
	if (r->action != NVML_LOCK_SET) {
		snprintf(why, size, "no valid clock to lock to");
		return false;
	}
	if (c->set == NULL || c->reset == NULL)
		rc = NVML_ERROR_FUNCTION_NOT_FOUND;
	else
		rc = c->set(d->handle, r->min_mhz, r->max_mhz);
	if (rc == NVML_SUCCESS)
		return true;
	nvml_lock_reason(d->ctx, rc, why, size);
	return false;
}

/*
 * Lock device d as req says, graphics first.  When graphics fails memory
 * is not tried, so that a GPU is either locked as asked, or left alone,
 * or has only its graphics lock when the memory one failed.
 */
static void
nvml_lock_one(struct nvml_dev *d, const struct clock_lock *req, struct nvml_lock_outcome *o)
{
	const struct nvml_fn		*fn = &d->ctx->fn;
	const struct nvml_lock_calls	 gpu_calls = { fn->set_gpu_lock, fn->reset_gpu_lock };
	const struct nvml_lock_calls	 mem_calls = { fn->set_mem_lock, fn->reset_mem_lock };
	unsigned int			 max_gfx = 0, max_mem = 0;

	memset(o, 0, sizeof *o);
	if (req->kind == CLOCK_LOCK_MAX) {
		max_gfx = nvml_lock_max(d, NVML_CLOCK_GRAPHICS, o->gpu_why, sizeof o->gpu_why);
		max_mem = nvml_lock_max(d, NVML_CLOCK_MEM, o->mem_why, sizeof o->mem_why);
	}
	nvml_decode_lock(req, max_gfx, max_mem, &o->gpu, &o->mem);
	if (!nvml_lock_domain(d, &gpu_calls, &o->gpu, o->gpu_why, sizeof o->gpu_why))
		return;
	d->is_gpu_locked = true;
	if (o->mem.action == NVML_LOCK_LEAVE)
		return;
	if (nvml_lock_domain(d, &mem_calls, &o->mem, o->mem_why, sizeof o->mem_why))
		d->is_mem_locked = true;
}

/*
 * Leave the outcome of dev's lock in its notes, and a failure in err
 * (which may be NULL).  Returns 0 when everything asked for was locked,
 * else -1.
 */
static int
nvml_lock_report(struct device *dev, const struct nvml_lock_outcome *o, struct errbuf *err)
{
	char	note[DEVICE_NOTE_LEN];

	if (o->gpu_why[0] != '\0') {
		snprintf(note, sizeof note, "clocks not locked: %s", o->gpu_why);
		backend_note(dev, "%s", note);
		errbuf_set(err, "GPU %u (%s): cannot lock clocks: %s", dev->index, dev->id,
		    o->gpu_why);
		return -1;
	}
	nvml_decode_lock_note(&o->gpu, o->mem_why[0] == '\0' ? &o->mem : NULL, note,
	    sizeof note);
	backend_note(dev, "%s", note);
	if (o->mem.action == NVML_LOCK_LEAVE || o->mem_why[0] == '\0')
		return 0;
	/* The graphics lock stays: unlock_clocks resets it with the rest. */
	snprintf(note, sizeof note, "memory clock not locked: %s", o->mem_why);
	backend_note(dev, "%s", note);
	errbuf_set(err, "GPU %u (%s): cannot lock the memory clock: %s", dev->index, dev->id,
	    o->mem_why);
	return -1;
}

/*
 * Every device is a whole GPU: probe enumerates boards by index, a
 * MIG-enabled board is one device (its instances are not enumerated) and
 * a vGPU guest sees each of its vGPUs once.  So no GPU is locked twice.
 * Every device is tried even after one failed; err holds the first
 * failure.
 */
int
nvml_lock_clocks(struct device *devs, size_t ndev, const struct clock_lock *req,
    struct errbuf *err)
{
	struct nvml_lock_outcome	o;
	size_t				i;
	int				rc = 0;

	if (req->kind == CLOCK_LOCK_NONE)
		return 0;
	for (i = 0; i < ndev; i++) {
		if (devs[i].priv == NULL)
			continue;
		nvml_lock_one(devs[i].priv, req, &o);
		if (nvml_lock_report(&devs[i], &o, rc == 0 ? err : NULL) != 0)
			rc = -1;
	}
	return rc;
}

/*
 * Reset what nvml_lock_clocks locked, once.  Errors are ignored: a GPU
 * that answered GPU_IS_LOST may still take the reset, and there is
 * nothing else to try.
 */
void
nvml_unlock_clocks(struct device *devs, size_t ndev)
{
	struct nvml_dev	*d;
	size_t		 i;

	for (i = 0; i < ndev; i++) {
		if ((d = devs[i].priv) == NULL)
			continue;
		if (d->is_gpu_locked)
			d->ctx->fn.reset_gpu_lock(d->handle);
		if (d->is_mem_locked)
			d->ctx->fn.reset_mem_lock(d->handle);
		d->is_gpu_locked = false;
		d->is_mem_locked = false;
	}
}
