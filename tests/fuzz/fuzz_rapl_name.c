/*
 * libFuzzer target: rapl_parse_name on a powercap zone's name file
 * ("package-0", "package-1-die-0", "dram", "psys").
 */
#include "../../src/sources/rapl_parse.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rapl_name	 name;
	char			*text = fuzz_text(data, size);

	if (rapl_parse_name(text, &name) == 0) {
		FUZZ_CHECK(name.kind >= RAPL_PACKAGE && name.kind <= RAPL_OTHER);
		FUZZ_CHECK(name.die >= -1);
	}
	free(text);
	return 0;
}
