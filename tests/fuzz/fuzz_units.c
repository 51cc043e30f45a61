/*
 * libFuzzer target: parse_quantity (src/lib/units.c) on an option value.
 * The first byte picks the kind (joules, seconds, watts, by its value
 * modulo 3); the rest is the value.  An accepted value is finite and
 * reads back the same; a value without a suffix is the number itself.
 */
#include <math.h>

#include "joulestat/units.h"
#include "joulestat/util.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum unit_kind	 kind;
	uint8_t		 pick;
	char		*text;
	double		 v, again, plain;

	fuzz_take(&data, &size, &pick, 1);
	kind = (enum unit_kind)(pick % 3);
	text = fuzz_text(data, size);
	if (parse_quantity(text, kind, 1, &v) == 0) {
		FUZZ_CHECK(isfinite(v));
		FUZZ_CHECK(parse_quantity(text, kind, 1, &again) == 0 && again == v);
		if (parse_double(text, &plain) == 0)
			FUZZ_CHECK(plain == v);
	}
	free(text);
	return 0;
}
