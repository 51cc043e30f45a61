/*
 * What a person sees while the workload runs (joulestat(1), PROGRESS): with
 * -I MS, a line per device every MS on standard error, like perf stat -I;
 * on a terminal, a status line rewritten in place and erased before
 * anything else is printed.  Both read the accounting as it stands after
 * each reading; neither ever writes a figure it does not have.
 */
#ifndef JOULESTAT_LIVE_H
#define JOULESTAT_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/run.h"

/* The status line is redrawn at most this often. */
#define LIVE_STATUS_EVERY_NS	(250 * NSEC_PER_MSEC)

struct live {
	int		 fd;		/* standard error */
	int64_t		 every_ns;	/* -I; 0 = no interval lines */
	bool		 is_status;	/* the status line is wanted (a terminal, not -q) */
	unsigned	 runs;		/* measured runs of the series (-r) */
	int64_t		 run_t0_ns;	/* the run the periods below belong to */
	uint64_t	*period;	/* per device number: the last -I period printed */
	size_t		 nperiod;
	int64_t		 status_ns;	/* when the status line was last drawn */
	size_t		 shown;		/* its width on the terminal; 0 = nothing shown */
};

/*
 * every_ms: -I (0 = none); is_status: draw the status line on fd, which
 * must be a terminal; runs: -r.
 */
void	live_init(struct live *lv, int fd, unsigned every_ms, bool is_status, unsigned runs);

/* Whether live_reading has anything to do. */
bool	live_is_on(const struct live *lv);

/* After each reading of backend b (its first device is number dev_base). */
void	live_reading(struct live *lv, const struct run *run, const struct backend *b,
	    size_t dev_base);

/* Erase the status line, if it is shown: before anything else goes to the terminal. */
void	live_clear(struct live *lv);

void	live_free(struct live *lv);

#endif
