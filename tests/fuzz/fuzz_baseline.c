/*
 * libFuzzer target: baseline_parse on the bytes of a --baseline file, and
 * csvin_parse, which it reads them with, on the same bytes.  The table
 * csvin makes must hold NUL-terminated fields on rows whose lines never
 * go back; a baseline that parses has at least one run, finite wall
 * times, device rows that point at a run and carry a device_id, and
 * energies that are finite or NaN (unknown); one that does not leaves
 * a cause naming the file.  Everything is freed, also after a failure.
 */
#include <math.h>

#include "joulestat/csvin.h"
#include "joulestat/gate.h"
#include "joulestat/util.h"

#include "fuzz.h"

static const char FUZZ_PATH[] = "fuzz.csv";

static void
fuzz_check_table(const struct csvin *t, const uint8_t *data, size_t size)
{
	size_t	i, k, nlines = 1, last = 1;

	for (i = 0; i < size; i++)
		nlines += data[i] == '\n';
	FUZZ_CHECK(t->nrows >= 1 && t->nrows <= t->cap);
	for (i = 0; i < t->nrows; i++) {
		FUZZ_CHECK(t->rows[i].line >= last && t->rows[i].line <= nlines);
		last = t->rows[i].line;
		for (k = 0; k < t->rows[i].n; k++)
			FUZZ_CHECK(t->rows[i].f[k] != NULL && strlen(t->rows[i].f[k]) <= size);
		FUZZ_CHECK(csvin_get(t, i, (int)t->rows[i].n)[0] == '\0');
	}
}

static void
fuzz_check_baseline(const struct baseline *b)
{
	size_t	i;

	FUZZ_CHECK(b->path != NULL && strcmp(b->path, FUZZ_PATH) == 0);
	FUZZ_CHECK(b->nruns >= 1);
	for (i = 0; i < b->nruns; i++)
		FUZZ_CHECK(isfinite(b->runs[i].wall_s));
	for (i = 0; i < b->ndevs; i++) {
		FUZZ_CHECK(b->devs[i].run < b->nruns);
		FUZZ_CHECK(i == 0 || b->devs[i].run >= b->devs[i - 1].run);
		FUZZ_CHECK(b->devs[i].id[0] != '\0');
		FUZZ_CHECK(memchr(b->devs[i].id, '\0', sizeof b->devs[i].id) != NULL);
		FUZZ_CHECK(isfinite(b->devs[i].energy_j) || isnan(b->devs[i].energy_j));
		FUZZ_CHECK(isfinite(b->devs[i].above_idle_j) || isnan(b->devs[i].above_idle_j));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct baseline	b;
	struct csvin	t;
	struct errbuf	err = { { 0 } };

	if (csvin_parse(&t, (const char *)data, size, &err) == 0)
		fuzz_check_table(&t, data, size);
	else
		FUZZ_CHECK(err.msg[0] != '\0');
	csvin_free(&t);

	err.msg[0] = '\0';
	if (baseline_parse(&b, FUZZ_PATH, (const char *)data, size, &err) == 0)
		fuzz_check_baseline(&b);
	else
		FUZZ_CHECK(strncmp(err.msg, "--baseline fuzz.csv: ", 21) == 0);
	baseline_free(&b);
	return 0;
}
