/*
 * Pure parsers and arithmetic of the RAPL backend (rapl.c; HACKING.md, "Measurement rules"):
 * powercap values, zone names, and the unwrapping of energy_uj with
 * max_energy_range_uj.  No file access, so they can be unit-tested and
 * fuzzed with strings copied from real machines.
 */
#ifndef JOULESTAT_RAPL_PARSE_H
#define JOULESTAT_RAPL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* What a powercap zone's name says it measures. */
enum rapl_kind {
	RAPL_PACKAGE,		/* "package-N" or "package-N-die-D" */
	RAPL_DRAM,		/* "dram" */
	RAPL_CORE,		/* "core": part of the package */
	RAPL_UNCORE,		/* "uncore": part of the package */
	RAPL_PSYS,		/* "psys": the whole platform, overlaps the others */
	RAPL_OTHER,
};

struct rapl_name {
	enum rapl_kind	 kind;
	unsigned	 package;	/* RAPL_PACKAGE */
	int		 die;		/* RAPL_PACKAGE: -1 when the name has none */
};

/*
 * Parse the text of a zone's name file ("package-0\n").  Returns 0 (kind
 * RAPL_OTHER for names we do not know), or -EINVAL for an empty name or a
 * package name with trailing garbage.
 */
int	rapl_parse_name(const char *text, struct rapl_name *out);

/*
 * A powercap value: one unsigned decimal number (64 bits) with at most
 * one trailing newline.  0, -EINVAL or -ERANGE.
 */
int	rapl_parse_value(const char *text, uint64_t *out);

/*
 * Energy in µJ between two readings of a counter that wraps to 0 above
 * range_uj (max_energy_range_uj): cur - prev, or range_uj - prev + cur
 * when cur < prev.  range_uj 0 means no wrap is known: a decrease is then
 * 0 (a reset).  A value above the range is treated the same way.
 */
uint64_t rapl_unwrap(uint64_t prev, uint64_t cur, uint64_t range_uj);

/*
 * The longest time between two readings that still cannot miss a wrap,
 * with a safety factor of two: range_uj / (2 * max_power_uw), in ns.
 * Returns 0 when either is 0 (unknown).
 */
int64_t	rapl_max_gap_ns(uint64_t range_uj, uint64_t max_power_uw);

#endif
