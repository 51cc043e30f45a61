/*
 * The ground-truth writer (tests/sim/README).  For each device it reports the
 * window from the first to the last successful reading call, the exact
 * energy of the true power over that window, and the exact time and
 * energy per P-state inside it, all from model.c's closed-form integrals.
 * The file named by NVSIM_TRUTH is replaced atomically (written beside it,
 * then renamed), so a test never reads half a file.  tests/sim/README
 * documents the record format.
 */
#include "nvsim.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
write_pstates(FILE *f, const struct sim_state *st, const struct simdev *d)
{
	int64_t		 time_ns[NVSIM_PSTATE_BINS] = { 0 };
	double		 energy_mj[NVSIM_PSTATE_BINS] = { 0 };

	if (d->nreads == 0)
		return;
	model_pstate_split(d, d->first_read_ns - st->t0_ns, d->last_read_ns - st->t0_ns,
	    time_ns, energy_mj);
	for (unsigned b = 0; b < NVSIM_PSTATE_BINS; b++) {
		if (time_ns[b] == 0)
			continue;
		fprintf(f, "pstate index=%u pstate=%u time_ns=%" PRId64 " energy_mj=%.3f\n",
		    d->index, b < 16 ? b : (unsigned)NVML_PSTATE_UNKNOWN, time_ns[b],
		    energy_mj[b]);
	}
}

static void
write_device(FILE *f, const struct sim_state *st, const struct simdev *d)
{
	double	 e = 0;

	if (d->nreads > 0)
		e = model_energy_mj(d, (double)(d->first_read_ns - st->t0_ns) / 1e6,
		    (double)(d->last_read_ns - st->t0_ns) / 1e6);
	fprintf(f, "device index=%u uuid=%s first_ns=%" PRId64 " last_ns=%" PRId64
	    " energy_mj=%.3f reads=%lu\n", d->index, d->uuid,
	    d->nreads > 0 ? d->first_read_ns : 0, d->nreads > 0 ? d->last_read_ns : 0, e,
	    d->nreads);
	write_pstates(f, st, d);
}

static int
write_file(const char *path, const struct sim_state *st)
{
	FILE	*f;

	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f, "sim t0_ns=%" PRId64 " scenario=%s\n", st->t0_ns, st->sc.path);
	for (size_t i = 0; i < st->sc.ndev; i++)
		write_device(f, st, &st->sc.devs[i]);
	if (ferror(f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	return fclose(f);
}

void
truth_write(const struct sim_state *st)
{
	const char	*path = getenv("NVSIM_TRUTH");
	char		 tmp[4096];
	int		 n;

	if (path == NULL || *path == '\0' || !st->is_loaded)
		return;
	n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		fprintf(stderr, "nvsim: NVSIM_TRUTH: path too long\n");
		return;
	}
	if (write_file(tmp, st) == -1 || rename(tmp, path) == -1)
		fprintf(stderr, "nvsim: NVSIM_TRUTH: %s: %s\n", path, strerror(errno));
}
