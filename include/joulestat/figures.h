/*
 * The figures of the machine-readable outputs, one table row each: its
 * summary CSV column, its JSON key and object, where it is in struct
 * report, its unit scale and decimals, and what makes it known.  The
 * CSV (csvout.c) and the JSON (jsonout.c) both walk these tables, so a
 * figure is added to both by one row here (and its column in schema.h
 * and the man page).  HACKING.md, "Adding a vendor, a figure or an
 * option", says how.
 */
#ifndef JOULESTAT_FIGURES_H
#define JOULESTAT_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/report.h"
#include "joulestat/schema.h"

/* The C type of a figure in its struct, found by FIGURE_TYPE so a table cannot get it wrong. */
enum figure_type {
	FIGURE_BOOL,
	FIGURE_INT,
	FIGURE_USHORT,
	FIGURE_UINT,
	FIGURE_LONG,
	FIGURE_ULONG,
	FIGURE_LLONG,
	FIGURE_ULLONG,
	FIGURE_DOUBLE,
};

#define FIGURE_TYPE(x)	_Generic((x), bool: FIGURE_BOOL, int: FIGURE_INT,		\
	    unsigned short: FIGURE_USHORT, unsigned: FIGURE_UINT, long: FIGURE_LONG,	\
	    unsigned long: FIGURE_ULONG, long long: FIGURE_LLONG,			\
	    unsigned long long: FIGURE_ULLONG, double: FIGURE_DOUBLE)

/*
 * One figure of a struct (struct report, dev_report or state_report).
 * Its value is the member at off, or what real or word returns.  Known
 * flags are given as offset + 1 of a bool in the same struct, so that 0
 * (left out) means always known.
 */
struct figure {
	enum summary_col	 col;		/* CSV column; COL_NONE: JSON only */
	const char		*key;		/* JSON key; NULL: the column's name */
	const char		*group;		/* JSON object it sits in; NULL: the scope's own */
	size_t			 group_has;	/* offset + 1 of the bool that makes the group known */
	enum figure_type	 type;
	size_t			 off;
	double			 scale;		/* value / scale as a real; 0: an integer */
	int			 prec;		/* decimals in the CSV */
	size_t			 has;		/* offset + 1 of the bool that makes it known */
	/* A figure derived from the struct: false (unknown) or true with *v. */
	bool			(*real)(const void *base, double *v);
	/* A word of the schema ("" unknown). */
	const char		*(*word)(const void *base);
	/*
	 * A text made only when it is written, into buf ("" unknown); returns
	 * buf.  The CSV keeps one such text a row.
	 */
	const char		*(*text)(const void *base, char *buf, size_t size);
};

struct figure_table {
	const struct figure	*v;
	size_t			 n;
};

/* A struct report: the run's own figures, the attribution weights and the sampler's. */
extern const struct figure_table figures_run;
extern const struct figure_table figures_weights;
/* A struct report: its totals over the devices, and the metadata of the run. */
extern const struct figure_table figures_totals;
extern const struct figure_table figures_meta;
extern const struct figure_table figures_sampler;
/* A struct dev_report: before its P-states in JSON, and its attribution after them. */
extern const struct figure_table figures_device;
extern const struct figure_table figures_attrib;
/* A struct state_report. */
extern const struct figure_table figures_state;

/* A figure's value, or that it is unknown. */
enum figure_kind {
	FIGURE_UNKNOWN,
	FIGURE_IS_BOOL,
	FIGURE_IS_INT,
	FIGURE_IS_UINT,
	FIGURE_IS_REAL,
	FIGURE_IS_WORD,
};

struct figure_value {
	enum figure_kind	 kind;
	bool			 b;
	int64_t			 i;
	uint64_t		 u;
	double			 r;
	const char		*w;
	char			 buf[48];	/* where a figure's text is made */
};

/* True when f's group (if any) is known in the struct at base. */
bool	figure_group_known(const struct figure *f, const void *base);

/* The value of f in the struct at base, scaled; its group is not looked at. */
void	figure_get(const struct figure *f, const void *base, struct figure_value *v);

/* f's JSON key. */
const char *figure_key(const struct figure *f);

/* A statistic of a series (-r): its column (and JSON key) and where it is. */
struct stat_figure {
	enum summary_col	 col;
	size_t			 off;		/* of its struct series_stat */
	int			 prec;		/* decimals in the CSV */
	enum summary_col	 err_col;	/* its bound's column ... */
	size_t			 err_off;	/* ... and struct series_bound; 0: none */
};

struct stat_table {
	const struct stat_figure *v;
	size_t			  n;
};

/* In struct series, and in struct dev_series. */
extern const struct stat_table figures_series_run;
extern const struct stat_table figures_series_device;

#endif
