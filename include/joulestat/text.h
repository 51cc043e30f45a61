/*
 * The human report (text.c), like time(1) and perf stat: what a person
 * reads on standard error or in -o FILE.  Its layout is not a schema;
 * scripts read the CSV or the JSON.
 */
#ifndef JOULESTAT_TEXT_H
#define JOULESTAT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "joulestat/report.h"

/*
 * The report of one run, or with n > 1 the summary of a series (series
 * from report_series).  Returns 0, or -errno when writing failed.
 */
int	report_write_text(FILE *f, const struct report *reps, size_t n,
	    const struct series *series);

/* "killed by SIGTERM (signal 15)", "7", "not found: ...": the outcome in words. */
/* The phase table (phasetext.c); nothing when the workload marked none. */
void	report_write_phases_text(FILE *f, const struct report *rep);

void	report_outcome_text(const struct report *rep, char *buf, size_t size);

/* How an energy was obtained, in the report's words: "counter", "integrated from readings". */
const char *text_method_name(enum energy_method m);

#endif
