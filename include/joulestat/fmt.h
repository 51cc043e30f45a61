/*
 * Formatting shared by the output forms: the text, CSV and JSON emitters
 * in src/out/ and joulestat merge's in src/merge/mergeout.c.
 */
#ifndef JOULESTAT_FMT_H
#define JOULESTAT_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* "12.345 J", "12.345 kJ", "1.234 MJ": energy given in millijoules. */
void	fmt_energy(char *buf, size_t size, double mj);
/* The same with its bound in the same unit: "1231.400 J ± 0.600". */
void	fmt_energy_bounded(char *buf, size_t size, double mj, double err_mj);

/*
 * unix_ns as RFC 3339 in the local time zone, to the second, with the
 * zone's offset: "2026-11-23T16:09:13+01:00" ("Z" never: UTC is "+00:00").
 * "" when the time cannot be converted.
 */
void	fmt_rfc3339(char *buf, size_t size, int64_t unix_ns);

/*
 * A JSON string of s, made valid UTF-8 (each byte outside a well-formed
 * sequence becomes U+FFFD); null for NULL or "".  NULL when out of memory.
 */
json_t	*fmt_json_text(const char *s);

/* Set key in o to v, which it takes over; -1 when either is NULL (out of memory). */
int	fmt_json_put(json_t *o, const char *key, json_t *v);

/*
 * Write root to f as joulestat writes JSON (two-space indent, keys in
 * insertion order, reals with 15 significant digits) and a newline, and
 * flush.  Returns 0 or -errno.  root stays the caller's.
 */
int	fmt_json_dump(FILE *f, json_t *root);

/* One field of a CSV row: empty (unknown), text, an integer or a real. */
enum fmt_kind { FMT_EMPTY, FMT_TEXT, FMT_INT, FMT_REAL };

struct fmt_cell {
	enum fmt_kind	 kind;
	const char	*text;
	int64_t		 i;
	double		 r;
	int		 prec;		/* decimals of a real */
};

void	fmt_cell_int(struct fmt_cell *c, int64_t v);
void	fmt_cell_real(struct fmt_cell *c, double v, int prec);
/* Text; NULL or "" leaves the field empty. */
void	fmt_cell_text(struct fmt_cell *c, const char *s);

/*
 * Write one field: text through libcsv's quoting, numbers in the C locale
 * without separators, nothing for an empty one.
 */
void	fmt_cell_write(FILE *f, const struct fmt_cell *c);

#endif
