/*
 * Phases the workload marks: a stack of open phases, each with its own
 * accounting of every device, and the occurrences that ended.  Pure
 * arithmetic on readings, as account.c; the marks and the readings they
 * share come from src/run/marks.c.
 */
#include "joulestat/phase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"
#include "joulestat/window.h"

void
phases_init(struct phases *ph, size_t ndev)
{
	memset(ph, 0, sizeof *ph);
	ph->ndev = ndev;
}

static void
open_free(struct phase_open *o)
{
	free(o->acct);
	free(o->attrib_a0_mj);
	free(o->attrib_b0_ns);
}

void
phases_free(struct phases *ph)
{
	size_t	i;

	for (i = 0; i < ph->nopen; i++)
		open_free(&ph->open[i]);
	for (i = 0; i < ph->nocc; i++)
		free(ph->occ[i].devs);
	free(ph->occ);
	memset(ph, 0, sizeof *ph);
}

void
phases_bad(struct phases *ph, const char *why)
{
	if (ph->bad++ == 0)
		snprintf(ph->first_bad, sizeof ph->first_bad, "%s", why);
}

void
phases_reading(struct phases *ph, size_t gdev, const struct sample *s, uint64_t range_mj,
    const struct dev_acct *dev)
{
	struct dev_acct	*a;
	size_t		 i;

	for (i = 0; i < ph->nopen && gdev < ph->ndev; i++) {
		a = &ph->open[i].acct[gdev];
		a->power_kind = dev->power_kind;
		a->counter_step_ns = dev->counter_step_ns;
		account_add(a, s, range_mj);
	}
}

static void
begin(struct phases *ph, const char *name, bool is_phase, const struct phase_point *pt)
{
	struct phase_open	*o;
	size_t			 d;

	if (ph->nopen == PHASES_DEPTH_MAX) {
		ph->dropped++;
		return;
	}
	o = &ph->open[ph->nopen++];
	memset(o, 0, sizeof *o);
	snprintf(o->name, sizeof o->name, "%s", name);
	o->is_phase = is_phase;
	o->begin_ns = pt->t_ns;
	o->user0_ns = pt->user_ns;
	o->sys0_ns = pt->sys_ns;
	o->acct = xcalloc(ph->ndev, sizeof *o->acct);
	o->attrib_a0_mj = xcalloc(ph->ndev, sizeof *o->attrib_a0_mj);
	o->attrib_b0_ns = xcalloc(ph->ndev, sizeof *o->attrib_b0_ns);
	for (d = 0; d < ph->ndev; d++) {
		/* The reading the mark shares is the phase's first. */
		if (pt->cur[d] != NULL)
			account_add(&o->acct[d], pt->cur[d], pt->range_mj[d]);
		o->attrib_a0_mj[d] = pt->attrib_a_mj[d];
		o->attrib_b0_ns[d] = pt->attrib_b_ns[d];
	}
}

static void
device_figures(struct phase_dev *pd, struct dev_acct *a)
{
	struct state_part	w;
	int			i;

	account_finish(a);
	pd->energy_mj = account_energy_mj(a, &pd->method);
	pd->energy_err_mj = account_energy_err_mj(a, pd->method);
	pd->measured_ns = account_covered_ns(a, pd->method);
	/*
	 * Partial as the run's figure is (report.h, dev_report.is_partial): a
	 * device lost in the middle of the phase measured part of it.
	 */
	pd->span_ns = account_span_ns(a);
	pd->is_partial = pd->method != ENERGY_NONE && pd->measured_ns < pd->span_ns;
	/* The phase's window, by the run's rule (window.h). */
	window_of(a, pd->method, &pd->first_ns, &pd->last_ns);
	pd->has_peak = a->has_power;
	pd->peak_mw = a->peak_power_mw;
	for (i = 0; i < ACCOUNT_NSTATES; i++) {
		window_state(a, pd->method, i, &w);
		pd->state_ns[i] = w.time_ns;
		pd->state_mj[i] = w.energy_mj;
		window_state_err(a, pd->method, i, &w, &pd->state_err_ns[i], &pd->state_err_mj[i]);
	}
}

/* The innermost open phase ends at pt (its last reading is pt's). */
static void
end_top(struct phases *ph, const struct phase_point *pt, bool is_run_end)
{
	struct phase_open	*o = &ph->open[ph->nopen - 1];
	struct phase_occ	*occ;
	struct phase_dev	*pd;
	size_t			 d;

	if (ph->nocc == PHASES_OCC_MAX) {
		ph->dropped++;
	} else {
		if ((ph->nocc & (ph->nocc - 1)) == 0)
			ph->occ = xreallocarray(ph->occ, ph->nocc == 0 ? 1 : 2 * ph->nocc,
			    sizeof *ph->occ);
		occ = &ph->occ[ph->nocc++];
		memset(occ, 0, sizeof *occ);
		memcpy(occ->name, o->name, sizeof occ->name);
		occ->depth = (unsigned)(ph->nopen - 1);
		occ->begin_ns = o->begin_ns;
		occ->end_ns = pt->t_ns;
		occ->user_ns = pt->user_ns - o->user0_ns;
		occ->sys_ns = pt->sys_ns - o->sys0_ns;
		occ->is_open_at_end = is_run_end;
		occ->devs = xcalloc(ph->ndev, sizeof *occ->devs);
		for (d = 0; d < ph->ndev; d++) {
			pd = &occ->devs[d];
			device_figures(pd, &o->acct[d]);
			pd->attrib_a_mj = pt->attrib_a_mj[d] - o->attrib_a0_mj[d];
			pd->attrib_b_ns = pt->attrib_b_ns[d] - o->attrib_b0_ns[d];
			pd->has_attrib = pd->attrib_a_mj != 0 || pd->attrib_b_ns != 0;
		}
	}
	open_free(o);
	ph->nopen--;
}

/* The innermost open phase with this name (any, for ""), or -1. */
static long
find_open(const struct phases *ph, const char *name, bool is_phase)
{
	size_t	i;

	for (i = ph->nopen; i-- > 0;) {
		if (is_phase ? ph->open[i].is_phase :
		    name[0] == '\0' || strcmp(ph->open[i].name, name) == 0)
			return (long)i;
	}
	return -1;
}

void
phases_mark(struct phases *ph, const struct mark *m, const struct phase_point *pt)
{
	long	at;

	ph->marks++;
	switch (m->kind) {
	case MARK_PHASE:
		/* The phase the last "phase" line began ends, with all inside it. */
		if ((at = find_open(ph, "", true)) >= 0) {
			while (ph->nopen > (size_t)at)
				end_top(ph, pt, false);
		}
		begin(ph, m->name, true, pt);
		break;
	case MARK_BEGIN:
		begin(ph, m->name, false, pt);
		break;
	case MARK_END:
		if ((at = find_open(ph, m->name, false)) < 0) {
			phases_bad(ph, m->name[0] == '\0' ? "end with no phase open" :
			    "end of a phase that is not open");
			break;
		}
		while (ph->nopen > (size_t)at)
			end_top(ph, pt, false);
		break;
	}
}

void
phases_end_all(struct phases *ph, const struct phase_point *pt)
{
	while (ph->nopen > 0)
		end_top(ph, pt, true);
}

const char *
phases_current(const struct phases *ph)
{
	return ph->nopen > 0 ? ph->open[ph->nopen - 1].name : NULL;
}
