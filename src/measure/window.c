/*
 * The device's window (window.h): each energy source's first and last
 * valid reading, and what the P-state split gave the time outside them.
 * Pure, as account.c: readings in, sums out.
 */
#include "joulestat/window.h"

#include <string.h>

#include "joulestat/util.h"

/* Energy methods that have a source: ENERGY_COUNTER .. ENERGY_TICKS. */
#define NMETHODS	4

/*
 * Whether reading s bounds the window of method m: it read m's source.
 * The driver's samples are carried to the first and last good reading
 * (account.c, add_points and account_finish), so any good reading bounds
 * theirs.
 */
static bool
reads_source(const struct sample *s, int m)
{
	if (s->is_lost)
		return false;
	return m == ENERGY_POINTS || (s->valid & account_source_bit((enum energy_method)m)) != 0;
}

void
window_note_reading(struct dev_acct *a, const struct sample *s)
{
	int	m;

	for (m = 1; m < NMETHODS; m++) {
		if (!reads_source(s, m))
			continue;
		if (!a->has_win[m])
			a->win_from_ns[m] = s->t_ns;
		a->has_win[m] = true;
		a->win_to_ns[m] = s->t_ns;
	}
}

void
window_states_now(const struct dev_acct *a, struct state_part *out)
{
	int	i;

	for (i = 0; i < ACCOUNT_NSTATES; i++) {
		out[i].time_ns = a->states[i].time_ns;
		out[i].energy_ns = a->states[i].energy_ns;
		out[i].energy_mj = a->states[i].energy_mj;
	}
}

/*
 * An interval lies outside a source's window when it ends before the
 * source's first valid reading or begins after its last so far; a reading
 * of the source takes what followed its last one into the window.
 */
void
window_note_interval(struct dev_acct *a, const struct sample *p, const struct sample *s,
    const struct state_part *before)
{
	struct state_part	*part;
	int			 m, i;

	for (m = 1; m < NMETHODS; m++) {
		if (reads_source(s, m))
			memset(a->win_tail[m], 0, sizeof a->win_tail[m]);
		if (!a->has_win[m] || p->t_ns < a->win_from_ns[m])
			part = a->win_head[m];
		else if (!reads_source(s, m))
			part = a->win_tail[m];
		else
			continue;
		for (i = 0; i < ACCOUNT_NSTATES; i++) {
			part[i].time_ns += a->states[i].time_ns - before[i].time_ns;
			part[i].energy_ns += a->states[i].energy_ns - before[i].energy_ns;
			part[i].energy_mj += a->states[i].energy_mj - before[i].energy_mj;
		}
	}
}

/* The method whose source bounds the window of method's energy. */
static int
window_method(const struct dev_acct *a, enum energy_method method)
{
	if (method != ENERGY_NONE)
		return method;
	if (a->has_win[ENERGY_COUNTER])
		return ENERGY_COUNTER;
	if (a->has_win[ENERGY_TICKS])
		return ENERGY_TICKS;
	return ENERGY_POINTS;
}

bool
window_of(const struct dev_acct *a, enum energy_method method, int64_t *from_ns, int64_t *to_ns)
{
	int	m = window_method(a, method);

	*from_ns = *to_ns = 0;
	if (!a->has_win[m])
		return false;
	*from_ns = a->win_from_ns[m];
	*to_ns = a->win_to_ns[m];
	return true;
}

void
window_state(const struct dev_acct *a, enum energy_method method, int slot,
    struct state_part *out)
{
	int			 m = window_method(a, method);
	const struct state_part	*h = &a->win_head[m][slot], *t = &a->win_tail[m][slot];

	out->time_ns = a->states[slot].time_ns - h->time_ns - t->time_ns;
	out->energy_ns = a->states[slot].energy_ns - h->energy_ns - t->energy_ns;
	out->energy_mj = a->states[slot].energy_mj - h->energy_mj - t->energy_mj;
}

void
window_state_err(const struct dev_acct *a, enum energy_method method, int slot,
    const struct state_part *w, int64_t *time_err_ns, double *energy_err_mj)
{
	enum energy_method	m;
	int64_t			from_ns, to_ns, whole_ns;
	double			e_mj;

	*time_err_ns = account_state_time_err_ns(a, slot);
	*energy_err_mj = account_state_energy_err_mj(a, slot);
	if (!account_is_blind(a))
		return;
	(void)window_of(a, method, &from_ns, &to_ns);
	whole_ns = w->time_ns > to_ns - from_ns - w->time_ns ? w->time_ns :
	    to_ns - from_ns - w->time_ns;
	if (*time_err_ns < whole_ns)
		*time_err_ns = whole_ns;
	e_mj = account_energy_mj(a, &m);
	if (m == method && method != ENERGY_NONE)
		*energy_err_mj = max_d(*energy_err_mj, max_d(w->energy_mj, e_mj - w->energy_mj) +
		    account_energy_err_mj(a, method));
}
