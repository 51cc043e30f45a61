/*
 * Unit tests of the CI gates in src/gate/gate.c: the option values
 * gate_parse accepts and refuses, the verdicts gate_judge reaches on
 * reports built by hand (one run, or the mean of several made stricter by
 * --gate-sigma standard deviations), the regression gate against a
 * baseline, the baseline parser on hand-written and on csvout-written
 * summaries, and the text the report and the failure line print.  Every
 * expected figure is worked out here from the fixture's numbers, not
 * taken from the code under test.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "joulestat/csvout.h"
#include "joulestat/gate.h"
#include "joulestat/report.h"
#include "joulestat/util.h"

#include "near.h"

#define NRUNS		3
#define NDEVS		2
#define TOL		1e-9

/* Doubles compared with a stated tolerance, printing both on failure. */
/* s holds sub, printing both when it does not. */
#define assert_contains(s, sub) do {						\
	const char *s_ = (s), *sub_ = (sub);					\
	if (strstr(s_, sub_) == NULL) {						\
		print_error("\"%s\" does not contain \"%s\"\n", s_, sub_);	\
		fail();								\
	}									\
} while (0)

/* The summary columns a baseline needs, in the order the tests write them. */
static const char BHEAD[] = "scope,run,wall_s,device_id,energy_j,energy_above_idle_j\n";

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

static void
set_energy(struct fixture *fx, size_t run, size_t dev, double joules)
{
	fx->dreps[run][dev].method = ENERGY_COUNTER;
	fx->dreps[run][dev].energy_mj = joules * 1e3;
	fx->dreps[run][dev].energy_err_mj = joules * 10;	/* a bound of 1% */
}

static void
set_above_idle(struct fixture *fx, size_t run, size_t dev, double joules)
{
	fx->dreps[run][dev].has_above_idle = true;
	fx->dreps[run][dev].above_idle_mj = joules * 1e3;
}

static void
set_power(struct fixture *fx, size_t run, size_t dev, double watts)
{
	fx->dreps[run][dev].has_avg_power = true;
	fx->dreps[run][dev].avg_power_mw = watts * 1e3;
}

static void
set_state(struct fixture *fx, size_t run, size_t dev, size_t k, int pstate, double share)
{
	struct dev_report	*d = &fx->dreps[run][dev];

	d->states[k].pstate = pstate;
	d->states[k].share = share;
	d->states[k].time_ns = (int64_t)(share * 2e9);
	if (d->nstates < k + 1)
		d->nstates = k + 1;
}

static int
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

static int
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
static void
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
static void
judge(struct fixture *fx, size_t n)
{
	gate_set_free(&fx->gs);
	gate_judge(&fx->gs, &fx->gc, fx->reps, n, fx->base.nruns > 0 ? &fx->base : NULL);
}

/* A baseline built by hand: runs and their devices. */
static void
base_run(struct baseline *b, double wall_s)
{
	if (b->path == NULL)
		b->path = xstrdup("base.csv");
	b->runs = xreallocarray(b->runs, b->nruns + 1, sizeof *b->runs);
	b->runs[b->nruns++].wall_s = wall_s;
}

static void
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

/* ---- gate_parse ------------------------------------------------------------- */

static void
test_parse_total_and_devices(void **state)
{
	struct fixture		*fx = *state;
	const struct gate_spec	*g = fx->gc.specs;

	add_gate(fx, GATE_ENERGY, "12.5");
	assert_int_equal(fx->gc.nspecs, 1);
	assert_int_equal(g[0].metric, GATE_ENERGY);
	assert_int_equal(g[0].device, GATE_ALL_DEVICES);
	assert_near(g[0].limit, 12.5, 0);

	add_gate(fx, GATE_AVG_POWER, "0:300,1:75.5,400");
	assert_int_equal(fx->gc.nspecs, 4);
	assert_int_equal(g[1].metric, GATE_AVG_POWER);
	assert_int_equal(g[1].device, 0);
	assert_near(g[1].limit, 300, 0);
	assert_int_equal(g[2].device, 1);
	assert_near(g[2].limit, 75.5, 0);
	assert_int_equal(g[3].device, GATE_ALL_DEVICES);
	assert_near(g[3].limit, 400, 0);

	add_gate(fx, GATE_ABOVE_IDLE, "1023:0");
	assert_int_equal(g[4].metric, GATE_ABOVE_IDLE);
	assert_int_equal(g[4].device, 1023);
	assert_near(g[4].limit, 0, 0);
	add_gate(fx, GATE_ENERGY, "1e12");
	assert_near(g[5].limit, 1e12, 0);
	assert_int_equal(fx->gc.nspecs, 6);
}

static void
test_parse_rejects(void **state)
{
	static const struct {
		enum gate_metric	 metric;
		const char		*arg;
	} bad[] = {
		{ GATE_ENERGY, "" }, { GATE_ENERGY, "abc" }, { GATE_ENERGY, "-1" },
		{ GATE_ENERGY, "nan" }, { GATE_ENERGY, "inf" }, { GATE_ENERGY, "1.5e12" },
		{ GATE_ENERGY, " 5" }, { GATE_ENERGY, "5 J" }, { GATE_ENERGY, "5," },
		{ GATE_ENERGY, ",5" }, { GATE_ENERGY, "0:" }, { GATE_ENERGY, ":5" },
		{ GATE_ENERGY, "1024:5" }, { GATE_ENERGY, "x:5" }, { GATE_ENERGY, "1:2:3" },
		{ GATE_ENERGY, "-1:5" }, { GATE_AVG_POWER, "0:-3" },
		{ GATE_ABOVE_IDLE, "GPU-A:5" },
		{ GATE_TIME, "0" }, { GATE_TIME, "-2" }, { GATE_TIME, "phase::2" },
		{ GATE_TIME, "phase:a,b:2" }, { GATE_ENERGY, "phase:x" },
		{ GATE_TIME, "0:5" }, { GATE_TIME, "" }, { GATE_TIME, "2d" },
		{ GATE_TIME, "2 s" }, { GATE_TIME, "5J" }, { GATE_ENERGY, "10kj" },
		{ GATE_ENERGY, "10kW" }, { GATE_AVG_POWER, "5Wh" }, { GATE_ENERGY, "kJ" },
		{ GATE_STATE_SHARE, "P0" }, { GATE_STATE_SHARE, ":80" },
		{ GATE_STATE_SHARE, "P0:101" }, { GATE_STATE_SHARE, "P0:-1" },
		{ GATE_STATE_SHARE, "P0:" }, { GATE_STATE_SHARE, "0:80" },
		{ GATE_STATE_SHARE, "x:P0:80" }, { GATE_STATE_SHARE, "1024:P0:80" },
		{ GATE_STATE_SHARE, "P 0:80" }, { GATE_STATE_SHARE, "P0:80,,P8:1" },
		{ GATE_STATE_SHARE, "ABCDEFGHIJKLMNOP:5" },
		{ GATE_REGRESSION, "-5" }, { GATE_REGRESSION, "1000001" },
		{ GATE_REGRESSION, "5,6" }, { GATE_REGRESSION, "0:5" },
		{ GATE_REGRESSION, "5%" },
	};
	struct fixture	*fx = *state;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&fx->gc, 0, sizeof fx->gc);
		fx->err.msg[0] = '\0';
		if (gate_parse(&fx->gc, bad[i].metric, bad[i].arg, &fx->err) != -1) {
			print_error("%s '%s' was accepted\n", gate_option(bad[i].metric),
			    bad[i].arg);
			fail();
		}
		/* The cause names the option and quotes the value. */
		assert_int_equal(strncmp(fx->err.msg, "invalid ", 8), 0);
		assert_contains(fx->err.msg, gate_option(bad[i].metric));
		assert_contains(fx->err.msg, "expected");
	}
	memset(&fx->gc, 0, sizeof fx->gc);
	assert_int_equal(gate_parse(&fx->gc, GATE_ENERGY, "1:2:3", &fx->err), -1);
	assert_string_equal(fx->err.msg, "invalid --max-energy '1:2:3': expected "
	    "[phase:NAME:]joules (10kJ, 0.5Wh), or [phase:NAME:]DEVICE:JOULES,...");
}

static void
test_parse_time_and_regression(void **state)
{
	struct fixture		*fx = *state;
	const struct gate_spec	*g = fx->gc.specs;

	add_gate(fx, GATE_TIME, "2.5");
	assert_int_equal(g[0].metric, GATE_TIME);
	assert_int_equal(g[0].device, GATE_ALL_DEVICES);
	assert_near(g[0].limit, 2.5, 0);
	add_gate(fx, GATE_TIME, "1e-3");
	assert_near(g[1].limit, 0.001, 0);
	add_gate(fx, GATE_REGRESSION, "0");
	assert_int_equal(g[2].metric, GATE_REGRESSION);
	assert_near(g[2].limit, 0, 0);
	add_gate(fx, GATE_REGRESSION, "1000000");
	assert_near(g[3].limit, 1e6, 0);
	assert_int_equal(fx->gc.nspecs, 4);
}

static void
test_parse_state_share(void **state)
{
	struct fixture		*fx = *state;
	const struct gate_spec	*g = fx->gc.specs;

	add_gate(fx, GATE_STATE_SHARE, "P0:80");
	assert_int_equal(g[0].metric, GATE_STATE_SHARE);
	assert_int_equal(g[0].device, GATE_ALL_DEVICES);
	assert_string_equal(g[0].state, "P0");
	assert_near(g[0].limit, 80, 0);

	add_gate(fx, GATE_STATE_SHARE, "1:rc6:12.5,deep-sleep:0,2:P8:100");
	assert_int_equal(fx->gc.nspecs, 4);
	assert_int_equal(g[1].device, 1);
	assert_string_equal(g[1].state, "rc6");
	assert_near(g[1].limit, 12.5, 0);
	assert_int_equal(g[2].device, GATE_ALL_DEVICES);
	assert_string_equal(g[2].state, "deep-sleep");
	assert_near(g[2].limit, 0, 0);
	assert_int_equal(g[3].device, 2);
	assert_string_equal(g[3].state, "P8");
	assert_near(g[3].limit, 100, 0);

	/* A number before the state is the device; the longest name is 15 characters. */
	add_gate(fx, GATE_STATE_SHARE, "0:0:50,ABCDEFGHIJKLMNO:5");
	assert_int_equal(g[4].device, 0);
	assert_string_equal(g[4].state, "0");
	assert_string_equal(g[5].state, "ABCDEFGHIJKLMNO");
}

static void
test_parse_at_most_64(void **state)
{
	struct fixture	*fx = *state;
	char		 list[64 * 8] = "";
	size_t		 i;

	for (i = 0; i < GATE_MAX_SPECS; i++) {
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%zu:1", i > 0 ? "," :
		    "", i);
	}
	assert_int_equal(gate_parse(&fx->gc, GATE_ENERGY, list, &fx->err), 0);
	assert_int_equal(fx->gc.nspecs, GATE_MAX_SPECS);
	assert_int_equal(fx->gc.specs[63].device, 63);
	assert_int_equal(gate_parse(&fx->gc, GATE_TIME, "1", &fx->err), -1);
	assert_contains(fx->err.msg, "at most 64 gates");
	assert_int_equal(fx->gc.nspecs, GATE_MAX_SPECS);
}

/* One limit per metric and device (and state): a second one is a usage error. */
static void
test_parse_rejects_duplicates(void **state)
{
	static const struct {
		enum gate_metric	 metric;
		const char		*first, *arg, *want;
	} dup[] = {
		{ GATE_ENERGY, NULL, "0:5,0:6", "invalid --max-energy '0:5,0:6': a second limit "
		    "for device 0" },
		{ GATE_ENERGY, NULL, "5,1:2,6", "a second limit for all devices" },
		{ GATE_ENERGY, "1:5", "1:5", "invalid --max-energy '1:5': a second limit for "
		    "device 1" },
		{ GATE_AVG_POWER, NULL, "0:300,0:300", "a second limit for device 0" },
		{ GATE_ABOVE_IDLE, NULL, "2,2", "a second limit for all devices" },
		{ GATE_STATE_SHARE, NULL, "P0:50,P0:60", "a second limit for P0 of all devices" },
		{ GATE_STATE_SHARE, NULL, "1:P0:50,1:P0:60", "a second limit for P0 of device 1" },
		{ GATE_TIME, "5", "6", "invalid --max-time '6': a second limit for the run" },
		{ GATE_TIME, NULL, "1,2", "a second limit for the run" },
		{ GATE_TIME, NULL, "phase:a:1,phase:a:2", "a second limit for the run in phase a" },
		{ GATE_ENERGY, NULL, "phase:a:5,phase:a:6", "a second limit for all devices in "
		    "phase a" },
		{ GATE_REGRESSION, "5", "5", "--max-regression given twice" },
	};
	struct fixture	*fx = *state;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(dup); i++) {
		memset(&fx->gc, 0, sizeof fx->gc);
		if (dup[i].first != NULL)
			assert_int_equal(gate_parse(&fx->gc, dup[i].metric, dup[i].first, &fx->err), 0);
		assert_int_equal(gate_parse(&fx->gc, dup[i].metric, dup[i].arg, &fx->err), -1);
		assert_contains(fx->err.msg, dup[i].want);
	}
	/* Different devices, states or metrics are not duplicates. */
	memset(&fx->gc, 0, sizeof fx->gc);
	assert_int_equal(gate_parse(&fx->gc, GATE_ENERGY, "5,0:5,1:5", &fx->err), 0);
	assert_int_equal(gate_parse(&fx->gc, GATE_AVG_POWER, "5,0:5", &fx->err), 0);
	assert_int_equal(gate_parse(&fx->gc, GATE_STATE_SHARE, "P0:5,P8:5,0:P0:5", &fx->err), 0);
	assert_int_equal(fx->gc.nspecs, 8);
	/* Nor are the same gate in different phases, or in a phase and the run. */
	assert_int_equal(gate_parse(&fx->gc, GATE_TIME, "5,phase:a:5,phase:b:5", &fx->err), 0);
	assert_int_equal(fx->gc.nspecs, 11);
	assert_string_equal(fx->gc.specs[9].phase, "a");
}

static void
test_parse_regress_metric(void **state)
{
	struct fixture	*fx = *state;

	assert_int_equal(gate_parse_regress(&fx->gc, "time", &fx->err), 0);
	assert_int_equal(fx->gc.regress, REGRESS_TIME);
	assert_int_equal(gate_parse_regress(&fx->gc, "energy-above-idle", &fx->err), 0);
	assert_int_equal(fx->gc.regress, REGRESS_ABOVE_IDLE);
	assert_int_equal(gate_parse_regress(&fx->gc, "energy", &fx->err), 0);
	assert_int_equal(fx->gc.regress, REGRESS_ENERGY);
	assert_int_equal(gate_parse_regress(&fx->gc, "Energy", &fx->err), -1);
	assert_string_equal(fx->err.msg, "invalid --regression-metric 'Energy': expected "
	    "energy, time or energy-above-idle");
	assert_int_equal(gate_parse_regress(&fx->gc, "", &fx->err), -1);
	assert_int_equal(fx->gc.regress, REGRESS_ENERGY);
	assert_string_equal(gate_option(GATE_STATE_SHARE), "--min-pstate-share");
	assert_string_equal(gate_option(GATE_REGRESSION), "--max-regression");
}

/* ---- gate_judge: thresholds -------------------------------------------------- */

static void
test_judge_total_and_device(void **state)
{
	struct fixture	*fx = *state;

	/* One run: 10 J + 5 J = 15 J in all, 10 J on device 0, 5 J on device 1. */
	add_gate(fx, GATE_ENERGY, "15,14.99,0:10,0:9.99,1:5.01");
	judge(fx, 1);
	assert_int_equal(fx->gs.n, 5);
	assert_near(fx->gs.v[0].measured, 15, TOL);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_string_equal(fx->gs.v[0].what, "energy, all devices");
	assert_string_equal(fx->gs.v[0].unit, "J");
	assert_int_equal(fx->gs.v[1].verdict, GATE_FAIL);
	assert_near(fx->gs.v[2].measured, 10, TOL);
	assert_int_equal(fx->gs.v[2].verdict, GATE_PASS);
	assert_string_equal(fx->gs.v[2].what, "energy, device 0");
	assert_int_equal(fx->gs.v[3].verdict, GATE_FAIL);
	assert_near(fx->gs.v[4].measured, 5, TOL);
	assert_int_equal(fx->gs.v[4].verdict, GATE_PASS);
	assert_int_equal(fx->gs.nfailed, 2);
	/* One run has no spread to report, only the bound: 1% of 10 J and of 5 J. */
	assert_string_equal(fx->gs.v[0].detail, "measured ± 0.150 J (measurement)");
}

static void
test_judge_sigma(void **state)
{
	struct fixture	*fx = *state;
	const double	 sd = sqrt(2);		/* of 10 and 12 */

	set_energy(fx, 0, 0, 10);
	set_energy(fx, 1, 0, 12);
	fx->gc.sigma = 1;
	add_gate(fx, GATE_ENERGY, "0:12,0:12.5,16,17.5");
	judge(fx, 2);
	assert_int_equal(fx->gs.n, 4);
	/* Device 0: mean 11, + 1 sd = 12.414. */
	assert_near(fx->gs.v[0].measured, 11 + sd, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_FAIL);
	assert_int_equal(fx->gs.v[1].verdict, GATE_PASS);
	/* The bound of the mean is the mean of the runs' (0.1 J and 0.12 J), apart from the sd. */
	assert_string_equal(fx->gs.v[0].detail, "mean 11.000 J + 1 x sd 1.414 J over 2 runs; "
	    "mean ± 0.110 J (measurement)");
	/* All devices: 15 and 17, mean 16, the same sd: 17.414. */
	assert_near(fx->gs.v[2].measured, 16 + sd, 1e-9);
	assert_int_equal(fx->gs.v[2].verdict, GATE_FAIL);
	assert_int_equal(fx->gs.v[3].verdict, GATE_PASS);
	assert_int_equal(fx->gs.nfailed, 2);

	/* Without sigma the mean alone is judged: 11 <= 12. */
	fx->gc.sigma = 0;
	judge(fx, 2);
	assert_near(fx->gs.v[0].measured, 11, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);

	/* Three runs 10, 12, 17: mean 13, sd sqrt(((-3)^2 + (-1)^2 + 4^2) / 2) = sqrt(13). */
	set_energy(fx, 2, 0, 17);
	fx->gc.sigma = 2;
	judge(fx, 3);
	assert_near(fx->gs.v[0].measured, 13 + 2 * sqrt(13), 1e-9);
}

static void
test_judge_time(void **state)
{
	struct fixture	*fx = *state;

	fx->reps[0].wall_ns = 2000000000;
	fx->reps[1].wall_ns = 3000000000;
	add_gate(fx, GATE_TIME, "2");
	add_gate(fx, GATE_TIME, "1.99");
	judge(fx, 1);
	assert_near(fx->gs.v[0].measured, 2, TOL);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_int_equal(fx->gs.v[1].verdict, GATE_FAIL);
	assert_string_equal(fx->gs.v[0].what, "wall time");
	assert_string_equal(fx->gs.v[0].unit, "s");

	/* 2 s and 3 s: mean 2.5, sd sqrt(0.5); two sd above is 3.914. */
	memset(&fx->gc, 0, sizeof fx->gc);
	fx->gc.sigma = 2;
	add_gate(fx, GATE_TIME, "3.9");
	add_gate(fx, GATE_TIME, "4");
	judge(fx, 2);
	assert_near(fx->gs.v[0].measured, 2.5 + 2 * sqrt(0.5), 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_FAIL);
	assert_int_equal(fx->gs.v[1].verdict, GATE_PASS);
}

static void
test_judge_power_and_above_idle(void **state)
{
	struct fixture	*fx = *state;

	add_gate(fx, GATE_AVG_POWER, "300,299,1:50");
	add_gate(fx, GATE_ABOVE_IDLE, "3,2.9,0:2");
	judge(fx, 1);
	assert_int_equal(fx->gs.n, 6);
	assert_near(fx->gs.v[0].measured, 300, TOL);
	assert_string_equal(fx->gs.v[0].unit, "W");
	assert_string_equal(fx->gs.v[0].what, "average power, all devices");
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_int_equal(fx->gs.v[1].verdict, GATE_FAIL);
	assert_int_equal(fx->gs.v[2].verdict, GATE_PASS);
	assert_near(fx->gs.v[3].measured, 3, TOL);
	assert_string_equal(fx->gs.v[3].what, "energy above idle, all devices");
	assert_int_equal(fx->gs.v[3].verdict, GATE_PASS);
	assert_int_equal(fx->gs.v[4].verdict, GATE_FAIL);
	assert_near(fx->gs.v[5].measured, 2, TOL);
	assert_int_equal(fx->gs.v[5].verdict, GATE_PASS);

	/* The total is over the devices that measured it: device 1 has no power. */
	fx->dreps[0][1].has_avg_power = false;
	judge(fx, 1);
	assert_near(fx->gs.v[0].measured, 250, TOL);
	assert_int_equal(fx->gs.v[2].verdict, GATE_NO_DATA);
}

static void
test_judge_not_measured(void **state)
{
	struct fixture	*fx = *state;

	/* Device 1 measured no energy in the second run; there is no device 5. */
	fx->dreps[1][1].method = ENERGY_NONE;
	fx->dreps[0][0].has_above_idle = false;
	fx->dreps[0][1].has_above_idle = false;
	add_gate(fx, GATE_ENERGY, "1:100,5:100,0:100");
	add_gate(fx, GATE_ABOVE_IDLE, "100");
	judge(fx, 2);
	assert_int_equal(fx->gs.n, 4);
	assert_int_equal(fx->gs.v[0].verdict, GATE_NO_DATA);
	assert_true(isnan(fx->gs.v[0].measured));
	assert_string_equal(fx->gs.v[0].detail, "no device measured energy");
	assert_int_equal(fx->gs.v[1].verdict, GATE_NO_DATA);
	assert_true(isnan(fx->gs.v[1].measured));
	assert_string_equal(fx->gs.v[1].what, "energy, device 5");
	assert_string_equal(fx->gs.v[1].detail, "the run has no device 5");
	assert_int_equal(fx->gs.v[2].verdict, GATE_PASS);
	assert_int_equal(fx->gs.v[3].verdict, GATE_NO_DATA);
	assert_string_equal(fx->gs.v[3].detail, "no device measured energy above idle");
	/* Not measured counts as failed. */
	assert_int_equal(fx->gs.nfailed, 3);

	/* Device index 2 is just past the end of a two-device run. */
	memset(&fx->gc, 0, sizeof fx->gc);
	add_gate(fx, GATE_AVG_POWER, "2:1000");
	add_gate(fx, GATE_STATE_SHARE, "2:P0:0");
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_NO_DATA);
	assert_int_equal(fx->gs.v[1].verdict, GATE_NO_DATA);
	assert_int_equal(fx->gs.nfailed, 2);

	/* No gates, no results. */
	memset(&fx->gc, 0, sizeof fx->gc);
	judge(fx, 2);
	assert_int_equal(fx->gs.n, 0);
	assert_int_equal(fx->gs.nfailed, 0);
}

/* A total over fewer devices than the run has says so. */
static void
test_judge_partial_total(void **state)
{
	struct fixture	*fx = *state;

	set_energy(fx, 0, 0, 40);
	set_energy(fx, 0, 1, 60);
	add_gate(fx, GATE_ENERGY, "1000");
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_true(fabs(fx->gs.v[0].measured - 100) < 1e-9);
	assert_string_equal(fx->gs.v[0].detail, "measured ± 1.000 J (measurement)");
	fx->dreps[0][1].method = ENERGY_NONE;
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_true(fabs(fx->gs.v[0].measured - 40) < 1e-9);
	assert_string_equal(fx->gs.v[0].detail, "measured ± 0.400 J (measurement); "
	    "the sum over the 1 of 2 devices that measured it");
}

static void
test_judge_state_share(void **state)
{
	struct fixture	*fx = *state;

	/* GPU-A is 60% in P0; GPU-B reports no states and is not judged. */
	add_gate(fx, GATE_STATE_SHARE, "P0:59.9,p0:60.1,P8:39.9,P2:0.1,0:P8:39.9");
	judge(fx, 1);
	assert_int_equal(fx->gs.n, 5);
	assert_near(fx->gs.v[0].measured, 60, 1e-9);
	assert_string_equal(fx->gs.v[0].what, "P0 share of time, device 0");
	assert_string_equal(fx->gs.v[0].unit, "%");
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	/* Case-insensitive, and a minimum: 60 < 60.1 fails. */
	assert_near(fx->gs.v[1].measured, 60, 1e-9);
	assert_int_equal(fx->gs.v[1].verdict, GATE_FAIL);
	assert_int_equal(fx->gs.v[2].verdict, GATE_PASS);
	/* A state the device never was in: 0%. */
	assert_near(fx->gs.v[3].measured, 0, 0);
	assert_int_equal(fx->gs.v[3].verdict, GATE_FAIL);
	assert_string_equal(fx->gs.v[4].what, "P8 share of time, device 0");
	assert_near(fx->gs.v[4].measured, 40, 1e-9);
	assert_int_equal(fx->gs.v[4].verdict, GATE_PASS);

	/* Entries of the same name add up: 25% + 35% in P0. */
	set_state(fx, 0, 0, 0, 0, 0.25);
	set_state(fx, 0, 0, 1, 8, 0.40);
	set_state(fx, 0, 0, 2, 0, 0.35);
	judge(fx, 1);
	assert_near(fx->gs.v[0].measured, 60, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
}

static void
test_judge_state_sigma(void **state)
{
	struct fixture	*fx = *state;

	/* P0 60% and 80%: mean 70, sd sqrt(200); a minimum subtracts: 55.858. */
	set_state(fx, 0, 0, 0, 0, 0.6);
	set_state(fx, 1, 0, 0, 0, 0.8);
	set_state(fx, 1, 0, 1, 8, 0.2);
	fx->gc.sigma = 1;
	add_gate(fx, GATE_STATE_SHARE, "P0:55,P0:56");
	judge(fx, 2);
	assert_int_equal(fx->gs.n, 2);
	assert_near(fx->gs.v[0].measured, 70 - sqrt(200), 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_int_equal(fx->gs.v[1].verdict, GATE_FAIL);
	assert_string_equal(fx->gs.v[0].detail, "mean 70.000 % - 1 x sd 14.142 % over 2 runs");
}

static void
test_judge_state_names(void **state)
{
	struct fixture	*fx = *state;

	/* An i915-style device: 0 is "awake", PSTATE_MAX is "RC6". */
	fx->devs[1].measures |= M_PSTATE;
	fx->devs[1].pstate_names = PSTATE_NAMES_RC6;
	set_state(fx, 0, 1, 0, PSTATE_MAX, 0.7);
	set_state(fx, 0, 1, 1, 0, 0.3);
	add_gate(fx, GATE_STATE_SHARE, "1:rc6:69.9,1:AWAKE:30.1");
	judge(fx, 1);
	assert_near(fx->gs.v[0].measured, 70, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_near(fx->gs.v[1].measured, 30, 1e-9);
	assert_int_equal(fx->gs.v[1].verdict, GATE_FAIL);

	/* Without a device, both devices now report states: one result each. */
	memset(&fx->gc, 0, sizeof fx->gc);
	add_gate(fx, GATE_STATE_SHARE, "RC6:50");
	judge(fx, 1);
	assert_int_equal(fx->gs.n, 2);
	assert_string_equal(fx->gs.v[0].what, "RC6 share of time, device 0");
	assert_int_equal(fx->gs.v[0].verdict, GATE_FAIL);
	assert_string_equal(fx->gs.v[1].what, "RC6 share of time, device 1");
	assert_int_equal(fx->gs.v[1].verdict, GATE_PASS);
}

static void
test_judge_state_not_measured(void **state)
{
	struct fixture	*fx = *state;

	/* No device reports states: one result, not measured. */
	fx->devs[0].measures &= ~(unsigned)M_PSTATE;
	add_gate(fx, GATE_STATE_SHARE, "P0:10");
	judge(fx, 1);
	assert_int_equal(fx->gs.n, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_NO_DATA);
	assert_string_equal(fx->gs.v[0].what, "P0 share of time");
	assert_string_equal(fx->gs.v[0].detail, "no device reports performance states");
	assert_int_equal(fx->gs.nfailed, 1);
}

/*
 * A device named by index that does not report states at all (GPU-B, a
 * RAPL package) has no share to judge: that is "not measured", as it is
 * when no device is named, and not a measured 0% (which a limit of 0
 * would even pass).
 */
static void
test_judge_state_device_without_states(void **state)
{
	struct fixture	*fx = *state;

	add_gate(fx, GATE_STATE_SHARE, "1:P0:0,1:P0:50");
	judge(fx, 1);
	assert_int_equal(fx->gs.n, 2);
	assert_int_equal(fx->gs.v[0].verdict, GATE_NO_DATA);
	assert_int_equal(fx->gs.v[1].verdict, GATE_NO_DATA);
	assert_int_equal(fx->gs.nfailed, 2);
}

/* ---- gate_judge: regression ----------------------------------------------- */

static void
test_regression_identical(void **state)
{
	struct fixture	*fx = *state;

	/* The baseline is this very run: GPU-A 10 J, GPU-B 5 J. */
	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-A", 10, 2);
	base_dev(&fx->base, "GPU-B", 5, 1);
	add_gate(fx, GATE_REGRESSION, "0");
	judge(fx, 1);
	assert_int_equal(fx->gs.n, 1);
	assert_near(fx->gs.v[0].measured, 0, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_string_equal(fx->gs.v[0].what, "energy growth over the baseline");
	assert_string_equal(fx->gs.v[0].detail, "baseline 15.000 J (1 runs), now 15.000 J (1 runs): "
	    "+0.00% +- 0.00%, 2 devices");
}

static void
test_regression_growth(void **state)
{
	struct fixture	*fx = *state;

	/* 10 J + 5 J before, 12 J + 6 J now: +20%. */
	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-A", 10, 2);
	base_dev(&fx->base, "GPU-B", 5, 1);
	set_energy(fx, 0, 0, 12);
	set_energy(fx, 0, 1, 6);
	add_gate(fx, GATE_REGRESSION, "10");
	add_gate(fx, GATE_REGRESSION, "20.001");
	judge(fx, 1);
	assert_near(fx->gs.v[0].measured, 20, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_FAIL);
	assert_int_equal(fx->gs.v[1].verdict, GATE_PASS);
	assert_int_equal(fx->gs.nfailed, 1);

	/* Shrinking is negative growth, which any limit passes. */
	set_energy(fx, 0, 0, 6);
	set_energy(fx, 0, 1, 3);
	judge(fx, 1);
	assert_near(fx->gs.v[0].measured, -40, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
}

static void
test_regression_noise(void **state)
{
	struct fixture	*fx = *state;
	double		 sd = sqrt(8), unc;

	/*
	 * GPU-A only (the baseline knows no GPU-B).  Baseline runs 8 J and 12 J
	 * (mean 10, sd sqrt(8)); now 10 J and 14 J (mean 12, sd sqrt(8)).
	 * Growth 20%; uncertainty 100 * 1.2 * sqrt((sd/12)^2 + (sd/10)^2).
	 */
	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-A", 8, 1);
	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-A", 12, 1);
	set_energy(fx, 0, 0, 10);
	set_energy(fx, 1, 0, 14);
	unc = 120 * sqrt(pow(sd / 12, 2) + pow(sd / 10, 2));
	add_gate(fx, GATE_REGRESSION, "10");
	judge(fx, 2);
	assert_near(fx->gs.v[0].measured, 20 - unc, 1e-9);
	assert_true(fx->gs.v[0].measured < 0);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_contains(fx->gs.v[0].detail, ", 1 device");

	/* The same growth without spread on either side fails. */
	set_energy(fx, 0, 0, 12);
	set_energy(fx, 1, 0, 12);
	fx->base.devs[0].energy_j = 10;
	fx->base.devs[1].energy_j = 10;
	judge(fx, 2);
	assert_near(fx->gs.v[0].measured, 20, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_FAIL);

	/* Spread only now (one baseline run): no uncertainty is taken off. */
	set_energy(fx, 0, 0, 10);
	set_energy(fx, 1, 0, 14);
	fx->base.nruns = 1;
	fx->base.ndevs = 1;
	judge(fx, 2);
	assert_near(fx->gs.v[0].measured, 20, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_FAIL);
}

static void
test_regression_common_devices(void **state)
{
	struct fixture	*fx = *state;

	/* The baseline had GPU-A and a GPU-C that is gone; only GPU-A compares. */
	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-C", 1000, 1);
	base_dev(&fx->base, "GPU-A", 8, 1);
	add_gate(fx, GATE_REGRESSION, "30");
	judge(fx, 1);
	assert_near(fx->gs.v[0].measured, 25, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_contains(fx->gs.v[0].detail, "baseline 8.000 J");
	assert_contains(fx->gs.v[0].detail, "now 10.000 J");
}

static void
test_regression_no_common_device(void **state)
{
	struct fixture	*fx = *state;

	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-X", 10, 2);
	add_gate(fx, GATE_REGRESSION, "1000");
	judge(fx, 1);
	assert_int_equal(fx->gs.n, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_NO_DATA);
	assert_true(isnan(fx->gs.v[0].measured));
	assert_string_equal(fx->gs.v[0].detail, "no device in common with the baseline");
	assert_int_equal(fx->gs.nfailed, 1);
}

static void
test_regression_time_and_above_idle(void **state)
{
	struct fixture	*fx = *state;

	/* Wall 2 s before, 2.5 s now: +25%, whatever the devices. */
	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-X", 10, 2);
	fx->reps[0].wall_ns = 2500000000;
	add_gate(fx, GATE_REGRESSION, "24");
	assert_int_equal(gate_parse_regress(&fx->gc, "time", &fx->err), 0);
	judge(fx, 1);
	assert_near(fx->gs.v[0].measured, 25, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_FAIL);
	assert_string_equal(fx->gs.v[0].what, "wall time growth over the baseline");
	assert_string_equal(fx->gs.v[0].unit, "%");

	/* Above idle: 2 J + 1 J before, 2 J + 1.6 J now: +20%. */
	baseline_free(&fx->base);
	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-A", 50, 2);
	base_dev(&fx->base, "GPU-B", 50, 1);
	set_above_idle(fx, 0, 1, 1.6);
	assert_int_equal(gate_parse_regress(&fx->gc, "energy-above-idle", &fx->err), 0);
	judge(fx, 1);
	assert_near(fx->gs.v[0].measured, 20, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_string_equal(fx->gs.v[0].what, "energy above idle growth over the baseline");
}

static void
test_regression_baseline_not_measured(void **state)
{
	struct fixture	*fx = *state;

	/* The baseline has GPU-A's energy as unknown. */
	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-A", NAN, NAN);
	add_gate(fx, GATE_REGRESSION, "10");
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_NO_DATA);
	assert_string_equal(fx->gs.v[0].detail, "the baseline did not measure it");

	/* A baseline of 0 J gives no growth to speak of. */
	fx->base.devs[0].energy_j = 0;
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_NO_DATA);
	assert_string_equal(fx->gs.v[0].detail, "the baseline's figure is 0");
}

/*
 * The device is in both, but the current run did not measure it: the
 * cause must say so, not claim there is no device in common.
 */
static void
test_regression_run_not_measured(void **state)
{
	struct fixture	*fx = *state;

	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-A", 10, 2);
	fx->dreps[0][0].method = ENERGY_NONE;
	add_gate(fx, GATE_REGRESSION, "10");
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_NO_DATA);
	assert_string_equal(fx->gs.v[0].detail, "a run did not measure it");
}

/* ---- text ------------------------------------------------------------------- */

static void
test_write_text(void **state)
{
	struct fixture	*fx = *state;
	char		*buf = NULL;
	size_t		 len = 0;
	FILE		*f;

	set_energy(fx, 0, 0, 10);
	set_energy(fx, 1, 0, 12);
	fx->gc.sigma = 1;
	add_gate(fx, GATE_ENERGY, "0:12,5:1");
	add_gate(fx, GATE_STATE_SHARE, "P0:50");
	judge(fx, 2);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gate_write_text(f, &fx->gs), 0);
	assert_int_equal(fclose(f), 0);
	assert_contains(buf, " gates");
	assert_contains(buf, "   energy, device 0");
	assert_contains(buf, "<= 12.000 J");
	assert_contains(buf, "12.414 J  FAIL\n");
	assert_contains(buf, "     mean 11.000 J + 1 x sd 1.414 J over 2 runs; mean ± 0.110 J "
	    "(measurement)\n");
	/* Not measured: "-" for the figure, and why. */
	assert_contains(buf, "   energy, device 5");
	assert_contains(buf, " -  FAIL (not measured)\n");
	assert_contains(buf, "     the run has no device 5\n");
	/* A minimum. */
	assert_contains(buf, ">= 50.000 %");
	assert_contains(buf, "60.000 %  pass\n");
	assert_contains(buf, "   2 of 3 gates failed\n");
	free(buf);

	/* No gates: nothing at all. */
	gate_set_free(&fx->gs);
	buf = NULL;
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(gate_write_text(f, &fx->gs), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(len, 0);
	free(buf);
}

static void
test_failure_line(void **state)
{
	struct fixture	*fx = *state;
	char		 line[256];

	set_energy(fx, 0, 0, 10);
	set_energy(fx, 1, 0, 12);
	fx->gc.sigma = 1;
	add_gate(fx, GATE_ENERGY, "0:12,5:1");
	add_gate(fx, GATE_STATE_SHARE, "0:P0:75");
	judge(fx, 2);
	gate_failure_line(&fx->gs.v[0], line, sizeof line);
	assert_string_equal(line, "gate failed: energy, device 0 (--max-energy): 12.414 J, "
	    "limit <= 12.000 J");
	gate_failure_line(&fx->gs.v[1], line, sizeof line);
	assert_string_equal(line, "gate failed: energy, device 5 (--max-energy): the run has no "
	    "device 5");
	gate_failure_line(&fx->gs.v[2], line, sizeof line);
	assert_string_equal(line, "gate failed: P0 share of time, device 0 (--min-pstate-share): "
	    "60.000 %, limit >= 75.000 %");
	/* Cut to the buffer, still terminated. */
	gate_failure_line(&fx->gs.v[0], line, 12);
	assert_string_equal(line, "gate failed");
	assert_string_equal(gate_verdict_word(GATE_PASS), "pass");
	assert_string_equal(gate_verdict_word(GATE_FAIL), "FAIL");
	assert_string_equal(gate_verdict_word(GATE_NO_DATA), "FAIL (not measured)");
}

/* ---- baseline_parse ------------------------------------------------------- */

/* Parse text as "b.csv", expecting rc; on -1 the cause must be want. */
static void
parse_base(struct fixture *fx, const char *text, int rc, const char *want)
{
	baseline_free(&fx->base);
	fx->err.msg[0] = '\0';
	if (baseline_parse(&fx->base, "b.csv", text, strlen(text), &fx->err) != rc) {
		print_error("baseline_parse rc != %d (%s) for:\n%s", rc, fx->err.msg, text);
		fail();
	}
	if (want != NULL)
		assert_string_equal(fx->err.msg, want);
}

static void
test_baseline_rejects(void **state)
{
	struct fixture	*fx = *state;
	char		 text[512];

	parse_base(fx, "a,b\n1,2\n", -1,
	    "--baseline b.csv: no column 'scope': not a joulestat --csv summary");
	parse_base(fx, "scope,run,wall_s,device_id,energy_j\nrun,1,2,,\n", -1,
	    "--baseline b.csv: no column 'energy_above_idle_j': not a joulestat --csv summary");
	parse_base(fx, "", -1, "--baseline b.csv: empty file, not a joulestat CSV");

	snprintf(text, sizeof text, "%srun,1,abc,,,\n", BHEAD);
	parse_base(fx, text, -1, "--baseline b.csv: line 2: wall_s 'abc' is not a number");
	snprintf(text, sizeof text, "%srun,1,,,,\n", BHEAD);
	parse_base(fx, text, -1, "--baseline b.csv: line 2: wall_s '' is not a number");
	snprintf(text, sizeof text, "%srun,1,inf,,,\n", BHEAD);
	parse_base(fx, text, -1, NULL);

	snprintf(text, sizeof text, "%sdevice,1,,GPU-A,10,1\nrun,1,2,,,\n", BHEAD);
	parse_base(fx, text, -1,
	    "--baseline b.csv: line 2: a device row without its run row or device_id");
	snprintf(text, sizeof text, "%srun,1,2,,,\ndevice,1,,,10,1\n", BHEAD);
	parse_base(fx, text, -1,
	    "--baseline b.csv: line 3: a device row without its run row or device_id");

	snprintf(text, sizeof text, "%srun,1,2,,,\ndevice,1,,GPU-A,ten,1\n", BHEAD);
	parse_base(fx, text, -1,
	    "--baseline b.csv: line 3: energy of device GPU-A is not a number");
	snprintf(text, sizeof text, "%srun,1,2,,,\ndevice,1,,GPU-A,10,nan\n", BHEAD);
	parse_base(fx, text, -1,
	    "--baseline b.csv: line 3: energy of device GPU-A is not a number");
	snprintf(text, sizeof text, "%srun,1,2,,,\ndevice,1,,GPU-A,1e999,\n", BHEAD);
	parse_base(fx, text, -1, NULL);

	/* Only mean and stddev rows: no runs. */
	snprintf(text, sizeof text, "%srun,mean,2,,,\nrun,stddev,0,,,\n", BHEAD);
	parse_base(fx, text, -1, "--baseline b.csv: no run rows: not a joulestat --csv summary");
	/* Not CSV: a stray quote. */
	snprintf(text, sizeof text, "%srun,1,2\"x,,,\n", BHEAD);
	parse_base(fx, text, -1, NULL);
	assert_int_equal(strncmp(fx->err.msg, "--baseline b.csv: line 2: ", 26), 0);
	assert_null(fx->base.path);	/* nothing is left to release after -1 */
}

static void
test_baseline_accepts(void **state)
{
	struct fixture		*fx = *state;
	const struct baseline	*b = &fx->base;
	char			 text[1024];

	/* Columns in any order, with others between; empty energy is unknown. */
	snprintf(text, sizeof text,
	    "energy_above_idle_j,x,energy_j,device_id,wall_s,run,scope\n"
	    ",,,,2.5,1,run\n"
	    ",,,GPU-A,,1,device\n"
	    "1.5,,3.25,GPU-B,,1,device\n"
	    ",,0.5,GPU-A,,1,pstate\n"
	    ",,,,3.5,2,run\n"
	    ",,4,GPU-A,,2,device\n"
	    ",,,,3,mean,run\n"
	    ",,4,GPU-A,,mean,device\n"
	    ",,,,1,stddev,run\n"
	    ",,,,,,gate\n");
	parse_base(fx, text, 0, NULL);
	assert_string_equal(b->path, "b.csv");
	assert_int_equal(b->nruns, 2);
	assert_near(b->runs[0].wall_s, 2.5, 0);
	assert_near(b->runs[1].wall_s, 3.5, 0);
	assert_int_equal(b->ndevs, 3);
	assert_int_equal(b->devs[0].run, 0);
	assert_string_equal(b->devs[0].id, "GPU-A");
	assert_true(isnan(b->devs[0].energy_j));
	assert_true(isnan(b->devs[0].above_idle_j));
	assert_int_equal(b->devs[1].run, 0);
	assert_string_equal(b->devs[1].id, "GPU-B");
	assert_near(b->devs[1].energy_j, 3.25, 0);
	assert_near(b->devs[1].above_idle_j, 1.5, 0);
	assert_int_equal(b->devs[2].run, 1);
	assert_near(b->devs[2].energy_j, 4, 0);
	assert_true(isnan(b->devs[2].above_idle_j));
}

/* Line numbers count the lines a quoted command spans. */
static void
test_baseline_lines(void **state)
{
	struct fixture	*fx = *state;
	char		 text[512];

	snprintf(text, sizeof text, "scope,run,command,wall_s,device_id,energy_j,"
	    "energy_above_idle_j\nrun,1,\"sh -c \"\"a,b\"\"\nline 2\",2,,,\n"
	    "device,1,\"sh -c \"\"a,b\"\"\nline 2\",,GPU-A,bad,\n");
	parse_base(fx, text, -1,
	    "--baseline b.csv: line 4: energy of device GPU-A is not a number");
}

/* What csvout_summary writes, baseline_parse reads back. */
static void
test_baseline_round_trip(void **state)
{
	struct fixture		*fx = *state;
	const struct baseline	*b = &fx->base;
	struct proc_report	 proc = { .pid = 4242, .comm = "worker", .has_util = true };
	struct series		 series;
	char			*buf = NULL;
	size_t			 len = 0;
	FILE			*f;

	fx->reps[0].command = (char *)"sh -c \"echo a,b\"\nsecond line";
	fx->reps[1].command = fx->reps[0].command;
	fx->reps[0].wall_ns = 1500000000;
	fx->reps[1].wall_ns = 2250000000;
	set_energy(fx, 0, 0, 10.5);
	set_energy(fx, 1, 0, 12.25);
	set_energy(fx, 1, 1, 5.5);
	set_above_idle(fx, 0, 0, 2.125);
	fx->dreps[0][1].has_above_idle = false;
	fx->dreps[1][1].method = ENERGY_NONE;
	fx->dreps[0][0].procs = &proc;
	fx->dreps[0][0].nprocs = 1;
	add_gate(fx, GATE_ENERGY, "100");
	judge(fx, 2);
	report_series(&series, fx->reps, 2);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(csvout_summary(f, fx->reps, 2, &series, &fx->gs, ",", false), 0);
	assert_int_equal(fclose(f), 0);
	report_series_free(&series);

	assert_int_equal(baseline_parse(&fx->base, "rt.csv", buf, len, &fx->err), 0);
	free(buf);
	assert_int_equal(b->nruns, 2);
	assert_near(b->runs[0].wall_s, 1.5, 0);
	assert_near(b->runs[1].wall_s, 2.25, 0);
	assert_int_equal(b->ndevs, 4);
	assert_int_equal(b->devs[0].run, 0);
	assert_string_equal(b->devs[0].id, "GPU-A");
	assert_near(b->devs[0].energy_j, 10.5, 0);
	assert_near(b->devs[0].above_idle_j, 2.125, 0);
	assert_int_equal(b->devs[1].run, 0);
	assert_string_equal(b->devs[1].id, "GPU-B");
	assert_near(b->devs[1].energy_j, 5, 0);
	assert_true(isnan(b->devs[1].above_idle_j));
	assert_int_equal(b->devs[2].run, 1);
	assert_string_equal(b->devs[2].id, "GPU-A");
	assert_near(b->devs[2].energy_j, 12.25, 0);
	assert_near(b->devs[2].above_idle_j, 2, 0);
	assert_int_equal(b->devs[3].run, 1);
	assert_string_equal(b->devs[3].id, "GPU-B");
	assert_true(isnan(b->devs[3].energy_j));

	/*
	 * Judged against itself on wall time: 0% growth, less the noise of
	 * 1.5 s and 2.25 s on both sides (sd 0.75 / sqrt(2), mean 1.875):
	 * 100 * sqrt(2) * sd / mean = 40%.
	 */
	memset(&fx->gc, 0, sizeof fx->gc);
	add_gate(fx, GATE_REGRESSION, "0");
	assert_int_equal(gate_parse_regress(&fx->gc, "time", &fx->err), 0);
	judge(fx, 2);
	assert_near(fx->gs.v[0].measured, -100 * sqrt(2) * (0.75 / sqrt(2)) / 1.875, 1e-9);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
}

static void
test_baseline_load(void **state)
{
	struct fixture	*fx = *state;
	char		 path[] = "/tmp/joulestat-test-gate.XXXXXX";
	char		 text[256];
	int		 fd;

	snprintf(text, sizeof text, "%srun,1,2,,,\ndevice,1,,GPU-A,7.5,\n", BHEAD);
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write_all(fd, text, strlen(text)), 0);
	close(fd);
	assert_int_equal(baseline_load(&fx->base, path, &fx->err), 0);
	assert_string_equal(fx->base.path, path);
	assert_int_equal(fx->base.nruns, 1);
	assert_int_equal(fx->base.ndevs, 1);
	assert_near(fx->base.devs[0].energy_j, 7.5, 0);
	baseline_free(&fx->base);
	unlink(path);

	assert_int_equal(baseline_load(&fx->base, path, &fx->err), -1);
	assert_int_equal(strncmp(fx->err.msg, "--baseline: ", 12), 0);
	assert_contains(fx->err.msg, path);
	assert_contains(fx->err.msg, "No such file or directory");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parse_total_and_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_time_and_regression, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_state_share, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_at_most_64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_rejects_duplicates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_regress_metric, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_total_and_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_sigma, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_power_and_above_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_not_measured, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_partial_total, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_share, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_sigma, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_not_measured, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_device_without_states, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_regression_identical, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regression_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regression_noise, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regression_common_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regression_no_common_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regression_time_and_above_idle, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_regression_baseline_not_measured, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_regression_run_not_measured, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_accepts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_load, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
