/*
 * Small formatting pieces that more than one output form needs: energy in
 * words for people, and strings made fit for JSON.  Kept apart from the
 * emitters so that joulestat merge and the fuzz targets can use them
 * without the whole report.
 */
#include "joulestat/fmt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"

/* U+FFFD REPLACEMENT CHARACTER, in UTF-8. */
static const char utf8_replacement[] = "\xef\xbf\xbd";

void
fmt_energy(char *buf, size_t size, double mj)
{
	double	j = mj / 1000;

	if (j >= 1e6)
		snprintf(buf, size, "%.3f MJ", j / 1e6);
	else if (j >= 1e4)
		snprintf(buf, size, "%.3f kJ", j / 1e3);
	else
		snprintf(buf, size, "%.3f J", j);
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

