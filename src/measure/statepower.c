/*
 * P-state power from the energy counter (statepower.h): the counter's
 * mean power over intervals that stood for one state, and the split of a
 * changing interval's delta at the crossing those powers imply.
 */
#include "joulestat/statepower.h"

#include <math.h>

#include "joulestat/account.h"
#include "joulestat/util.h"

void
statepower_add(struct state_power *sp, double e_mj, double h_s)
{
	double	m, q;

	if (!(h_s > 0) || e_mj < 0)
		return;
	m = e_mj / h_s;
	q = 2 * ACCOUNT_COUNTER_QUANTUM_MJ / h_s;
	if (sp->n == 0 || m - q < sp->lo_mw)
		sp->lo_mw = max_d(0, m - q);
	if (sp->n == 0 || m + q > sp->hi_mw)
		sp->hi_mw = m + q;
	sp->mj += e_mj;
	sp->s += h_s;
	sp->n++;
}

double
statepower_mw(const struct state_power *sp)
{
	return sp->n > 0 && sp->s > 0 ? sp->mj / sp->s : -1;
}

/* A power never seen in the state's intervals: a fiftieth beyond their range. */
#define STATEPOWER_MARGIN	0.02

double
statepower_part(double e, double h, double pa, double pb, double *out_mj)
{
	double	raw = (pb - e / h) / (pb - pa), f = min_d(1, max_d(0, raw));

	if (out_mj != NULL)
		*out_mj = fabs(raw - f) * h * fabs(pb - pa);
	return min_d(e, f * h * pa);
}

bool
statepower_split(const struct state_power *a, const struct state_power *b, double e_mj,
    double h_s, double read_s, double *ea_mj, double *err_mj)
{
	double	alo, ahi, blo, bhi, pa, pb, ea, err = 0, outside, c;
	int	i;

	if (a->n == 0 || b->n == 0 || !(h_s > 0))
		return false;
	alo = a->lo_mw * (1 - STATEPOWER_MARGIN);
	ahi = a->hi_mw * (1 + STATEPOWER_MARGIN);
	blo = b->lo_mw * (1 - STATEPOWER_MARGIN);
	bhi = b->hi_mw * (1 + STATEPOWER_MARGIN);
	if (!(ahi < blo || bhi < alo))
		return false;
	pa = statepower_mw(a);
	pb = statepower_mw(b);
	ea = statepower_part(e_mj, h_s, pa, pb, &outside);
	/* The part is monotonic in each power: its extremes are at the corners. */
	for (i = 0; i < 4; i++) {
		c = statepower_part(e_mj, h_s, i & 1 ? ahi : alo, i & 2 ? bhi : blo, NULL);
		err = max_d(err, fabs(c - ea));
	}
	err += 2 * ACCOUNT_COUNTER_QUANTUM_MJ + fabs(pb - pa) * read_s + outside;
	*err_mj = min_d(err, max_d(ea, e_mj - ea));
	*ea_mj = ea;
	return true;
}

bool
statepower_resplit(const struct state_power *est, struct split_later *l, double *d_ea,
    double *d_err)
{
	double	ea, err;

	if (!statepower_split(&est[l->a], &est[l->b], l->e_mj, l->h_s, l->read_s, &ea, &err))
		return false;
	*d_ea = ea - l->ea_mj;
	*d_err = err - l->err_mj;
	l->ea_mj = ea;
	l->err_mj = err;
	return true;
}
