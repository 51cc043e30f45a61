/*
 * The analytic model of a simulated GPU (tests/sim/README): what the true power
 * is at any instant, its exact integral over any interval, and what the
 * driver would report from it (instantaneous, trailing 1 s mean, energy
 * counter with offset and resets, violation time, per-P-state split).
 * Power is piecewise linear in time (constant phases and ramps), so every
 * integral here is closed-form: the energy counter and the ground truth
 * are exact to the millijoule, never summed from samples.  Nothing here
 * reads a clock or takes a lock: callers pass the time in.
 */
#include "nvsim.h"

#include <math.h>

static double
end_of(const struct phase *ph)
{
	return ph->end_ms == NVSIM_NEVER ? INFINITY : (double)ph->end_ms;
}

const struct phase *
model_phase_at(const struct simdev *d, double t_ms)
{
	size_t	 i = d->nphases - 1;

	while (i > 0 && t_ms < (double)d->phases[i].start_ms)
		i--;
	return &d->phases[i];
}

/* Power inside one phase: the ramp, then its final value. */
static double
phase_power(const struct phase *ph, double t_ms)
{
	double	 a = (double)ph->start_ms, r = (double)ph->ramp_end_ms;

	if (r <= a || t_ms >= r)
		return ph->p1_w;
	if (t_ms <= a)
		return ph->p0_w;
	return ph->p0_w + (ph->p1_w - ph->p0_w) * (t_ms - a) / (r - a);
}

/* Exact integral over [lo, hi] inside one phase: trapezoid is exact on a line. */
static double
phase_energy(const struct phase *ph, double lo, double hi)
{
	double	 r = (double)ph->ramp_end_ms, m, e = 0;

	if (lo < r) {
		m = hi < r ? hi : r;
		e += (phase_power(ph, lo) + phase_power(ph, m)) / 2 * (m - lo);
		lo = m;
	}
	if (hi > lo)
		e += ph->p1_w * (hi - lo);
	return e;
}

double
model_power_w(const struct simdev *d, double t_ms)
{
	if (t_ms < 0)
		return d->phases[0].p0_w;
	return phase_power(model_phase_at(d, t_ms), t_ms);
}

double
model_energy_mj(const struct simdev *d, double a_ms, double b_ms)
{
	double	 e = 0, lo, hi;

	if (b_ms <= a_ms)
		return 0;
	/* Before time 0 the GPU sat at the first phase's starting power. */
	if (a_ms < 0) {
		e += d->phases[0].p0_w * ((b_ms < 0 ? b_ms : 0) - a_ms);
		a_ms = 0;
	}
	for (size_t i = 0; i < d->nphases && b_ms > a_ms; i++) {
		lo = fmax(a_ms, (double)d->phases[i].start_ms);
		hi = fmin(b_ms, end_of(&d->phases[i]));
		if (hi > lo)
			e += phase_energy(&d->phases[i], lo, hi);
	}
	return e;
}

unsigned
model_instant_mw(const struct simdev *d, double t_ms)
{
	return (unsigned)lround(model_power_w(d, t_ms) * 1000);
}

/* The mean over the trailing second: E mJ over 1000 ms is E mW. */
unsigned
model_average_mw(const struct simdev *d, double t_ms)
{
	return (unsigned)lround(model_energy_mj(d, t_ms - 1000, t_ms));
}

unsigned
model_reported_mw(const struct simdev *d, double t_ms)
{
	if (d->power == POWER_AVERAGE_1S)
		return model_average_mw(d, t_ms);
	return model_instant_mw(d, t_ms);
}

/*
 * "Total energy since the driver was loaded": the offset plus the
 * integral since time 0, or the integral since the last reset (a reset
 * also drops the offset).  Truncated to whole mJ, as a counter would be.
 */
unsigned long long
model_counter_mj(const struct simdev *d, double t_ms)
{
	double	 from = 0, base = (double)d->energy_offset_mj;

	/*
	 * A driver that refreshes its counter every N ms, the first time at
	 * PHASE ms: the value of the last refresh.
	 */
	if (d->energy_update_ms > 0 && t_ms > 0)
		t_ms = fmax(0, floor((t_ms + d->energy_update_ms - d->energy_phase_ms) /
		    d->energy_update_ms) * d->energy_update_ms - d->energy_update_ms +
		    d->energy_phase_ms);

	for (size_t i = 0; i < d->nresets; i++) {
		if ((double)d->resets[i] > t_ms)
			break;
		from = (double)d->resets[i];
		base = 0;
	}
	return (unsigned long long)floor(base + model_energy_mj(d, from, t_ms));
}

/* Time since time 0 spent in phases whose throttle mask meets mask, in ns. */
unsigned long long
model_violation_ns(const struct simdev *d, double t_ms, unsigned long long mask)
{
	double	 ms = 0, hi;

	for (size_t i = 0; i < d->nphases; i++) {
		if ((d->phases[i].throttle & mask) == 0)
			continue;
		hi = fmin(t_ms, end_of(&d->phases[i]));
		if (hi > (double)d->phases[i].start_ms)
			ms += hi - (double)d->phases[i].start_ms;
	}
	return (unsigned long long)llround(ms * 1e6);
}

unsigned
model_pstate_bin(unsigned pstate)
{
	return pstate <= 15 ? pstate : NVSIM_PSTATE_BINS - 1;
}

/* Phase bounds in ns since time 0; the first phase also covers the past. */
static void
phase_ns(const struct simdev *d, size_t i, int64_t *s, int64_t *e)
{
	const struct phase *ph = &d->phases[i];

	*s = i == 0 ? INT64_MIN : ph->start_ms * 1000000;
	*e = ph->end_ms == NVSIM_NEVER ? INT64_MAX : ph->end_ms * 1000000;
}

/* The part of [a_ns, b_ns] in phase i, in [*lo, *hi]; false when there is none. */
static bool
phase_overlap(const struct simdev *d, size_t i, int64_t a_ns, int64_t b_ns, int64_t *lo,
    int64_t *hi)
{
	int64_t	s, e;

	phase_ns(d, i, &s, &e);
	*lo = a_ns > s ? a_ns : s;
	*hi = b_ns < e ? b_ns : e;
	return *hi > *lo;
}

/*
 * Split [a_ns, b_ns] (ns since time 0) by P-state.  The times are integer
 * ns taken from the phase bounds, so they add up to b_ns - a_ns exactly.
 */
void
model_pstate_split(const struct simdev *d, int64_t a_ns, int64_t b_ns,
    int64_t time_ns[NVSIM_PSTATE_BINS], double energy_mj[NVSIM_PSTATE_BINS])
{
	int64_t		 lo, hi;
	unsigned	 bin;

	for (size_t i = 0; i < d->nphases; i++) {
		if (!phase_overlap(d, i, a_ns, b_ns, &lo, &hi))
			continue;
		bin = model_pstate_bin(d->phases[i].pstate);
		time_ns[bin] += hi - lo;
		energy_mj[bin] += model_energy_mj(d, (double)lo / 1e6, (double)hi / 1e6);
	}
}

void
model_reason_split(const struct simdev *d, int64_t a_ns, int64_t b_ns, int64_t time_ns[64])
{
	int64_t		 lo, hi;

	for (size_t i = 0; i < d->nphases; i++) {
		if (!phase_overlap(d, i, a_ns, b_ns, &lo, &hi))
			continue;
		for (unsigned b = 0; b < 64; b++) {
			if (d->phases[i].throttle & (1ull << b))
				time_ns[b] += hi - lo;
		}
	}
}

/* The max_clocks line, else the highest clock any phase uses. */
unsigned
model_max_mhz(const struct simdev *d, nvmlClockType_t type)
{
	const struct phase	*ph;
	unsigned		 v, mhz = d->max_mhz[type];

	for (size_t i = 0; mhz == 0 && i < d->nphases; i++) {
		ph = &d->phases[i];
		v = type == NVML_CLOCK_MEM ? ph->mem_mhz :
		    type == NVML_CLOCK_SM ? ph->sm_mhz : ph->gfx_mhz;
		mhz = v > mhz ? v : mhz;
	}
	return mhz;
}

/*
 * The graphics clock NVML_CLOCK_LIMIT_ID_TDP locks to: the base_clock
 * line, else 60 % of the maximum graphics clock, rounded down (a data
 * centre GPU's base clock is 60 to 90 % of its boost clock, and a low
 * default keeps "base" and "max" far apart in tests).
 */
unsigned
model_base_mhz(const struct simdev *d)
{
	if (d->base_mhz != 0)
		return d->base_mhz;
	return model_max_mhz(d, NVML_CLOCK_GRAPHICS) * 6 / 10;
}
