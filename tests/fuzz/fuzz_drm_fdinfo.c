/*
 * libFuzzer target: drm_parse_fdinfo on the text of a DRM client's
 * /proc/PID/fdinfo/FD (drm-usage-stats.rst and amdgpu's pre-5.19 keys).
 * On success the driver and pdev are terminated strings and every engine
 * class has a terminated, non-empty name and a capacity of at least 1.
 */
#include <errno.h>

#include "../../src/sources/drm_parse.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drm_fdinfo	 fi;
	char			*text = fuzz_text(data, size);
	size_t			 i;
	int			 r;

	r = drm_parse_fdinfo(text, &fi);
	FUZZ_CHECK(r == 0 || r == -ENOENT);
	if (r == 0) {
		FUZZ_CHECK(memchr(fi.driver, '\0', sizeof fi.driver) != NULL);
		FUZZ_CHECK(memchr(fi.pdev, '\0', sizeof fi.pdev) != NULL);
		FUZZ_CHECK(fi.nengines <= DRM_ENGINES_MAX);
		for (i = 0; i < fi.nengines; i++) {
			FUZZ_CHECK(memchr(fi.engines[i].name, '\0', DRM_NAME_MAX) != NULL);
			FUZZ_CHECK(fi.engines[i].name[0] != '\0');
			FUZZ_CHECK(fi.engines[i].capacity >= 1);
			(void)drm_is_copy_engine(fi.engines[i].name);
		}
	}
	free(text);
	return 0;
}
