/*
 * The JSON form of the report (--json), built with jansson: one object
 * per run with every figure of struct report, null wherever the figure is
 * unknown (never 0), and a schema_version.  No measurement logic here.
 */
#ifndef JOULESTAT_JSONOUT_H
#define JOULESTAT_JSONOUT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "joulestat/gate.h"
#include "joulestat/report.h"

#define JSONOUT_SCHEMA_VERSION	1

/*
 * Write {"schema_version": 1, "runs": [ one object per report ], "series":
 * the summary of -r or null, "gates": [ one object per gate ]} to f,
 * indented, followed by a newline, and flush f; the keys are listed in the
 * man page (JSON).  Strings are made valid UTF-8: each byte that is not
 * part of a well-formed UTF-8 sequence is written as U+FFFD.  Non-finite
 * reals are null.  f stays open and owned by the caller.  Returns 0, or
 * -errno when memory ran out (-ENOMEM; nothing was written if it ran out
 * while the document was built) or writing failed (-EIO when errno does
 * not say).
 */
/*
 * The same document, for the forms drawn from it (markdown.h, junit.h,
 * openmetrics.h, annotate.h), which read it as `joulestat report` reads a
 * --json file.  The caller owns it (json_decref); NULL when memory ran out.
 */
json_t	*jsonout_build(const struct report *reps, size_t nreps, const struct series *series,
	    const struct gate_set *gates);

int	jsonout_write(FILE *f, const struct report *reps, size_t nreps,
	    const struct series *series, const struct gate_set *gates);

#endif
