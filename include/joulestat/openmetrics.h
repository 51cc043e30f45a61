/*
 * The metrics of a run (--openmetrics) in the Prometheus text exposition
 * format, with OpenMetrics names (base units, _total on counters) and
 * # UNIT lines, for node_exporter's textfile collector and the
 * Pushgateway; drawn from the JSON report (doc.h).
 */
#ifndef JOULESTAT_OPENMETRICS_H
#define JOULESTAT_OPENMETRICS_H

#include <stdio.h>

#include <jansson.h>

/* Write the metrics of doc (checked by doc_check) to f.  0, or -errno when writing failed. */
int	openmetrics_write(FILE *f, const json_t *doc);

#endif
