/*
 * CI gates (joulestat(1), GATES): thresholds on a run's figures and a
 * comparison with a baseline summary, each turned into a verdict that the
 * report prints and main.c maps to the gate exit status.  Parsing the
 * option values and judging are pure; only baseline_load reads a file.
 */
#ifndef JOULESTAT_GATE_H
#define JOULESTAT_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "joulestat/account.h"
#include "joulestat/markline.h"
#include "joulestat/util.h"

struct report;
struct series;

#define GATE_MAX_SPECS		64
#define GATE_ALL_DEVICES	(-1)
#define GATE_STATE_MAX		16

enum gate_metric {
	GATE_ENERGY,		/* --max-energy: J */
	GATE_ABOVE_IDLE,	/* --max-energy-above-idle: J */
	GATE_TIME,		/* --max-time: wall s */
	GATE_AVG_POWER,		/* --max-avg-power: W */
	GATE_STATE_SHARE,	/* --min-pstate-share: % of the device's time */
	GATE_REGRESSION,	/* --max-regression: % growth over the baseline */
};

/* What --max-regression compares (--regression-metric). */
enum regression_metric {
	REGRESS_ENERGY,
	REGRESS_TIME,
	REGRESS_ABOVE_IDLE,
};

/* One threshold as the user gave it. */
struct gate_spec {
	enum gate_metric	metric;
	int			device;		/* GATE_ALL_DEVICES, or a report device index */
	char			state[GATE_STATE_MAX]; /* GATE_STATE_SHARE: "P0", "RC6" */
	char			phase[MARK_NAME_MAX + 1]; /* "": the whole run */
	double			limit;
};

struct gate_config {
	struct gate_spec	specs[GATE_MAX_SPECS];
	size_t			nspecs;
	double			sigma;		/* --gate-sigma: judge mean + sigma * sd */
	int			exit_code;	/* --gate-exit-code */
	const char		*baseline_path;	/* --baseline */
	enum regression_metric	regress;
	bool			is_partial_measured; /* --gate-partial=measured */
};

/*
 * Add the thresholds of one option value to gc: "LIMIT" (the total over
 * the devices) or "DEV:LIMIT,..." for --max-energy, --max-energy-above-idle
 * and --max-avg-power; "SECONDS" for --max-time; "[DEV:]STATE:PCT,..." for
 * --min-pstate-share; "PCT" for --max-regression.  Each entry but a
 * --max-regression one may start with "phase:NAME:" to judge that phase's
 * figure.  Returns 0, or -1 with a one-line cause naming the option.
 */
int	gate_parse(struct gate_config *gc, enum gate_metric metric, const char *arg,
	    struct errbuf *err);

/* --gate-partial: fail or measured.  0 or -1. */
int	gate_parse_partial(struct gate_config *gc, const char *arg, struct errbuf *err);

/* --regression-metric: energy, time or energy-above-idle.  0 or -1. */
int	gate_parse_regress(struct gate_config *gc, const char *arg, struct errbuf *err);

/* A metric's option ("--max-energy"), name ("energy") and unit ("J"). */
const char *gate_option(enum gate_metric metric);
const char *gate_name(enum gate_metric metric);
const char *gate_unit(enum gate_metric metric);

/* True when the figure must reach the limit rather than stay under it. */
bool	gate_is_min(enum gate_metric metric);
/* How the figure is held to the limit: ">=" (gate_is_min) or "<=". */
const char *gate_comparison(enum gate_metric metric);

/* A previous summary CSV, reduced to what a regression gate compares. */
struct baseline_run {
	double	wall_s;
};

struct baseline_dev {
	size_t	run;			/* index into runs */
	char	id[96];			/* device_id */
	double	energy_j;		/* NaN when unknown */
	double	above_idle_j;
};

/* A phase on one device in one run ("phase" rows; id "" without devices). */
struct baseline_phase {
	size_t	run;			/* index into runs */
	char	name[MARK_NAME_MAX + 1];
	char	id[96];
	double	energy_j;		/* NaN when unknown */
	double	above_idle_j;
	double	wall_s;
};

struct baseline {
	char			*path;
	struct baseline_run	*runs;
	size_t			 nruns;
	struct baseline_dev	*devs;
	size_t			 ndevs;
	struct baseline_phase	*phases;
	size_t			 nphases;
};

/*
 * Read a summary CSV written by --csv (through libcsv): its numbered run
 * rows, their device rows and their phase rows.  Returns 0, or -1 with a one-line cause
 * ("FILE: line 3: no column energy_j") and nothing left to release.
 * Release a loaded baseline with baseline_free.
 */
int	baseline_load(struct baseline *b, const char *path, struct errbuf *err);
int	baseline_parse(struct baseline *b, const char *path, const char *text, size_t len,
	    struct errbuf *err);
void	baseline_free(struct baseline *b);

enum gate_verdict {
	GATE_PASS,
	GATE_FAIL,
	GATE_NO_DATA,		/* the figure was not measured: a failure too */
	GATE_PARTIAL,		/* it covers less than the run (--gate-partial=fail) */
};

struct gate_result {
	enum gate_metric	metric;
	char			what[160];	/* "energy, all devices", "P0 share of device 0" */
	char			unit[4];
	double			limit;
	double			measured;	/* the figure judged (mean + k*sd with -r) */
	char			detail[256];	/* how measured was obtained */
	enum gate_verdict	verdict;
};

struct gate_set {
	struct gate_result	*v;
	size_t			 n;
	size_t			 nfailed;
};

/*
 * Judge every gate of gc on reps[0..n) (n >= 1) and, for --max-regression,
 * on base (NULL when there is none).  Release with gate_set_free.
 */
void	gate_judge(struct gate_set *gs, const struct gate_config *gc, const struct report *reps,
	    size_t n, const struct baseline *base);
void	gate_set_free(struct gate_set *gs);

/* "pass", "FAIL", "FAIL (not measured)", "FAIL (partly measured)". */
const char *gate_verdict_word(enum gate_verdict v);

/* The gates section of the text report.  0 or -errno. */
int	gate_write_text(FILE *f, const struct gate_set *gs);

/* One line for a failed gate, "gate failed: energy ... > limit", without newline. */
void	gate_failure_line(const struct gate_result *r, char *buf, size_t size);

#endif
