/*
 * The phases of a run as the report holds them: every occurrence (copied
 * from the run), and each name's occurrences together, with the mean and
 * standard deviation per occurrence.  The workload's share of a phase is
 * the attribution estimate over the phase with the device's idle
 * reference, as for the whole run.
 */
#include "joulestat/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/run.h"
#include "joulestat/util.h"

/* Where the phase named name is in rep->phases, or -1. */
static long
phase_index(const struct report *rep, const char *name)
{
	size_t	i;

	for (i = 0; i < rep->nphases; i++) {
		if (strcmp(rep->phases[i].name, name) == 0)
			return (long)i;
	}
	return -1;
}

const struct phase_report *
report_phase(const struct report *rep, const char *name)
{
	long	i = phase_index(rep, name);

	return i >= 0 ? &rep->phases[i] : NULL;
}

/* Add occurrence o of its name to p. */
static void
add_occ(struct report *rep, struct phase_report *p, const struct phase_occ *o)
{
	struct phase_dev_report	*pd;
	const struct phase_dev	*od;
	size_t			 d;
	int			 s;

	p->count++;
	p->wall_ns += o->end_ns - o->begin_ns;
	p->user_ns += o->user_ns;
	p->sys_ns += o->sys_ns;
	p->is_open_at_end |= o->is_open_at_end;
	for (d = 0; d < rep->ndev; d++) {
		pd = &p->devs[d];
		od = &o->devs[d];
		/* A phase's energy is known only if every occurrence's is. */
		if (p->count == 1)
			pd->method = od->method;
		else if (od->method == ENERGY_NONE)
			pd->method = ENERGY_NONE;
		pd->energy_mj += od->energy_mj;
		pd->energy_err_mj += od->energy_err_mj;
		pd->span_ns += od->span_ns;
		pd->is_partial |= od->is_partial;
		if (od->has_peak && (!pd->has_peak || od->peak_mw > pd->peak_power_mw)) {
			pd->peak_power_mw = od->peak_mw;
			pd->has_peak = true;
		}
		for (s = 0; s < ACCOUNT_NSTATES; s++) {
			pd->state_ns[s] += od->state_ns[s];
			pd->states_ns += od->state_ns[s];
			pd->state_err_ns[s] += od->state_err_ns[s];
			pd->state_err_mj[s] += od->state_err_mj[s];
			pd->state_mj[s] += od->state_mj[s];
			pd->has_states |= od->state_ns[s] > 0;
		}
		if (od->has_attrib && rep->devs[d].has_attrib) {
			pd->workload_mj += attrib_energy(od->attrib_a_mj, od->attrib_b_ns,
			    rep->devs[d].share_idle_mw);
			pd->has_workload = true;
		}
	}
}

/* Mean and spread per occurrence, and average power, once all are added. */
static void
summarize(struct report *rep, struct phase_report *p)
{
	struct phase_dev_report	*pd;
	double			*v = xcalloc(p->count, sizeof *v);
	size_t			 i, n, d;
	int64_t			 covered;

	for (i = n = 0; i < rep->nphase_occ; i++) {
		if (strcmp(rep->phase_occ[i].name, p->name) == 0)
			v[n++] = (double)(rep->phase_occ[i].end_ns - rep->phase_occ[i].begin_ns) / 1e9;
	}
	series_stats(v, n, &p->wall_per_occ);
	for (d = 0; d < rep->ndev; d++) {
		covered = 0;
		for (i = n = 0; i < rep->nphase_occ; i++) {
			if (strcmp(rep->phase_occ[i].name, p->name) != 0)
				continue;
			v[n++] = rep->phase_occ[i].devs[d].energy_mj;
			covered += rep->phase_occ[i].devs[d].measured_ns;
		}
		pd = &p->devs[d];
		series_stats(v, n, &pd->per_occ);
		pd->measured_ns = covered;
		/* As the run's: partial only with an energy, which every occurrence has. */
		pd->is_partial &= pd->method != ENERGY_NONE;
		pd->has_avg_power = pd->method != ENERGY_NONE && covered > 0;
		if (pd->has_avg_power)
			pd->avg_power_mw = pd->energy_mj / ((double)covered / 1e9);
		/* As for the run: above idle is never below nothing. */
		pd->has_above_idle = pd->method != ENERGY_NONE &&
		    rep->devs[d].idle_method != IDLE_UNKNOWN;
		if (pd->has_above_idle)
			pd->above_idle_mj = max_d(0, pd->energy_mj -
			    rep->devs[d].idle_mw * (double)covered / 1e9);
	}
	free(v);
}

/* Occurrences in the order they began; an outer one before those inside it. */
static int
occ_cmp(const void *x, const void *y)
{
	const struct phase_occ	*a = x, *b = y;

	if (a->begin_ns != b->begin_ns)
		return a->begin_ns < b->begin_ns ? -1 : 1;
	return (a->depth > b->depth) - (a->depth < b->depth);
}

void
report_phases(struct report *rep, const struct run *run)
{
	const struct phases	*ph = &run->phases;
	struct phase_report	*p;
	struct phase_occ	*o;
	size_t			 i;
	long			 k;

	rep->phase_marks = ph->marks;
	rep->phase_bad = ph->bad;
	rep->phase_dropped = ph->dropped;
	memcpy(rep->phase_first_bad, ph->first_bad, sizeof rep->phase_first_bad);
	if (ph->nocc == 0 || ph->ndev != rep->ndev)
		return;
	rep->phase_occ = xcalloc(ph->nocc, sizeof *rep->phase_occ);
	rep->phases = xcalloc(ph->nocc, sizeof *rep->phases);
	for (i = 0; i < ph->nocc; i++) {
		o = &rep->phase_occ[rep->nphase_occ++];
		*o = ph->occ[i];
		o->devs = xcalloc(rep->ndev, sizeof *o->devs);
		memcpy(o->devs, ph->occ[i].devs, rep->ndev * sizeof *o->devs);
	}
	qsort(rep->phase_occ, rep->nphase_occ, sizeof *rep->phase_occ, occ_cmp);
	for (i = 0; i < rep->nphase_occ; i++) {
		o = &rep->phase_occ[i];
		if ((k = phase_index(rep, o->name)) >= 0) {
			p = &rep->phases[k];
		} else {
			p = &rep->phases[rep->nphases++];
			memcpy(p->name, o->name, sizeof p->name);
			p->depth = o->depth;
			p->devs = xcalloc(rep->ndev, sizeof *p->devs);
		}
		add_occ(rep, p, o);
	}
	for (i = 0; i < rep->nphases; i++)
		summarize(rep, &rep->phases[i]);
}
