/*
 * libFuzzer target: nvmlDeviceGetFieldValues answers, read as whole
 * nvmlFieldValue_t entries, through nvml_decode_field (which decides by
 * each field's own nvmlReturn and valueType); the same bytes also feed
 * the small decoders of scalar answers (P-state, clocks-event reasons,
 * power kind).  A field that decodes has a value its type can hold.
 */
#include <stdbool.h>
#include <string.h>

#include "../../src/sources/nvml_decode.h"

#include "fuzz.h"

static void
fuzz_field(const nvmlFieldValue_t *fv)
{
	struct nvml_gpu_kind	k;
	enum nvml_kind_basis	basis;
	enum power_kind		kind;
	uint64_t		v;
	int			ps;

	if (nvml_decode_field(fv, &v) == NVML_SUCCESS) {
		FUZZ_CHECK(fv->nvmlReturn == NVML_SUCCESS);
		if (fv->valueType == NVML_VALUE_TYPE_UNSIGNED_INT)
			FUZZ_CHECK(v < UINT32_MAX);
		if (fv->valueType == NVML_VALUE_TYPE_UNSIGNED_SHORT)
			FUZZ_CHECK(v < UINT16_MAX);
	}
	ps = nvml_decode_pstate(fv->fieldId);
	FUZZ_CHECK(ps == PSTATE_UNKNOWN || (ps >= 0 && ps <= 15));
	(void)nvml_decode_throttle(fv->value.ullVal);
	memset(&k, 0, sizeof k);
	k.has_arch = fv->latencyUsec & 1;
	k.arch = fv->scopeId;
	k.has_cc = fv->latencyUsec & 2;
	k.cc_major = (int)(fv->value.ullVal >> 32);
	k.cc_minor = (int)(fv->value.ullVal & 0xff);
	k.pci_device_id = fv->fieldId;
	kind = nvml_decode_power_kind(&k, &basis);
	FUZZ_CHECK(kind == POWER_KIND_INSTANT || kind == POWER_KIND_AVERAGE_1S);
	FUZZ_CHECK(basis != NVML_KIND_ASSUMED || kind == POWER_KIND_AVERAGE_1S);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	nvmlFieldValue_t	fv;

	while (size >= sizeof fv) {
		fuzz_take(&data, &size, &fv, sizeof fv);
		fuzz_field(&fv);
	}
	return 0;
}
