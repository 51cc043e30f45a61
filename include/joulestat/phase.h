/*
 * Phases the workload marks (src/measure/phase.c): each open phase keeps
 * its own accounting of every device, fed the same readings as the run's,
 * from the reading taken at its first mark to the one taken at its last;
 * so its counter energy is the counter's delta between those two readings
 * and its P-state split is made exactly as the run's.  The workload's
 * attributed energy and the tree's CPU time of a phase are the changes of
 * the run's figures between the two readings.  See HACKING.md, "Phases".
 */
#ifndef JOULESTAT_PHASE_H
#define JOULESTAT_PHASE_H

#include <stdbool.h>
#include <stdint.h>

#include "joulestat/account.h"
#include "joulestat/markline.h"
#include "joulestat/source.h"

/* How deep begin/end may nest; deeper marks are counted and ignored. */
#define PHASES_DEPTH_MAX	16
/* Occurrences kept per run; later ones are counted as dropped. */
#define PHASES_OCC_MAX		10000

/* One device over one occurrence of a phase. */
struct phase_dev {
	enum energy_method	method;		/* ENERGY_NONE: no energy measured */
	double			energy_mj;
	double			energy_err_mj;	/* its bound, as the run's (account.h) */
	int64_t			first_ns;	/* the first and last valid readings of the energy's source */
	int64_t			last_ns;	/* in the phase: what energy_mj spans */
	int64_t			measured_ns;	/* the time energy_mj covers */
	int64_t			span_ns;	/* first to last reading in the phase, lost ones too */
	bool			is_partial;	/* measured_ns < span_ns, by the run's rule */
	bool			has_peak;
	uint32_t		peak_mw;
	int64_t			state_ns[ACCOUNT_NSTATES];
	double			state_mj[ACCOUNT_NSTATES];
	int64_t			state_err_ns[ACCOUNT_NSTATES];	/* their bounds */
	double			state_err_mj[ACCOUNT_NSTATES];
	double			attrib_a_mj;	/* the workload's, see attrib_energy */
	double			attrib_b_ns;
	bool			has_attrib;
};

/* One occurrence of a phase, from its first mark to its end. */
struct phase_occ {
	char			name[MARK_NAME_MAX + 1];
	unsigned		depth;		/* 0: not inside another phase */
	int64_t			begin_ns;	/* CLOCK_MONOTONIC of its readings */
	int64_t			end_ns;
	int64_t			user_ns;	/* the tree's CPU time, as sampled */
	int64_t			sys_ns;
	bool			is_open_at_end;	/* ended by the end of the run */
	struct phase_dev	*devs;		/* ndev */
};

/*
 * The run's figures at the reading a mark shares: CLOCK_MONOTONIC, the
 * tree's CPU time, and per device its current sample, its counter range
 * and the workload's attribution totals so far (attrib.h).
 */
struct phase_point {
	int64_t			 t_ns;
	int64_t			 user_ns;
	int64_t			 sys_ns;
	const struct sample	*const *cur;	/* ndev; NULL for a device not read */
	const uint64_t		*range_mj;
	const double		*attrib_a_mj;
	const double		*attrib_b_ns;
};

struct phase_open {
	char			 name[MARK_NAME_MAX + 1];
	bool			 is_phase;	/* begun by "phase NAME" */
	int64_t			 begin_ns;
	int64_t			 user0_ns;
	int64_t			 sys0_ns;
	struct dev_acct		*acct;		/* ndev */
	double			*attrib_a0_mj;
	double			*attrib_b0_ns;
};

struct phases {
	size_t			 ndev;
	struct phase_open	 open[PHASES_DEPTH_MAX];
	size_t			 nopen;
	struct phase_occ	*occ;
	size_t			 nocc;
	uint64_t		 marks;		/* lines read, good or bad */
	uint64_t		 bad;		/* lines that were not marks, ends of nothing */
	char			 first_bad[96];	/* the first bad line's cause */
	uint64_t		 dropped;	/* past PHASES_DEPTH_MAX or PHASES_OCC_MAX */
};

void	phases_init(struct phases *ph, size_t ndev);
void	phases_free(struct phases *ph);

/* A bad line (or an end of nothing): counted, and the first cause kept. */
void	phases_bad(struct phases *ph, const char *why);

/* Apply mark m at point pt (the reading it shares). */
void	phases_mark(struct phases *ph, const struct mark *m, const struct phase_point *pt);

/*
 * Every reading of device gdev goes to the open phases too, with what the
 * run's accounting of that device, dev, knows of it (its power kind and
 * counter step).
 */
void	phases_reading(struct phases *ph, size_t gdev, const struct sample *s, uint64_t range_mj,
	    const struct dev_acct *dev);

/* The end of the run: every open phase ends at pt. */
void	phases_end_all(struct phases *ph, const struct phase_point *pt);

/* The name of the innermost open phase, or NULL. */
const char *phases_current(const struct phases *ph);

#endif
