/*
 * What the gate files share, and nothing else includes:
 *
 *	gate.c		thresholds on the figures of a run or a series, the
 *			verdicts and their text
 *	regress.c	--max-regression: the comparison with a --baseline
 */
#ifndef JOULESTAT_GATE_PRIV_H
#define JOULESTAT_GATE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/gate.h"
#include "joulestat/report.h"

/*
 * What the energy figures of the runs judged so far covered: a gate whose
 * figure covers less than the run is partial (joulestat(1), --gate-partial).
 */
struct cover {
	int64_t	measured_ns;
	int64_t	span_ns;
	size_t	npartial;
};

/* What a run's device figure covered, and a phase's. */
void	gate_cover_add(struct cover *c, const struct dev_report *d);
void	gate_cover_phase(struct cover *c, const struct phase_dev_report *pd);
/* A device that measured nothing of its span_ns: all of it partial. */
void	gate_cover_none(struct cover *c, int64_t span_ns);

/*
 * Whether device dev could have measured energy or power, so that an
 * all-devices total that lacks it because it measured none is partly
 * measured (joulestat(1), GATES).  What probe found it measures says so,
 * or probe could not ask it: a GPU that did not answer at probe is kept to
 * be identified later (HACKING.md, "The backend contract"), its measures
 * empty, device.is_unprobed.  A device that cannot measure a figure by
 * nature (no energy, no idle reference, no P-states) is left out of a
 * total, which says over how many devices it is.
 */
bool	gate_could_measure(const struct device *dev);

/* "device time measured ..." into buf, after what it holds. */
void	gate_cover_words(const struct cover *c, char *buf, size_t size);

/* The figure of one run for a gate; false when the run did not measure it. */
bool	gate_dev_figure(enum gate_metric m, const struct dev_report *d, double *v);

/* A phase's figure for a gate on device at; false when it was not measured. */
bool	gate_phase_dev_figure(const struct gate_spec *g, const struct phase_report *p, size_t at,
	    const struct dev_report *d, double *v);

/* A new result for spec g in gs, its what and detail empty. */
struct gate_result *gate_new_result(struct gate_set *gs, const struct gate_spec *g);
void	gate_set_verdict(struct gate_set *gs, struct gate_result *r, bool is_pass);
/* Not measured, with why as the detail: a failure. */
void	gate_no_data(struct gate_set *gs, struct gate_result *r, const char *why);

/*
 * A figure that covers less than the runs did (cov): the detail says how
 * much, and the verdict is FAIL (partly measured), given here (true), or
 * with --gate-partial=measured left to the figure (false, said so).
 */
bool	gate_partial(struct gate_set *gs, const struct gate_config *gc, struct gate_result *r,
	    const struct cover *cov);

/* What --max-regression judges: "energy growth over the baseline, phase train". */
void	gate_regress_what(const struct gate_config *gc, const char *phase, char *buf,
	    size_t size);

/*
 * --max-regression on reps[0..n) against base: the whole run, then each
 * phase that both the baseline and the first run have (regress.c).
 */
void	gate_judge_regressions(struct gate_set *gs, const struct gate_config *gc,
	    const struct gate_spec *g, const struct report *reps, size_t n,
	    const struct baseline *base);

#endif
