/*
 * Opening, writing and closing the outputs of a run (include/joulestat/outputs.h).
 */
#include "joulestat/outputs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/csvout.h"
#include "joulestat/gate.h"
#include "joulestat/jsonout.h"
#include "joulestat/report.h"
#include "joulestat/text.h"
#include "joulestat/util.h"

static FILE *
open_output(const char *path, bool *is_failed)
{
	FILE	*f;

	if (path == NULL)
		return stderr;
	if (strcmp(path, "-") == 0)
		return stdout;
	if ((f = fopen(path, "w")) == NULL) {
		warnmsg("%s: %s", path, strerror(errno));
		*is_failed = true;
	}
	return f;
}

void
outputs_init(struct outputs *o, const struct output_paths *paths)
{
	memset(o, 0, sizeof *o);
	o->paths = paths;
	o->timeline.fd = -1;
}

void
outputs_open(struct outputs *o)
{
	struct errbuf	 err = { "" };
	const char	*timeline = o->paths->timeline_path;

	if (o->paths->plot_path != NULL)
		timeline = plot_prepare(o);
	if (!o->paths->is_quiet)
		o->report = open_output(o->paths->output, &o->is_failed);
	if (o->paths->csv_path != NULL)
		o->csv = open_output(o->paths->csv_path, &o->is_failed);
	if (o->paths->json_path != NULL)
		o->json = open_output(o->paths->json_path, &o->is_failed);
	if (timeline != NULL) {
		o->has_timeline = timeline_open(&o->timeline, timeline, &err) == 0;
		if (!o->has_timeline) {
			warnmsg("%s", err.msg);
			o->is_failed = true;
		}
	}
}

/* An output whose file was removed during the run (its directory vanished) is lost. */
static int
check_linked(FILE *f)
{
	return f != stdout && f != stderr && fd_is_unlinked(fileno(f)) ? -ENOENT : 0;
}

static void
close_output(FILE *f, const char *path, int werr, bool *is_failed)
{
	if (f == NULL)
		return;
	if (werr == 0)
		werr = check_linked(f);
	if (f != stdout && f != stderr && fclose(f) != 0 && werr == 0)
		werr = -errno;
	if (werr != 0) {
		warnmsg("%s: %s", path != NULL ? path : "standard error", strerror(-werr));
		*is_failed = true;
	}
}

/*
 * A failed gate is also said on stderr when the text report is not there
 * to show it (-q, -o, -x), so a CI log always names the gate.
 */
static void
say_failed_gates(const struct output_paths *paths, const struct gate_set *gates)
{
	char	line[512];
	size_t	i;

	if (!paths->is_quiet && paths->output == NULL && paths->field_sep == NULL)
		return;
	for (i = 0; i < gates->n; i++) {
		if (gates->v[i].verdict == GATE_PASS)
			continue;
		gate_failure_line(&gates->v[i], line, sizeof line);
		warnmsg("%s", line);
	}
}

void
outputs_write(struct outputs *o, const struct report *reps, size_t nreps,
    const struct gate_set *gates)
{
	struct series	s;
	int		werr = 0;

	report_series(&s, reps, nreps);
	if (o->report != NULL) {
		if (o->paths->field_sep != NULL)
			werr = csvout_summary(o->report, reps, nreps, &s, gates, o->paths->field_sep);
		else if ((werr = report_write_text(o->report, reps, nreps, &s)) == 0)
			werr = gate_write_text(o->report, gates);
	}
	close_output(o->report, o->paths->output, werr, &o->is_failed);
	say_failed_gates(o->paths, gates);
	werr = o->csv != NULL ? csvout_summary(o->csv, reps, nreps, &s, gates, ",") : 0;
	close_output(o->csv, o->paths->csv_path, werr, &o->is_failed);
	werr = o->json != NULL ? jsonout_write(o->json, reps, nreps, &s, gates) : 0;
	close_output(o->json, o->paths->json_path, werr, &o->is_failed);
	if (o->has_timeline && (werr = timeline_close(&o->timeline)) != 0) {
		warnmsg("%s: %s", o->plot_timeline != NULL ? o->plot_timeline : o->paths->timeline_path,
		    strerror(-werr));
		o->is_failed = true;
	}
	if (o->plot_tool != NULL && o->has_timeline && werr == 0)
		plot_draw(o);
	plot_forget(o);
	report_series_free(&s);
}

void
outputs_abandon(struct outputs *o)
{
	FILE	*const files[] = { o->report, o->csv, o->json };
	size_t	 i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (files[i] != NULL && files[i] != stdout && files[i] != stderr)
			fclose(files[i]);
	}
	if (o->has_timeline)
		timeline_close(&o->timeline);
	plot_forget(o);
}
