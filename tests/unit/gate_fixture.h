/*
 * The fixture of the gate unit tests (test_gate.c, test_gate_parse.c):
 * NRUNS runs of two devices built by hand, the gates and the baseline
 * they are judged with, and the helpers that set them up.  Include after
 * cmocka.h.
 */
#ifndef JOULESTAT_TEST_GATE_FIXTURE_H
#define JOULESTAT_TEST_GATE_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/gate.h"
#include "joulestat/report.h"
#include "joulestat/util.h"

#define NRUNS		3
#define NDEVS		2
#define TOL		1e-9

/* s holds sub, printing both when it does not. */
#define assert_contains(s, sub) do {						\
	const char *s_ = (s), *sub_ = (sub);					\
	if (strstr(s_, sub_) == NULL) {						\
		print_error("\"%s\" does not contain \"%s\"\n", s_, sub_);	\
		fail();								\
	}									\
} while (0)

/*
 * NRUNS runs of the same two devices: device 0 ("GPU-A") names its states
 * P0..P15 and reports them, device 1 ("GPU-B") has no states.  Every run
 * starts as: wall 2 s, GPU-A 10 J (2 J above idle, 250 W), GPU-B 5 J
 * (1 J above idle, 50 W), GPU-A 60% of its time in P0 and 40% in P8.
 */
struct fixture {
	struct device		devs[NDEVS];
	struct dev_report	dreps[NRUNS][NDEVS];
	struct report		reps[NRUNS];
	struct gate_config	gc;
	struct gate_set		gs;
	struct baseline		base;
	struct errbuf		err;
};

static inline void
set_energy(struct fixture *fx, size_t run, size_t dev, double joules)
{
	fx->dreps[run][dev].method = ENERGY_COUNTER;
	fx->dreps[run][dev].energy_mj = joules * 1e3;
	fx->dreps[run][dev].energy_err_mj = joules * 10;	/* a bound of 1% */
}

static inline void
set_above_idle(struct fixture *fx, size_t run, size_t dev, double joules)
{
	fx->dreps[run][dev].has_above_idle = true;
	fx->dreps[run][dev].above_idle_mj = joules * 1e3;
}

static inline void
set_power(struct fixture *fx, size_t run, size_t dev, double watts)
{
	fx->dreps[run][dev].has_avg_power = true;
	fx->dreps[run][dev].avg_power_mw = watts * 1e3;
}

static inline void
set_state(struct fixture *fx, size_t run, size_t dev, size_t k, int pstate, double share)
{
	struct dev_report	*d = &fx->dreps[run][dev];

	d->states[k].pstate = pstate;
	d->states[k].share = share;
	d->states[k].time_ns = (int64_t)(share * 2e9);
	if (d->nstates < k + 1)
		d->nstates = k + 1;
}

static inline int
setup(void **state)
{
	struct fixture	*fx;
	size_t		 r, d;

	if ((fx = calloc(1, sizeof *fx)) == NULL)
		return -1;
	snprintf(fx->devs[0].id, sizeof fx->devs[0].id, "GPU-A");
	snprintf(fx->devs[0].name, sizeof fx->devs[0].name, "Test GPU A");
	fx->devs[0].measures = M_ENERGY | M_POWER | M_PSTATE;
	fx->devs[0].pstate_names = PSTATE_NAMES_P;
	snprintf(fx->devs[1].id, sizeof fx->devs[1].id, "GPU-B");
	snprintf(fx->devs[1].name, sizeof fx->devs[1].name, "Test GPU B");
	fx->devs[1].measures = M_ENERGY | M_POWER;
	/* Gates name devices by their number (devsel.h): here, their place. */
	fx->devs[0].number = 0;
	fx->devs[1].number = 1;
	for (r = 0; r < NRUNS; r++) {
		for (d = 0; d < NDEVS; d++) {
			fx->dreps[r][d].dev = &fx->devs[d];
			fx->dreps[r][d].backend = "nvml";
			fx->dreps[r][d].window_ns = 2000000000;
		}
		set_energy(fx, r, 0, 10);
		set_energy(fx, r, 1, 5);
		set_above_idle(fx, r, 0, 2);
		set_above_idle(fx, r, 1, 1);
		set_power(fx, r, 0, 250);
		set_power(fx, r, 1, 50);
		set_state(fx, r, 0, 0, 0, 0.6);
		set_state(fx, r, 0, 1, 8, 0.4);
		fx->reps[r].index = (unsigned)r + 1;
		fx->reps[r].command = (char *)"js-work spin 2s";
		fx->reps[r].outcome = OUTCOME_EXITED;
		fx->reps[r].wall_ns = 2000000000;
		fx->reps[r].devs = fx->dreps[r];
		fx->reps[r].ndev = NDEVS;
	}
	fx->gc.sigma = 0;
	*state = fx;
	return 0;
}

static inline int
teardown(void **state)
{
	struct fixture	*fx = *state;

	gate_set_free(&fx->gs);
	baseline_free(&fx->base);
	free(fx);
	return 0;
}

/*
 * Add the gates of one option value, each entry of which must parse.  The
 * entries are parsed one by one, so that several limits on one device can
 * be judged side by side here; on the command line a second limit for the
 * same device is a usage error (test_parse_rejects_duplicates).
 */
static inline void
add_gate(struct fixture *fx, enum gate_metric metric, const char *arg)
{
	struct gate_config	one;
	char			copy[256], *tok, *rest = copy;
	bool			is_list = metric != GATE_TIME && metric != GATE_REGRESSION;

	assert_true(strlen(arg) < sizeof copy);
	snprintf(copy, sizeof copy, "%s", arg);
	while ((tok = strsep(&rest, is_list ? "," : "")) != NULL) {
		memset(&one, 0, sizeof one);
		if (gate_parse(&one, metric, tok, &fx->err) != 0) {
			print_error("%s '%s': %s\n", gate_option(metric), arg, fx->err.msg);
			fail();
		}
		assert_int_equal(one.nspecs, 1);
		assert_true(fx->gc.nspecs < GATE_MAX_SPECS);
		fx->gc.specs[fx->gc.nspecs++] = one.specs[0];
	}
}

/* Judge the gates on the first n runs, against the baseline when it has runs. */
static inline void
judge(struct fixture *fx, size_t n)
{
	gate_set_free(&fx->gs);
	gate_judge(&fx->gs, &fx->gc, fx->reps, n, fx->base.nruns > 0 ? &fx->base : NULL);
}

/* A baseline built by hand: runs and their devices. */
static inline void
base_run(struct baseline *b, double wall_s)
{
	if (b->path == NULL)
		b->path = xstrdup("base.csv");
	b->runs = xreallocarray(b->runs, b->nruns + 1, sizeof *b->runs);
	b->runs[b->nruns++].wall_s = wall_s;
}

static inline void
base_dev(struct baseline *b, const char *id, double energy_j, double above_j)
{
	struct baseline_dev	*d;

	b->devs = xreallocarray(b->devs, b->ndevs + 1, sizeof *b->devs);
	d = &b->devs[b->ndevs++];
	memset(d, 0, sizeof *d);
	d->run = b->nruns - 1;
	snprintf(d->id, sizeof d->id, "%s", id);
	d->energy_j = energy_j;
	d->above_idle_j = above_j;
}

#endif
