/*
 * The fixture of the JSON report's unit tests (test_jsonout.c,
 * test_jsonout_write.c): a report built by hand, with one device, two
 * P-states, a process and attribution, written to memory and read back
 * with jansson's parser (duplicate keys rejected), and lookups by path.
 * Include after cmocka.h.
 */
#ifndef JOULESTAT_TEST_JSONOUT_FIXTURE_H
#define JOULESTAT_TEST_JSONOUT_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "joulestat/fmt.h"
#include "joulestat/jsonout.h"
#include "joulestat/util.h"

/* Every character JSON must escape, and some it need not. */
static const char COMMAND[] =
    "sh -c \"echo a,b; printf '%s\\n' \\\"x\\\"\"\nsecond line\r\n\ttab \\ back\x01\x1f\x7f"
    " caf\xc3\xa9 \xf0\x9f\x98\x80 /slash";

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

static inline void
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
	d->notes = fx->dev.notes;	/* the report's copy, as report_build makes it */
	d->nnotes = fx->dev.nnotes;
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

static inline void
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

static inline void
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

static inline void
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

static inline int
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

static inline int
teardown(void **state)
{
	struct fixture	*fx = *state;

	json_decref(fx->root);
	free(fx->out);
	free(fx);
	return 0;
}

/* What --json does (outputs_write): build the document, then dump it. */
static inline int
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
static inline void
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

static inline void
write_and_parse(struct fixture *fx)
{
	write_and_parse_n(fx, &fx->rep, 1);
}

/* The value at a path like ".runs[0].devices[0].energy_j"; fails the test if none. */
static inline json_t *
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

static inline void
assert_null_at(const struct fixture *fx, const char *path)
{
	if (!json_is_null(at(fx, path)))
		print_error("%s is not null\n", path);
	assert_true(json_is_null(at(fx, path)));
}

static inline void
assert_int_at(const struct fixture *fx, const char *path, json_int_t want)
{
	json_t	*v = at(fx, path);

	if (!json_is_integer(v))
		print_error("%s is not an integer\n", path);
	assert_true(json_is_integer(v));
	assert_int_equal(json_integer_value(v), want);
}

/* A measured figure: a JSON real within 1e-12 (relative) of want. */
static inline void
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

static inline void
assert_str_at(const struct fixture *fx, const char *path, const char *want)
{
	json_t	*v = at(fx, path);

	if (!json_is_string(v))
		print_error("%s is not a string\n", path);
	assert_true(json_is_string(v));
	assert_int_equal(json_string_length(v), strlen(want));
	assert_memory_equal(json_string_value(v), want, strlen(want));
}

static inline void
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

#endif
