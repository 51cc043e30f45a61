/*
 * Unit tests of the JSON report in src/out/jsonout.c, on the report
 * jsonout_fixture.h builds: the keys must be the documented ones in the
 * documented order, counts must be JSON integers and measured figures
 * JSON reals, and every unknown figure must be null and not 0.  How text
 * and numbers are written, and write errors: test_jsonout_write.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "jsonout_fixture.h"

/* The documented keys, in order (man page, JSON section). */
static const char *const ROOT_KEYS[] = { "schema_version", "runs", "series", "gates" };
static const char *const RUN_KEYS[] = {
	"run", "host", "rank", "job", "start_unix_s", "command", "outcome", "exit_status", "signal",
	"exec_errno", "wall_s", "user_s", "sys_s",
	"cpu_sampled", "max_rss_kib", "peak_tree_rss_kib", "processes", "max_concurrent",
	"attached_processes", "still_running", "still_running_pids", "attrib_weights", "sampler",
	"totals", "start_time", "joulestat_version", "tracker", "visible_devices",
	"notes", "devices", "phases", "phase_marks",
};
static const char *const SAMPLER_KEYS[] = {
	"interval_ms", "ticks", "missed_ticks", "late_max_ms", "late_p50_ms", "late_p99_ms", "cpu_s",
	"proc_races",
};
static const char *const DEVICE_KEYS[] = {
	"index", "id", "name", "bus_id", "versions", "architecture", "backend", "backend_index",
	"power_kind", "gone",
	"energy_j", "energy_method", "energy_err_j", "energies_j", "window_s", "avg_power_w",
	"peak_power_w", "lost_readings", "lost_s", "measured_s", "partial", "within_device",
	"counter_resets", "pstate_intervals", "pstate_changes", "pstate_changes_unseen",
	"driver_sampling_s", "short", "throttled_power_s", "throttled_thermal_s",
	"clock_event_reasons",
	"idle_power_w", "idle_method", "energy_above_idle_j", "other_processes", "pstates",
	"pstate_energy_split",
	"attribution", "processes", "notes",
};
static const char *const ENERGIES_KEYS[] = {
	"counter", "counter_err", "driver_samples", "driver_samples_err", "readings",
	"readings_err",
};
static const char *const PSTATE_KEYS[] = {
	"pstate", "time_s", "time_err_s", "coarse", "share", "energy_j", "energy_err_j",
	"avg_power_w", "avg_sm_mhz", "avg_gfx_mhz", "avg_mem_mhz", "measured_s",
};
static const char *const ATTRIB_KEYS[] = {
	"method", "workload_energy_j", "other_energy_j", "unattributed_energy_j", "energy_share",
};
static const char *const PROCESS_KEYS[] = {
	"pid", "process", "sm_pct", "mem_pct", "between_ticks", "gpu_mem_kib", "energy_j",
	"energy_method", "energy_share",
};
static const char *const OTHER_KEYS[] = { "sm_pct", "mem_pct", "peak_sm_pct" };

static void
test_keys_in_order(void **state)
{
	struct fixture	*fx = *state;

	write_and_parse(fx);
	assert_keys(fx, "", ROOT_KEYS, ARRAY_SIZE(ROOT_KEYS));
	assert_keys(fx, ".runs[0]", RUN_KEYS, ARRAY_SIZE(RUN_KEYS));
	assert_keys(fx, ".runs[0].sampler", SAMPLER_KEYS, ARRAY_SIZE(SAMPLER_KEYS));
	assert_keys(fx, ".runs[0].devices[0]", DEVICE_KEYS, ARRAY_SIZE(DEVICE_KEYS));
	assert_keys(fx, ".runs[0].devices[0].energies_j", ENERGIES_KEYS,
	    ARRAY_SIZE(ENERGIES_KEYS));
	assert_keys(fx, ".runs[0].devices[0].pstates[0]", PSTATE_KEYS, ARRAY_SIZE(PSTATE_KEYS));
	assert_keys(fx, ".runs[0].devices[0].pstates[1]", PSTATE_KEYS, ARRAY_SIZE(PSTATE_KEYS));
	assert_keys(fx, ".runs[0].devices[0].attribution", ATTRIB_KEYS, ARRAY_SIZE(ATTRIB_KEYS));
	assert_keys(fx, ".runs[0].devices[0].processes[0]", PROCESS_KEYS,
	    ARRAY_SIZE(PROCESS_KEYS));
	assert_keys(fx, ".runs[0].devices[0].other_processes", OTHER_KEYS,
	    ARRAY_SIZE(OTHER_KEYS));
	assert_int_at(fx, ".schema_version", JSONOUT_SCHEMA_VERSION);
	assert_int_equal(json_array_size(at(fx, ".runs")), 1);
}

static void
test_run_values(void **state)
{
	struct fixture	*fx = *state;

	write_and_parse(fx);
	assert_int_at(fx, ".runs[0].run", 1);
	assert_str_at(fx, ".runs[0].outcome", "exited");
	assert_int_at(fx, ".runs[0].exit_status", 3);
	assert_null_at(fx, ".runs[0].signal");
	assert_null_at(fx, ".runs[0].exec_errno");
	assert_real_at(fx, ".runs[0].wall_s", 1.500000001);
	assert_real_at(fx, ".runs[0].user_s", 0.001234567);
	assert_real_at(fx, ".runs[0].sys_s", 0.007654321);
	assert_true(json_is_false(at(fx, ".runs[0].cpu_sampled")));
	assert_int_at(fx, ".runs[0].max_rss_kib", 10240);
	assert_int_at(fx, ".runs[0].peak_tree_rss_kib", 20480);
	assert_int_at(fx, ".runs[0].processes", 4);
	assert_int_at(fx, ".runs[0].max_concurrent", 3);
	assert_int_at(fx, ".runs[0].attached_processes", 0);
	assert_int_at(fx, ".runs[0].still_running", 2);
	assert_int_at(fx, ".runs[0].still_running_pids[1]", 102);
	assert_real_at(fx, ".runs[0].attrib_weights.sm", 0.7);
	assert_real_at(fx, ".runs[0].attrib_weights.mem", 0.3);
	assert_int_at(fx, ".runs[0].sampler.interval_ms", 100);
	assert_int_at(fx, ".runs[0].sampler.ticks", 25);
	assert_int_at(fx, ".runs[0].sampler.missed_ticks", 1);
	assert_real_at(fx, ".runs[0].sampler.late_max_ms", 1.5);
	assert_real_at(fx, ".runs[0].sampler.late_p99_ms", 1.25);
	assert_real_at(fx, ".runs[0].sampler.cpu_s", 0.004);
	assert_int_at(fx, ".runs[0].sampler.proc_races", 5);
	assert_str_at(fx, ".runs[0].tracker", "cgroup");
	assert_str_at(fx, ".runs[0].notes[0]", "nvml: a run note");
	/* 15 significant digits: no 0.10000000000000001 in the text. */
	assert_non_null(strstr(fx->out, "\"sm\": 0.7,"));
	assert_non_null(strstr(fx->out, "\"wall_s\": 1.500000001,"));
}

static void
test_device_values(void **state)
{
	struct fixture	*fx = *state;

	write_and_parse(fx);
	assert_int_at(fx, ".runs[0].devices[0].index", 0);
	assert_int_at(fx, ".runs[0].devices[0].backend_index", 3);
	assert_str_at(fx, ".runs[0].devices[0].backend", "nvml");
	assert_str_at(fx, ".runs[0].devices[0].bus_id", "00000000:01:00.0");
	assert_str_at(fx, ".runs[0].devices[0].power_kind", "average-1s");
	assert_true(json_is_false(at(fx, ".runs[0].devices[0].gone")));
	assert_real_at(fx, ".runs[0].devices[0].energy_j", 123.456789);
	assert_str_at(fx, ".runs[0].devices[0].energy_method", "counter");
	assert_real_at(fx, ".runs[0].devices[0].energies_j.counter", 123.456789);
	assert_real_at(fx, ".runs[0].devices[0].energies_j.readings", 120.0005);
	assert_real_at(fx, ".runs[0].devices[0].window_s", 2.5);
	/* No valid reading at all: the window is unknown too. */
	fx->drep.has_window = false;
	fx->drep.has_measured = false;
	write_and_parse(fx);
	assert_null_at(fx, ".runs[0].devices[0].window_s");
	assert_null_at(fx, ".runs[0].devices[0].partial");
	fx->drep.has_window = true;
	write_and_parse(fx);
	assert_real_at(fx, ".runs[0].devices[0].avg_power_w", 49.3827156);
	assert_real_at(fx, ".runs[0].devices[0].peak_power_w", 301.25);
	assert_int_at(fx, ".runs[0].devices[0].lost_readings", 2);
	assert_real_at(fx, ".runs[0].devices[0].lost_s", 0.25);
	assert_int_at(fx, ".runs[0].devices[0].counter_resets", 1);
	assert_real_at(fx, ".runs[0].devices[0].throttled_power_s", 0.25);
	/* Known to be zero is 0, not null. */
	assert_real_at(fx, ".runs[0].devices[0].throttled_thermal_s", 0);
	assert_real_at(fx, ".runs[0].devices[0].idle_power_w", 55);
	assert_str_at(fx, ".runs[0].devices[0].idle_method", "given");
	assert_real_at(fx, ".runs[0].devices[0].energy_above_idle_j", -14.043211);
	assert_real_at(fx, ".runs[0].devices[0].other_processes.sm_pct", 12.5);
	assert_real_at(fx, ".runs[0].devices[0].other_processes.mem_pct", 3.25);
	assert_int_at(fx, ".runs[0].devices[0].other_processes.peak_sm_pct", 40);
	assert_str_at(fx, ".runs[0].devices[0].notes[0]", "a note with \"quotes\"");
}

static void
test_pstate_values(void **state)
{
	struct fixture	*fx = *state;

	write_and_parse(fx);
	assert_int_equal(json_array_size(at(fx, ".runs[0].devices[0].pstates")), 2);
	assert_str_at(fx, ".runs[0].devices[0].pstates[0].pstate", "P0");
	assert_real_at(fx, ".runs[0].devices[0].pstates[0].time_s", 1.5);
	assert_real_at(fx, ".runs[0].devices[0].pstates[0].share", 0.6);
	assert_real_at(fx, ".runs[0].devices[0].pstates[0].energy_j", 100.00025);
	assert_real_at(fx, ".runs[0].devices[0].pstates[0].avg_power_w", 100.00025 / 1.5);
	assert_real_at(fx, ".runs[0].devices[0].pstates[0].avg_sm_mhz", 1980.04);
	assert_str_at(fx, ".runs[0].devices[0].pstates[1].pstate", "unknown");
	assert_real_at(fx, ".runs[0].devices[0].pstates[1].energy_j", 23.456539);
	assert_null_at(fx, ".runs[0].devices[0].pstates[1].avg_sm_mhz");
	assert_real_at(fx, ".runs[0].devices[0].pstates[1].avg_power_w", 23.456539 / 0.5);
	assert_real_at(fx, ".runs[0].devices[0].pstates[1].measured_s", 0.5);
}

static void
test_attribution_values(void **state)
{
	struct fixture	*fx = *state;

	write_and_parse(fx);
	assert_str_at(fx, ".runs[0].devices[0].attribution.method", "estimate");
	assert_real_at(fx, ".runs[0].devices[0].attribution.workload_energy_j", 61.7283945);
	assert_real_at(fx, ".runs[0].devices[0].attribution.other_energy_j", 40);
	assert_real_at(fx, ".runs[0].devices[0].attribution.unattributed_energy_j", 21.7283945);
	assert_real_at(fx, ".runs[0].devices[0].attribution.energy_share",
	    61728.3945 / 123456.789);
	assert_int_at(fx, ".runs[0].devices[0].processes[0].pid", 4242);
	assert_str_at(fx, ".runs[0].devices[0].processes[0].process", "train \"v2\"");
	assert_real_at(fx, ".runs[0].devices[0].processes[0].sm_pct", 60.5);
	assert_real_at(fx, ".runs[0].devices[0].processes[0].mem_pct", 30.25);
	assert_true(json_is_false(at(fx, ".runs[0].devices[0].processes[0].between_ticks")));
	assert_int_at(fx, ".runs[0].devices[0].processes[0].gpu_mem_kib", 8388608);
	assert_real_at(fx, ".runs[0].devices[0].processes[0].energy_j", 61.7283945);
	assert_str_at(fx, ".runs[0].devices[0].processes[0].energy_method", "estimate");
	assert_real_at(fx, ".runs[0].devices[0].processes[0].energy_share",
	    61728.3945 / 123456.789);
}

/* Every figure that can be unknown, cleared in the fixture. */

static void
make_unknown(struct fixture *fx)
{
	struct dev_report	*d = &fx->drep;

	fx->rep.has_max_rss = false;
	fx->rep.has_tree = false;
	fx->rep.has_tree_rss = false;
	d->has_throttle = false;
	fx->dev.power_kind = POWER_KIND_UNKNOWN;
	fx->dev.bus_id[0] = '\0';
	d->method = ENERGY_NONE;
	memset(d->has_alt, 0, sizeof d->has_alt);
	d->has_avg_power = false;
	d->has_peak = false;
	d->idle_method = IDLE_UNKNOWN;
	d->has_above_idle = false;
	d->has_foreign = false;
	d->has_attrib = false;
	d->states[0].has_energy = false;
	d->states[0].has_sm = false;
	fx->proc.has_util = false;
	fx->proc.max_gpu_mem_kib = 0;
	fx->proc.comm[0] = '\0';
}

static void
test_unknown_is_null(void **state)
{
	static const char *const paths[] = {
		".runs[0].max_rss_kib",
		".runs[0].peak_tree_rss_kib",
		".runs[0].processes",
		".runs[0].max_concurrent",
		".runs[0].devices[0].bus_id",
		".runs[0].devices[0].power_kind",
		".runs[0].devices[0].energy_j",
		".runs[0].devices[0].energy_method",
		".runs[0].devices[0].energies_j.counter",
		".runs[0].devices[0].energies_j.driver_samples",
		".runs[0].devices[0].energies_j.readings",
		".runs[0].devices[0].avg_power_w",
		".runs[0].devices[0].peak_power_w",
		".runs[0].devices[0].throttled_power_s",
		".runs[0].devices[0].throttled_thermal_s",
		".runs[0].devices[0].idle_power_w",
		".runs[0].devices[0].idle_method",
		".runs[0].devices[0].energy_above_idle_j",
		".runs[0].devices[0].other_processes",
		".runs[0].devices[0].attribution",
		".runs[0].devices[0].pstates[0].energy_j",
		".runs[0].devices[0].pstates[0].avg_power_w",
		".runs[0].devices[0].pstates[0].avg_sm_mhz",
		".runs[0].devices[0].processes[0].process",
		".runs[0].devices[0].processes[0].sm_pct",
		".runs[0].devices[0].processes[0].mem_pct",
		".runs[0].devices[0].processes[0].gpu_mem_kib",
		".runs[0].devices[0].processes[0].energy_j",
		".runs[0].devices[0].processes[0].energy_method",
		".runs[0].devices[0].processes[0].energy_share",
	};
	struct fixture	*fx = *state;
	size_t		 i;

	make_unknown(fx);
	write_and_parse(fx);
	for (i = 0; i < ARRAY_SIZE(paths); i++)
		assert_null_at(fx, paths[i]);
	/* What is always known stays a number. */
	assert_real_at(fx, ".runs[0].devices[0].window_s", 2.5);
	assert_real_at(fx, ".runs[0].devices[0].pstates[0].time_s", 1.5);
	assert_int_at(fx, ".runs[0].devices[0].processes[0].pid", 4242);
	/* Energy known but no time in the state: no average power. */
	fx->drep.method = ENERGY_COUNTER;
	fx->drep.states[0].has_energy = true;
	fx->drep.states[0].time_ns = 0;
	fx->drep.states[0].energy_ns = 0;
	fx->drep.energy_mj = 0;
	fx->drep.has_attrib = true;
	write_and_parse(fx);
	assert_real_at(fx, ".runs[0].devices[0].pstates[0].energy_j", 100.00025);
	assert_null_at(fx, ".runs[0].devices[0].pstates[0].avg_power_w");
	/* No energy to share: no share, but the estimate itself is there. */
	assert_null_at(fx, ".runs[0].devices[0].attribution.energy_share");
	assert_real_at(fx, ".runs[0].devices[0].processes[0].energy_j", 61.7283945);
	assert_null_at(fx, ".runs[0].devices[0].processes[0].energy_share");
}

static void
test_outcomes(void **state)
{
	struct fixture	*fx = *state;

	fx->rep.outcome = OUTCOME_SIGNALED;
	fx->rep.code = 15;
	fx->rep.exit_status = 143;
	write_and_parse(fx);
	assert_str_at(fx, ".runs[0].outcome", "signaled");
	assert_int_at(fx, ".runs[0].exit_status", 143);
	assert_int_at(fx, ".runs[0].signal", 15);
	assert_null_at(fx, ".runs[0].exec_errno");

	fx->rep.outcome = OUTCOME_NOT_FOUND;
	fx->rep.code = ENOENT;
	fx->rep.exit_status = 127;
	write_and_parse(fx);
	assert_str_at(fx, ".runs[0].outcome", "not-found");
	assert_int_at(fx, ".runs[0].exec_errno", ENOENT);
	assert_null_at(fx, ".runs[0].signal");

	/* Attached: there is no exit status of ours to give. */
	fx->rep.outcome = OUTCOME_ATTACHED;
	fx->rep.code = 0;
	fx->rep.exit_status = 0;
	fx->rep.nattached = 2;
	write_and_parse(fx);
	assert_str_at(fx, ".runs[0].outcome", "attached");
	assert_null_at(fx, ".runs[0].exit_status");
	assert_null_at(fx, ".runs[0].signal");
	assert_int_at(fx, ".runs[0].attached_processes", 2);

	fx->rep.outcome = OUTCOME_INTERRUPTED;
	fx->rep.code = 2;
	write_and_parse(fx);
	assert_str_at(fx, ".runs[0].outcome", "interrupted");
	assert_null_at(fx, ".runs[0].exit_status");
	assert_int_at(fx, ".runs[0].signal", 2);
}

/*
 * Bytes that are not UTF-8 come back as U+FFFD, one per byte, and the
 * valid text around them is untouched.  Cases from Unicode 15.0 §3.9.
 */

/* JSON has no NaN or infinity: such a figure is unknown. */

static void
test_no_devices_and_many_runs(void **state)
{
	struct fixture	*fx = *state;
	struct report	 reps[2];

	fx->rep.ndev = 0;
	write_and_parse(fx);
	assert_true(json_is_array(at(fx, ".runs[0].devices")));
	assert_int_equal(json_array_size(at(fx, ".runs[0].devices")), 0);

	reps[0] = fx->rep;
	reps[1] = fx->rep;
	reps[1].index = 2;
	reps[1].command = (char *)"second run";
	reps[1].ndev = 1;
	write_and_parse_n(fx, reps, 2);
	assert_int_equal(json_array_size(at(fx, ".runs")), 2);
	assert_str_at(fx, ".runs[0].command", COMMAND);
	assert_str_at(fx, ".runs[1].command", "second run");
	assert_int_at(fx, ".runs[1].run", 2);
	assert_int_equal(json_array_size(at(fx, ".runs[0].devices")), 0);
	assert_int_equal(json_array_size(at(fx, ".runs[1].devices")), 1);

	write_and_parse_n(fx, reps, 0);
	assert_int_equal(json_array_size(at(fx, ".runs")), 0);
}

/* A full disk and a stream not open for writing are errors, not silence. */

/* jansson's allocations left before the next one fails; -1: never fail. */

/*
 * Every jansson allocation, failed in turn: each attempt returns -ENOMEM
 * (and, under ASan, leaks nothing), until one has enough memory and
 * writes the whole document.  Building fails before anything is written;
 * dumping may fail after a part.
 */

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_keys_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pstate_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attribution_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_is_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outcomes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_devices_and_many_runs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
