/*
 * libFuzzer target: drm_parse_uevent on a PCI device's uevent file.  On
 * success the driver name is non-empty and both strings are terminated;
 * the PCI ids have at most four hex digits.
 */
#include "../../src/sources/drm_parse.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drm_uevent	 ue;
	char			*text = fuzz_text(data, size);

	if (drm_parse_uevent(text, &ue) == 0) {
		FUZZ_CHECK(memchr(ue.driver, '\0', sizeof ue.driver) != NULL);
		FUZZ_CHECK(ue.driver[0] != '\0');
		FUZZ_CHECK(memchr(ue.slot, '\0', sizeof ue.slot) != NULL);
		FUZZ_CHECK(ue.vendor <= 0xffff && ue.device <= 0xffff);
	}
	free(text);
	return 0;
}
