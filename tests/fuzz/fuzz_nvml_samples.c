/*
 * libFuzzer target: driver power samples (nvmlDeviceGetSamples with
 * NVML_TOTAL_POWER_SAMPLES) through nvml_decode_power_samples.  Input:
 * the value type the driver claimed (any, valid or not), lastSeenTimeStamp
 * (8 bytes), the realtime-minus-monotonic offset (8 bytes, taken into
 * 0..2^62 ns, which covers every wall clock from 1970 to 2116 on a machine
 * up for less than that), then whole nvmlSample_t entries.  The points
 * come out in time order, newer than lastSeenTimeStamp.
 */
#include "../../src/sources/nvml_decode.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct power_point	*out;
	nvmlSample_t		*v;
	uint8_t			 type;
	uint64_t		 last_seen_us, newest_us, off;
	int64_t			 real_minus_mono_ns;
	size_t			 n, k, i;

	fuzz_take(&data, &size, &type, sizeof type);
	fuzz_take(&data, &size, &last_seen_us, sizeof last_seen_us);
	fuzz_take(&data, &size, &off, sizeof off);
	real_minus_mono_ns = (int64_t)(off & ((1ull << 62) - 1));
	n = size / sizeof *v;
	if ((v = malloc((n > 0 ? n : 1) * sizeof *v)) == NULL ||
	    (out = malloc((n > 0 ? n : 1) * sizeof *out)) == NULL)
		abort();
	if (n > 0)
		memcpy(v, data, n * sizeof *v);
	newest_us = last_seen_us;
	k = nvml_decode_power_samples(v, n, (nvmlValueType_t)(type % 8), last_seen_us,
	    real_minus_mono_ns, out, &newest_us);
	FUZZ_CHECK(k <= n && newest_us >= last_seen_us);
	for (i = 1; i < k; i++)
		FUZZ_CHECK(out[i].t_ns >= out[i - 1].t_ns);
	free(out);
	free(v);
	return 0;
}
