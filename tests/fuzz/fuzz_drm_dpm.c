/*
 * libFuzzer target: drm_parse_dpm on an amdgpu pp_dpm_sclk or pp_dpm_mclk
 * table.  On success the current line, if any, is one of the level lines
 * or the deep-sleep line.
 */
#include "../../src/sources/drm_parse.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drm_dpm	 dpm;
	char		*text = fuzz_text(data, size);

	if (drm_parse_dpm(text, &dpm) == 0) {
		FUZZ_CHECK(dpm.nlevels > 0 || dpm.has_current);
		if (dpm.has_current && !dpm.is_sleep)
			FUZZ_CHECK(dpm.level < dpm.nlevels);
	}
	free(text);
	return 0;
}
