/*
 * Arithmetic for the DRM backend (drm_parse.h): each client's engine
 * counters turned into busy time per tick, and the GT's idle residency
 * turned into an idle P-state by dithering.  No I/O.
 */
#include "drm_parse.h"

#include <stdbool.h>
#include <stdint.h>

/* A busy-ns counter: the delta since the kept value, by the non-monotonic rule. */
static uint64_t
drm_engine_ns(struct drm_engine_state *st, uint64_t v, int64_t t_ns, bool is_fresh)
{
	uint64_t	d;

	if (!st->has_last) {
		st->has_last = true;
		st->last = is_fresh ? 0 : v;
		st->last_t_ns = t_ns;
	}
	if (v < st->last)
		return 0;
	d = v - st->last;
	st->last = v;
	st->last_t_ns = t_ns;
	return d;
}

/* Busy cycles over total cycles, as engine time over the stretch's wall time. */
static uint64_t
drm_engine_cycles(struct drm_engine_state *st, const struct drm_engine *e, int64_t t_ns)
{
	uint64_t	dc, dt;
	double		busy, elapsed;

	if (!st->has_last) {
		/* The first reading of total cycles is only a baseline. */
		st->has_last = true;
		st->last = e->cycles;
		st->last_total = e->total_cycles;
		st->last_t_ns = t_ns;
		return 0;
	}
	if (e->cycles < st->last || e->total_cycles <= st->last_total || t_ns <= st->last_t_ns)
		return 0;
	dc = e->cycles - st->last;
	dt = e->total_cycles - st->last_total;
	elapsed = (double)(t_ns - st->last_t_ns);
	busy = (double)dc / (double)dt * elapsed;
	st->last = e->cycles;
	st->last_total = e->total_cycles;
	st->last_t_ns = t_ns;
	/* No more busy time than the engines had: a bogus counter must not overflow. */
	if (busy > elapsed * (double)st->capacity)
		busy = elapsed * (double)st->capacity;
	return busy > 0 ? (uint64_t)(busy + 0.5) : 0;
}

uint64_t
drm_engine_update(struct drm_engine_state *st, const struct drm_engine *e, int64_t t_ns,
    int64_t span_ns, bool is_fresh)
{
	uint64_t	busy = 0, room, give, most;
	int64_t		since;
	double		pct;

	/* No engine class has thousands of engines: a larger capacity is bogus. */
	st->capacity = e->capacity > 0 ? e->capacity : 1;
	if (st->capacity > DRM_CAPACITY_MAX)
		st->capacity = DRM_CAPACITY_MAX;
	room = span_ns > 0 ? (uint64_t)span_ns * st->capacity : 0;
	if (e->has & DRM_E_NS) {
		/*
		 * The wall time it covers: since the counter last rose (a
		 * counter may stand still while the work runs and catch up
		 * later); none for a new client's first count.
		 */
		since = st->has_last ? t_ns - st->moved_t_ns : 0;
		busy = drm_engine_ns(st, e->busy_ns, t_ns, is_fresh);
		if (busy > 0 || since == 0)
			st->moved_t_ns = t_ns;
		/*
		 * amdgpu adds up every ring and queue of a class (amdgpu_ctx.c,
		 * amdgpu_ctx_mgr_usage) and prints no capacity, so a counter can
		 * run faster than the clock.  More than the class could hold over
		 * that time is dropped: carried, it would show the engine busy
		 * after the work has stopped.  A new client's first count has no
		 * such bound (its birth is not known to the tick) and is carried.
		 */
		most = since > 0 ? (uint64_t)since * st->capacity : 0;
		if (since > 0 && busy > most)
			busy = most;
	} else if ((e->has & (DRM_E_CYCLES | DRM_E_TOTAL)) == (DRM_E_CYCLES | DRM_E_TOTAL))
		busy = drm_engine_cycles(st, e, t_ns);
	else if (e->has & DRM_E_PCT) {
		/* Old amdgpu: a percentage over the driver's own window, taken as is. */
		pct = e->pct > 100.0 * (double)st->capacity ? 100.0 * (double)st->capacity : e->pct;
		pct = pct > 0 ? pct : 0;
		return (uint64_t)(pct / 100 * (double)(span_ns > 0 ? span_ns : 0));
	}
	st->carry_ns += busy;
	give = st->carry_ns < room ? st->carry_ns : room;
	st->carry_ns -= give;
	return give;
}

bool
drm_dither_step(struct drm_dither *d, int64_t dt_ns, int64_t idle_ns, bool is_idle_now)
{
	double	half = (double)dt_ns / 2;
	bool	is_idle;

	if (!d->has_prev || dt_ns <= 0) {
		d->has_prev = true;
		d->was_idle = is_idle_now;
		d->owed_ns = 0;
		return is_idle_now;
	}
	if (idle_ns < 0)
		idle_ns = 0;
	/* The accounting gives the first half of the interval to the previous state. */
	d->owed_ns += (double)idle_ns - (d->was_idle ? half : 0);
	/* The second half goes idle only when that leaves a smaller debt. */
	is_idle = d->owed_ns > half / 2;
	if (is_idle)
		d->owed_ns -= half;
	d->was_idle = is_idle;
	return is_idle;
}
