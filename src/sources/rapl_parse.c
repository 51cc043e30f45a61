/*
 * Pure parsers and arithmetic for the RAPL backend (rapl_parse.h;
 * HACKING.md, "Measurement rules", Energy: deltas with wrap at
 * max_energy_range_uj).  No I/O.
 */
#include "rapl_parse.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "joulestat/util.h"

/* Zone names: drivers/powercap/intel_rapl_common.c (rapl_domain_names[]). */
static const char rapl_name_package[] = "package-";
static const char rapl_name_die[] = "-die-";

static const struct {
	const char	*name;
	enum rapl_kind	 kind;
} rapl_names[] = {
	{ "dram",	RAPL_DRAM },
	{ "core",	RAPL_CORE },
	{ "uncore",	RAPL_UNCORE },
	{ "psys",	RAPL_PSYS },
};

/* "N" or "N-die-D" after "package-". */
static int
rapl_parse_package(const char *s, struct rapl_name *out)
{
	char		 num[16];
	const char	*die = strstr(s, rapl_name_die);
	size_t		 len = die != NULL ? (size_t)(die - s) : strlen(s);
	uint64_t	 n, d;

	if (len == 0 || len >= sizeof num)
		return -EINVAL;
	memcpy(num, s, len);
	num[len] = '\0';
	if (parse_u64_range(num, 0, UINT32_MAX, &n) != 0)
		return -EINVAL;
	out->kind = RAPL_PACKAGE;
	out->package = (unsigned)n;
	out->die = -1;
	if (die == NULL)
		return 0;
	if (parse_u64_range(die + strlen(rapl_name_die), 0, INT32_MAX, &d) != 0)
		return -EINVAL;
	out->die = (int)d;
	return 0;
}

int
rapl_parse_name(const char *text, struct rapl_name *out)
{
	char	buf[64];
	size_t	i;

	if (copy_line(text, buf, sizeof buf) != 0)
		return -EINVAL;
	memset(out, 0, sizeof *out);
	out->die = -1;
	if (strncmp(buf, rapl_name_package, strlen(rapl_name_package)) == 0)
		return rapl_parse_package(buf + strlen(rapl_name_package), out);
	out->kind = RAPL_OTHER;
	for (i = 0; i < ARRAY_SIZE(rapl_names); i++) {
		if (strcmp(buf, rapl_names[i].name) == 0)
			out->kind = rapl_names[i].kind;
	}
	return 0;
}

int
rapl_parse_value(const char *text, uint64_t *out)
{
	return parse_u64_line(text, out);
}

uint64_t
rapl_unwrap(uint64_t prev, uint64_t cur, uint64_t range_uj)
{
	if (cur >= prev)
		return cur - prev;
	if (range_uj == 0 || prev > range_uj)
		return 0;
	/* The counter went past its top and started again from 0. */
	return range_uj - prev + cur;
}

int64_t
rapl_max_gap_ns(uint64_t range_uj, uint64_t max_power_uw)
{
	double	s;

	if (range_uj == 0 || max_power_uw == 0)
		return 0;
	s = (double)range_uj / (2.0 * (double)max_power_uw);
	if (s * 1e9 >= (double)INT64_MAX)
		return INT64_MAX;
	return (int64_t)(s * 1e9);
}
