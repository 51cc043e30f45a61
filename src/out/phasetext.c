/*
 * The phase table of the human report: after the device sections, one
 * block per phase name in the order the phases began, with its
 * occurrences, wall and CPU time, and per device its energy (how it was
 * obtained, and per occurrence when it occurred more than once), power,
 * P-state split and the workload's share.
 */
#include "joulestat/text.h"

#include <inttypes.h>

#include "joulestat/fmt.h"
#include "joulestat/util.h"

/* Shares of the device's own time in the phase (its readings' times, not the marks'). */
static void
write_phase_states(FILE *f, const struct dev_report *dr, const struct phase_dev_report *pd)
{
	char	name[16];
	int	k;

	if (!pd->has_states)
		return;
	fprintf(f, "      %-12s", "P-states");
	for (k = 0; k < ACCOUNT_NSTATES; k++) {
		if (pd->state_ns[k] == 0)
			continue;
		fprintf(f, " %s %.1f%%", schema_slot_name(dr->dev, k, name, sizeof name),
		    100.0 * (double)pd->state_ns[k] / (double)pd->states_ns);
		if (pd->method != ENERGY_NONE)
			fprintf(f, " %.3f J", pd->state_mj[k] / 1000);
	}
	fputc('\n', f);
}

static void
write_phase_device(FILE *f, const struct report *rep, const struct phase_report *p, size_t d)
{
	const struct phase_dev_report	*pd = &p->devs[d];
	const struct dev_report		*dr = &rep->devs[d];
	char				 e[32];

	fprintf(f, "    device %u:", dr->dev->number);
	if (pd->method == ENERGY_NONE) {
		fprintf(f, " energy unknown\n");
	} else {
		fmt_energy(e, sizeof e, pd->energy_mj);
		fprintf(f, " %s (%s)", e, schema_word_method(pd->method));
		if (p->count > 1)
			fprintf(f, ", %.3f J ± %.3f each", pd->per_occ.mean / 1000,
			    pd->per_occ.sd / 1000);
		if (pd->has_avg_power)
			fprintf(f, ", average %.1f W", pd->avg_power_mw / 1000);
		if (pd->has_peak)
			fprintf(f, ", peak %.1f W", (double)pd->peak_power_mw / 1000);
		fputc('\n', f);
	}
	write_phase_states(f, dr, pd);
	if (pd->has_workload)
		fprintf(f, "      %-12s %.3f J (estimate)\n", "workload", pd->workload_mj / 1000);
}

void
report_write_phases_text(FILE *f, const struct report *rep)
{
	const struct phase_report	*p;
	size_t				 i, d;

	if (rep->nphases == 0 && rep->phase_bad == 0)
		return;
	fprintf(f, "\n phases (%" PRIu64 " marks):\n", rep->phase_marks);
	for (i = 0; i < rep->nphases; i++) {
		p = &rep->phases[i];
		fprintf(f, "  %*s%s: %zu× %.3f s", (int)(2 * p->depth), "", p->name, p->count,
		    (double)p->wall_ns / 1e9);
		if (p->count > 1)
			fprintf(f, " (%.3f s ± %.3f each)", p->wall_per_occ.mean, p->wall_per_occ.sd);
		fprintf(f, ", CPU %.3f s%s\n", (double)(p->user_ns + p->sys_ns) / 1e9,
		    p->is_open_at_end ? "; still open when the run ended" : "");
		for (d = 0; d < rep->ndev; d++)
			write_phase_device(f, rep, p, d);
	}
	if (rep->phase_bad > 0)
		fprintf(f, "  %" PRIu64 " mark line%s ignored (the first: %s)\n", rep->phase_bad,
		    rep->phase_bad == 1 ? "" : "s", rep->phase_first_bad);
	if (rep->phase_dropped > 0)
		fprintf(f, "  %" PRIu64 " phase%s not kept: deeper than %d or past %d occurrences\n",
		    rep->phase_dropped, rep->phase_dropped == 1 ? "" : "s", PHASES_DEPTH_MAX,
		    PHASES_OCC_MAX);
}
