/*
 * Small formatting pieces that more than one output form needs: energy in
 * words for people, strings made fit for JSON, and CSV fields.  Kept apart from the
 * emitters so that joulestat merge and the fuzz targets can use them
 * without the whole report.
 */
#include "joulestat/fmt.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "joulestat/util.h"

/* U+FFFD REPLACEMENT CHARACTER, in UTF-8. */
static const char utf8_replacement[] = "\xef\xbf\xbd";

void
fmt_rfc3339(char *buf, size_t size, int64_t unix_ns)
{
	time_t		t = (time_t)(unix_ns / 1000000000);
	struct tm	tm;
	long		off;

	if (size == 0)
		return;
	buf[0] = '\0';
	if (localtime_r(&t, &tm) == NULL)
		return;
	off = tm.tm_gmtoff / 60;
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d%c%02ld:%02ld", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, off < 0 ? '-' : '+',
	    labs(off) / 60, labs(off) % 60);
}

/* The unit an energy of mj is written in: its word and its size in J. */
static const char *
energy_unit(double mj, double *scale)
{
	double	j = mj / 1000;

	*scale = j >= 1e6 ? 1e6 : j >= 1e4 ? 1e3 : 1;
	return j >= 1e6 ? "MJ" : j >= 1e4 ? "kJ" : "J";
}

void
fmt_energy(char *buf, size_t size, double mj)
{
	double		 scale;
	const char	*unit = energy_unit(mj, &scale);

	snprintf(buf, size, "%.3f %s", mj / 1000 / scale, unit);
}

void
fmt_energy_bounded(char *buf, size_t size, double mj, double err_mj)
{
	double		 scale;
	const char	*unit = energy_unit(mj, &scale);

	snprintf(buf, size, "%.3f %s ± %.3f", mj / 1000 / scale, unit, err_mj / 1000 / scale);
}

/*
 * Unicode 15.0, table 3-7: the well-formed UTF-8 byte sequences, by their
 * first byte.  The second byte has its own range (this is what excludes
 * overlong forms, surrogates and code points above U+10FFFF); any further
 * bytes are 80..BF.
 */
struct utf8_form {
	unsigned char	lead_lo, lead_hi;
	unsigned char	next_lo, next_hi;
	size_t		len;
};

static const struct utf8_form utf8_forms[] = {
	{ 0x00, 0x7f, 0x00, 0x00, 1 },
	{ 0xc2, 0xdf, 0x80, 0xbf, 2 },
	{ 0xe0, 0xe0, 0xa0, 0xbf, 3 },
	{ 0xe1, 0xec, 0x80, 0xbf, 3 },
	{ 0xed, 0xed, 0x80, 0x9f, 3 },
	{ 0xee, 0xef, 0x80, 0xbf, 3 },
	{ 0xf0, 0xf0, 0x90, 0xbf, 4 },
	{ 0xf1, 0xf3, 0x80, 0xbf, 4 },
	{ 0xf4, 0xf4, 0x80, 0x8f, 4 },
};

/* The length of the well-formed sequence at s, n bytes long at most; 0 if none. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	const struct utf8_form	*u;
	size_t			 i, k;

	for (i = 0; i < ARRAY_SIZE(utf8_forms); i++) {
		u = &utf8_forms[i];
		if (s[0] < u->lead_lo || s[0] > u->lead_hi)
			continue;
		if (u->len > n || (u->len > 1 && (s[1] < u->next_lo || s[1] > u->next_hi)))
			return 0;
		for (k = 2; k < u->len; k++) {
			if (s[k] < 0x80 || s[k] > 0xbf)
				return 0;
		}
		return u->len;
	}
	return 0;
}

json_t *
fmt_json_text(const char *s)
{
	const unsigned char	*in = (const unsigned char *)s;
	json_t			*v;
	char			*buf;
	size_t			 len, i, k, n = 0;

	if (s == NULL || s[0] == '\0')
		return json_null();
	len = strlen(s);
	if (len > (SIZE_MAX - 1) / 3 || (buf = malloc(3 * len + 1)) == NULL)
		return NULL;
	for (i = 0; i < len; i += k) {
		if ((k = utf8_len(in + i, len - i)) > 0) {
			memcpy(buf + n, in + i, k);
			n += k;
		} else {
			memcpy(buf + n, utf8_replacement, 3);
			n += 3;
			k = 1;
		}
	}
	v = json_stringn(buf, n);
	free(buf);
	return v;
}


void
fmt_cell_int(struct fmt_cell *c, int64_t v)
{
	c->kind = FMT_INT;
	c->i = v;
}

void
fmt_cell_real(struct fmt_cell *c, double v, int prec)
{
	c->kind = FMT_REAL;
	c->r = v;
	c->prec = prec;
}

void
fmt_cell_text(struct fmt_cell *c, const char *s)
{
	c->kind = s != NULL && s[0] != '\0' ? FMT_TEXT : FMT_EMPTY;
	c->text = s;
}

void
fmt_cell_write(FILE *f, const struct fmt_cell *c)
{
	switch (c->kind) {
	case FMT_EMPTY: break;
	case FMT_TEXT: csv_fwrite(f, c->text, strlen(c->text)); break;
	case FMT_INT: fprintf(f, "%" PRId64, c->i); break;
	case FMT_REAL: fprintf(f, "%.*f", c->prec, c->r); break;
	}
}

int
fmt_json_put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) == 0 ? 0 : -1;
}

/*
 * 15 significant digits (DBL_DIG): as many as a double holds exactly in
 * decimal, so 0.1 prints as 0.1 and not 0.10000000000000001, and every
 * nanosecond of a run shorter than eleven days survives in seconds.
 */
int
fmt_json_dump(FILE *f, json_t *root)
{
	errno = 0;
	if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(15)) != 0 || fputc('\n', f) == EOF)
		return -(errno != 0 ? errno : EIO);
	return flush_status(f);
}
