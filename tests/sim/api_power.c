/*
 * The power and energy readings: nvmlDeviceGetPowerUsage (instantaneous
 * or trailing 1 s mean, per the device's "power" line), the total energy
 * counter, the field values that carry power, energy and limits, and the
 * driver's buffer of power samples (nvmlDeviceGetSamples).  Each of these
 * is a "reading call": when it succeeds it extends the device's ground-
 * truth window.  A vGPU guest gets NOT_SUPPORTED for all of them.
 */
#include "nvsim.h"

#include <string.h>

typedef nvmlReturn_t (*field_fn)(const struct simdev *, double, nvmlValue_t *);

struct field {
	unsigned	 id;
	nvmlValueType_t	 type;
	field_fn	 read;
};

static bool
has_power(const struct simdev *d)
{
	return d->virt != NVML_GPU_VIRTUALIZATION_MODE_VGPU;
}

static nvmlReturn_t
field_energy(const struct simdev *d, double t, nvmlValue_t *v)
{
	if (!d->has_energy || !has_power(d))
		return NVML_ERROR_NOT_SUPPORTED;
	v->ullVal = model_counter_mj(d, t);
	return NVML_SUCCESS;
}

/* AVERAGE exists only where the driver averages (Ampere and later). */
static nvmlReturn_t
field_average(const struct simdev *d, double t, nvmlValue_t *v)
{
	if (d->power != POWER_AVERAGE_1S || !has_power(d))
		return NVML_ERROR_NOT_SUPPORTED;
	v->uiVal = model_average_mw(d, t);
	return NVML_SUCCESS;
}

static nvmlReturn_t
field_instant(const struct simdev *d, double t, nvmlValue_t *v)
{
	if (d->power != POWER_INSTANT || !has_power(d))
		return NVML_ERROR_NOT_SUPPORTED;
	v->uiVal = model_instant_mw(d, t);
	return NVML_SUCCESS;
}

static nvmlReturn_t
field_limit_min(const struct simdev *d, double t, nvmlValue_t *v)
{
	(void)t;
	v->uiVal = d->limit_min_mw;
	return has_power(d) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

static nvmlReturn_t
field_limit_max(const struct simdev *d, double t, nvmlValue_t *v)
{
	(void)t;
	v->uiVal = d->limit_max_mw;
	return has_power(d) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

static nvmlReturn_t
field_limit(const struct simdev *d, double t, nvmlValue_t *v)
{
	(void)t;
	v->uiVal = d->limit_mw;
	return has_power(d) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

static const struct field fields[] = {
	{ NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION,	NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, field_energy },
	{ NVML_FI_DEV_ENERGY,			NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, field_energy },
	{ NVML_FI_DEV_POWER_AVERAGE,		NVML_VALUE_TYPE_UNSIGNED_INT, field_average },
	{ NVML_FI_DEV_POWER_INSTANT,		NVML_VALUE_TYPE_UNSIGNED_INT, field_instant },
	{ NVML_FI_DEV_POWER_MIN_LIMIT,		NVML_VALUE_TYPE_UNSIGNED_INT, field_limit_min },
	{ NVML_FI_DEV_POWER_MAX_LIMIT,		NVML_VALUE_TYPE_UNSIGNED_INT, field_limit_max },
	{ NVML_FI_DEV_POWER_DEFAULT_LIMIT,	NVML_VALUE_TYPE_UNSIGNED_INT, field_limit },
	{ NVML_FI_DEV_POWER_CURRENT_LIMIT,	NVML_VALUE_TYPE_UNSIGNED_INT, field_limit },
	{ NVML_FI_DEV_POWER_REQUESTED_LIMIT,	NVML_VALUE_TYPE_UNSIGNED_INT, field_limit },
};

/*
 * Fill one field.  Ids the simulator does not know, and any scope but
 * the GPU's, are per-field NOT_SUPPORTED; the call itself still succeeds.
 */
static void
field_read(const struct simdev *d, double t, nvmlFieldValue_t *fv)
{
	const struct field *f = NULL;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].id == fv->fieldId)
			f = &fields[i];
	fv->timestamp = (long long)state_wall_us(t);
	fv->latencyUsec = 0;
	memset(&fv->value, 0, sizeof(fv->value));
	if (f == NULL || fv->scopeId != NVML_POWER_SCOPE_GPU) {
		fv->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
		fv->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
		return;
	}
	fv->valueType = f->type;
	fv->nvmlReturn = f->read(d, t, &fv->value);
}

nvmlReturn_t
nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t *values)
{
	struct simdev	*d;
	int64_t		 now;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, count > 0 && values != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	for (int i = 0; i < count; i++)
		field_read(d, state_ms(now), &values[i]);
	state_note_read(d, now);
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
	struct simdev	*d;
	int64_t		 now;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, power != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!has_power(d))
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	*power = model_reported_mw(d, state_ms(now));
	state_note_read(d, now);
	return state_leave(NVML_SUCCESS);
}

nvmlReturn_t
nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
	struct simdev	*d;
	int64_t		 now;
	nvmlReturn_t	 rc;

	rc = state_enter_device_args(__func__, device, energy != NULL, &d, &now);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!d->has_energy || !has_power(d))
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	*energy = model_counter_mj(d, state_ms(now));
	state_note_read(d, now);
	return state_leave(NVML_SUCCESS);
}

/* The driver's sample buffer: which sample slots k hold data newer than last_us. */
static void
sample_range(const struct simdev *d, double t, unsigned long long last_us, long long *k0,
    long long *k1)
{
	long long	 k;

	*k1 = (long long)(t / d->sample_ms);
	k = *k1 - NVSIM_SAMPLE_DEPTH + 1;
	while (k <= *k1 && state_wall_us((double)k * d->sample_ms) <= last_us)
		k++;
	*k0 = k;
}

static nvmlReturn_t
check_samples(const struct simdev *d, nvmlSamplingType_t type, const nvmlValueType_t *vt,
    const unsigned int *count, const nvmlSample_t *samples)
{
	if (vt == NULL || count == NULL || (samples != NULL && *count == 0))
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((unsigned)type > NVML_MEMORY_CLK_SAMPLES)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (type != NVML_TOTAL_POWER_SAMPLES || d->sample_ms == 0 || !has_power(d))
		return NVML_ERROR_NOT_SUPPORTED;
	return NVML_SUCCESS;
}

/*
 * Power samples every sample_ms, the most recent NVSIM_SAMPLE_DEPTH of
 * them.  With samples NULL the call reports how many are available; with
 * a short buffer it returns the oldest ones, so that passing the last
 * timeStamp back fetches the rest.  Nothing newer than last_us: NOT_FOUND.
 */
nvmlReturn_t
nvmlDeviceGetSamples(nvmlDevice_t device, nvmlSamplingType_t type, unsigned long long last_us,
    nvmlValueType_t *vt, unsigned int *count, nvmlSample_t *samples)
{
	struct simdev	*d;
	int64_t		 now;
	long long	 k0, k1;
	unsigned	 n;
	nvmlReturn_t	 rc;

	if ((rc = state_enter_device(__func__, device, &d, &now)) != NVML_SUCCESS)
		return rc;
	if ((rc = check_samples(d, type, vt, count, samples)) != NVML_SUCCESS)
		return state_leave(rc);
	sample_range(d, state_ms(now), last_us, &k0, &k1);
	if (k0 > k1)
		return state_leave(NVML_ERROR_NOT_FOUND);
	n = (unsigned)(k1 - k0 + 1);
	*vt = NVML_VALUE_TYPE_UNSIGNED_INT;
	if (samples != NULL && *count < n)
		n = *count;
	for (unsigned i = 0; samples != NULL && i < n; i++) {
		double	 t = (double)(k0 + i) * d->sample_ms;

		samples[i].timeStamp = state_wall_us(t);
		memset(&samples[i].sampleValue, 0, sizeof(samples[i].sampleValue));
		samples[i].sampleValue.uiVal = model_reported_mw(d, t);
	}
	*count = n;
	state_note_read(d, now);
	return state_leave(NVML_SUCCESS);
}
