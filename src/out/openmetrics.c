/*
 * The metrics text (--openmetrics, `joulestat report --openmetrics`),
 * drawn from the JSON report (doc.h).  It is the Prometheus text
 * exposition format (version 0.0.4), which node_exporter's textfile
 * collector and the Pushgateway read, with OpenMetrics naming: base units
 * in the name (_seconds, _joules), _total on counters, and a # UNIT line
 * beside # HELP and # TYPE (a comment to a 0.0.4 reader).  Each family's
 * samples follow its header, as both formats require; label values escape
 * backslash, double quote and newline.  An unknown figure has no sample:
 * never 0.  Energies are counters that start again at every run; sum
 * joulestat_energy_joules_total over devices for a run's total, which the
 * backends keep free of double counting.
 */
#include "joulestat/openmetrics.h"

#include <string.h>

#include "joulestat/doc.h"
#include "joulestat/util.h"

/* What a family's samples are about. */
enum om_scope {
	OM_META,	/* one sample, about joulestat and the host */
	OM_RUN,		/* one per run */
	OM_DEVICE,	/* one per device of each run */
	OM_PSTATE,	/* one per P-state of each device of each run */
	OM_GATE,	/* one per gate */
	OM_PHASE,	/* one per phase name of each run */
	OM_PHASE_DEVICE, /* ... and device */
};

struct om_family {
	const char	*name;		/* with _total for a counter */
	const char	*type;		/* "gauge" or "counter" */
	const char	*unit;		/* OpenMetrics unit, "" for none */
	const char	*help;
	enum om_scope	 scope;
	const char	*group;		/* the value is in this object of the scope's, or NULL */
	const char	*key;		/* the value's key; NULL: 1 (an info family) */
};

static const struct om_family families[] = {
	{ "joulestat_info", "gauge", "", "joulestat's version and the host and command "
	    "measured", OM_META, NULL, NULL },
	{ "joulestat_device_info", "gauge", "", "Each device measured: name, UUID or PCI id, "
	    "driver and library versions, architecture, what its power reading means", OM_DEVICE, NULL, NULL },
	{ "joulestat_exit_status", "gauge", "", "The workload's exit status (128+N for signal N)",
	    OM_RUN, NULL, "exit_status" },
	{ "joulestat_wall_seconds", "gauge", "seconds", "Wall time of the run", OM_RUN, NULL,
	    "wall_s" },
	{ "joulestat_run_energy_joules_total", "counter", "joules", "Energy of every device of "
	    "the run that measured it, counted once", OM_RUN, "totals", "energy_j" },
	{ "joulestat_run_workload_energy_joules_total", "counter", "joules", "The workload's "
	    "processes' share of the run's energy (an estimate)", OM_RUN, "totals",
	    "workload_energy_j" },
	{ "joulestat_energy_joules_total", "counter", "joules", "Energy of a device over the run",
	    OM_DEVICE, NULL, "energy_j" },
	{ "joulestat_energy_above_idle_joules_total", "counter", "joules", "Energy of a device "
	    "above its idle power", OM_DEVICE, NULL, "energy_above_idle_j" },
	{ "joulestat_workload_energy_joules_total", "counter", "joules", "The workload's share "
	    "of a device's energy (an estimate)", OM_DEVICE, "attribution", "workload_energy_j" },
	{ "joulestat_pstate_seconds_total", "counter", "seconds", "Time a device spent in a "
	    "performance state", OM_PSTATE, NULL, "time_s" },
	{ "joulestat_pstate_energy_joules_total", "counter", "joules", "Energy of a device in "
	    "a performance state", OM_PSTATE, NULL, "energy_j" },
	{ "joulestat_phase_wall_seconds_total", "counter", "seconds", "Wall time of a phase the "
	    "workload marked, its occurrences together; a nested phase is within its parent",
	    OM_PHASE, NULL, "wall_s" },
	{ "joulestat_phase_energy_joules_total", "counter", "joules", "Energy of a device in a "
	    "phase the workload marked; a nested phase is within its parent", OM_PHASE_DEVICE,
	    NULL, "energy_j" },
	{ "joulestat_gate_passed", "gauge", "", "1 when the gate passed, 0 when it failed",
	    OM_GATE, NULL, "passed" },
	{ "joulestat_gate_measured", "gauge", "", "The figure a gate judged, in the gate's unit",
	    OM_GATE, NULL, "measured" },
	{ "joulestat_gate_limit", "gauge", "", "A gate's limit, in the gate's unit", OM_GATE,
	    NULL, "limit" },
};

/* A label value: backslash, double quote and newline escaped. */
static void
om_value(FILE *f, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void
om_label(FILE *f, bool *is_first, const char *name, const char *value)
{
	fprintf(f, "%s%s=\"", *is_first ? "{" : ",", name);
	*is_first = false;
	om_value(f, value);
	fputc('"', f);
}

/* The labels of a sample from its run (k), device, P-state or gate: NULL where none. */
struct om_where {
	size_t		 run;
	const json_t	*dev;
	const json_t	*state;
	const json_t	*gate;
	const json_t	*phase;
	const json_t	*first;		/* the first run, for joulestat_info */
};

static void
om_labels(FILE *f, const struct om_family *fam, const struct om_where *w)
{
	char	num[32];
	double	idx;
	bool	is_first = true;

	if (fam->scope == OM_META) {
		om_label(f, &is_first, "version", doc_text(w->first, "joulestat_version"));
		om_label(f, &is_first, "host", doc_text(w->first, "host"));
		om_label(f, &is_first, "command", doc_text(w->first, "command"));
		om_label(f, &is_first, "tracker", doc_text(w->first, "tracker"));
		om_label(f, &is_first, "visible_devices", doc_text(w->first, "visible_devices"));
	}
	if (fam->scope == OM_GATE) {
		om_label(f, &is_first, "gate", doc_text(w->gate, "gate"));
		om_label(f, &is_first, "figure", doc_text(w->gate, "figure"));
		om_label(f, &is_first, "unit", doc_text(w->gate, "unit"));
	}
	if (fam->scope != OM_META && fam->scope != OM_GATE && fam->key != NULL) {
		snprintf(num, sizeof num, "%zu", w->run);
		om_label(f, &is_first, "run", num);
	}
	if (w->dev != NULL) {
		snprintf(num, sizeof num, "%.0f", doc_real(w->dev, "index", &idx) ? idx : -1.0);
		om_label(f, &is_first, "device", num);
		om_label(f, &is_first, "uuid", doc_text(w->dev, "id"));
	}
	if (w->dev != NULL && fam->key == NULL) {
		om_label(f, &is_first, "name", doc_text(w->dev, "name"));
		om_label(f, &is_first, "bus_id", doc_text(w->dev, "bus_id"));
		om_label(f, &is_first, "backend", doc_text(w->dev, "backend"));
		om_label(f, &is_first, "versions", doc_text(w->dev, "versions"));
		om_label(f, &is_first, "architecture", doc_text(w->dev, "architecture"));
		om_label(f, &is_first, "power_kind", doc_text(w->dev, "power_kind"));
	}
	if (w->state != NULL)
		om_label(f, &is_first, "pstate", doc_text(w->state, "pstate"));
	if (w->phase != NULL)
		om_label(f, &is_first, "phase", doc_text(w->phase, "phase"));
	if (!is_first)
		fputc('}', f);
}

/* One sample, when its figure is known. */
static void
om_sample(FILE *f, const struct om_family *fam, const struct om_where *w, const json_t *o)
{
	const json_t	*v;
	double		 x = 1;

	if (fam->key != NULL) {
		if (fam->group != NULL)
			o = json_object_get(o, fam->group);
		v = json_object_get(o, fam->key);
		if (json_is_boolean(v))
			x = json_is_true(v);
		else if (!doc_real(o, fam->key, &x))
			return;
	}
	fputs(fam->name, f);
	om_labels(f, fam, w);
	fprintf(f, " %.15g\n", x);
}

/* The run's device numbered like a phase's device object, or NULL. */
static const json_t *
om_run_device(const json_t *run, const json_t *pdev)
{
	const json_t	*dev;
	double		 a, b;
	size_t		 k;

	if (!doc_real(pdev, "device", &a))
		return NULL;
	json_array_foreach(doc_array(run, "devices"), k, dev) {
		if (doc_real(dev, "index", &b) && a == b)
			return dev;
	}
	return NULL;
}

/* The samples of a phase family for one run: each phase, or each phase and device. */
static void
om_phases(FILE *f, const struct om_family *fam, struct om_where *w, const json_t *run)
{
	const json_t	*pdev;
	size_t		 k, m;

	json_array_foreach(doc_array(run, "phases"), k, w->phase) {
		if (fam->scope == OM_PHASE) {
			om_sample(f, fam, w, w->phase);
			continue;
		}
		json_array_foreach(doc_array(w->phase, "devices"), m, pdev) {
			if ((w->dev = om_run_device(run, pdev)) != NULL)
				om_sample(f, fam, w, pdev);
		}
		w->dev = NULL;
	}
	w->phase = NULL;
}

/* Every sample of a family, in the order of the runs, devices and states. */
static void
om_samples(FILE *f, const struct om_family *fam, const json_t *doc, const json_t *first)
{
	struct om_where	 w = { .first = first };
	const json_t	*run, *dev, *st;
	size_t		 i, k, m;

	if (fam->scope == OM_META) {
		om_sample(f, fam, &w, first);
		return;
	}
	if (fam->scope == OM_GATE) {
		json_array_foreach(doc_array(doc, "gates"), i, w.gate)
			om_sample(f, fam, &w, w.gate);
		return;
	}
	json_array_foreach(doc_array(doc, "runs"), i, run) {
		w.run = i + 1;
		w.dev = NULL;
		w.state = NULL;
		if (fam->scope == OM_PHASE || fam->scope == OM_PHASE_DEVICE) {
			om_phases(f, fam, &w, run);
			continue;
		}
		if (fam->scope == OM_RUN) {
			om_sample(f, fam, &w, run);
			continue;
		}
		/* An info family describes the devices once, not per run. */
		if (fam->key == NULL && i > 0)
			break;
		json_array_foreach(doc_array(run, "devices"), k, dev) {
			w.dev = dev;
			if (fam->scope == OM_DEVICE) {
				om_sample(f, fam, &w, dev);
				continue;
			}
			json_array_foreach(doc_array(dev, "pstates"), m, st) {
				w.state = st;
				om_sample(f, fam, &w, st);
			}
			w.state = NULL;
		}
	}
}

int
openmetrics_write(FILE *f, const json_t *doc)
{
	const json_t	*first = json_array_get(doc_array(doc, "runs"), 0);
	const struct om_family *fam;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(families); i++) {
		fam = &families[i];
		fprintf(f, "# HELP %s %s.\n# TYPE %s %s\n", fam->name, fam->help, fam->name,
		    fam->type);
		if (fam->unit[0] != '\0')
			fprintf(f, "# UNIT %s %s\n", fam->name, fam->unit);
		om_samples(f, fam, doc, first);
	}
	return flush_status(f);
}
