/*
 * Figures about the sampler itself: ticks taken, deadlines missed, and
 * lateness as a fixed-size log histogram, so memory does not grow with
 * the length of the run.  Pure arithmetic, unit-tested.
 */
#ifndef JOULESTAT_TICKSTATS_H
#define JOULESTAT_TICKSTATS_H

#include <stdint.h>

/*
 * 16 buckets per power of two of nanoseconds.  A quantile is reported as
 * the top of its bucket: never below the exact value, at most 6.25% above.
 */
#define TICKSTATS_SUB		16
#define TICKSTATS_OCTAVES	40
#define TICKSTATS_BUCKETS	(TICKSTATS_SUB * TICKSTATS_OCTAVES)

struct tickstats {
	uint64_t	ticks;		/* readings taken on a deadline */
	uint64_t	missed;		/* deadlines that passed with no reading */
	int64_t		late_max_ns;
	uint32_t	hist[TICKSTATS_BUCKETS];
};

/* Record one tick that ran late_ns after its deadline, missed deadlines before it. */
void	tickstats_add(struct tickstats *ts, int64_t late_ns, uint64_t missed);

/* The q-quantile (0 < q <= 1) of lateness in ns, as a bucket's upper edge; 0 when empty. */
int64_t	tickstats_quantile(const struct tickstats *ts, double q);

#endif
