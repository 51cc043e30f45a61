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
 * The document {"schema_version": 1, "runs": [ one object per report ],
 * "series": the summary of -r or null, "gates": [ one object per gate ]}
 * that --json writes (fmt_json_dump) and the forms drawn from it read
 * (markdown.h, junit.h, openmetrics.h, annotate.h, as `joulestat report`
 * reads a --json file); the keys are listed in the man page (JSON).
 * Strings are made valid UTF-8: each byte that is not part of a
 * well-formed UTF-8 sequence becomes U+FFFD.  Non-finite reals are null.
 * The caller owns it (json_decref); NULL when memory ran out.
 */
json_t	*jsonout_build(const struct report *reps, size_t nreps, const struct series *series,
	    const struct gate_set *gates);

/*
 * A device's identity keys, as every device object of joulestat's JSON
 * has them (the run report's, --list-devices --json): index, id, name,
 * bus_id, versions, architecture, backend, backend_index, power_kind.
 * Returns 0, or -1 when memory ran out.
 */
int	jsonout_put_identity(json_t *o, const struct device *dev, const char *backend);

/* A device's notes, an array of strings; NULL when memory ran out. */
json_t	*jsonout_notes(const char (*notes)[DEVICE_NOTE_LEN], unsigned nnotes);

#endif
