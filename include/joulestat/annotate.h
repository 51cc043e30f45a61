/*
 * Failed gates as GitHub Actions workflow commands ("::error title=...::..."),
 * which the runner turns into annotations of the job; drawn from the JSON
 * report (doc.h).  Elsewhere the plain form is the "gate failed: ..." line
 * of gate_failure_line (gate.h) on standard error.
 */
#ifndef JOULESTAT_ANNOTATE_H
#define JOULESTAT_ANNOTATE_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

/* Is joulestat running as a GitHub Actions step (GITHUB_ACTIONS is "true")? */
bool	annotate_is_github(const char *github_actions);

/* One ::error line on f for each gate of doc that failed.  0, or -errno. */
int	annotate_github(FILE *f, const json_t *doc);

#endif
