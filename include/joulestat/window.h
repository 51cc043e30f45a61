/*
 * The device's window (HACKING.md, "Measurement rules", Validity): from the
 * first to the last valid reading of its energy's source, so that time lost
 * at either end lies outside it (it is lost time, account_lost_ns) and the
 * P-states share out the window alone.  account.c feeds it every reading;
 * the report and the phases ask it.
 */
#ifndef JOULESTAT_WINDOW_H
#define JOULESTAT_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "joulestat/account.h"
#include "joulestat/source.h"

/* Reading s (good or lost) into each source's window. */
void	window_note_reading(struct dev_acct *a, const struct sample *s);

/*
 * The P-states' figures before an interval's split, then what the split
 * of interval p..s added, kept apart for each source whose window the
 * interval lies outside.
 */
void	window_states_now(const struct dev_acct *a, struct state_part *out);
void	window_note_interval(struct dev_acct *a, const struct sample *p, const struct sample *s,
	    const struct state_part *before);

/*
 * The window of the energy of method: from the first to the last reading
 * that read its source; for ENERGY_NONE the first source any reading read
 * (the counter, power, else any good reading).  False, *from_ns and
 * *to_ns 0, when no reading was valid.
 */
bool	window_of(const struct dev_acct *a, enum energy_method method, int64_t *from_ns,
	    int64_t *to_ns);

/*
 * State slot's time, the part of it its energy covers, and that energy,
 * within the window of method: time without a P-state reading inside the
 * window is the unknown state's, time outside it nobody's.
 */
void	window_state(const struct dev_acct *a, enum energy_method method, int slot,
	    struct state_part *out);

/*
 * The bounds of w, state slot's part of the window of method (from
 * window_state): the split's own, or, where the account is blind
 * (account_is_blind), all or none of the window's time and energy (the
 * truth lies between 0 and the whole window's).
 */
void	window_state_err(const struct dev_acct *a, enum energy_method method, int slot,
	    const struct state_part *w, int64_t *time_err_ns, double *energy_err_mj);

#endif
