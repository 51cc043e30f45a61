/*
 * The summary CSV (--csv), written only through libcsv's quoting: a
 * header row, the documented column order of schema.h, the same field
 * count on every row, C-locale numbers, and an empty field for unknown.
 */
#ifndef JOULESTAT_CSVOUT_H
#define JOULESTAT_CSVOUT_H

#include <stdbool.h>
#include <stdio.h>

#include "joulestat/gate.h"
#include "joulestat/report.h"

/*
 * The summary: for each run one "run" row, then per device one "device"
 * row, one "pstate" row per P-state seen and one "process" row per
 * workload process; the "run" column numbers the runs.  With n > 1, rows
 * whose "run" is "mean", "stddev", "median", "min", "max" and "n" follow,
 * from series; then one "gate" row per gate of gates (may be NULL), with
 * an empty "run".  sep separates fields (a string, usually ",").  With
 * is_long, each of those rows becomes one row per figure it has, in the
 * columns of LONG_COLUMNS (schema.h).  Returns 0, or -errno when writing
 * failed.
 */
int	csvout_summary(FILE *f, const struct report *reps, size_t n,
	    const struct series *series, const struct gate_set *gates, const char *sep,
	    bool is_long);

/* Write one text field, quoted by libcsv when it holds anything. */
int	csvout_text(FILE *f, const char *s);

#endif
