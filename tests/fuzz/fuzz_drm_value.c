/*
 * libFuzzer target: drm_parse_value on a single sysfs value (hwmon
 * energy and power, gt frequencies, residency counters).  What parses is
 * digits only, with at most one trailing newline.
 */
#include <ctype.h>

#include "../../src/sources/drm_parse.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*text = fuzz_text(data, size);
	uint64_t	 v;

	if (drm_parse_value(text, &v) == 0)
		FUZZ_CHECK(size > 0 && isdigit((unsigned char)text[0]));
	free(text);
	return 0;
}
