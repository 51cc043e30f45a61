/*
 * The phases of a job (joulestat(1), CLUSTERS and PHASES): a phase name is
 * one phase over the ranks.  Its energy follows the job's rule for
 * devices: each distinct device measurement counts once, with the phase's
 * energy from the rank whose figures the device's group kept (a device
 * that several ranks on one host measured at the same time saw the same
 * joules, whichever rank's phase marks framed them).  Its workload energy
 * is summed over the ranks, as the job's.  The energy's bound is the sum
 * of the measurements' bounds (worst case), unknown when one has none.
 */
#include "joulestat/merge.h"

#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"

static struct merge_job_phase *
job_phase(struct merge_job *job, const char *name)
{
	struct merge_job_phase	*p;
	size_t			 i;

	for (i = 0; i < job->nphases; i++) {
		if (strcmp(job->phases[i].name, name) == 0)
			return &job->phases[i];
	}
	job->phases = xreallocarray(job->phases, job->nphases + 1, sizeof *job->phases);
	p = &job->phases[job->nphases++];
	memset(p, 0, sizeof *p);
	p->name = name;
	return p;
}

/* Rank r's phase name on device id, or NULL. */
static const struct merge_phase *
rank_phase(const struct merge_rank *r, const char *name, const char *id)
{
	size_t	i;

	for (i = 0; i < r->nphases; i++) {
		if (strcmp(r->phases[i].name, name) == 0 && strcmp(r->phases[i].id, id) == 0)
			return &r->phases[i];
	}
	return NULL;
}

/* Each rank counts once per phase name: its wall time and its workload energy. */
static void
add_rank(struct merge_job *job, const struct merge_rank *r)
{
	struct merge_job_phase	*jp;
	const struct merge_phase *p;
	size_t			 i, k;
	bool			 is_seen;

	for (i = 0; i < r->nphases; i++) {
		p = &r->phases[i];
		for (k = 0, is_seen = false; k < i && !is_seen; k++)
			is_seen = strcmp(r->phases[k].name, p->name) == 0;
		jp = job_phase(job, p->name);
		if (!is_seen)
			jp->nranks++;
		if (p->n_wall > 0 && p->wall_s > jp->wall_max_s)
			jp->wall_max_s = p->wall_s;
		merge_add_figure(&jp->workload_j, &jp->n_workload, p->workload_j,
		    p->n_workload > 0);
	}
}

void
merge_job_phases(struct merge_job *job)
{
	const struct merge_group *g;
	const struct merge_rank	*kept;
	const struct merge_phase *p;
	size_t			 i, k;

	for (i = 0; i < job->nranks; i++)
		add_rank(job, &job->ranks[i]);
	for (k = 0; k < job->nphases; k++) {
		for (i = 0; i < job->ngroups; i++) {
			g = &job->groups[i];
			kept = &job->ranks[g->kept_rank];
			if (kept->devs[g->kept_dev].is_within)
				continue;	/* within another device's figure, as for the job */
			p = rank_phase(kept, job->phases[k].name, kept->devs[g->kept_dev].id);
			if (p == NULL)
				continue;
			merge_add_figure(&job->phases[k].energy_j, &job->phases[k].n_energy,
			    p->energy_j, p->n_energy > 0);
			merge_add_figure(&job->phases[k].energy_err_j,
			    &job->phases[k].n_energy_err, p->energy_err_j,
			    merge_has_bound(p->n_energy, p->n_energy_err));
		}
	}
}
