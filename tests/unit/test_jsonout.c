/*
 * Unit tests of the JSON report in src/out/jsonout.c: a report
 * built by hand, with one device, two P-states, a process and attribution,
 * is written to memory and read back with jansson's parser (duplicate keys
 * rejected).  The keys must be the documented ones in the documented
 * order, counts must be JSON integers and measured figures JSON reals,
 * every unknown figure must be null and not 0, strings full of quotes,
 * newlines and control characters must come back byte for byte, and bytes
 * that are not UTF-8 must come back as U+FFFD, one per byte.
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

#include "joulestat/fmt.h"
#include "joulestat/jsonout.h"
#include "joulestat/util.h"

/* Every character JSON must escape, and some it need not. */
static const char COMMAND[] =
    "sh -c \"echo a,b; printf '%s\\n' \\\"x\\\"\"\nsecond line\r\n\ttab \\ back\x01\x1f\x7f"
    " caf\xc3\xa9 \xf0\x9f\x98\x80 /slash";

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

struct fixture {
	struct device		dev;
	struct dev_report	drep;
	struct proc_report	proc;
	pid_t			leftover[2];
	struct report		rep;
	char			*out;		/* what write_json wrote */
	size_t			 outlen;
	json_t			*root;
};

static void
build_device(struct fixture *fx)
{
	struct dev_report	*d = &fx->drep;

	snprintf(fx->dev.id, sizeof fx->dev.id, "GPU-2f1c,\"a\";b\\c");
	snprintf(fx->dev.name, sizeof fx->dev.name, "NVIDIA \"Simulated\" GPU\n80GB");
	snprintf(fx->dev.bus_id, sizeof fx->dev.bus_id, "00000000:01:00.0");
	snprintf(fx->dev.notes[0], sizeof fx->dev.notes[0], "a note with \"quotes\"");
	fx->dev.nnotes = 1;
	fx->dev.index = 3;
	fx->dev.power_kind = POWER_KIND_AVERAGE_1S;
	d->dev = &fx->dev;
	d->backend = "nvml";
	d->window_ns = 2500000000;
	d->has_window = true;
	d->method = ENERGY_COUNTER;
	d->energy_mj = 123456.789;
	d->alt_mj[ENERGY_COUNTER] = 123456.789;
	d->has_alt[ENERGY_COUNTER] = true;
	d->alt_mj[ENERGY_TICKS] = 120000.5;
	d->has_alt[ENERGY_TICKS] = true;
	d->avg_power_mw = 49382.7156;
	d->has_avg_power = true;
	d->peak_power_mw = 301250;
	d->has_peak = true;
	d->lost_samples = 2;
	d->lost_ns = 250000000;
	d->counter_resets = 1;
	d->has_throttle = true;
	d->throttle_power_ns = 250000000;
	d->throttle_thermal_ns = 0;
	d->idle_method = IDLE_GIVEN;
	d->idle_mw = 55000;
	d->has_above_idle = true;
	d->above_idle_mj = -14043.211;
	d->has_foreign = true;
	d->foreign_sm_pct = 12.5;
	d->foreign_mem_pct = 3.25;
	d->foreign_sm_max = 40;
}

static void
build_states(struct fixture *fx)
{
	struct state_report	*s;

	fx->drep.nstates = 2;
	s = &fx->drep.states[0];
	s->pstate = 0;
	s->time_ns = 1500000000;
	s->share = 0.6;
	s->energy_mj = 100000.25;
	s->has_energy = true;
	s->energy_ns = s->time_ns;
	s->avg_sm_mhz = 1980.04;
	s->has_sm = true;
	s = &fx->drep.states[1];
	s->pstate = PSTATE_UNKNOWN;
	s->time_ns = 1000000000;
	s->share = 0.4;
	s->energy_mj = 23456.539;
	s->has_energy = true;
	/* Energy over part of the state's time: its power is over that part. */
	s->energy_ns = 500000000;
}

static void
build_attrib(struct fixture *fx)
{
	struct dev_report	*d = &fx->drep;
	struct proc_report	*p = &fx->proc;

	p->pid = 4242;
	snprintf(p->comm, sizeof p->comm, "train \"v2\"");
	p->sm_pct = 60.5;
	p->mem_pct = 30.25;
	p->has_util = true;
	p->max_gpu_mem_kib = 8388608;
	p->energy_mj = 61728.3945;
	d->procs = p;
	d->nprocs = 1;
	d->has_attrib = true;
	d->has_other = true;
	d->workload_mj = 61728.3945;
	d->other_mj = 40000;
	d->unattributed_mj = 21728.3945;
}

static void
build_run(struct fixture *fx)
{
	struct report	*r = &fx->rep;

	r->index = 1;
	r->command = (char *)COMMAND;
	r->outcome = OUTCOME_EXITED;
	r->code = 3;
	r->exit_status = 3;
	r->wall_ns = 1500000001;
	r->user_ns = 1234567;
	r->sys_ns = 7654321;
	r->max_rss_kib = 10240;
	r->has_max_rss = true;
	r->has_tree = true;
	r->has_tree_rss = true;
	r->tracker = TRACKER_CGROUP;
	r->peak_tree_rss_kib = 20480;
	r->processes = 4;
	r->max_concurrent = 3;
	fx->leftover[0] = 101;
	fx->leftover[1] = 102;
	r->leftover = fx->leftover;
	r->nleftover = 2;
	r->interval_ms = 100;
	r->w_sm = 0.7;
	r->w_mem = 0.3;
	r->ticks = 25;
	r->missed = 1;
	r->has_late = true;
	r->late_max_ns = 1500000;
	r->late_p99_ns = 1250000;
	r->sampler_cpu_ns = 4000000;
	r->races = 5;
	r->notes[0] = "nvml: a run note";
	r->nnotes = 1;
	r->devs = &fx->drep;
	r->ndev = 1;
}

static int
setup(void **state)
{
	struct fixture	*fx;

	if ((fx = calloc(1, sizeof *fx)) == NULL)
		return -1;
	build_device(fx);
	build_states(fx);
	build_attrib(fx);
	build_run(fx);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*fx = *state;

	json_decref(fx->root);
	free(fx->out);
	free(fx);
	return 0;
}

/* What --json does (outputs_write): build the document, then dump it. */
static int
write_json(FILE *f, const struct report *reps, size_t nreps, const struct series *series,
    const struct gate_set *gates)
{
	json_t	*doc = jsonout_build(reps, nreps, series, gates);
	int	 rc;

	if (doc == NULL)
		return -ENOMEM;
	rc = fmt_json_dump(f, doc);
	json_decref(doc);
	return rc;
}

/* Write reps as JSON to memory and parse it back into fx->root. */
static void
write_and_parse_n(struct fixture *fx, const struct report *reps, size_t nreps)
{
	json_error_t	 e;
	FILE		*f;

	free(fx->out);
	fx->out = NULL;
	json_decref(fx->root);
	f = open_memstream(&fx->out, &fx->outlen);
	assert_non_null(f);
	assert_int_equal(write_json(f, reps, nreps, NULL, NULL), 0);
	assert_int_equal(fclose(f), 0);
	assert_true(fx->outlen > 0);
	assert_int_equal(fx->out[fx->outlen - 1], '\n');
	fx->root = json_loadb(fx->out, fx->outlen, JSON_REJECT_DUPLICATES, &e);
	if (fx->root == NULL)
		print_error("jansson: %d:%d: %s\n%s\n", e.line, e.column, e.text, fx->out);
	assert_non_null(fx->root);
}

static void
write_and_parse(struct fixture *fx)
{
	write_and_parse_n(fx, &fx->rep, 1);
}

/* The value at a path like ".runs[0].devices[0].energy_j"; fails the test if none. */
static json_t *
at(const struct fixture *fx, const char *path)
{
	json_t		*v = fx->root;
	const char	*p = path;
	char		 key[64], *end;
	size_t		 n;

	while (*p != '\0' && v != NULL) {
		if (*p == '[') {
			v = json_array_get(v, strtoul(p + 1, &end, 10));
			p = end + 1;
			continue;
		}
		n = strcspn(p + 1, ".[");
		assert_true(*p == '.' && n > 0 && n < sizeof key);
		memcpy(key, p + 1, n);
		key[n] = '\0';
		v = json_object_get(v, key);
		p += 1 + n;
	}
	if (v == NULL)
		print_error("no value at %s\n", path);
	assert_non_null(v);
	return v;
}

static void
assert_null_at(const struct fixture *fx, const char *path)
{
	if (!json_is_null(at(fx, path)))
		print_error("%s is not null\n", path);
	assert_true(json_is_null(at(fx, path)));
}

static void
assert_int_at(const struct fixture *fx, const char *path, json_int_t want)
{
	json_t	*v = at(fx, path);

	if (!json_is_integer(v))
		print_error("%s is not an integer\n", path);
	assert_true(json_is_integer(v));
	assert_int_equal(json_integer_value(v), want);
}

/* A measured figure: a JSON real within 1e-12 (relative) of want. */
static void
assert_real_at(const struct fixture *fx, const char *path, double want)
{
	json_t	*v = at(fx, path);

	if (!json_is_real(v))
		print_error("%s is not a real\n", path);
	assert_true(json_is_real(v));
	if (fabs(json_real_value(v) - want) > 1e-12 * fmax(1, fabs(want)))
		print_error("%s: %.17g, want %.17g\n", path, json_real_value(v), want);
	assert_true(fabs(json_real_value(v) - want) <= 1e-12 * fmax(1, fabs(want)));
}

static void
assert_str_at(const struct fixture *fx, const char *path, const char *want)
{
	json_t	*v = at(fx, path);

	if (!json_is_string(v))
		print_error("%s is not a string\n", path);
	assert_true(json_is_string(v));
	assert_int_equal(json_string_length(v), strlen(want));
	assert_memory_equal(json_string_value(v), want, strlen(want));
}

static void
assert_keys(const struct fixture *fx, const char *path, const char *const *keys, size_t n)
{
	json_t		*o = at(fx, path), *v;
	const char	*key;
	size_t		 i = 0;

	assert_true(json_is_object(o));
	json_object_foreach(o, key, v) {
		if (i >= n || strcmp(key, keys[i]) != 0)
			print_error("%s: key %zu is %s, want %s\n", path, i, key,
			    i < n ? keys[i] : "(none)");
		assert_true(i < n && strcmp(key, keys[i]) == 0);
		i++;
	}
	assert_int_equal(i, n);
}

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

static void
test_strings_round_trip(void **state)
{
	struct fixture	*fx = *state;

	write_and_parse(fx);
	assert_str_at(fx, ".runs[0].command", COMMAND);
	assert_str_at(fx, ".runs[0].devices[0].id", fx->dev.id);
	assert_str_at(fx, ".runs[0].devices[0].name", fx->dev.name);
	/* Control characters are escaped, never written raw. */
	assert_null(memchr(fx->out, '\x01', fx->outlen));
	assert_null(strstr(fx->out, "line\r"));

	/* No command (attach mode builds one, but an emitter must not crash). */
	fx->rep.command = NULL;
	write_and_parse(fx);
	assert_null_at(fx, ".runs[0].command");
}

/*
 * Bytes that are not UTF-8 come back as U+FFFD, one per byte, and the
 * valid text around them is untouched.  Cases from Unicode 15.0 §3.9.
 */
static void
test_invalid_utf8(void **state)
{
	static const struct {
		const char	*in;
		const char	*want;
	} cases[] = {
		{ "caf\xe9 au lait", "caf\xef\xbf\xbd au lait" },		/* Latin-1 */
		{ "a\xff" "b", "a\xef\xbf\xbd" "b" },
		{ "\x80", "\xef\xbf\xbd" },					/* lone continuation */
		{ "js-\xe2\x82", "js-\xef\xbf\xbd\xef\xbf\xbd" },		/* cut mid-sequence */
		{ "\xe2\x82\xac \xe2\x82 \xe2\x82\xac",
		    "\xe2\x82\xac \xef\xbf\xbd\xef\xbf\xbd \xe2\x82\xac" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },			/* overlong '/' */
		{ "\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },	/* overlong */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },	/* surrogate */
		{ "\xf4\x90\x80\x80",						/* > U+10FFFF */
		    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },			/* U+10FFFF */
		{ "\xed\x9f\xbf", "\xed\x9f\xbf" },				/* U+D7FF */
		{ "\xef\xbf\xbd", "\xef\xbf\xbd" },				/* U+FFFD itself */
	};
	struct fixture	*fx = *state;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fx->rep.command = (char *)cases[i].in;
		snprintf(fx->proc.comm, sizeof fx->proc.comm, "%s", cases[i].in);
		snprintf(fx->dev.name, sizeof fx->dev.name, "%s", cases[i].in);
		write_and_parse(fx);
		assert_str_at(fx, ".runs[0].command", cases[i].want);
		assert_str_at(fx, ".runs[0].devices[0].name", cases[i].want);
		assert_str_at(fx, ".runs[0].devices[0].processes[0].process", cases[i].want);
	}
}

/* JSON has no NaN or infinity: such a figure is unknown. */
static void
test_non_finite_is_null(void **state)
{
	struct fixture	*fx = *state;

	fx->drep.avg_power_mw = NAN;
	fx->drep.states[0].share = INFINITY;
	fx->proc.sm_pct = -INFINITY;
	write_and_parse(fx);
	assert_null_at(fx, ".runs[0].devices[0].avg_power_w");
	assert_null_at(fx, ".runs[0].devices[0].pstates[0].share");
	assert_null_at(fx, ".runs[0].devices[0].processes[0].sm_pct");
	assert_real_at(fx, ".runs[0].devices[0].energy_j", 123.456789);
}

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
static void
test_write_errors(void **state)
{
	struct fixture	*fx = *state;
	FILE		*f;
	int		 rc;

	if ((f = fopen("/dev/full", "w")) != NULL) {
		rc = write_json(f, &fx->rep, 1, NULL, NULL);
		fclose(f);
		assert_int_equal(rc, -ENOSPC);
	}
	f = fopen("/dev/null", "r");
	assert_non_null(f);
	rc = write_json(f, &fx->rep, 1, NULL, NULL);
	fclose(f);
	assert_true(rc < 0);
}

/* jansson's allocations left before the next one fails; -1: never fail. */
static long	alloc_budget = -1;

static void *
failing_malloc(size_t size)
{
	if (alloc_budget == 0) {
		errno = ENOMEM;
		return NULL;
	}
	if (alloc_budget > 0)
		alloc_budget--;
	return malloc(size);
}

/*
 * Every jansson allocation, failed in turn: each attempt returns -ENOMEM
 * (and, under ASan, leaks nothing), until one has enough memory and
 * writes the whole document.  Building fails before anything is written;
 * dumping may fail after a part.
 */
static void
test_out_of_memory(void **state)
{
	struct fixture	*fx = *state;
	char		*buf = NULL;
	size_t		 len = 0;
	long		 n;
	FILE		*f;
	int		 rc = -ENOMEM;

	for (n = 0; rc == -ENOMEM && n < 100000; n++) {
		f = open_memstream(&buf, &len);
		assert_non_null(f);
		json_set_alloc_funcs(failing_malloc, free);
		alloc_budget = n;
		rc = write_json(f, &fx->rep, 1, NULL, NULL);
		alloc_budget = -1;
		json_set_alloc_funcs(malloc, free);
		assert_int_equal(fclose(f), 0);
		if (rc != 0 && rc != -ENOMEM)
			print_error("budget %ld: %d\n", n, rc);
		assert_true(rc == 0 || rc == -ENOMEM);
		free(buf);
		buf = NULL;
	}
	assert_int_equal(rc, 0);
	assert_true(n > 50);
	/* The budget that sufficed gives the same document as no budget at all. */
	write_and_parse(fx);
	assert_int_equal(json_array_size(at(fx, ".runs[0].devices")), 1);
}

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
		cmocka_unit_test_setup_teardown(test_strings_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_utf8, setup, teardown),
		cmocka_unit_test_setup_teardown(test_non_finite_is_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_devices_and_many_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
