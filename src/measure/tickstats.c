/*
 * Lateness statistics of the sampler: a late tick is recorded as late, a
 * skipped one as missed (HACKING.md, "The pipeline").  A log-linear histogram with 16
 * buckets per octave of nanoseconds keeps quantiles within 6.25% (never
 * below the exact value) while its size stays fixed however long the run.
 */
#include "joulestat/tickstats.h"

#include <stddef.h>

static unsigned
bucket_of(int64_t ns)
{
	uint64_t	v = ns < 1 ? 1 : (uint64_t)ns;
	unsigned	octave = 63 - (unsigned)__builtin_clzll(v), sub;

	if (octave < 4)
		return (unsigned)v;	/* below 16 ns: exact */
	sub = (unsigned)((v >> (octave - 4)) & (TICKSTATS_SUB - 1));
	if (octave - 3 >= TICKSTATS_OCTAVES)
		return TICKSTATS_BUCKETS - 1;
	return (octave - 3) * TICKSTATS_SUB + sub;
}

/* The largest value that falls in bucket b. */
static int64_t
bucket_top(unsigned b)
{
	unsigned	octave, sub;

	if (b < TICKSTATS_SUB)
		return b;
	octave = b / TICKSTATS_SUB + 3;
	sub = b % TICKSTATS_SUB;
	return (int64_t)((((uint64_t)TICKSTATS_SUB + sub + 1) << (octave - 4)) - 1);
}

void
tickstats_add(struct tickstats *ts, int64_t late_ns, uint64_t missed)
{
	if (late_ns < 0)
		late_ns = 0;
	ts->ticks++;
	ts->missed += missed;
	if (late_ns > ts->late_max_ns)
		ts->late_max_ns = late_ns;
	ts->hist[bucket_of(late_ns)]++;
}

int64_t
tickstats_quantile(const struct tickstats *ts, double q)
{
	uint64_t	total = 0, want, seen = 0;
	unsigned	b;

	for (b = 0; b < TICKSTATS_BUCKETS; b++)
		total += ts->hist[b];
	if (total == 0)
		return 0;
	want = (uint64_t)(q * (double)total + 0.999999);
	if (want == 0)
		want = 1;
	for (b = 0; b < TICKSTATS_BUCKETS; b++) {
		seen += ts->hist[b];
		if (seen >= want)
			return bucket_top(b) < ts->late_max_ns ? bucket_top(b) : ts->late_max_ns;
	}
	return ts->late_max_ns;
}
