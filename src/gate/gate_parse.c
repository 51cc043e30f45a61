/*
 * The values of the gate options (--max-energy=0:500,1:600 and friends),
 * checked and turned into struct gate_spec.  Apart from the judging so
 * that option parsing needs nothing but this file.
 */
#include "joulestat/gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/units.h"
#include "joulestat/util.h"

#define GATE_MAX_DEVICE		1023
#define GATE_MAX_LIMIT		1e12
#define GATE_MAX_PCT		1e6

static const struct {
	const char	*option;
	const char	*name;
	const char	*unit;
	bool		 is_min;		/* the figure must reach the limit */
} metrics[] = {
	[GATE_ENERGY] = { "--max-energy", "energy", "J", false },
	[GATE_ABOVE_IDLE] = { "--max-energy-above-idle", "energy above idle", "J", false },
	[GATE_TIME] = { "--max-time", "wall time", "s", false },
	[GATE_AVG_POWER] = { "--max-avg-power", "average power", "W", false },
	[GATE_STATE_SHARE] = { "--min-pstate-share", "share of time", "%", true },
	[GATE_REGRESSION] = { "--max-regression", "growth over the baseline", "%", false },
};

const char *
gate_option(enum gate_metric metric)
{
	return metrics[metric].option;
}

const char *
gate_name(enum gate_metric metric)
{
	return metrics[metric].name;
}

const char *
gate_unit(enum gate_metric metric)
{
	return metrics[metric].unit;
}

bool
gate_is_min(enum gate_metric metric)
{
	return metrics[metric].is_min;
}

const char *
gate_comparison(enum gate_metric metric)
{
	return gate_is_min(metric) ? ">=" : "<=";
}

/* A limit in the metric's unit, with a unit suffix where it has one (10kJ, 2m, 300W). */
static int
parse_limit(enum gate_metric metric, const char *s, double max, double *out)
{
	int	rc;

	switch (metric) {
	case GATE_ENERGY:
	case GATE_ABOVE_IDLE: rc = parse_quantity(s, UNIT_JOULES, 1, out); break;
	case GATE_TIME: rc = parse_quantity(s, UNIT_SECONDS, 1, out); break;
	case GATE_AVG_POWER: rc = parse_quantity(s, UNIT_WATTS, 1, out); break;
	default: rc = parse_double(s, out);
	}
	if (rc != 0 || !isfinite(*out) || *out < 0 || *out > max)
		return -1;
	*out += 0.0;	/* "-0" is 0: its sign would be printed with the limit */
	return 0;
}

/* "DEV:" in front of an entry: the device index, else GATE_ALL_DEVICES. */
static char *
take_device(char *tok, int *device)
{
	char		*colon = strchr(tok, ':');
	uint64_t	 v;

	*device = GATE_ALL_DEVICES;
	if (colon == NULL)
		return tok;
	*colon = '\0';
	if (parse_u64_range(tok, 0, GATE_MAX_DEVICE, &v) != 0) {
		*colon = ':';
		return tok;		/* not a device: a state name, say */
	}
	*device = (int)v;
	return colon + 1;
}

/* One entry of a --min-pstate-share list: "[DEV:]STATE:PCT". */
static int
parse_share(struct gate_spec *g, char *tok)
{
	char	*rest, *colon;

	rest = take_device(tok, &g->device);
	if ((colon = strrchr(rest, ':')) == NULL)
		return -1;
	*colon = '\0';
	if (rest[0] == '\0' || strlen(rest) >= sizeof g->state || strpbrk(rest, " \t:,") != NULL)
		return -1;
	snprintf(g->state, sizeof g->state, "%s", rest);
	return parse_limit(g->metric, colon + 1, 100, &g->limit);
}

/* "phase:NAME:" in front of an entry: the phase it judges. */
static char *
take_phase(char *tok, struct gate_spec *g)
{
	char	*name, *colon;

	if (strncmp(tok, "phase:", 6) != 0)
		return tok;
	name = tok + 6;
	if ((colon = strchr(name, ':')) == NULL || !markline_is_name(name, (size_t)(colon - name)))
		return NULL;
	memcpy(g->phase, name, (size_t)(colon - name));
	g->phase[colon - name] = '\0';
	return colon + 1;
}

/* One entry of an energy or power list: "LIMIT" or "DEV:LIMIT", maybe after "phase:NAME:". */
static int
parse_entry(struct gate_spec *g, char *tok)
{
	char	*rest;

	if (g->metric != GATE_REGRESSION && (tok = take_phase(tok, g)) == NULL)
		return -1;
	switch (g->metric) {
	case GATE_STATE_SHARE:
		return parse_share(g, tok);
	case GATE_TIME:
		return parse_limit(g->metric, tok, GATE_MAX_LIMIT, &g->limit) != 0 || g->limit == 0 ?
		    -1 : 0;
	case GATE_REGRESSION:
		return parse_limit(g->metric, tok, GATE_MAX_PCT, &g->limit);
	default:
		rest = take_device(tok, &g->device);
		if (rest == tok && strchr(tok, ':') != NULL)
			return -1;
		return parse_limit(g->metric, rest, GATE_MAX_LIMIT, &g->limit);
	}
}

static const char *const forms[] = {
	[GATE_ENERGY] = "[phase:NAME:]joules (10kJ, 0.5Wh), or [phase:NAME:]DEVICE:JOULES,...",
	[GATE_ABOVE_IDLE] = "[phase:NAME:]joules (10kJ, 0.5Wh), or [phase:NAME:]DEVICE:JOULES,...",
	[GATE_TIME] = "[phase:NAME:]seconds (90, 2m, 500ms; more than 0),...",
	[GATE_AVG_POWER] = "[phase:NAME:]watts (300, 0.3kW), or [phase:NAME:]DEVICE:WATTS,...",
	[GATE_STATE_SHARE] = "[phase:NAME:][DEVICE:]STATE:PERCENT,... such as P0:80",
	[GATE_REGRESSION] = "a percentage, 0 or more",
};

/* An earlier gate of the same metric on the same device (and state): one limit each. */
static const struct gate_spec *
find_same(const struct gate_config *gc, const struct gate_spec *g)
{
	size_t	i;

	for (i = 0; i < gc->nspecs; i++) {
		if (gc->specs[i].metric == g->metric && gc->specs[i].device == g->device &&
		    strcmp(gc->specs[i].state, g->state) == 0 &&
		    strcmp(gc->specs[i].phase, g->phase) == 0)
			return &gc->specs[i];
	}
	return NULL;
}

/* "device 0", "all devices", "P0 of device 1", "the run": what a gate limits, for a message. */
static void
gate_target(const struct gate_spec *g, char *buf, size_t size)
{
	char	dev[32];

	if (g->metric == GATE_TIME)
		snprintf(dev, sizeof dev, "the run");
	else if (g->device == GATE_ALL_DEVICES)
		snprintf(dev, sizeof dev, "all devices");
	else
		snprintf(dev, sizeof dev, "device %d", g->device);
	if (g->state[0] != '\0')
		snprintf(buf, size, "%s of %s%s%s", g->state, dev, g->phase[0] != '\0' ?
		    " in phase " : "", g->phase);
	else
		snprintf(buf, size, "%s%s%s", dev, g->phase[0] != '\0' ? " in phase " : "",
		    g->phase);
}

int
gate_parse(struct gate_config *gc, enum gate_metric metric, const char *arg, struct errbuf *err)
{
	char			 what[160];
	char			*copy = xstrdup(arg), *tok, *rest = copy;
	struct gate_spec	*g;
	int			 rc = 0;
	bool			 is_list = metric != GATE_REGRESSION;

	while (rc == 0 && (tok = strsep(&rest, is_list ? "," : "")) != NULL) {
		if (gc->nspecs == GATE_MAX_SPECS) {
			rc = -1;
			break;
		}
		g = &gc->specs[gc->nspecs];
		memset(g, 0, sizeof *g);
		g->metric = metric;
		g->device = GATE_ALL_DEVICES;
		if ((rc = parse_entry(g, tok)) != 0)
			break;
		if (find_same(gc, g) != NULL) {
			gate_target(g, what, sizeof what);
			if (is_list)
				errbuf_set(err, "invalid %s '%s': a second limit for %s",
				    metrics[metric].option, VIS(arg), what);
			else
				errbuf_set(err, "%s given twice", metrics[metric].option);
			free(copy);
			return -1;
		}
		gc->nspecs++;
	}
	free(copy);
	if (rc != 0)
		errbuf_set(err, "invalid %s '%s': expected %s%s", metrics[metric].option, VIS(arg),
		    forms[metric], gc->nspecs == GATE_MAX_SPECS ? " (at most 64 gates)" : "");
	return rc;
}

int
gate_parse_regress(struct gate_config *gc, const char *arg, struct errbuf *err)
{
	if (strcmp(arg, "energy") == 0)
		gc->regress = REGRESS_ENERGY;
	else if (strcmp(arg, "time") == 0)
		gc->regress = REGRESS_TIME;
	else if (strcmp(arg, "energy-above-idle") == 0)
		gc->regress = REGRESS_ABOVE_IDLE;
	else {
		errbuf_set(err, "invalid --regression-metric '%s': expected energy, time or "
		    "energy-above-idle", VIS(arg));
		return -1;
	}
	return 0;
}


int
gate_parse_partial(struct gate_config *gc, const char *arg, struct errbuf *err)
{
	if (strcmp(arg, "fail") == 0)
		gc->is_partial_measured = false;
	else if (strcmp(arg, "measured") == 0)
		gc->is_partial_measured = true;
	else {
		errbuf_set(err, "invalid --gate-partial '%s': expected fail or measured", VIS(arg));
		return -1;
	}
	return 0;
}
