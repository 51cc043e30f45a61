/*
 * libFuzzer target: drm_parse_dpm on an amdgpu pp_dpm_sclk or pp_dpm_mclk
 * table, with the input's length as the other reading of the clock.  On
 * success there is a level line or a current line, and a level taken from
 * the clock is a level, not deep sleep, within 1 % of it.
 */
#include "../../src/sources/drm_parse.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drm_dpm	 dpm;
	char		*text = fuzz_text(data, size);

	uint32_t	 clock = (uint32_t)size;

	if (drm_parse_dpm(text, clock, &dpm) == 0) {
		FUZZ_CHECK(dpm.nlevels > 0 || dpm.has_current);
		if (dpm.is_by_clock)
			FUZZ_CHECK(!dpm.is_sleep && (dpm.mhz > clock ? dpm.mhz - clock :
			    clock - dpm.mhz) <= (dpm.mhz / 100 > 1 ? dpm.mhz / 100 : 1));
	}
	free(text);
	return 0;
}
