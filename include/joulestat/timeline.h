/*
 * --timeline: one CSV row per device per reading, streamed as the run goes
 * (joulestat(1), TIMELINE).  Rows are built whole in a reused buffer and
 * written with write(2) at least once a second, so a run killed at any
 * moment leaves a file whose every row parses; memory does not grow with
 * the run.  Text is quoted through libcsv.
 */
#ifndef JOULESTAT_TIMELINE_H
#define JOULESTAT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/account.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

#define TIMELINE_SCHEMA_VERSION	1
#define TIMELINE_FLUSH_NS	NSEC_PER_SEC

enum timeline_status {
	TIMELINE_OK,
	TIMELINE_LOST,		/* the device did not answer */
	TIMELINE_LATE,		/* the reading came late or deadlines were missed before it */
};

struct timeline {
	int		 fd;		/* -1 when closed or failed */
	const char	*path;
	char		*buf;		/* whole rows not yet written */
	size_t		 len;
	size_t		 cap;
	int64_t		 last_flush_ns;
	int		 error;		/* first write error, as a positive errno */
};

/*
 * Open path ("-" = stdout) and write the header.  Returns 0, or -1 with a
 * cause in err naming the file.
 */
int	timeline_open(struct timeline *tl, const char *path, struct errbuf *err);

/*
 * Add the row of device dev (by its number) read at s->t_ns in run number run; t0_ns is
 * the start of that run, acct the device's accounting after this reading
 * (cumulative energy, the tree's last utilization), phase the innermost
 * phase open at this reading or NULL.  Writes buffered rows
 * when a second has passed since the last write.  Errors are kept in
 * tl->error.
 */
void	timeline_row(struct timeline *tl, unsigned run, int64_t t0_ns,
	    const struct device *dev, const struct sample *s, const struct dev_acct *acct,
	    enum timeline_status status, const char *phase);

/* Write what is buffered and close.  Returns 0, or -errno of the first failure. */
int	timeline_close(struct timeline *tl);

#endif
