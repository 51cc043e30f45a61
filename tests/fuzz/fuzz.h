/*
 * What every libFuzzer target in tests/fuzz/ shares (HACKING.md, "Tests"): the entry
 * point's prototype, a NUL-terminated copy of the input for the parsers
 * that take text, and a loud check for the properties a target asserts.
 * The targets are built with clang and libFuzzer by `make fuzz`, or with
 * any compiler against replay_main.c, which feeds them corpus files.
 */
#ifndef JOULESTAT_FUZZ_H
#define JOULESTAT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A heap copy of the input with a NUL after it, exactly size + 1 bytes, so
 * that AddressSanitizer catches a parser that reads past the terminator.
 * Text after an embedded NUL is simply not seen by the parser.
 */
static inline char *
fuzz_text(const uint8_t *data, size_t size)
{
	char	*s = malloc(size + 1);

	if (s == NULL)
		abort();
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A broken property is a finding: abort, which libFuzzer reports as a crash. */
#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,	\
		    __LINE__, #cond);					\
		abort();						\
	}								\
} while (0)

/* Take n bytes off the front of the input (zeros once it runs out). */
static inline void
fuzz_take(const uint8_t **data, size_t *size, void *out, size_t n)
{
	size_t	k = *size < n ? *size : n;

	memset(out, 0, n);
	if (k > 0)
		memcpy(out, *data, k);
	*data += k;
	*size -= k;
}

#endif
