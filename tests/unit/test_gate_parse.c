/*
 * Unit tests of what the CI gates read: the option values gate_parse
 * accepts and refuses, and the baseline parser on hand-written and on
 * csvout-written summaries.  The verdicts: test_gate.c.
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

/* The summary columns a baseline needs, in the order the tests write them. */
static const char BHEAD[] = "scope,run,wall_s,device_id,energy_j,energy_above_idle_j\n";

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
	/* "-0" is 0, printed without a sign (before: "<= -0.000 J"). */
	add_gate(fx, GATE_ENERGY, "-0");
	assert_near(g[6].limit, 0, 0);
	assert_false(signbit(g[6].limit));
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

/*
 * A run that failed is read as if it were not there, with its device and
 * phase rows; an empty exit_status (attach mode) keeps the run.
 */
static void
test_baseline_failed_runs(void **state)
{
	struct fixture		*fx = *state;
	const struct baseline	*b = &fx->base;
	char			 text[1024];

	snprintf(text, sizeof text,
	    "scope,run,wall_s,device_id,energy_j,energy_above_idle_j,exit_status,phase\n"
	    "run,1,2,,,,0,\n"
	    "device,1,,GPU-A,10,,,\n"
	    "phase,1,1,GPU-A,5,,,a\n"
	    "run,2,9,,,,1,\n"
	    "device,2,,GPU-A,90,,,\n"
	    "phase,2,9,GPU-A,90,,,a\n"
	    "run,3,4,,,,,\n"
	    "device,3,,GPU-A,20,,,\n"
	    "run,4,9,,,,143,\n");
	parse_base(fx, text, 0, NULL);
	assert_int_equal(b->nruns, 2);
	assert_near(b->runs[0].wall_s, 2, 0);
	assert_near(b->runs[1].wall_s, 4, 0);
	assert_int_equal(b->ndevs, 2);
	assert_near(b->devs[0].energy_j, 10, 0);
	assert_int_equal(b->devs[1].run, 1);
	assert_near(b->devs[1].energy_j, 20, 0);
	assert_int_equal(b->nphases, 1);
	assert_near(b->phases[0].energy_j, 5, 0);

	snprintf(text, sizeof text,
	    "scope,run,wall_s,device_id,energy_j,energy_above_idle_j,exit_status\n"
	    "run,1,2,,,,2\ndevice,1,,GPU-A,10,,\nrun,2,2,,,,130\n");
	parse_base(fx, text, -1,
	    "--baseline b.csv: no run that succeeded (exit_status 0) among its 2 run rows");
	snprintf(text, sizeof text,
	    "scope,run,wall_s,device_id,energy_j,energy_above_idle_j,exit_status\n"
	    "run,1,2,,,,-1\n");
	parse_base(fx, text, -1,
	    "--baseline b.csv: line 2: exit_status '-1' is not an exit status");
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
		cmocka_unit_test_setup_teardown(test_parse_time_and_regression, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_parse_state_share, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_at_most_64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_rejects_duplicates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_regress_metric, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_accepts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_failed_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_load, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
