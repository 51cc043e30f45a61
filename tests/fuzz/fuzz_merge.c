/*
 * libFuzzer target: joulestat merge's reading of rank summaries
 * (merge_parse_text: libcsv through csvin, then rows into rank records),
 * the job checks (merge_job_add, merge_job_total) and the three emitters.
 * The input is up to FUZZ_RANKS summaries separated by form feeds (^L),
 * each handed over in a buffer of its exact size, without a NUL, so that
 * AddressSanitizer catches a read past its end.  A summary that does not
 * read must give a one-line cause; a job that totals must hold together:
 * every device measurement has members and a kept rank among them, a
 * rank's devices are each in exactly one measurement, and the job's
 * energy is no more than the sum of what its ranks measured.
 */
#include <math.h>

#include "joulestat/merge.h"
#include "joulestat/util.h"

#include "fuzz.h"

#define FUZZ_RANKS	8

static void
fuzz_check_cause(const struct errbuf *err)
{
	FUZZ_CHECK(err->msg[0] != '\0');
	FUZZ_CHECK(strchr(err->msg, '\n') == NULL);
}

/* Each (rank, device) is in exactly one group; kept is a member. */
static void
fuzz_check_groups(const struct merge_job *job)
{
	const struct merge_group	*g;
	size_t				 i, k, members = 0, devs = 0;
	bool				 has_kept;

	for (i = 0; i < job->nranks; i++)
		devs += job->ranks[i].ndev;
	for (i = 0; i < job->ngroups; i++) {
		g = &job->groups[i];
		FUZZ_CHECK(g->nmembers >= 1 && g->kept_rank < job->nranks);
		FUZZ_CHECK(g->kept_dev < job->ranks[g->kept_rank].ndev);
		has_kept = false;
		for (k = 0; k < g->nmembers; k++) {
			FUZZ_CHECK(g->members[k] < job->nranks);
			FUZZ_CHECK(k == 0 || g->members[k - 1] < g->members[k]);
			has_kept |= g->members[k] == g->kept_rank;
		}
		FUZZ_CHECK(has_kept);
		FUZZ_CHECK(!g->has_window || g->end_s >= g->start_s);
		members += g->nmembers;
	}
	FUZZ_CHECK(members == devs);
}

static void
fuzz_check_totals(const struct merge_job *job)
{
	double	measured = 0;
	size_t	i, k;

	for (i = 0; i < job->nranks; i++) {
		for (k = 0; k < job->ranks[i].ndev; k++) {
			if (job->ranks[i].devs[k].n_energy > 0)
				measured += fabs(job->ranks[i].devs[k].energy_j);
		}
	}
	FUZZ_CHECK(isfinite(job->energy_j) && isfinite(job->workload_j));
	FUZZ_CHECK(fabs(job->energy_j) <= measured * (1 + 1e-9) + 1e-6);
	FUZZ_CHECK(job->n_energy <= job->ngroups);
	FUZZ_CHECK(!job->has_time || job->end_s >= job->start_s);
	FUZZ_CHECK(job->nhosts <= job->nranks && (job->nranks == 0 || job->nhosts >= 1));
}

/* Every emitter writes without failing (to memory). */
static void
fuzz_emit(const struct merge_job *job)
{
	int	(*const emit[])(FILE *, const struct merge_job *) = {
		merge_write_report, merge_write_csv, merge_write_json,
	};
	char	*buf;
	size_t	 len, i;
	FILE	*f;

	for (i = 0; i < sizeof emit / sizeof emit[0]; i++) {
		buf = NULL;
		len = 0;
		if ((f = open_memstream(&buf, &len)) == NULL)
			abort();
		FUZZ_CHECK(emit[i](f, job) == 0);
		fclose(f);
		FUZZ_CHECK(len > 0);
		free(buf);
	}
}

/* Read one summary of the input into job; false when it did not read or add. */
static bool
fuzz_add(struct merge_job *job, const uint8_t *data, size_t size, size_t n)
{
	struct merge_rank	 r;
	struct errbuf		 err = { { 0 } };
	char			 name[32];
	char			*text = malloc(size > 0 ? size : 1);
	bool			 is_ok;

	if (text == NULL)
		abort();
	if (size > 0)
		memcpy(text, data, size);
	snprintf(name, sizeof name, "rank%zu.csv", n);
	is_ok = merge_parse_text(&r, name, text, size, &err) == 0;
	if (is_ok) {
		FUZZ_CHECK(r.nruns >= 1);
		is_ok = merge_job_add(job, &r, &err) == 0;
	}
	if (!is_ok)
		fuzz_check_cause(&err);
	merge_rank_free(&r);
	free(text);
	return is_ok;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct merge_job	 job = { 0 };
	struct errbuf		 err = { { 0 } };
	const uint8_t		*end = data + size, *ff;
	size_t			 n;

	for (n = 0; n < FUZZ_RANKS; n++) {
		ff = memchr(data, '\f', (size_t)(end - data));
		if (ff == NULL)
			ff = end;
		if (!fuzz_add(&job, data, (size_t)(ff - data), n))
			break;
		if (ff == end)
			break;
		data = ff + 1;
	}
	if (job.nranks > 0) {
		if (merge_job_total(&job, &err) == 0) {
			fuzz_check_groups(&job);
			fuzz_check_totals(&job);
			fuzz_emit(&job);
		} else
			fuzz_check_cause(&err);
	}
	merge_job_free(&job);
	return 0;
}
