/*
 * libFuzzer target: two readings of one DRM client's fdinfo, the text
 * before the input's first NUL byte and the text after it, parsed with
 * drm_parse_fdinfo and carried through drm_engine_update for each engine
 * class of the second reading, as drm.c does from tick to tick.  The
 * first byte also picks whether the client is fresh (bit 0) and the tick
 * (bits 1-2: 1 ms, 100 ms, 1 s or 60 s, the shortest and longest
 * intervals and two between); the rest is what the kernel printed.  Each
 * tick's busy time stays within span * capacity.
 */
#include <stdbool.h>
#include <string.h>

#include "../../src/sources/drm_parse.h"

#include "fuzz.h"

#define FUZZ_T0_NS	1000000000LL	/* one second after boot */

static const int64_t fuzz_spans_ns[] = { 1000000, 100000000, 1000000000, 60000000000 };

static const struct drm_engine *
fuzz_find(const struct drm_fdinfo *fi, const char *name)
{
	size_t	i;

	for (i = 0; i < fi->nengines; i++) {
		if (strcmp(fi->engines[i].name, name) == 0)
			return &fi->engines[i];
	}
	return NULL;
}

/* One tick of engine e; checks the bound the header promises. */
static void
fuzz_tick(struct drm_engine_state *st, const struct drm_engine *e, int64_t span_ns, int tick,
    bool is_fresh)
{
	uint64_t	busy, cap;

	busy = drm_engine_update(st, e, FUZZ_T0_NS + tick * span_ns, span_ns, is_fresh);
	cap = e->capacity > 0 ? e->capacity : 1;
	FUZZ_CHECK(busy <= (uint64_t)span_ns * cap);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drm_fdinfo	 a, b;
	struct drm_engine_state	 st;
	const struct drm_engine	*prev;
	const uint8_t		*nul;
	char			*text = fuzz_text(data, size);
	size_t			 i, split;
	int64_t			 span_ns;
	bool			 is_fresh;

	nul = size > 0 ? memchr(data, '\0', size) : NULL;
	split = nul != NULL ? (size_t)(nul - data) + 1 : size;
	is_fresh = size > 0 && (data[0] & 1);
	span_ns = fuzz_spans_ns[size > 0 ? (data[0] >> 1) & 3 : 0];

	if (drm_parse_fdinfo(text, &a) != 0 || drm_parse_fdinfo(text + split, &b) != 0) {
		free(text);
		return 0;
	}
	for (i = 0; i < b.nengines; i++) {
		memset(&st, 0, sizeof st);
		if ((prev = fuzz_find(&a, b.engines[i].name)) != NULL)
			fuzz_tick(&st, prev, span_ns, 0, is_fresh);
		fuzz_tick(&st, &b.engines[i], span_ns, 1, is_fresh);
		/* A counter that goes back, then the reading that catches up. */
		if (prev != NULL) {
			fuzz_tick(&st, prev, span_ns, 2, false);
			fuzz_tick(&st, &b.engines[i], span_ns, 3, false);
		}
		/* Carried-over busy time drains, a tick at a time. */
		fuzz_tick(&st, &b.engines[i], span_ns, 4, false);
	}
	free(text);
	return 0;
}
