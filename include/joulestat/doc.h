/*
 * The JSON report (jsonout.h) as the forms drawn from it read it: the
 * Markdown summary, JUnit XML, the metrics text and the CI annotations
 * take this document, whether it was just built from a run or read back
 * from a --json file by `joulestat report`, so both give the same text.
 */
#ifndef JOULESTAT_DOC_H
#define JOULESTAT_DOC_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "joulestat/util.h"

/*
 * Is doc a report of this joulestat's JSON schema: an object with the
 * schema_version it writes, a non-empty "runs" array of objects and a
 * "gates" array?  0, or -1 with the first problem in err.
 */
int	doc_check(const json_t *doc, struct errbuf *err);

/* Member key of o as a number (integer or real): true with *v; false when null or absent. */
bool	doc_real(const json_t *o, const char *key, double *v);

/* Member key of o as a string, or NULL. */
const char *doc_text(const json_t *o, const char *key);

/* Member key of o as an array, or NULL, which json_array_foreach takes as empty. */
const json_t *doc_array(const json_t *o, const char *key);

/* Did every gate of doc pass?  The number that failed. */
size_t	doc_failed_gates(const json_t *doc);

/*
 * How a gate compares: "<=" for a ceiling, ">=" for a floor, from the
 * gate's "comparison" member.
 */
const char *doc_gate_comparison(const json_t *gate);

#endif
