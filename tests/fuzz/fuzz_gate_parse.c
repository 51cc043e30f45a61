/*
 * libFuzzer target: gate_parse on an option value, and gate_parse_regress
 * on the same text.  The first byte picks the gate (--max-energy,
 * --max-energy-above-idle, --max-time, --max-avg-power,
 * --min-pstate-share or --max-regression, by its value modulo 6); the
 * rest is the value.  Accepted gates must be within their documented
 * ranges, one per list entry (--max-time too: a run limit and phase
 * limits), with a device only where the option takes one; a refused value must leave a cause that names the option.
 * gate_parse_regress then reads the same text as a --regression-metric.
 */
#include <math.h>

#include "joulestat/gate.h"
#include "joulestat/util.h"

#include "fuzz.h"

#define FUZZ_NMETRICS	6

/* The largest limit each gate takes. */
static double
fuzz_max_limit(enum gate_metric m)
{
	switch (m) {
	case GATE_STATE_SHARE: return 100;
	case GATE_REGRESSION: return 1e6;
	default: return 1e12;
	}
}

static void
fuzz_check_spec(const struct gate_spec *g, enum gate_metric m)
{
	FUZZ_CHECK(g->metric == m);
	FUZZ_CHECK(isfinite(g->limit) && g->limit >= 0 && g->limit <= fuzz_max_limit(m));
	FUZZ_CHECK(g->device == GATE_ALL_DEVICES || (g->device >= 0 && g->device <= 1023));
	FUZZ_CHECK(memchr(g->state, '\0', sizeof g->state) != NULL);
	if (m == GATE_STATE_SHARE) {
		FUZZ_CHECK(g->state[0] != '\0');
		FUZZ_CHECK(strpbrk(g->state, " \t:,") == NULL);
	} else {
		FUZZ_CHECK(g->state[0] == '\0');
	}
	if (m == GATE_TIME)
		FUZZ_CHECK(g->limit > 0);
	if (m == GATE_TIME || m == GATE_REGRESSION)
		FUZZ_CHECK(g->device == GATE_ALL_DEVICES);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gate_config	 gc;
	struct errbuf		 err = { { 0 } };
	enum gate_metric	 m;
	uint8_t			 pick;
	char			*text;
	size_t			 i, nlist = 1;

	fuzz_take(&data, &size, &pick, 1);
	m = (enum gate_metric)(pick % FUZZ_NMETRICS);
	text = fuzz_text(data, size);
	memset(&gc, 0, sizeof gc);
	if (gate_parse(&gc, m, text, &err) == 0) {
		/* One gate per entry: a list for all but --max-regression. */
		if (m != GATE_REGRESSION) {
			for (i = 0; text[i] != '\0'; i++)
				nlist += text[i] == ',';
		}
		FUZZ_CHECK(gc.nspecs == nlist);
		for (i = 0; i < gc.nspecs; i++)
			fuzz_check_spec(&gc.specs[i], m);
	} else {
		FUZZ_CHECK(strncmp(err.msg, "invalid ", 8) == 0);
		FUZZ_CHECK(strstr(err.msg, gate_option(m)) != NULL);
		FUZZ_CHECK(gc.nspecs <= GATE_MAX_SPECS);
	}
	err.msg[0] = '\0';
	if (gate_parse_regress(&gc, text, &err) == 0)
		FUZZ_CHECK(gc.regress == REGRESS_ENERGY || gc.regress == REGRESS_TIME ||
		    gc.regress == REGRESS_ABOVE_IDLE);
	else
		FUZZ_CHECK(err.msg[0] != '\0');
	free(text);
	return 0;
}
