/*
 * Numbers with a unit suffix on the command line: "10kJ", "0.5Wh",
 * "2m", "100ms", "250W".  The one parser of them; the man page lists the
 * suffixes (UNITS).  A number without a suffix is in the option's own
 * unit, as it always was.
 */
#ifndef JOULESTAT_UNITS_H
#define JOULESTAT_UNITS_H

enum unit_kind {
	UNIT_JOULES,	/* mJ J kJ MJ Wh kWh */
	UNIT_SECONDS,	/* ns us ms s m min h */
	UNIT_WATTS,	/* mW W kW */
};

/*
 * s as a decimal number (parse_double's syntax) followed by nothing or by
 * one suffix of kind, into *out in the base unit (J, s or W); a number
 * without a suffix is multiplied by bare (1 when the option's unit is the
 * base unit, 0.001 for milliseconds).  Returns 0, or -1 for anything else
 * (an unknown suffix, a space before it, another kind's suffix).
 */
int	parse_quantity(const char *s, enum unit_kind kind, double bare, double *out);

#endif
