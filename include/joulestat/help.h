#ifndef JOULESTAT_HELP_H
#define JOULESTAT_HELP_H

#include <popt.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * The options of TABLE in their groups: an entry of kind
 * POPT_ARG_INCLUDE_TABLE with a description is a group heading.  IS_FULL
 * prints whole descriptions, else the first line of each.
 */
void	help_print_options(FILE *f, const struct poptOption *table, bool is_full);

/* TEXT wrapped at 79 columns; a line that starts with a space is kept as it is. */
void	help_print_text(FILE *f, const char *text);

/* What popt says of the option it stopped at (rc < -1): "--x: unknown option". Returns buf. */
const char *help_popt_error(poptContext ctx, int rc, char *buf, size_t size);

/*
 * A usage error of the command named WORD ("merge"; NULL for the run
 * command): MSG in one line, then USAGE; returns the exit status, EXIT_TOOL.
 */
int	help_usage_error(const char *word, const char *usage, const char *msg);

#endif
