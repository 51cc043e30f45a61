/*
 * libFuzzer target: markline_parse on every line of the input, as the
 * mark reader splits a FIFO's bytes.  A line it accepts must give a kind,
 * and a name that markline_is_name accepts (or "" only for "end") and that
 * occurs in the line; a line it refuses must say why.
 */
#include "joulestat/markline.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*p = (const char *)data, *end = p + size, *nl, *why;
	struct mark	 m;
	size_t		 len, n;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		why = NULL;
		if (markline_parse(p, len, &m, &why) == 0) {
			n = strlen(m.name);
			FUZZ_CHECK(m.kind == MARK_PHASE || m.kind == MARK_BEGIN || m.kind == MARK_END);
			FUZZ_CHECK(n <= MARK_NAME_MAX);
			FUZZ_CHECK(n > 0 ? markline_is_name(m.name, n) : m.kind == MARK_END);
			FUZZ_CHECK(n == 0 || memmem(p, len, m.name, n) != NULL);
		} else {
			FUZZ_CHECK(why != NULL && why[0] != '\0');
		}
		p += len + 1;
	}
	return 0;
}
