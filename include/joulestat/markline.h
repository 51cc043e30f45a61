/*
 * One line of the phase-mark protocol (src/lib/markline.c): what a
 * workload writes to $JOULESTAT_MARK, or "joulestat mark" for it.  See the
 * man page, PHASES.
 */
#ifndef JOULESTAT_MARKLINE_H
#define JOULESTAT_MARKLINE_H

#include <stdbool.h>
#include <stddef.h>

/* The longest phase name, in bytes. */
#define MARK_NAME_MAX	63

enum mark_kind {
	MARK_PHASE,	/* "phase NAME": the phase the last such line began ends, NAME begins */
	MARK_BEGIN,	/* "begin NAME": NAME begins inside whatever is open */
	MARK_END,	/* "end NAME" or "end": the innermost NAME, or innermost phase, ends */
};

struct mark {
	enum mark_kind	kind;
	char		name[MARK_NAME_MAX + 1];	/* "" for a bare "end" */
};

/*
 * Parse one line of LEN bytes (without its newline; a trailing '\r' is
 * allowed).  Returns 0, or -1 with a short cause in *why for a line that
 * is not a mark.
 */
int	markline_parse(const char *line, size_t len, struct mark *m, const char **why);

/* Whether NAME could be a phase name (the rule markline_parse applies). */
bool	markline_is_name(const char *name, size_t len);

#endif
