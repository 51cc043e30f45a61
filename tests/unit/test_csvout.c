/*
 * Unit tests of the summary CSV in src/out/csvout.c: a report built
 * by hand, with a command full of commas, quotes and newlines and one
 * device with two P-states, is written to memory and read back with
 * libcsv's own parser.  Every row must have the same field count, the
 * header the documented names in order, the command must come back byte
 * for byte, unknown values must be empty fields, and numbers must be
 * plain C-locale decimals; with "," and with ";" as the separator.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <csv.h>

#include "joulestat/csvout.h"
#include "joulestat/util.h"

#define MAX_ROWS	8
#define MAX_FIELDS	128

/* The command of the hand-made run: every character CSV must quote. */
static const char COMMAND[] =
    "sh -c \"echo a,b; printf '%s\\n' \"\"x\"\"\"\nsecond line,\r\nthird\t\"end\"";

/* The documented column order (csvout.c col_names). */
static const char *const HEADER[] = {
	"schema_version", "scope", "run", "host", "rank", "job", "start_unix_s", "command",
	"exit_status", "outcome", "wall_s", "user_s",
	"sys_s", "max_rss_kib", "peak_tree_rss_kib", "processes", "max_concurrent",
	"still_running", "interval_ms", "ticks", "missed_ticks", "late_max_ms", "late_p50_ms", "late_p99_ms",
	"sampler_cpu_s", "device", "device_id", "device_name", "backend", "power_kind",
	"within_device",
	"pstate", "time_s", "time_err_s", "time_share", "energy_j",
	"energy_method", "energy_err_j", "energy_counter_j", "energy_counter_err_j",
	"energy_driver_samples_j", "energy_driver_samples_err_j", "energy_readings_j",
	"energy_readings_err_j", "avg_power_w", "peak_power_w",
	"avg_sm_mhz", "avg_gfx_mhz", "avg_mem_mhz", "lost_readings", "lost_s", "measured_s",
	"partial", "throttled_power_s", "throttled_thermal_s", "reasons_known_s",
	"reason_idle_s", "reason_idle_err_s", "reason_applications_clocks_s",
	"reason_applications_clocks_err_s", "reason_sw_power_cap_s", "reason_sw_power_cap_err_s",
	"reason_hw_slowdown_s", "reason_hw_slowdown_err_s", "reason_sync_boost_s",
	"reason_sync_boost_err_s", "reason_sw_thermal_s", "reason_sw_thermal_err_s",
	"reason_hw_thermal_s", "reason_hw_thermal_err_s", "reason_hw_power_brake_s",
	"reason_hw_power_brake_err_s", "reason_display_clocks_s", "reason_display_clocks_err_s",
	"reason_other_s", "reason_other_err_s",
	"idle_power_w", "idle_method", "energy_above_idle_j", "workload_energy_j",
	"other_energy_j", "unattributed_energy_j", "energy_share", "pid", "process", "sm_pct",
	"mem_pct", "gpu_mem_kib", "gate", "gate_figure", "gate_limit", "gate_measured",
	"gate_verdict", "phase", "phase_count", "phase_begin_s",
	"total_energy_j", "total_energy_err_j", "total_energy_devices", "total_workload_energy_j",
	"start_time", "joulestat_version", "tracker", "visible_devices", "device_bus_id",
	"device_versions", "device_architecture",
};

/* Columns that hold text; every other column holds a number or nothing. */
static const char *const TEXT_COLUMNS[] = {
	"scope", "command", "outcome", "device_id", "device_name", "backend", "power_kind",
	"pstate", "energy_method", "idle_method", "process", "phase", "start_time", "joulestat_version",
	"tracker", "visible_devices", "device_bus_id", "device_versions", "device_architecture",
};

struct field {
	char	*s;		/* NUL-terminated copy; the bytes may hold NULs */
	size_t	 len;
};

struct table {
	struct field	f[MAX_ROWS][MAX_FIELDS];
	size_t		nf[MAX_ROWS];
	size_t		nrows;
	bool		is_overflow;
};

struct fixture {
	struct device		dev;
	struct dev_report	drep;
	struct report		rep;
	char			*out;		/* what csvout_summary wrote */
	size_t			 outlen;
	struct table		 t;
};

static void
on_field(void *s, size_t len, void *arg)
{
	struct table	*t = arg;
	struct field	*f;

	if (t->nrows >= MAX_ROWS || t->nf[t->nrows] >= MAX_FIELDS) {
		t->is_overflow = true;
		return;
	}
	f = &t->f[t->nrows][t->nf[t->nrows]++];
	f->s = malloc(len + 1);
	if (f->s == NULL) {
		t->is_overflow = true;
		return;
	}
	if (len > 0)
		memcpy(f->s, s, len);
	f->s[len] = '\0';
	f->len = len;
}

static void
on_row(int c, void *arg)
{
	struct table	*t = arg;

	(void)c;
	if (t->nrows < MAX_ROWS)
		t->nrows++;
	else
		t->is_overflow = true;
}

static void
table_free(struct table *t)
{
	size_t	r, i;

	for (r = 0; r < MAX_ROWS; r++) {
		for (i = 0; i < t->nf[r]; i++)
			free(t->f[r][i].s);
	}
	memset(t, 0, sizeof *t);
}

/* A run with one device, two P-states, and some figures unknown. */
static void
build_report(struct fixture *fx)
{
	struct state_report	*s;

	snprintf(fx->dev.id, sizeof fx->dev.id, "GPU-2f1c,\"a\";b");
	snprintf(fx->dev.name, sizeof fx->dev.name, "NVIDIA \"Simulated\" GPU, 80GB; rev 2");
	fx->dev.power_kind = POWER_KIND_AVERAGE_1S;
	fx->dev.final_valid = 0;

	fx->drep.dev = &fx->dev;
	fx->drep.backend = "nvml";
	fx->drep.window_ns = 2500000000;
	fx->drep.has_window = true;
	fx->drep.measured_ns = 2000000000;
	fx->drep.has_measured = true;
	fx->drep.span_ns = 2600000000;
	fx->drep.is_partial = true;
	fx->drep.method = ENERGY_COUNTER;
	fx->drep.energy_mj = 123456.789;
	fx->drep.alt_mj[ENERGY_COUNTER] = 123456.789;
	fx->drep.has_alt[ENERGY_COUNTER] = true;
	fx->drep.alt_mj[ENERGY_TICKS] = 120000.5;
	fx->drep.has_alt[ENERGY_TICKS] = true;
	fx->drep.avg_power_mw = 49382.7156;
	fx->drep.has_avg_power = true;
	fx->drep.peak_power_mw = 301250;
	fx->drep.has_peak = true;
	fx->drep.lost_samples = 2;
	fx->drep.lost_ns = 250000000;
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
	s->pstate = 8;
	s->time_ns = 1000000000;
	s->share = 0.4;

	fx->rep.command = (char *)COMMAND;
	fx->rep.outcome = OUTCOME_EXITED;
	fx->rep.code = 3;
	fx->rep.exit_status = 3;
	fx->rep.wall_ns = 1500000000;
	fx->rep.user_ns = 1234567;
	fx->rep.sys_ns = 7654321;
	fx->rep.has_max_rss = false;
	fx->rep.has_tree = true;
	fx->rep.peak_tree_rss_kib = 20480;
	fx->rep.processes = 4;
	fx->rep.max_concurrent = 3;
	fx->rep.interval_ms = 100;
	fx->rep.ticks = 25;
	fx->rep.missed = 1;
	fx->rep.has_late = true;
	fx->rep.late_max_ns = 1500000;
	fx->rep.late_p99_ns = 1250000;
	fx->rep.sampler_cpu_ns = 4000000;
	fx->rep.devs = &fx->drep;
	fx->rep.ndev = 1;
}

static int
setup(void **state)
{
	struct fixture	*fx;

	if ((fx = calloc(1, sizeof *fx)) == NULL)
		return -1;
	build_report(fx);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*fx = *state;

	table_free(&fx->t);
	free(fx->out);
	free(fx);
	return 0;
}

/* Write the summary with sep and parse it back with delimiter delim. */
static void
write_and_parse(struct fixture *fx, const char *sep, unsigned char delim)
{
	struct csv_parser	p;
	FILE			*f;

	free(fx->out);
	fx->out = NULL;
	table_free(&fx->t);
	f = open_memstream(&fx->out, &fx->outlen);
	assert_non_null(f);
	assert_int_equal(csvout_summary(f, &fx->rep, 1, NULL, NULL, sep, false), 0);
	assert_int_equal(fclose(f), 0);

	assert_int_equal(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI), 0);
	csv_set_delim(&p, delim);
	if (csv_parse(&p, fx->out, fx->outlen, on_field, on_row, &fx->t) != fx->outlen)
		print_error("libcsv: %s\n", csv_strerror(csv_error(&p)));
	assert_int_equal(csv_error(&p), CSV_SUCCESS);
	assert_int_equal(csv_fini(&p, on_field, on_row, &fx->t), 0);
	csv_free(&p);
	assert_false(fx->t.is_overflow);
}

static size_t
col(const struct table *t, const char *name)
{
	size_t	i;

	for (i = 0; i < t->nf[0]; i++) {
		if (strcmp(t->f[0][i].s, name) == 0)
			return i;
	}
	print_error("no column %s\n", name);
	fail();
	return 0;
}

static const char *
cell(const struct table *t, size_t row, const char *name)
{
	return t->f[row][col(t, name)].s;
}

static bool
is_text_column(const char *name)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(TEXT_COLUMNS); i++) {
		if (strcmp(TEXT_COLUMNS[i], name) == 0)
			return true;
	}
	return false;
}

/* A plain C-locale number: digits, at most one '.', an optional leading '-'. */
static bool
is_plain_number(const char *s)
{
	size_t	digits = 0, dots = 0;

	if (*s == '-')
		s++;
	for (; *s != '\0'; s++) {
		if (*s >= '0' && *s <= '9')
			digits++;
		else if (*s == '.' && digits > 0)
			dots++;
		else
			return false;
	}
	return digits > 0 && dots <= 1 && s[-1] != '.';
}

/* The checks that hold for every separator. */
static void
check_summary(const struct fixture *fx)
{
	const struct table	*t = &fx->t;
	size_t			 r, i;

	/* Header, run, device and one row per P-state, all equally wide. */
	assert_int_equal(t->nrows, 5);
	for (r = 0; r < t->nrows; r++) {
		if (t->nf[r] != ARRAY_SIZE(HEADER))
			print_error("row %zu has %zu fields\n", r, t->nf[r]);
		assert_int_equal(t->nf[r], ARRAY_SIZE(HEADER));
	}
	for (i = 0; i < ARRAY_SIZE(HEADER); i++)
		assert_string_equal(t->f[0][i].s, HEADER[i]);
	assert_string_equal(cell(t, 1, "scope"), "run");
	assert_string_equal(cell(t, 2, "scope"), "device");
	assert_string_equal(cell(t, 3, "scope"), "pstate");
	assert_string_equal(cell(t, 4, "scope"), "pstate");
	/* The command round-trips byte for byte on every row. */
	for (r = 1; r < t->nrows; r++) {
		assert_int_equal(t->f[r][col(t, "command")].len, strlen(COMMAND));
		assert_memory_equal(cell(t, r, "command"), COMMAND, strlen(COMMAND));
		assert_string_equal(cell(t, r, "device_id"), r == 1 ? "" : fx->dev.id);
		assert_string_equal(cell(t, r, "device_name"), r == 1 ? "" : fx->dev.name);
	}
	/* Numbers are plain decimals with '.', wherever a column is numeric. */
	for (r = 1; r < t->nrows; r++) {
		for (i = 0; i < t->nf[r]; i++) {
			if (is_text_column(HEADER[i]) || t->f[r][i].len == 0)
				continue;
			if (!is_plain_number(t->f[r][i].s))
				print_error("row %zu %s: \"%s\"\n", r, HEADER[i], t->f[r][i].s);
			assert_true(is_plain_number(t->f[r][i].s));
		}
	}
}

static void
test_summary_comma(void **state)
{
	struct fixture	*fx = *state;

	write_and_parse(fx, ",", ',');
	check_summary(fx);
}

static void
test_summary_semicolon(void **state)
{
	struct fixture	*fx = *state;

	write_and_parse(fx, ";", ';');
	check_summary(fx);
	/* Nothing written with ';' splits on ',' instead. */
	assert_non_null(strstr(fx->out, "schema_version;scope;run;host;rank;job;start_unix_s;command;"));
}

static void
test_summary_values(void **state)
{
	struct fixture		*fx = *state;
	const struct table	*t = &fx->t;

	write_and_parse(fx, ",", ',');
	assert_string_equal(cell(t, 1, "schema_version"), "2");
	assert_string_equal(cell(t, 1, "exit_status"), "3");
	assert_string_equal(cell(t, 1, "outcome"), "exited");
	assert_string_equal(cell(t, 1, "wall_s"), "1.500000");
	assert_string_equal(cell(t, 1, "interval_ms"), "100");
	assert_string_equal(cell(t, 1, "late_max_ms"), "1.500");
	assert_string_equal(cell(t, 2, "device"), "0");
	assert_string_equal(cell(t, 2, "backend"), "nvml");
	assert_string_equal(cell(t, 2, "power_kind"), "average-1s");
	assert_string_equal(cell(t, 2, "time_s"), "2.500000");
	assert_string_equal(cell(t, 2, "energy_j"), "123.456789");
	assert_string_equal(cell(t, 2, "energy_method"), "counter");
	assert_string_equal(cell(t, 2, "energy_counter_j"), "123.456789");
	assert_string_equal(cell(t, 2, "energy_readings_j"), "120.000500");
	assert_string_equal(cell(t, 2, "peak_power_w"), "301.250");
	assert_string_equal(cell(t, 2, "lost_readings"), "2");
	assert_string_equal(cell(t, 2, "lost_s"), "0.250000");
	assert_string_equal(cell(t, 3, "pstate"), "P0");
	assert_string_equal(cell(t, 3, "time_s"), "1.500000");
	assert_string_equal(cell(t, 3, "time_share"), "0.600000");
	assert_string_equal(cell(t, 3, "energy_j"), "100.000250");
	assert_string_equal(cell(t, 3, "avg_sm_mhz"), "1980.0");
	assert_string_equal(cell(t, 4, "pstate"), "P8");
	assert_string_equal(cell(t, 4, "device"), "0");
}

static void
test_summary_unknown_is_empty(void **state)
{
	static const char *const device_cols[] = {
		"device", "device_id", "device_name", "backend", "pstate", "energy_j",
	};
	struct fixture		*fx = *state;
	const struct table	*t = &fx->t;
	size_t			 i;

	write_and_parse(fx, ",", ',');
	/* The run row has no device, no P-state and no max RSS (has_max_rss false). */
	for (i = 0; i < ARRAY_SIZE(device_cols); i++)
		assert_string_equal(cell(t, 1, device_cols[i]), "");
	assert_string_equal(cell(t, 1, "max_rss_kib"), "");
	/* The device row: no driver samples, no violation counters, no P-state. */
	assert_string_equal(cell(t, 2, "energy_driver_samples_j"), "");
	assert_string_equal(cell(t, 2, "throttled_power_s"), "");
	assert_string_equal(cell(t, 2, "throttled_thermal_s"), "");
	assert_string_equal(cell(t, 2, "pstate"), "");
	assert_string_equal(cell(t, 2, "wall_s"), "");
	/* P8 has no energy and no clock reading. */
	assert_string_equal(cell(t, 4, "energy_j"), "");
	assert_string_equal(cell(t, 4, "avg_power_w"), "");
	assert_string_equal(cell(t, 4, "avg_sm_mhz"), "");
	assert_string_equal(cell(t, 4, "time_s"), "1.000000");

	/* Attached: there is no exit status of ours to give. */
	fx->rep.outcome = OUTCOME_ATTACHED;
	fx->rep.exit_status = 0;
	write_and_parse(fx, ",", ',');
	assert_string_equal(cell(t, 1, "exit_status"), "");
	assert_string_equal(cell(t, 1, "outcome"), "attached");

	/* No energy method: the energy and the per-state energy are empty. */
	fx->drep.method = ENERGY_NONE;
	fx->drep.has_avg_power = false;
	fx->drep.states[0].has_energy = false;
	write_and_parse(fx, ",", ',');
	assert_string_equal(cell(t, 2, "energy_j"), "");
	assert_string_equal(cell(t, 2, "energy_method"), "");
	assert_string_equal(cell(t, 2, "avg_power_w"), "");
	assert_string_equal(cell(t, 3, "energy_j"), "");
	check_summary(fx);

	/* No valid reading: no window, and no energy to be partial (not 0). */
	fx->drep.has_window = false;
	fx->drep.has_measured = false;
	write_and_parse(fx, ",", ',');
	assert_string_equal(cell(t, 2, "time_s"), "");
	assert_string_equal(cell(t, 2, "measured_s"), "");
	assert_string_equal(cell(t, 2, "partial"), "");
	check_summary(fx);
}

static void
test_summary_no_devices(void **state)
{
	struct fixture		*fx = *state;
	const struct table	*t = &fx->t;

	fx->rep.ndev = 0;
	fx->rep.command = NULL;
	write_and_parse(fx, ",", ',');
	assert_int_equal(t->nrows, 2);
	assert_int_equal(t->nf[0], ARRAY_SIZE(HEADER));
	assert_int_equal(t->nf[1], ARRAY_SIZE(HEADER));
	assert_string_equal(cell(t, 1, "command"), "");
}

static void
test_csvout_text(void **state)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*f;

	(void)state;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(csvout_text(f, "a\"b,c"), 0);
	assert_int_equal(csvout_text(f, ""), 0);
	assert_int_equal(csvout_text(f, NULL), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "\"a\"\"b,c\"");
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_summary_comma, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_semicolon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_unknown_is_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_no_devices, setup, teardown),
		cmocka_unit_test(test_csvout_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
