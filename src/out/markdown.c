/*
 * The Markdown summary (--markdown, `joulestat report --markdown`): GitHub
 * Flavored Markdown tables drawn from the JSON report (doc.h), for a CI
 * job summary ($GITHUB_STEP_SUMMARY) or a pull-request comment.  Text from
 * the run (the command, device names, notes) has every ASCII punctuation
 * character backslash-escaped, which CommonMark allows for all of them, so
 * nothing in it can end a cell or start markup.  A figure that is unknown
 * is written "unknown", never 0.
 */
#include "joulestat/markdown.h"

#include <ctype.h>
#include <string.h>

#include "joulestat/doc.h"
#include "joulestat/schema.h"
#include "joulestat/util.h"

/* Text in a table cell: punctuation escaped, line breaks and controls as spaces. */
static void
md_text(FILE *f, const char *s)
{
	const unsigned char	*p;

	if (s == NULL || s[0] == '\0') {
		fputs("unknown", f);
		return;
	}
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fputc(' ', f);
		else if (*p < 0x80 && ispunct(*p)) {
			fputc('\\', f);
			fputc(*p, f);
		} else
			fputc(*p, f);
	}
}

/* A figure with its unit, or "unknown". */
static void
md_figure(FILE *f, const json_t *o, const char *key, const char *unit, int prec)
{
	double	v;

	if (doc_real(o, key, &v))
		fprintf(f, "%.*f%s%s", prec, v, unit[0] != '\0' ? " " : "", unit);
	else
		fputs("unknown", f);
}

/* An energy with its bound ("1231.400 ± 0.600 J"), or "unknown". */
static void
md_energy(FILE *f, const json_t *o, const char *key, const char *err_key)
{
	double	v, err;

	if (!doc_real(o, key, &v))
		fputs("unknown", f);
	else if (doc_real(o, err_key, &err))
		fprintf(f, "%.3f ± %.3f J", v, err);
	else
		fprintf(f, "%.3f J", v);
}

/* "P0 80.0 %, P8 20.0 %": each P-state's share of the device's time. */
static void
md_states(FILE *f, const json_t *dev)
{
	const json_t	*s;
	double		 share;
	size_t		 i;

	json_array_foreach(doc_array(dev, "pstates"), i, s) {
		if (i > 0)
			fputs(", ", f);
		md_text(f, doc_text(s, "pstate"));
		if (doc_real(s, "share", &share))
			fprintf(f, " %.1f %%", share * 100);
	}
	if (json_array_size(doc_array(dev, "pstates")) == 0)
		fputs("none reported", f);
}

/* The workload's estimated share of the run's energy, from the run's totals. */
static void
md_workload(FILE *f, const json_t *run)
{
	const json_t	*t = json_object_get(run, "totals");
	double		 e, w;

	if (doc_real(t, "energy_j", &e) && doc_real(t, "workload_energy_j", &w) && e > 0)
		fprintf(f, "%.3f J, %.1f %% (estimate)", w, w / e * 100);
	else
		fputs("unknown", f);
}

static void
md_total(FILE *f, const json_t *run)
{
	const json_t	*t = json_object_get(run, "totals");
	double		 n = 0;

	md_energy(f, t, "energy_j", "energy_err_j");
	if (doc_real(t, "energy_devices", &n) && n > 0)
		fprintf(f, " (%.0f of %zu devices)", n, json_array_size(doc_array(run, "devices")));
}

static void
md_runs(FILE *f, const json_t *doc)
{
	const json_t	*run;
	double		 v;
	size_t		 i;

	fputs("| run | exit status | wall time | energy | workload |\n"
	    "|---:|---|---:|---:|---:|\n", f);
	json_array_foreach(doc_array(doc, "runs"), i, run) {
		fprintf(f, "| %zu | ", i + 1);
		if (doc_real(run, "exit_status", &v))
			fprintf(f, "%.0f", v);
		else
			fputs("none (attached)", f);
		fputs(" ", f);
		md_text(f, doc_text(run, "outcome"));
		fputs(" | ", f);
		md_figure(f, run, "wall_s", "s", 3);
		fputs(" | ", f);
		md_total(f, run);
		fputs(" | ", f);
		md_workload(f, run);
		fputs(" |\n", f);
	}
}

static void
md_device(FILE *f, size_t run, const json_t *dev)
{
	const json_t	*attr = json_object_get(dev, "attribution");
	double		 share;

	fprintf(f, "| %zu | ", run);
	md_figure(f, dev, "index", "", 0);
	fputs(" | ", f);
	md_text(f, doc_text(dev, "name"));
	fputs(" | ", f);
	md_energy(f, dev, "energy_j", "energy_err_j");
	fputs(" | ", f);
	md_text(f, doc_text(dev, "energy_method"));
	if (json_is_true(json_object_get(dev, "partial")))
		fputs(", partial", f);
	fputs(" | ", f);
	md_figure(f, dev, "avg_power_w", "W", 3);
	fputs(" | ", f);
	md_states(f, dev);
	fputs(" | ", f);
	if (doc_real(attr, "energy_share", &share))
		fprintf(f, "%.1f %% (estimate)", share * 100);
	else
		fputs("unknown", f);
	fputs(" |\n", f);
}

static void
md_devices(FILE *f, const json_t *doc)
{
	const json_t	*run, *dev;
	size_t		 i, k;

	fputs("\n| run | device | name | energy | method | average power | P-states "
	    "| workload share |\n|---:|---:|---|---:|---|---:|---|---:|\n", f);
	json_array_foreach(doc_array(doc, "runs"), i, run) {
		json_array_foreach(doc_array(run, "devices"), k, dev)
			md_device(f, i + 1, dev);
	}
}

/* One statistic row of -r: mean, standard deviation, median, min, max, n. */
static void
md_stat(FILE *f, const char *what, const json_t *st, const char *unit)
{
	double	v;
	int	row;

	if (!json_is_object(st))
		return;
	fprintf(f, "| %s | ", what);
	for (row = ROW_MEAN; row < ROW_N; row++) {
		md_figure(f, st, schema_series_row(row), unit, 3);
		fputs(" | ", f);
	}
	fprintf(f, "%.0f |\n", doc_real(st, schema_series_row(ROW_N), &v) ? v : 0);
}

static void
md_series(FILE *f, const json_t *doc)
{
	const json_t	*s = json_object_get(doc, "series"), *dev;
	char		 what[64];
	double		 idx = 0;
	size_t		 i;

	if (!json_is_object(s))
		return;
	fputs("\n| over the runs | mean | standard deviation | median | min | max | n |\n"
	    "|---|---:|---:|---:|---:|---:|---:|\n", f);
	md_stat(f, "wall time", json_object_get(s, "wall_s"), "s");
	json_array_foreach(doc_array(s, "devices"), i, dev) {
		doc_real(dev, "index", &idx);
		snprintf(what, sizeof what, "energy of device %.0f", idx);
		md_stat(f, what, json_object_get(dev, "energy_j"), "J");
	}
}

static void
md_gate(FILE *f, const json_t *g)
{
	const char	*unit = doc_text(g, "unit");
	bool		 is_pass = json_is_true(json_object_get(g, "passed"));

	if (unit == NULL)
		unit = "";
	fputs("| ", f);
	md_text(f, doc_text(g, "gate"));
	fputs(" | ", f);
	md_text(f, doc_text(g, "figure"));
	fputs(" | ", f);
	md_figure(f, g, "measured", unit, 3);
	fprintf(f, " | %s ", doc_gate_comparison(g));
	md_figure(f, g, "limit", unit, 3);
	fprintf(f, " | %s | ", is_pass ? "pass" : "**FAIL**");
	md_text(f, doc_text(g, "detail"));
	fputs(" |\n", f);
}

static void
md_gates(FILE *f, const json_t *doc)
{
	const json_t	*g;
	size_t		 i;

	if (json_array_size(doc_array(doc, "gates")) == 0)
		return;
	fputs("\n| gate | figure | measured | limit | result | how |\n"
	    "|---|---|---:|---:|---|---|\n", f);
	json_array_foreach(doc_array(doc, "gates"), i, g)
		md_gate(f, g);
}

int
markdown_write(FILE *f, const json_t *doc)
{
	const json_t	*run = json_array_get(doc_array(doc, "runs"), 0);
	size_t		 nfailed = doc_failed_gates(doc);

	fputs("### joulestat: ", f);
	md_text(f, doc_text(run, "command"));
	fputs("\n\n", f);
	if (json_array_size(doc_array(doc, "gates")) > 0)
		fprintf(f, "%s\n\n", nfailed > 0 ? "**Gates failed.**" : "Every gate passed.");
	fputs("joulestat ", f);
	md_text(f, doc_text(run, "joulestat_version"));
	fputs(" on ", f);
	md_text(f, doc_text(run, "host"));
	fputs(", started ", f);
	md_text(f, doc_text(run, "start_time"));
	fputs(".\n\n", f);
	md_runs(f, doc);
	md_devices(f, doc);
	md_series(f, doc);
	md_gates(f, doc);
	fputc('\n', f);
	return flush_status(f);
}
