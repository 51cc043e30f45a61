/*
 * libFuzzer target: devsel_parse on a -d/--devices list, then
 * devsel_match against the kinds of device the backends describe (an
 * NVML GPU, an amdgpu card, a RAPL package without a bus id) and
 * devsel_check.  On success every entry is a trimmed, non-empty string.
 */
#include <ctype.h>

#include "joulestat/devsel.h"
#include "joulestat/util.h"

#include "fuzz.h"

static const char *const fuzz_mig[] = { "MIG-c6d1a5b0-3f2e-5d8a-9b1c-0e4f7a2d6c11" };

static const struct devsel_dev fuzz_devs[] = {
	{ "nvml", "0", "GPU-5a1c7d3e-9b2f-4e61-8d0a-3c7f1e2b4a90", "00000000:17:00.0",
	    fuzz_mig, 1, false, DEVSEL_F_CUDA },
	{ "drm", "card1", "0000:03:00.0", "0000:03:00.0", NULL, 0, false, DEVSEL_F_ROCM },
	{ "rapl", "package-0", "package-0", NULL, NULL, 0, false, DEVSEL_F_NONE },
	{ "drm", "card2", "", "", NULL, 0, false, DEVSEL_F_ZE },
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct devsel	 sel;
	struct errbuf	 err = { { 0 } };
	char		*text = fuzz_text(data, size);
	size_t		 i;
	unsigned	 number;

	memset(&sel, 0, sizeof sel);
	if (devsel_parse(&sel, text, &err) == 0) {
		/* Empty, or "all" alone (-d all): no selection. */
		FUZZ_CHECK(text[0] == '\0' || sel.is_all ? sel.n == 0 : sel.n >= 1);
		for (i = 0; i < sel.n; i++) {
			FUZZ_CHECK(sel.v[i].text[0] != '\0');
			FUZZ_CHECK(!isspace((unsigned char)sel.v[i].text[0]));
		}
		/* The same text as every mask, as the environment may hold anything. */
		for (i = 0; i < DEVSEL_NMASKS; i++)
			devsel_set_mask(&sel, (enum devsel_mask_var)i, text);
		devsel_rewind(&sel);
		for (i = 0; i < ARRAY_SIZE(fuzz_devs); i++) {
			(void)devsel_match(&sel, &fuzz_devs[i], &number);
			FUZZ_CHECK(number == i);
		}
		if (devsel_check(&sel, &err) != 0)
			FUZZ_CHECK(err.msg[0] != '\0');
	} else {
		FUZZ_CHECK(err.msg[0] != '\0' && sel.n == 0 && sel.v == NULL);
	}
	devsel_free(&sel);
	free(text);
	return 0;
}
