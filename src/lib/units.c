/*
 * The unit suffixes of units.h.  The number goes through parse_double, so
 * every option keeps the one number syntax (decimal, no exponent, no hex);
 * the suffix is matched whole and case-sensitively ("mW" is not "MW").
 */
#include "joulestat/units.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"

struct suffix {
	const char	*name;
	double		 scale;		/* in the base unit */
};

static const struct suffix joules[] = {
	{ "mJ", 1e-3 }, { "J", 1 }, { "kJ", 1e3 }, { "MJ", 1e6 },
	{ "Wh", 3600 }, { "kWh", 3.6e6 },
};

static const struct suffix seconds[] = {
	{ "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
	{ "m", 60 }, { "min", 60 }, { "h", 3600 },
};

static const struct suffix watts[] = {
	{ "mW", 1e-3 }, { "W", 1 }, { "kW", 1e3 },
};

static const struct {
	const struct suffix	*v;
	size_t			 n;
} kinds[] = {
	[UNIT_JOULES] = { joules, ARRAY_SIZE(joules) },
	[UNIT_SECONDS] = { seconds, ARRAY_SIZE(seconds) },
	[UNIT_WATTS] = { watts, ARRAY_SIZE(watts) },
};

int
parse_quantity(const char *s, enum unit_kind kind, double bare, double *out)
{
	const char	*p;
	char		*num;
	double		 v, scale = bare;
	size_t		 i, len;
	int		 rc;

	if (s == NULL)
		return -1;
	for (p = s + strlen(s); p > s && isalpha((unsigned char)p[-1]); p--)
		;
	if (*p != '\0') {
		for (i = 0; i < kinds[kind].n && strcmp(p, kinds[kind].v[i].name) != 0; i++)
			;
		if (i == kinds[kind].n)
			return -1;
		scale = kinds[kind].v[i].scale;
	}
	len = (size_t)(p - s);
	num = xmalloc(len + 1);
	memcpy(num, s, len);
	num[len] = '\0';
	rc = parse_double(num, &v);
	free(num);
	if (rc != 0 || !isfinite(v * scale))
		return -1;
	*out = v * scale;
	return 0;
}
