/*
 * Each P-state's power estimated from the energy counter, for splitting a
 * changing interval's counter delta when the power readings cannot place
 * the change (HACKING.md, "Measurement rules", P-states): averaged power
 * is nearly the same at both ends of a short interval.  Pure arithmetic.
 */
#ifndef JOULESTAT_STATEPOWER_H
#define JOULESTAT_STATEPOWER_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The intervals that stood for one state: the counter's energy and time
 * they cover, and the lowest and highest mean power of one of them, each
 * widened by the counter's quantum at both of its ends.
 */
struct state_power {
	double		mj;
	double		s;
	double		lo_mw;
	double		hi_mw;
	uint64_t	n;
};

/* Add an interval of h_s seconds in the state whose counter delta was e_mj. */
void	statepower_add(struct state_power *sp, double e_mj, double h_s);

/* The state's mean power over its intervals (mW), or -1 without any. */
double	statepower_mw(const struct state_power *sp);

/*
 * The crossing rule: e (mJ) over h seconds, power pa before the state
 * changed and pb after (mW, pa != pb), gives e = h (f pa + (1 - f) pb), the
 * crossing at f h and the first state's part f h pa, which is returned
 * (f kept within the interval).  *out_mj, when out_mj is not NULL, is how
 * much energy a crossing outside the interval would have moved.
 */
double	statepower_part(double e, double h, double pa, double pb, double *out_mj);

/*
 * The part of counter energy e_mj of an interval of h_s seconds that
 * belongs to state a at its start, before it changed once to state b:
 * e = h (f Pa + (1 - f) Pb) with each state's estimated power gives the
 * crossing f h and the part f h Pa.  *err bounds it for any power within
 * each state's range (plus a fiftieth for a power never seen), the
 * counter's quantum, the readings' time read_s, and a crossing outside
 * the interval; never more than all or none of e.  False, with nothing
 * set, when a state has no estimate or the two ranges overlap (the
 * counter cannot tell them apart).
 */
bool	statepower_split(const struct state_power *a, const struct state_power *b, double e_mj,
	    double h_s, double read_s, double *ea_mj, double *err_mj);

/*
 * A changing interval split before both of its states had an estimate,
 * kept to be split again at the end of the run by the estimates then.
 */
struct split_later {
	double		e_mj, h_s, read_s;
	double		ea_mj, err_mj;	/* the part given to state a, and its bound */
	int		a, b;		/* the states at its start and at its end */
};

/* How many such intervals a device keeps: the first ones of a run. */
#define STATEPOWER_LATER	16

/*
 * Split l again by est[] (indexed by state); on success l holds the new
 * part and bound, and *d_ea and *d_err how much they grew.
 */
bool	statepower_resplit(const struct state_power *est, struct split_later *l, double *d_ea,
	    double *d_err);

#endif
