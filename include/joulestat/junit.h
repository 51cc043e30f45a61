/*
 * JUnit XML of a run (--junit): one test suite for the command's runs,
 * one test case per gate, the energy figures as properties; drawn from
 * the JSON report (doc.h).
 */
#ifndef JOULESTAT_JUNIT_H
#define JOULESTAT_JUNIT_H

#include <stdio.h>

#include <jansson.h>

/* Write doc (checked by doc_check) as JUnit XML to f.  0, or -errno when writing failed. */
int	junit_write(FILE *f, const json_t *doc);

#endif
