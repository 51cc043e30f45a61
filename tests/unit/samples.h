/*
 * Readings built by hand for the accounting unit tests (test_account.c,
 * test_window.c), and sums over an account's P-states.  Include after
 * cmocka.h.
 */
#ifndef JOULESTAT_TEST_SAMPLES_H
#define JOULESTAT_TEST_SAMPLES_H

#include <stdint.h>
#include <string.h>

#include "joulestat/account.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

#define MS(x)	((int64_t)(x) * NSEC_PER_MSEC)
#define SEC(x)	((int64_t)(x) * NSEC_PER_SEC)

/* A reading with power only. */
static struct sample
pw(int64_t t_ns, uint32_t mw)
{
	struct sample	s;

	memset(&s, 0, sizeof s);
	s.t_ns = t_ns;
	s.valid = M_POWER;
	s.power_mw = mw;
	s.pstate = PSTATE_UNKNOWN;
	return s;
}

/* A reading with power and the energy counter. */
static struct sample
pwe(int64_t t_ns, uint32_t mw, uint64_t mj)
{
	struct sample	s = pw(t_ns, mw);

	s.valid |= M_ENERGY;
	s.energy_mj = mj;
	return s;
}

/* A reading with power and a P-state. */
static struct sample
pwp(int64_t t_ns, uint32_t mw, int pstate)
{
	struct sample	s = pw(t_ns, mw);

	s.valid |= M_PSTATE;
	s.pstate = pstate;
	return s;
}

/* A reading with a P-state alone (power and counter failed). */
static inline struct sample
ps_only(int64_t t_ns, int pstate)
{
	struct sample	s = pwp(t_ns, 0, pstate);

	s.valid = M_PSTATE;
	return s;
}

static inline struct sample
lost(int64_t t_ns)
{
	struct sample	s;

	memset(&s, 0, sizeof s);
	s.t_ns = t_ns;
	s.is_lost = true;
	s.pstate = PSTATE_UNKNOWN;
	return s;
}

static inline void
add_all(struct dev_acct *a, const struct sample *s, size_t n, uint64_t range_mj)
{
	size_t	i;

	for (i = 0; i < n; i++)
		account_add(a, &s[i], range_mj);
}

static inline int64_t
states_time(const struct dev_acct *a)
{
	int64_t	t = 0;
	int	i;

	for (i = 0; i < ACCOUNT_NSTATES; i++)
		t += a->states[i].time_ns;
	return t;
}

static inline double
states_energy(const struct dev_acct *a)
{
	double	e = 0;
	int	i;

	for (i = 0; i < ACCOUNT_NSTATES; i++)
		e += a->states[i].energy_mj;
	return e;
}

#endif
