/*
 * The summary schema: every word the machine-readable forms share, in one
 * place.  The columns of the summary CSV (--csv) and of the merged CSV
 * (joulestat merge --csv), the row kinds of their "scope" and "run"
 * columns, and the words for energy methods, power kinds, idle methods,
 * outcomes, gate verdicts and P-states.  The writers (csvout.c,
 * jsonout.c, mergeout.c, timeline.c) and the readers of a summary
 * (baseline.c, merge's read.c) all take them from here, so a reader
 * cannot drift from the writer.  The man page documents them; see
 * HACKING.md, "Outputs and the summary schema".
 */
#ifndef JOULESTAT_SCHEMA_H
#define JOULESTAT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "joulestat/account.h"
#include "joulestat/exitcode.h"
#include "joulestat/source.h"

#define SCHEMA_SUMMARY_VERSION	2	/* the summary CSV's schema_version */
#define SCHEMA_MERGE_VERSION	1	/* the merged CSV's and JSON's */

/* A clocks-event reason's two columns (source.h): its time and its bound. */
#define SCHEMA_REASON_COLUMNS(C, name, word)				\
	C(COL_R_##name, "reason_" #word "_s", "s")				\
	C(COL_R_##name##_ERR, "reason_" #word "_err_s", "s")

/*
 * The summary CSV's columns in their documented order: each is its enum
 * name, its header word and the unit of its figures in the long form
 * (--csv-format=long): "" a word, "1" a count or a ratio, NULL for a
 * column that names what its row is about.  Every row has every column.
 */
#define SUMMARY_COLUMNS(C)						\
	C(COL_SCHEMA, "schema_version", NULL)				\
	C(COL_SCOPE, "scope", NULL)					\
	C(COL_RUN, "run", NULL)						\
	C(COL_HOST, "host", NULL)					\
	C(COL_RANK, "rank", NULL)					\
	C(COL_JOB, "job", NULL)						\
	C(COL_START, "start_unix_s", "s")				\
	C(COL_COMMAND, "command", NULL)					\
	C(COL_EXIT, "exit_status", "1")					\
	C(COL_OUTCOME, "outcome", "")					\
	C(COL_WALL, "wall_s", "s")					\
	C(COL_USER, "user_s", "s")					\
	C(COL_SYS, "sys_s", "s")					\
	C(COL_MAXRSS, "max_rss_kib", "KiB")				\
	C(COL_TREERSS, "peak_tree_rss_kib", "KiB")			\
	C(COL_PROCS, "processes", "1")					\
	C(COL_MAXCONC, "max_concurrent", "1")				\
	C(COL_LEFTOVER, "still_running", "1")				\
	C(COL_INTERVAL, "interval_ms", "ms")				\
	C(COL_TICKS, "ticks", "1")					\
	C(COL_MISSED, "missed_ticks", "1")				\
	C(COL_LATEMAX, "late_max_ms", "ms")				\
	C(COL_LATEP50, "late_p50_ms", "ms")				\
	C(COL_LATEP99, "late_p99_ms", "ms")				\
	C(COL_SAMPLERCPU, "sampler_cpu_s", "s")				\
	C(COL_DEVICE, "device", NULL)					\
	C(COL_DEVID, "device_id", NULL)					\
	C(COL_DEVNAME, "device_name", NULL)				\
	C(COL_BACKEND, "backend", NULL)					\
	C(COL_POWERKIND, "power_kind", "")				\
	C(COL_WITHIN, "within_device", NULL)				\
	C(COL_PSTATE, "pstate", NULL)					\
	C(COL_TIME, "time_s", "s")					\
	C(COL_TIME_ERR, "time_err_s", "s")				\
	C(COL_SHARE, "time_share", "1")					\
	C(COL_ENERGY, "energy_j", "J")					\
	C(COL_METHOD, "energy_method", "")				\
	C(COL_ENERGY_ERR, "energy_err_j", "J")				\
	C(COL_E_COUNTER, "energy_counter_j", "J")			\
	C(COL_E_COUNTER_ERR, "energy_counter_err_j", "J")		\
	C(COL_E_POINTS, "energy_driver_samples_j", "J")			\
	C(COL_E_POINTS_ERR, "energy_driver_samples_err_j", "J")		\
	C(COL_E_TICKS, "energy_readings_j", "J")			\
	C(COL_E_TICKS_ERR, "energy_readings_err_j", "J")		\
	C(COL_AVGPOWER, "avg_power_w", "W")				\
	C(COL_PEAKPOWER, "peak_power_w", "W")				\
	C(COL_AVGSM, "avg_sm_mhz", "MHz")				\
	C(COL_AVGGFX, "avg_gfx_mhz", "MHz")				\
	C(COL_AVGMEM, "avg_mem_mhz", "MHz")				\
	C(COL_LOST, "lost_readings", "1")				\
	C(COL_LOSTS, "lost_s", "s")					\
	C(COL_MEASURED, "measured_s", "s")				\
	C(COL_PARTIAL, "partial", "1")					\
	C(COL_THR_POWER, "throttled_power_s", "s")			\
	C(COL_THR_THERMAL, "throttled_thermal_s", "s")			\
	C(COL_REASONS_KNOWN, "reasons_known_s", "s")			\
	THROTTLE_REASONS(SCHEMA_REASON_COLUMNS, C)			\
	C(COL_IDLE, "idle_power_w", "W")				\
	C(COL_IDLEMETHOD, "idle_method", "")				\
	C(COL_ABOVEIDLE, "energy_above_idle_j", "J")			\
	C(COL_WORKLOAD, "workload_energy_j", "J")			\
	C(COL_OTHER, "other_energy_j", "J")				\
	C(COL_UNATTR, "unattributed_energy_j", "J")			\
	C(COL_SHARE_E, "energy_share", "1")				\
	C(COL_PID, "pid", NULL)						\
	C(COL_PROCESS, "process", NULL)					\
	C(COL_SMPCT, "sm_pct", "%")					\
	C(COL_MEMPCT, "mem_pct", "%")					\
	C(COL_GPUMEM, "gpu_mem_kib", "KiB")				\
	C(COL_GATE, "gate", NULL)					\
	C(COL_GATEWHAT, "gate_figure", NULL)				\
	C(COL_GATELIMIT, "gate_limit", "")				\
	C(COL_GATEMEAS, "gate_measured", "")				\
	C(COL_GATEVERDICT, "gate_verdict", "")				\
	C(COL_PHASE, "phase", NULL)					\
	C(COL_PHASECOUNT, "phase_count", "1")				\
	C(COL_PHASEBEGIN, "phase_begin_s", "s")				\
	C(COL_TOTAL, "total_energy_j", "J")				\
	C(COL_TOTALERR, "total_energy_err_j", "J")			\
	C(COL_TOTALDEVS, "total_energy_devices", "1")			\
	C(COL_TOTALWORK, "total_workload_energy_j", "J")		\
	C(COL_STARTTIME, "start_time", "")				\
	C(COL_VERSION, "joulestat_version", "")				\
	C(COL_TRACKER, "tracker", "")					\
	C(COL_VISIBLE, "visible_devices", "")				\
	C(COL_BUSID, "device_bus_id", "")				\
	C(COL_DEVVERSION, "device_versions", "")			\
	C(COL_DEVARCH, "device_architecture", "")

#define SCHEMA_ENUM(e, name)	e,
#define SCHEMA_ENUM_UNIT(e, name, unit)	e,
enum summary_col {
	SUMMARY_COLUMNS(SCHEMA_ENUM_UNIT)
	COL_NCOLS,
	COL_NONE = COL_NCOLS		/* a figure without a column (JSON only) */
};
#undef SCHEMA_ENUM_UNIT

/*
 * The merged CSV's columns (joulestat merge --csv), in order; its JSON
 * uses the same words as keys.  mergeout.c documents what each holds.
 */
#define MERGE_COLUMNS(C)						\
	C(MCOL_SCHEMA, "schema_version")				\
	C(MCOL_SCOPE, "scope")						\
	C(MCOL_JOB, "job")						\
	C(MCOL_HOST, "host")						\
	C(MCOL_RANK, "rank")						\
	C(MCOL_FILE, "file")						\
	C(MCOL_RUNS, "runs")						\
	C(MCOL_START, "start_unix_s")					\
	C(MCOL_END, "end_unix_s")					\
	C(MCOL_WALL, "wall_s")						\
	C(MCOL_DEVICE, "device")					\
	C(MCOL_DEVID, "device_id")					\
	C(MCOL_DEVNAME, "device_name")					\
	C(MCOL_BACKEND, "backend")					\
	C(MCOL_TIME, "time_s")						\
	C(MCOL_ENERGY, "energy_j")					\
	C(MCOL_ENERGY_ERR, "energy_err_j")				\
	C(MCOL_ABOVE, "energy_above_idle_j")				\
	C(MCOL_WORKLOAD, "workload_energy_j")				\
	C(MCOL_RANKS, "ranks")						\
	C(MCOL_HOSTS, "hosts")						\
	C(MCOL_DEVICES, "devices")					\
	C(MCOL_MEASURED_BY, "measured_by")				\
	C(MCOL_PHASE, "phase")

enum merge_col {
	MERGE_COLUMNS(SCHEMA_ENUM)
	MCOL_NCOLS
};

/* The timeline's columns (--timeline), in order: one row per device per reading. */
#define TIMELINE_COLUMNS(C)						\
	C(TCOL_SCHEMA, "schema_version")				\
	C(TCOL_RUN, "run")						\
	C(TCOL_T, "t_s")						\
	C(TCOL_DEVICE, "device")					\
	C(TCOL_DEVID, "device_id")					\
	C(TCOL_STATUS, "status")					\
	C(TCOL_POWER, "power_w")					\
	C(TCOL_ENERGY, "energy_j")					\
	C(TCOL_METHOD, "energy_method")					\
	C(TCOL_PSTATE, "pstate")					\
	C(TCOL_GFX, "gfx_mhz")						\
	C(TCOL_SM, "sm_mhz")						\
	C(TCOL_MEM, "mem_mhz")						\
	C(TCOL_UTIL, "util_pct")					\
	C(TCOL_MEMUTIL, "mem_util_pct")					\
	C(TCOL_TEMP, "temp_c")						\
	C(TCOL_TREESM, "tree_sm_pct")					\
	C(TCOL_TREEMEM, "tree_mem_pct")					\
	C(TCOL_OTHERSM, "other_sm_pct")					\
	C(TCOL_OTHERMEM, "other_mem_pct")				\
	C(TCOL_DEVNAME, "device_name")					\
	C(TCOL_PHASE, "phase")						\
	C(TCOL_REASONS, "clock_event_reasons")

enum timeline_col {
	TIMELINE_COLUMNS(SCHEMA_ENUM)
	TCOL_NCOLS
};
#undef SCHEMA_ENUM

/* The header word of a column. */
const char *schema_column(enum summary_col col);
const char *schema_timeline_column(enum timeline_col col);
const char *schema_merge_column(enum merge_col col);

/* The row kinds of the summary's "scope" column. */
enum summary_scope {
	SCOPE_RUN,
	SCOPE_DEVICE,
	SCOPE_PSTATE,
	SCOPE_PROCESS,
	SCOPE_GATE,
	SCOPE_PHASE,		/* a phase name on a device, its occurrences together */
	SCOPE_PHASE_PSTATE,	/* ... its time and energy in one P-state */
	SCOPE_PHASE_OCC,	/* one occurrence of a phase on a device */
};

/* The row kinds of the merged CSV's "scope" column. */
enum merge_scope {
	MSCOPE_JOB,
	MSCOPE_RANK,
	MSCOPE_DEVICE,
	MSCOPE_PHASE,
};

/* The rows of -r that summarize the numbered runs: their "run" column. */
enum series_row {
	ROW_MEAN,
	ROW_STDDEV,
	ROW_MEDIAN,
	ROW_MIN,
	ROW_MAX,
	ROW_N,
	ROW_NROWS
};

const char *schema_scope(enum summary_scope scope);
const char *schema_merge_scope(enum merge_scope scope);
const char *schema_series_row(enum series_row row);

/* Is run (the "run" column of a row) one of the series rows, not a run number? */
bool	schema_is_series_row(const char *run);

/*
 * The unit of a summary column's figures in the long CSV form
 * (--csv-format=long): "J", "s", "W", "ms", "MHz", "KiB", "%", "1" for a
 * ratio or a count; NULL for a column that names what a row is about
 * (scope, run, device, pstate, process, gate, ...), not a figure.
 */
const char *schema_column_unit(enum summary_col col);

/* The columns of the long CSV form, one row per figure. */
#define LONG_COLUMNS(C)							\
	C(LCOL_SCHEMA, "schema_version")				\
	C(LCOL_SCOPE, "scope")						\
	C(LCOL_RUN, "run")						\
	C(LCOL_HOST, "host")						\
	C(LCOL_DEVICE, "device")					\
	C(LCOL_PSTATE, "pstate")					\
	C(LCOL_PHASE, "phase")						\
	C(LCOL_PID, "pid")						\
	C(LCOL_GATE, "gate_figure")					\
	C(LCOL_FIGURE, "figure")					\
	C(LCOL_VALUE, "value")						\
	C(LCOL_UNIT, "unit")

#define SCHEMA_ENUM(e, name)	e,
enum long_col {
	LONG_COLUMNS(SCHEMA_ENUM)
	LCOL_NCOLS
};
#undef SCHEMA_ENUM

const char *schema_long_column(enum long_col col);

/* How the run ended. */
/* Where a device's idle power came from. */
enum idle_method {
	IDLE_UNKNOWN,		/* no power readings: everything counts as dynamic */
	IDLE_BASELINE,		/* --idle-baseline: measured before the run */
	IDLE_GIVEN,		/* --idle-power */
	IDLE_MIN_SEEN,		/* the lowest power reading of the run */
};

/*
 * The words of methods, kinds and outcomes in the machine-readable forms
 * (CSV, JSON, timeline); "" for unknown or none.
 */
const char *schema_word_method(enum energy_method m);
const char *schema_word_kind(enum power_kind k);
const char *schema_word_idle(enum idle_method m);
const char *schema_word_outcome(enum outcome o);

/*
 * The word of clocks-event reason i (bit 1 << i of enum throttle,
 * 0 <= i < THROTTLE_NREASONS): "sw_power_cap", "hw_thermal", ...  The
 * CSV columns reason_WORD_s and the JSON keys use the same words.
 */
const char *schema_word_reason(int i);

/*
 * How the counter energy of the intervals whose state changed was split
 * between the two states, one short phrase; "" for PSTATE_SPLIT_NONE.
 */
const char *schema_phrase_split(enum pstate_split k);

/* The method of a per-process energy, an attribution estimate. */
const char *schema_word_estimate(void);

/* A gate's verdict in the CSV: "pass" or "fail". */
const char *schema_word_verdict(bool is_pass);

/*
 * The name of state pstate (0..15 or PSTATE_UNKNOWN) of dev, one word:
 * "P0", "DPM2", "deep-sleep", "awake", "RC6", "unknown".  Returns buf.
 */
const char *schema_state_name(const struct device *dev, int pstate, char *buf, size_t size);

/* The same for an accounting slot (0..ACCOUNT_NSTATES-1, ACCOUNT_STATE_UNKNOWN last). */
const char *schema_slot_name(const struct device *dev, int slot, char *buf, size_t size);

struct csvin;
struct errbuf;

/*
 * A summary CSV read back (--baseline, joulestat merge): every row has as
 * many fields as the header (a row cut short is not read), and the
 * schema_version column, when there is one, holds SCHEMA_SUMMARY_VERSION
 * on every row.  0, or -1 with "line N: ..." in err.
 */
int	schema_check_summary(const struct csvin *t, struct errbuf *err);

#endif
