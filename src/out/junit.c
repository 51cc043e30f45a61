/*
 * JUnit XML (--junit, `joulestat report --junit`), drawn from the JSON
 * report (doc.h), in the Apache Ant JUnit report format that CI systems
 * read (GitLab's test reports, Jenkins, the GitHub test-report actions):
 * <testsuites> holding one <testsuite> for the command's runs (the gates
 * judge the whole series), its energy figures as <property> elements,
 * one <testcase> per gate with a <failure> naming the figure, the limit
 * and how the figure was obtained, and the <system-out> and <system-err>
 * that format requires.  The timestamp is UTC without a zone, as it asks.
 */
#include "joulestat/junit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "joulestat/doc.h"
#include "joulestat/util.h"

/* s as XML character data or attribute value; a control character becomes a space. */
static void
xml_text(FILE *f, const char *s)
{
	const unsigned char	*p;

	for (p = (const unsigned char *)(s != NULL ? s : ""); *p != '\0'; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			fputc(*p < 0x20 && *p != '\t' && *p != '\n' ? ' ' : *p, f);
		}
	}
}

static void
property(FILE *f, const char *name, const char *value)
{
	fputs("      <property name=\"", f);
	xml_text(f, name);
	fputs("\" value=\"", f);
	xml_text(f, value);
	fputs("\"/>\n", f);
}

/* A figure as a property; an unknown one is not written. */
static void
property_real(FILE *f, const char *name, const json_t *o, const char *key)
{
	char	buf[64];
	double	v;

	if (!doc_real(o, key, &v))
		return;
	/* Counts and statuses as integers, measured figures to the microjoule or microsecond. */
	snprintf(buf, sizeof buf, v == floor(v) && fabs(v) < 1e15 ? "%.0f" : "%.6f", v);
	property(f, name, buf);
}

static void
run_properties(FILE *f, size_t k, const json_t *run)
{
	const json_t	*dev;
	char		 name[96];
	double		 idx;
	size_t		 i;

	snprintf(name, sizeof name, "run.%zu.wall_s", k);
	property_real(f, name, run, "wall_s");
	snprintf(name, sizeof name, "run.%zu.exit_status", k);
	property_real(f, name, run, "exit_status");
	snprintf(name, sizeof name, "run.%zu.total_energy_j", k);
	property_real(f, name, json_object_get(run, "totals"), "energy_j");
	snprintf(name, sizeof name, "run.%zu.total_workload_energy_j", k);
	property_real(f, name, json_object_get(run, "totals"), "workload_energy_j");
	json_array_foreach(doc_array(run, "devices"), i, dev) {
		if (!doc_real(dev, "index", &idx))
			continue;
		snprintf(name, sizeof name, "run.%zu.device.%.0f.energy_j", k, idx);
		property_real(f, name, dev, "energy_j");
		snprintf(name, sizeof name, "run.%zu.device.%.0f.energy_method", k, idx);
		property(f, name, doc_text(dev, "energy_method"));
	}
}

static void
properties(FILE *f, const json_t *doc)
{
	const json_t	*run, *first = json_array_get(doc_array(doc, "runs"), 0);
	size_t		 i;

	fputs("    <properties>\n", f);
	property(f, "command", doc_text(first, "command"));
	property(f, "joulestat_version", doc_text(first, "joulestat_version"));
	property(f, "start_time", doc_text(first, "start_time"));
	json_array_foreach(doc_array(doc, "runs"), i, run)
		run_properties(f, i + 1, run);
	fputs("    </properties>\n", f);
}

/* "12.345 J (limit <= 10.000 J)": the figure judged and the limit, as XML text. */
static void
judged(FILE *f, const json_t *g)
{
	const char	*unit = doc_text(g, "unit");
	char		 buf[160], m_text[64] = "no figure";
	double		 m, lim = NAN;

	if (unit == NULL)
		unit = "";
	doc_real(g, "limit", &lim);
	if (doc_real(g, "measured", &m))
		snprintf(m_text, sizeof m_text, "%.3f %s", m, unit);
	snprintf(buf, sizeof buf, "%s (limit %s %.3f %s)", m_text, doc_gate_comparison(g), lim,
	    unit);
	xml_text(f, buf);
}

static void
testcase(FILE *f, const json_t *g, double time_s)
{
	const char	*detail = doc_text(g, "detail");

	fputs("    <testcase classname=\"joulestat.gate\" name=\"", f);
	xml_text(f, doc_text(g, "gate"));
	fputs(" ", f);
	xml_text(f, doc_text(g, "figure"));
	fprintf(f, "\" time=\"%.6f\"", time_s);
	if (json_is_true(json_object_get(g, "passed"))) {
		fputs("/>\n", f);
		return;
	}
	fputs(">\n      <failure type=\"joulestat.gate\" message=\"", f);
	xml_text(f, doc_text(g, "figure"));
	fputs(": ", f);
	judged(f, g);
	fputs("\">", f);
	judged(f, g);
	if (detail != NULL && detail[0] != '\0') {
		fputs("; ", f);
		xml_text(f, detail);
	}
	fputs("</failure>\n    </testcase>\n", f);
}

/* The start of the first run in UTC, "2026-11-23T15:09:13"; the epoch when unknown. */
static void
timestamp(const json_t *run, char *buf, size_t size)
{
	struct tm	tm;
	time_t		t = 0;
	double		v;

	if (doc_real(run, "start_unix_s", &v) && v > 0)
		t = (time_t)v;
	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
}

int
junit_write(FILE *f, const json_t *doc)
{
	const json_t	*run, *first = json_array_get(doc_array(doc, "runs"), 0), *g;
	const char	*host = doc_text(first, "host");
	double		 wall, total = 0;
	char		 ts[32];
	size_t		 i;

	json_array_foreach(doc_array(doc, "runs"), i, run) {
		if (doc_real(run, "wall_s", &wall))
			total += wall;
	}
	timestamp(first, ts, sizeof ts);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n", f);
	fputs("  <testsuite package=\"joulestat\" id=\"0\" name=\"joulestat\" timestamp=\"", f);
	fprintf(f, "%s\" hostname=\"", ts);
	xml_text(f, host != NULL && host[0] != '\0' ? host : "localhost");
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"%.6f\">\n",
	    json_array_size(doc_array(doc, "gates")), doc_failed_gates(doc), total);
	properties(f, doc);
	json_array_foreach(doc_array(doc, "gates"), i, g)
		testcase(f, g, total);
	fputs("    <system-out></system-out>\n    <system-err></system-err>\n"
	    "  </testsuite>\n</testsuites>\n", f);
	return flush_status(f);
}
