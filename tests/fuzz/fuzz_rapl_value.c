/*
 * libFuzzer target: rapl_parse_value on a powercap value (energy_uj,
 * max_energy_range_uj, constraint_N_max_power_uw), and the arithmetic
 * the backend applies to what parsed: a wrap at the parsed range never
 * gives more than the range, and the longest safe gap is not negative.
 */
#include "../../src/sources/rapl_parse.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*text = fuzz_text(data, size);
	uint64_t	 v;

	if (rapl_parse_value(text, &v) == 0) {
		FUZZ_CHECK(rapl_unwrap(v, v / 3, v) <= v);
		FUZZ_CHECK(rapl_unwrap(v / 2, v, 0) == v - v / 2);
		FUZZ_CHECK(rapl_max_gap_ns(v, 1) >= 0);
		FUZZ_CHECK(rapl_max_gap_ns(1000000, v) >= 0);
	}
	free(text);
	return 0;
}
