/*
 * Reading joulestat's own CSV back (--baseline, joulestat merge): the
 * file through libcsv's parser into rows of fields, all at once or one row
 * at a time, the first row naming the columns.  Columns are found by name; the readers check row
 * lengths and the schema version (schema_check_summary in schema.h).
 */
#ifndef JOULESTAT_CSVIN_H
#define JOULESTAT_CSVIN_H

#include <stddef.h>

#include "joulestat/util.h"

#define CSVIN_MAX_BYTES		(256u << 20)

struct csvin_row {
	char	**f;
	size_t	  n;
	size_t	  line;			/* 1-based line where the row starts */
};

struct csvin {
	struct csvin_row	*rows;	/* rows[0] is the header */
	size_t			 nrows;
	size_t			 cap;
};

/*
 * Parse text[0..len) (strict: a stray quote is an error).  Returns 0, or
 * -1 with a one-line cause.  Release with csvin_free, also after -1.
 */
int	csvin_parse(struct csvin *t, const char *text, size_t len, struct errbuf *err);

/* Read path whole (at most CSVIN_MAX_BYTES) and parse it; causes name the file. */
int	csvin_load(struct csvin *t, const char *path, struct errbuf *err);

void	csvin_free(struct csvin *t);

/*
 * Streaming, for files too large to hold as rows: fn is called once with
 * the header alone (t->nrows 1), then once per row with t->rows[1] the
 * row at hand (t->nrows 2), which is freed when fn returns.  fn returns 0,
 * or nonzero to stop after setting err itself.  Returns 0 or -1.
 */
int	csvin_stream_text(const char *text, size_t len,
	    int (*fn)(const struct csvin *t, void *arg), void *arg, struct errbuf *err);
/* The file at path, read 64 KiB at a time (at most CSVIN_MAX_BYTES); causes name it. */
int	csvin_stream_file(const char *path, int (*fn)(const struct csvin *t, void *arg),
	    void *arg, struct errbuf *err);

/* The index of the header column called name, or -1. */
int	csvin_col(const struct csvin *t, const char *name);

/* Field col of row (row >= 1), or "" when the row is shorter or col is -1. */
const char *csvin_get(const struct csvin *t, size_t row, int col);

#endif
