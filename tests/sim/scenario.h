/*
 * What the two halves of the scenario parser share, and nothing else
 * includes:
 *
 *	scenario.c	the reader: lines, the keyword table, values, the
 *			device and its properties
 *	scenario_time.c	what happens over time: phases, processes, faults
 */
#ifndef NVSIM_SCENARIO_H
#define NVSIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvsim.h"

/* Hidden from the dynamic table, as nvsim.h's. */
#pragma GCC visibility push(hidden)

#define MAXARGS		32
#define MAX_WATTS	100000.0
#define MAX_MS		(24ull * 3600 * 1000)	/* a scenario longer than a day is a typo */
#define MIB		(1024ull * 1024)

struct parser {
	const char	*path;
	unsigned	 line;
	struct scenario	*sc;
	struct simdev	*dev;			/* the current device block */
	int64_t		 prev_end;		/* where the last phase ends; -1 if open */
	unsigned	 phase_line;		/* line of the last phase */
	unsigned	 dev_line;		/* line of the current "device" */
	bool		 is_ramp_open;		/* last phase ramps without a known end */
	char		*err;
};

typedef int (*kw_fn)(struct parser *, int, char **);

struct keyword {
	const char	*name;
	kw_fn		 fn;
	bool		 in_device;		/* else global: before any device */
	int		 min_args;
	int		 max_args;
};

/* "file:line: reason" into the parser's error; returns -1. */
int	scn_perr(struct parser *p, const char *fmt, ...);
/* Append one zeroed element to a growing array; NULL when out of memory. */
void	*scn_append(void *vp, size_t *n, size_t size);
/* Values of a keyword's arguments, each within its range; -1 after scn_perr. */
int	scn_parse_num(struct parser *p, const char *what, const char *s, int base,
		    unsigned long long max, unsigned long long *v);
int	scn_parse_uint(struct parser *p, const char *what, const char *s, unsigned max, unsigned *v);
int	scn_parse_ms(struct parser *p, const char *what, const char *s, int64_t *v);
int	scn_parse_watts(struct parser *p, const char *s, double *w);
int	scn_parse_word(struct parser *p, const char *what, const char *s, const char *const *words);
/* Split "key=value" in place; value is NULL when there is no '='. */
char	*scn_split_kv(char *arg);

/* A ramp without dur= ends where the next phase starts (-1: the device's end). */
int	scn_phase_close_ramp(struct parser *p, int64_t next_start);

/* The keywords of scenario_time.c (tests/sim/README). */
int	scn_kw_phase(struct parser *p, int argc, char **argv);
int	scn_kw_tree(struct parser *p, int argc, char **argv);
int	scn_kw_proc(struct parser *p, int argc, char **argv);
int	scn_kw_proccount(struct parser *p, int argc, char **argv);
int	scn_kw_vgpu(struct parser *p, int argc, char **argv);
int	scn_kw_lost(struct parser *p, int argc, char **argv);
int	scn_kw_reset(struct parser *p, int argc, char **argv);
int	scn_kw_slow(struct parser *p, int argc, char **argv);
int	scn_kw_fail(struct parser *p, int argc, char **argv);
int	scn_kw_notsupported(struct parser *p, int argc, char **argv);

#pragma GCC visibility pop

#endif
