/*
 * --baseline: an earlier summary CSV (the columns of schema.h, found by
 * name through csvin) reduced to what --max-regression compares: the wall time
 * of each numbered run that succeeded, the energies of its devices, and of
 * its phases.
 */
#include "joulestat/gate.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/csvin.h"
#include "joulestat/schema.h"
#include "joulestat/util.h"

/* A number field, or NaN when it is empty; -1 when it is not a number. */
static int
field_number(const char *s, double *out)
{
	if (s[0] == '\0') {
		*out = NAN;
		return 0;
	}
	return parse_double(s, out) != 0 || !isfinite(*out) ? -1 : 0;
}

/* The columns a baseline needs, found by name. */
struct bcols {
	int	scope, run, wall, devid, energy, above, phase, exit;
};

static int
find_cols(const struct csvin *t, struct bcols *c, struct errbuf *err)
{
	static const enum summary_col cols[] = { COL_SCOPE, COL_RUN, COL_WALL, COL_DEVID,
	    COL_ENERGY, COL_ABOVEIDLE };
	int	*const slots[] = { &c->scope, &c->run, &c->wall, &c->devid, &c->energy, &c->above };
	size_t	 i;

	for (i = 0; i < ARRAY_SIZE(cols); i++) {
		if ((*slots[i] = csvin_col(t, schema_column(cols[i]))) < 0) {
			errbuf_set(err, "no column '%s': not a joulestat --csv summary",
			    schema_column(cols[i]));
			return -1;
		}
	}
	/* Older summaries have none of these. */
	c->phase = csvin_col(t, schema_column(COL_PHASE));
	c->exit = csvin_col(t, schema_column(COL_EXIT));
	return 0;
}

/* A numbered run row ("run" is 1, 2, ...; the mean and stddev rows are skipped). */
static int
add_run(struct baseline *b, const struct csvin *t, size_t row, const struct bcols *c,
    struct errbuf *err)
{
	struct baseline_run	*r;

	b->runs = xreallocarray(b->runs, b->nruns + 1, sizeof *b->runs);
	r = &b->runs[b->nruns];
	if (field_number(csvin_get(t, row, c->wall), &r->wall_s) != 0 || isnan(r->wall_s)) {
		errbuf_set(err, "line %zu: wall_s '%s' is not a number", t->rows[row].line,
		    VIS(csvin_get(t, row, c->wall)));
		return -1;
	}
	b->nruns++;
	return 0;
}

static int
add_dev(struct baseline *b, const struct csvin *t, size_t row, const struct bcols *c,
    struct errbuf *err)
{
	struct baseline_dev	*d;
	const char		*id = csvin_get(t, row, c->devid);

	if (b->nruns == 0 || id[0] == '\0' || strlen(id) >= sizeof d->id) {
		errbuf_set(err, "line %zu: a device row without its run row or device_id",
		    t->rows[row].line);
		return -1;
	}
	b->devs = xreallocarray(b->devs, b->ndevs + 1, sizeof *b->devs);
	d = &b->devs[b->ndevs];
	d->run = b->nruns - 1;
	snprintf(d->id, sizeof d->id, "%s", id);
	if (field_number(csvin_get(t, row, c->energy), &d->energy_j) != 0 ||
	    field_number(csvin_get(t, row, c->above), &d->above_idle_j) != 0) {
		errbuf_set(err, "line %zu: energy of device %s is not a number", t->rows[row].line,
		    VIS(id));
		return -1;
	}
	b->ndevs++;
	return 0;
}

/* A phase row of the latest run (an older summary has none). */
static int
add_phase(struct baseline *b, const struct csvin *t, size_t row, const struct bcols *c,
    struct errbuf *err)
{
	struct baseline_phase	*p;
	const char		*name = c->phase >= 0 ? csvin_get(t, row, c->phase) : "";
	const char		*id = csvin_get(t, row, c->devid);

	if (b->nruns == 0 || strlen(name) >= sizeof p->name || strlen(id) >= sizeof p->id) {
		errbuf_set(err, "line %zu: a phase row without its run row, or with a name too long",
		    t->rows[row].line);
		return -1;
	}
	b->phases = xreallocarray(b->phases, b->nphases + 1, sizeof *b->phases);
	p = &b->phases[b->nphases];
	p->run = b->nruns - 1;
	snprintf(p->name, sizeof p->name, "%s", name);
	snprintf(p->id, sizeof p->id, "%s", id);
	if (field_number(csvin_get(t, row, c->energy), &p->energy_j) != 0 ||
	    field_number(csvin_get(t, row, c->above), &p->above_idle_j) != 0 ||
	    field_number(csvin_get(t, row, c->wall), &p->wall_s) != 0) {
		errbuf_set(err, "line %zu: a figure of phase %s is not a number", t->rows[row].line,
		    VIS(name));
		return -1;
	}
	b->nphases++;
	return 0;
}

/*
 * Whether the run of a run row failed: a run that failed or was
 * interrupted is in no statistic (joulestat(1), GATES), so neither it nor
 * its device and phase rows are compared.  An empty exit_status (attach
 * mode), or a summary without the column, keeps the run.  0 or -1.
 */
static int
run_failed(const struct csvin *t, size_t row, const struct bcols *c, bool *is_failed,
    struct errbuf *err)
{
	const char	*st = csvin_get(t, row, c->exit);
	uint64_t	 v;

	*is_failed = false;
	if (st[0] == '\0')
		return 0;
	if (parse_u64_range(st, 0, 255, &v) != 0) {
		errbuf_set(err, "line %zu: exit_status '%s' is not an exit status",
		    t->rows[row].line, VIS(st));
		return -1;
	}
	*is_failed = v != 0;
	return 0;
}

static int
read_rows(struct baseline *b, const struct csvin *t, struct errbuf *err)
{
	struct bcols	c;
	const char	*scope, *run;
	uint64_t	 v;
	size_t		 row, nfailed = 0;
	bool		 is_ours, is_failed = false;

	if (schema_check_summary(t, err) != 0 || find_cols(t, &c, err) != 0)
		return -1;
	for (row = 1; row < t->nrows; row++) {
		scope = csvin_get(t, row, c.scope);
		run = csvin_get(t, row, c.run);
		is_ours = strcmp(scope, schema_scope(SCOPE_RUN)) == 0 ||
		    strcmp(scope, schema_scope(SCOPE_DEVICE)) == 0;
		if (schema_is_series_row(run))
			continue;		/* recomputed, not read */
		if (parse_u64_range(run, 1, UINT32_MAX, &v) != 0) {
			if (!is_ours)
				continue;	/* rows of other kinds */
			errbuf_set(err, "line %zu: run '%s' is not a run number",
			    t->rows[row].line, VIS(run));
			return -1;
		}
		if (strcmp(scope, schema_scope(SCOPE_RUN)) == 0) {
			if (run_failed(t, row, &c, &is_failed, err) != 0)
				return -1;
			nfailed += is_failed;
			if (!is_failed && add_run(b, t, row, &c, err) != 0)
				return -1;
		}
		if (is_failed)
			continue;	/* the failed run's device and phase rows */
		if (strcmp(scope, schema_scope(SCOPE_DEVICE)) == 0 &&
		    add_dev(b, t, row, &c, err) != 0)
			return -1;
		if (strcmp(scope, schema_scope(SCOPE_PHASE)) == 0 &&
		    add_phase(b, t, row, &c, err) != 0)
			return -1;
	}
	if (b->nruns == 0 && nfailed > 0) {
		errbuf_set(err, "no run that succeeded (exit_status 0) among its %zu run row%s",
		    nfailed, nfailed == 1 ? "" : "s");
		return -1;
	}
	if (b->nruns == 0) {
		errbuf_set(err, "no run rows: not a joulestat --csv summary");
		return -1;
	}
	return 0;
}

int
baseline_parse(struct baseline *b, const char *path, const char *text, size_t len,
    struct errbuf *err)
{
	struct csvin	t;
	int		rc;

	memset(b, 0, sizeof *b);
	b->path = xstrdup(path);
	rc = csvin_parse(&t, text, len, err);
	if (rc == 0)
		rc = read_rows(b, &t, err);
	csvin_free(&t);
	if (rc != 0) {
		errbuf_prefix(err, "--baseline %s", VIS(path));
		baseline_free(b);
	}
	return rc;
}

int
baseline_load(struct baseline *b, const char *path, struct errbuf *err)
{
	struct csvin	t;
	int		rc;

	memset(b, 0, sizeof *b);
	b->path = xstrdup(path);
	rc = csvin_load(&t, path, err);
	if (rc == 0 && (rc = read_rows(b, &t, err)) != 0)
		errbuf_prefix(err, "%s", VIS(path));
	csvin_free(&t);
	if (rc != 0) {
		errbuf_prefix(err, "--baseline");
		baseline_free(b);
	}
	return rc;
}

void
baseline_free(struct baseline *b)
{
	free(b->path);
	free(b->runs);
	free(b->devs);
	free(b->phases);
	memset(b, 0, sizeof *b);
}

