/*
 * The Markdown summary of a run (--markdown): GitHub Flavored Markdown
 * tables of the runs, their devices, the statistics of -r and the gates,
 * drawn from the JSON report (doc.h).
 */
#ifndef JOULESTAT_MARKDOWN_H
#define JOULESTAT_MARKDOWN_H

#include <stdio.h>

#include <jansson.h>

/* Write the summary of doc (checked by doc_check) to f.  0, or -errno when writing failed. */
int	markdown_write(FILE *f, const json_t *doc);

#endif
