/*
 * The phase-mark channel (src/run/marks.c): a FIFO of mode 0600 under an
 * unpredictable name, in memory where it can be, whose path the workload
 * gets in $JOULESTAT_MARK.  joulestat holds it open
 * for reading and writing (one descriptor) for the whole run, so a writer
 * never blocks on open and never gets EPIPE while joulestat lives.
 */
#ifndef JOULESTAT_MARKS_H
#define JOULESTAT_MARKS_H

#include <stdbool.h>
#include <stddef.h>

#include "joulestat/util.h"

/* The variable the workload finds the FIFO's path in. */
#define MARKS_ENV	"JOULESTAT_MARK"

/* A line longer than this is bad (and read past up to its newline). */
#define MARKS_LINE_MAX	256

struct run;

struct marks {
	int	fd;			/* open for reading and writing; -1 when there is none */
	bool	is_made;		/* the FIFO at path was created */
	char	path[300];
	char	line[MARKS_LINE_MAX + 1]; /* a line not yet ended by its newline */
	size_t	nline;
	int	is_skipping;		/* inside an over-long line */
};

/* Create the FIFO and set MARKS_ENV.  -1 with a cause in err. */
int	marks_open(struct marks *mk, struct errbuf *err);

/* Remove the FIFO, unset MARKS_ENV.  Idempotent. */
void	marks_close(struct marks *mk);

/*
 * Read what is waiting (at most one buffer, so a flood cannot hold the
 * loop) and apply the marks at one reading of every device: a new one, or
 * the last reading when it ended less than its own duration ago.
 */
void	marks_read(struct run *run);

/* After the last reading: apply what is left, and end the open phases there. */
void	marks_finish(struct run *run);

#endif
