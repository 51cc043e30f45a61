/*
 * Formatting shared by the output forms (report.c, jsonout.c, mergeout.c).
 */
#ifndef JOULESTAT_FMT_H
#define JOULESTAT_FMT_H

#include <stddef.h>

#include <jansson.h>

/* "12.345 J", "12.345 kJ", "1.234 MJ": energy given in millijoules. */
void	fmt_energy(char *buf, size_t size, double mj);

/*
 * A JSON string of s, made valid UTF-8 (each byte outside a well-formed
 * sequence becomes U+FFFD); null for NULL or "".  NULL when out of memory.
 */
json_t	*fmt_json_text(const char *s);

#endif
