/*
 * The scenario keywords of what happens over time (tests/sim/README):
 * timed phases with their power, P-state, clocks and reasons, the
 * processes on the device, lost readings, counter resets, and slow,
 * failing and unsupported calls.  Strict as the rest of the parser
 * (scenario.c): any mistake stops the parse with "file:line: reason".
 */
#include "scenario.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The phase options that are plain unsigned numbers, by field. */
struct uint_opt {
	const char	*key;
	size_t		 offset;
	unsigned	 max;
};

static const struct uint_opt phase_uints[] = {
	{ "gfx",	offsetof(struct phase, gfx_mhz),	100000 },
	{ "sm",		offsetof(struct phase, sm_mhz),		100000 },
	{ "mem",	offsetof(struct phase, mem_mhz),	100000 },
	{ "temp",	offsetof(struct phase, temp_c),		200 },
	{ "util",	offsetof(struct phase, util_pct),	100 },
	{ "memutil",	offsetof(struct phase, memutil_pct),	100 },
};

static int
phase_pstate(struct parser *p, const char *v, unsigned *ps)
{
	if (strcmp(v, "unknown") == 0) {
		*ps = NVML_PSTATE_UNKNOWN;
		return 0;
	}
	if (v[0] == 'P')
		v++;
	return scn_parse_uint(p, "pstate", v, 15, ps);
}

static int
phase_power(struct parser *p, char *v, struct phase *ph, bool *is_ramp)
{
	char	*dots;

	*is_ramp = false;
	if ((dots = strstr(v, "..")) != NULL) {
		*dots = '\0';
		*is_ramp = true;
		if (scn_parse_watts(p, dots + 2, &ph->p1_w) == -1)
			return -1;
	}
	if (scn_parse_watts(p, v, &ph->p0_w) == -1)
		return -1;
	if (!*is_ramp)
		ph->p1_w = ph->p0_w;
	return 0;
}

static int
phase_uint(struct parser *p, const char *key, const char *v, struct phase *ph)
{
	for (size_t i = 0; i < sizeof(phase_uints) / sizeof(phase_uints[0]); i++)
		if (strcmp(key, phase_uints[i].key) == 0)
			return scn_parse_uint(p, key, v, phase_uints[i].max,
			    (unsigned *)(void *)((char *)ph + phase_uints[i].offset));
	return scn_perr(p, "phase: unknown key '%s'", key);
}

/* What a phase line said beyond the carried-over values. */
struct phase_args {
	int64_t		 at;			/* -1: not given */
	int64_t		 dur;			/* -1: not given */
	bool		 has_power;
	bool		 has_pstate;
	bool		 is_ramp;
};

static int
phase_opt(struct parser *p, char *arg, struct phase *ph, struct phase_args *a)
{
	char			*v;
	unsigned long long	 mask;

	if ((v = scn_split_kv(arg)) == NULL || *v == '\0')
		return scn_perr(p, "phase: '%s' is not key=value", arg);
	if (strcmp(arg, "at") == 0)
		return scn_parse_ms(p, "at", v, &a->at);
	if (strcmp(arg, "dur") == 0)
		return scn_parse_ms(p, "dur", v, &a->dur);
	if (strcmp(arg, "power") == 0) {
		a->has_power = true;
		return phase_power(p, v, ph, &a->is_ramp);
	}
	if (strcmp(arg, "pstate") == 0) {
		a->has_pstate = true;
		return phase_pstate(p, v, &ph->pstate);
	}
	if (strcmp(arg, "throttle") == 0) {
		if (scn_parse_num(p, "throttle", v, 0, UINT64_MAX, &mask) == -1)
			return -1;
		ph->throttle = mask;
		return 0;
	}
	return phase_uint(p, arg, v, ph);
}

/* Work out where the new phase starts, and close the one before it. */
static int
phase_place(struct parser *p, struct phase *ph, const struct phase_args *a)
{
	struct simdev	*d = p->dev;

	if (a->at < 0 && p->prev_end < 0)
		return scn_perr(p, d->nphases == 0 ? "the first phase needs at=0" :
		    "phase: need at=, the previous phase has no dur=");
	ph->start_ms = a->at >= 0 ? a->at : p->prev_end;
	if (d->nphases == 0 && ph->start_ms != 0)
		return scn_perr(p, "the first phase must start at 0");
	if (a->at >= 0 && p->prev_end >= 0 && a->at != p->prev_end)
		return scn_perr(p, "phase at=%lld but the previous one ends at %lld",
		    (long long)a->at, (long long)p->prev_end);
	if (d->nphases > 0 && ph->start_ms <= d->phases[d->nphases - 1].start_ms)
		return scn_perr(p, "phase at=%lld does not come after the previous phase",
		    (long long)ph->start_ms);
	if (a->dur == 0)
		return scn_perr(p, "phase: dur=0");
	p->prev_end = a->dur > 0 ? ph->start_ms + a->dur : -1;
	ph->ramp_end_ms = !a->is_ramp ? ph->start_ms : a->dur > 0 ? p->prev_end : -1;
	return 0;
}

/* A ramp without dur= ends where the next phase starts. */
int
scn_phase_close_ramp(struct parser *p, int64_t next_start)
{
	struct simdev	*d = p->dev;
	unsigned	 line = p->line;

	if (!p->is_ramp_open)
		return 0;
	p->is_ramp_open = false;
	if (next_start >= 0) {
		d->phases[d->nphases - 1].ramp_end_ms = next_start;
		return 0;
	}
	p->line = p->phase_line;
	scn_perr(p, "a ramp in the last phase needs dur=");
	p->line = line;
	return -1;
}

int
scn_kw_phase(struct parser *p, int argc, char **argv)
{
	struct simdev		*d = p->dev;
	struct phase		 ph = { .pstate = 0, .temp_c = 30 };
	struct phase_args	 a = { .at = -1, .dur = -1 };

	if (d->nphases > 0) {
		ph = d->phases[d->nphases - 1];
		ph.p0_w = ph.p1_w;
	}
	for (int i = 1; i < argc; i++)
		if (phase_opt(p, argv[i], &ph, &a) == -1)
			return -1;
	if (d->nphases == 0 && (!a.has_power || !a.has_pstate))
		return scn_perr(p, "the first phase needs power= and pstate=");
	if (phase_place(p, &ph, &a) == -1)
		return -1;
	if (scn_phase_close_ramp(p, ph.start_ms) == -1)
		return -1;
	if (scn_append(&d->phases, &d->nphases, sizeof(ph)) == NULL)
		return scn_perr(p, "out of memory");
	d->phases[d->nphases - 1] = ph;
	p->is_ramp_open = ph.ramp_end_ms < 0;
	p->phase_line = p->line;
	return 0;
}

/* PCT, or PCT/PCT for the two halves of a cycle (every=); one value is both. */
static int
parse_pair(struct parser *p, const char *key, char *v, unsigned *a, unsigned *b)
{
	char	*slash = strchr(v, '/');

	if (slash != NULL)
		*slash = '\0';
	if (scn_parse_uint(p, key, v, 100, a) == -1)
		return -1;
	*b = *a;
	return slash != NULL ? scn_parse_uint(p, key, slash + 1, 100, b) : 0;
}

static int
proc_opt(struct parser *p, char *arg, struct proc_spec *ps)
{
	static const char *const types[] = { "compute", "graphics", NULL };
	unsigned long long	 mib;
	char			*v;
	int			 t;

	if ((v = scn_split_kv(arg)) == NULL || *v == '\0')
		return scn_perr(p, "'%s' is not key=value", arg);
	if (strcmp(arg, "sm") == 0)
		return parse_pair(p, "sm", v, &ps->sm_pct, &ps->sm2_pct);
	if (strcmp(arg, "mem") == 0)
		return parse_pair(p, "mem", v, &ps->mem_pct, &ps->mem2_pct);
	if (strcmp(arg, "every") == 0)
		return scn_parse_uint(p, "every", v, 3600000, &ps->every_ms);
	if (strcmp(arg, "from") == 0)
		return scn_parse_ms(p, "from", v, &ps->from_ms);
	if (strcmp(arg, "to") == 0)
		return scn_parse_ms(p, "to", v, &ps->to_ms);
	if (strcmp(arg, "gpumem") == 0) {
		if (scn_parse_num(p, "gpumem", v, 10, 1ull << 30, &mib) == -1)
			return -1;
		ps->gpumem_bytes = mib * MIB;
		return 0;
	}
	if (strcmp(arg, "comm") == 0) {
		if (strlen(v) >= sizeof(ps->comm))
			return scn_perr(p, "comm= is at most %zu characters", sizeof(ps->comm) - 1);
		strcpy(ps->comm, v);
		return 0;
	}
	if (strcmp(arg, "type") == 0) {
		if ((t = scn_parse_word(p, "type", v, types)) == -1)
			return -1;
		ps->is_graphics = t == 1;
		return 0;
	}
	return scn_perr(p, "unknown key '%s'", arg);
}

static int
add_procs(struct parser *p, struct proc_spec *ps, int argc, char **argv)
{
	ps->to_ms = NVSIM_NEVER;
	for (int i = 0; i < argc; i++)
		if (proc_opt(p, argv[i], ps) == -1)
			return -1;
	if (ps->to_ms <= ps->from_ms)
		return scn_perr(p, "from= must come before to=");
	if (ps->every_ms == 0 && (ps->sm2_pct != ps->sm_pct || ps->mem2_pct != ps->mem_pct))
		return scn_perr(p, "sm=A/B and mem=A/B need every=MS");
	if (scn_append(&p->dev->procs, &p->dev->nprocs, sizeof(*ps)) == NULL)
		return scn_perr(p, "out of memory");
	p->dev->procs[p->dev->nprocs - 1] = *ps;
	return 0;
}

int
scn_kw_tree(struct parser *p, int argc, char **argv)
{
	struct proc_spec ps = { .kind = PROC_TREE };

	return add_procs(p, &ps, argc - 1, argv + 1);
}

int
scn_kw_proc(struct parser *p, int argc, char **argv)
{
	struct proc_spec ps = { .kind = PROC_PID };

	if (scn_parse_uint(p, "proc pid", argv[1], UINT32_MAX, &ps.pid) == -1)
		return -1;
	if (ps.pid == 0)
		return scn_perr(p, "proc: pid 0");
	return add_procs(p, &ps, argc - 2, argv + 2);
}

int
scn_kw_proccount(struct parser *p, int argc, char **argv)
{
	struct proc_spec ps = { .kind = PROC_MANY };

	if (scn_parse_uint(p, "proccount", argv[1], 1000000, &ps.count) == -1)
		return -1;
	return add_procs(p, &ps, argc - 2, argv + 2);
}

int
scn_kw_vgpu(struct parser *p, int argc, char **argv)
{
	struct proc_spec	 ps = { .kind = PROC_PID };
	struct vgpu		*v;

	if (scn_parse_uint(p, "vgpu id", argv[1], UINT32_MAX, &ps.pid) == -1)
		return -1;
	for (int i = 2; i < argc; i++) {
		if (strncmp(argv[i], "sm=", 3) != 0 && strncmp(argv[i], "mem=", 4) != 0)
			return scn_perr(p, "vgpu: '%s' is not sm= or mem=", argv[i]);
		if (proc_opt(p, argv[i], &ps) == -1)
			return -1;
	}
	if ((v = scn_append(&p->dev->vgpus, &p->dev->nvgpus, sizeof(*v))) == NULL)
		return scn_perr(p, "out of memory");
	v->id = ps.pid;
	v->sm_pct = ps.sm_pct;
	v->mem_pct = ps.mem_pct;
	return 0;
}

static int
parse_window(struct parser *p, char **argv, struct window *w)
{
	if (scn_parse_ms(p, "from", argv[0], &w->from_ms) == -1 ||
	    scn_parse_ms(p, "to", argv[1], &w->to_ms) == -1)
		return -1;
	return w->to_ms <= w->from_ms ? scn_perr(p, "FROM must come before TO") : 0;
}

int
scn_kw_lost(struct parser *p, int argc, char **argv)
{
	struct window	 w;

	(void)argc;
	if (parse_window(p, argv + 1, &w) == -1)
		return -1;
	if (scn_append(&p->dev->lost, &p->dev->nlost, sizeof(w)) == NULL)
		return scn_perr(p, "out of memory");
	p->dev->lost[p->dev->nlost - 1] = w;
	return 0;
}

int
scn_kw_reset(struct parser *p, int argc, char **argv)
{
	int64_t	 at;

	(void)argc;
	if (scn_parse_ms(p, "reset", argv[1], &at) == -1)
		return -1;
	if (p->dev->nresets > 0 && at <= p->dev->resets[p->dev->nresets - 1])
		return scn_perr(p, "reset times must increase");
	if (scn_append(&p->dev->resets, &p->dev->nresets, sizeof(at)) == NULL)
		return scn_perr(p, "out of memory");
	p->dev->resets[p->dev->nresets - 1] = at;
	return 0;
}

/* Calls that run before, after or outside the fault checks. */
static bool
is_unfaultable(const char *call)
{
	return strncmp(call, "nvmlInit", 8) == 0 || strcmp(call, "nvmlShutdown") == 0 ||
	    strcmp(call, "nvmlErrorString") == 0 || strcmp(call, "nvmlSystemGetNVMLVersion") == 0;
}

/* slow, fail and notsupported go to the device block, or to every device. */
static struct call_fault *
add_fault(struct parser *p, const char *call)
{
	struct call_fault	*f;

	if (!scenario_is_call(call)) {
		scn_perr(p, "'%s' is not a call the simulator exports", call);
		return NULL;
	}
	if (is_unfaultable(call)) {
		scn_perr(p, "'%s' cannot be given faults", call);
		return NULL;
	}
	if (p->dev != NULL)
		f = scn_append(&p->dev->faults, &p->dev->nfaults, sizeof(*f));
	else
		f = scn_append(&p->sc->faults, &p->sc->nfaults, sizeof(*f));
	if (f == NULL) {
		scn_perr(p, "out of memory");
		return NULL;
	}
	snprintf(f->call, sizeof(f->call), "%s", call);
	f->when.to_ms = NVSIM_NEVER;
	return f;
}

/*
 * slow CALL MS FROM TO and fail CALL CODE FROM TO: a call that sleeps MS,
 * or answers CODE, inside a window; neither number may be 0.
 */
static int
timed_fault(struct parser *p, char **argv, bool is_slow)
{
	struct call_fault	*f;
	struct window		 w;
	unsigned		 v;

	if (scn_parse_uint(p, is_slow ? "slow MS" : "fail CODE", argv[2], is_slow ? 600000 : 999,
	    &v) == -1 || parse_window(p, argv + 3, &w) == -1)
		return -1;
	if (v == 0)
		return scn_perr(p, is_slow ? "slow: 0 ms" : "fail: code 0 is success");
	if ((f = add_fault(p, argv[1])) == NULL)
		return -1;
	if (is_slow)
		f->delay_ms = v;
	else
		f->rc = (nvmlReturn_t)v;
	f->when = w;
	return 0;
}

int
scn_kw_slow(struct parser *p, int argc, char **argv)
{
	(void)argc;
	return timed_fault(p, argv, true);
}

int
scn_kw_fail(struct parser *p, int argc, char **argv)
{
	(void)argc;
	return timed_fault(p, argv, false);
}

int
scn_kw_notsupported(struct parser *p, int argc, char **argv)
{
	(void)argc;
	return add_fault(p, argv[1]) == NULL ? -1 : 0;
}

