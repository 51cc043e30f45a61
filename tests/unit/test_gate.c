/*
 * Unit tests of the CI gates in src/gate/gate.c: the verdicts gate_judge
 * reaches on reports built by hand (one run, or the mean of several made
 * stricter by --gate-sigma standard deviations), the regression gate
 * against a baseline, and the text the report and the failure line print.
 * The option values and the baseline parser: test_gate_parse.c.  Every
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

#include "gate_fixture.h"
#include "near.h"

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

/* A run that failed is not judged; with none that succeeded, nothing is measured. */
static void
test_judge_failed_runs(void **state)
{
	struct fixture	*fx = *state;

	set_energy(fx, 0, 0, 10);
	set_energy(fx, 1, 0, 30);
	set_energy(fx, 2, 0, 14);
	fx->reps[1].exit_status = 1;
	add_gate(fx, GATE_ENERGY, "0:11");
	add_gate(fx, GATE_TIME, "10");
	judge(fx, 3);
	/* The mean of runs 1 and 3: 12 J. */
	assert_near(fx->gs.v[0].measured, 12, TOL);
	assert_int_equal(fx->gs.v[0].verdict, GATE_FAIL);
	assert_int_equal(fx->gs.v[1].verdict, GATE_PASS);
	fx->reps[0].exit_status = 143;
	fx->reps[2].exit_status = 2;
	judge(fx, 3);
	assert_int_equal(fx->gs.n, 2);
	assert_int_equal(fx->gs.nfailed, 2);
	assert_int_equal(fx->gs.v[1].verdict, GATE_NO_DATA);
	assert_string_equal(fx->gs.v[0].what, "energy, device 0");
	assert_string_equal(fx->gs.v[1].what, "wall time");
	assert_string_equal(fx->gs.v[1].detail, "no run succeeded");
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
	/*
	 * Device 1 measures energy but measured none in the run (a GPU lost
	 * from the start): the total misses all of its time.
	 */
	fx->dreps[0][0].measured_ns = fx->dreps[0][0].span_ns = 2000000000;
	fx->dreps[0][1].span_ns = 2000000000;
	fx->dreps[0][1].method = ENERGY_NONE;
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PARTIAL);
	assert_true(fabs(fx->gs.v[0].measured - 40) < 1e-9);
	assert_string_equal(fx->gs.v[0].detail, "measured ± 0.400 J (measurement); "
	    "the sum over the 1 of 2 devices that measured it; "
	    "device time measured: 2.000 s of 4.000 s");
	fx->gc.is_partial_measured = true;
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_string_equal(fx->gs.v[0].detail, "measured ± 0.400 J (measurement); "
	    "the sum over the 1 of 2 devices that measured it; "
	    "device time measured: 2.000 s of 4.000 s, judged on that (--gate-partial=measured)");
	/* Not known what it measures (it did not answer at probe): the same. */
	fx->gc.is_partial_measured = false;
	fx->devs[1].measures = 0;
	fx->devs[1].is_unprobed = true;
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PARTIAL);
	/* A device that measures no energy by nature is left out, and the total says so. */
	fx->devs[1].measures = M_PSTATE;
	fx->devs[1].is_unprobed = false;
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
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
 * GPU-A reports states but read none (all its time is unknown): its share
 * is not measured, not 0 %.  Over part of the run it is partly measured.
 */
static void
test_judge_state_unread_or_partial(void **state)
{
	struct fixture	*fx = *state;

	fx->dreps[0][0].nstates = 0;
	set_state(fx, 0, 0, 0, PSTATE_UNKNOWN, 1);
	add_gate(fx, GATE_STATE_SHARE, "P0:10,0:P8:0");
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_NO_DATA);
	assert_true(isnan(fx->gs.v[0].measured));
	assert_string_equal(fx->gs.v[0].detail, "device 0 read no performance state");
	assert_int_equal(fx->gs.v[1].verdict, GATE_NO_DATA);

	fx->dreps[0][0].nstates = 0;
	set_state(fx, 0, 0, 0, 0, 0.6);
	set_state(fx, 0, 0, 1, PSTATE_UNKNOWN, 0.4);
	fx->dreps[0][0].measured_ns = 1000000000;
	fx->dreps[0][0].span_ns = 2000000000;
	fx->dreps[0][0].is_partial = true;
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PARTIAL);
	assert_near(fx->gs.v[0].measured, 60, TOL);
	assert_string_equal(fx->gs.v[0].detail, "device time measured: 1.000 s of 2.000 s");
	fx->gc.is_partial_measured = true;
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
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

/*
 * A device of the baseline that the run has but did not measure is left
 * out of both sides, and the comparison is partly measured: left out
 * silently, it would read as a drop of its energy.
 */
static void
test_regression_device_left_out(void **state)
{
	struct fixture	*fx = *state;

	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-A", 10, 2);
	base_dev(&fx->base, "GPU-B", 5, 1);
	fx->dreps[0][0].measured_ns = fx->dreps[0][0].span_ns = 2000000000;
	fx->dreps[0][1].span_ns = 2000000000;
	fx->dreps[0][1].method = ENERGY_NONE;
	add_gate(fx, GATE_REGRESSION, "10");
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PARTIAL);
	assert_near(fx->gs.v[0].measured, 0, TOL);
	assert_string_equal(fx->gs.v[0].detail, "baseline 10.000 J (1 runs), now 10.000 J "
	    "(1 runs): +0.00% +- 0.00%, 1 device; 1 that measured nothing left out of both; "
	    "device time measured: 2.000 s of 4.000 s");
	fx->gc.is_partial_measured = true;
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);

	/* Never identified, it has no id of the baseline's: it may be GPU-B. */
	fx->gc.is_partial_measured = false;
	snprintf(fx->devs[1].id, sizeof fx->devs[1].id, "nvml:1");
	fx->devs[1].measures = 0;
	fx->devs[1].is_unprobed = true;
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PARTIAL);
	assert_near(fx->gs.v[0].measured, 0, TOL);

	/* A baseline without a second device: nothing is missing. */
	baseline_free(&fx->base);
	base_run(&fx->base, 2);
	base_dev(&fx->base, "GPU-A", 10, 2);
	judge(fx, 1);
	assert_int_equal(fx->gs.v[0].verdict, GATE_PASS);
	assert_string_equal(fx->gs.v[0].detail, "baseline 10.000 J (1 runs), now 10.000 J "
	    "(1 runs): +0.00% +- 0.00%, 1 device");
}

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_judge_total_and_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_sigma, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_failed_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_power_and_above_idle, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_judge_not_measured, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_partial_total, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_share, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_sigma, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_not_measured, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_unread_or_partial, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_judge_state_device_without_states, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_regression_identical, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regression_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regression_noise, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regression_common_devices, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_regression_no_common_device, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_regression_time_and_above_idle, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_regression_baseline_not_measured, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_regression_run_not_measured, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_regression_device_left_out, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_write_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_line, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
