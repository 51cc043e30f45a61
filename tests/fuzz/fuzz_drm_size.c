/*
 * libFuzzer target: drm_parse_size_kib on an fdinfo memory value ("123",
 * "64 KiB", "16 MiB", "1 GiB", amdgpu's old "kB").  A bare byte count is
 * rounded up to whole KiB.
 */
#include <errno.h>

#include "../../src/sources/drm_parse.h"
#include "joulestat/util.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*text = fuzz_text(data, size);
	uint64_t	 kib, bytes;
	int		 r;

	r = drm_parse_size_kib(text, &kib);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0 && parse_u64(text, &bytes) == 0)
		FUZZ_CHECK(kib == bytes / 1024 + (bytes % 1024 != 0));
	free(text);
	return 0;
}
