/*
 * Command-line options (popt) into struct config; the option table and
 * the help text are in options.c.  Parsing stops at the first non-option,
 * so everything after the command name reaches the workload untouched.  Values are
 * checked here and the first problem is returned as a one-line cause;
 * nothing is printed and nothing exits (the command decides the exit status).
 */
#include "joulestat/config.h"

#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/account.h"
#include "joulestat/config_ci.h"
#include "joulestat/devsel.h"
#include "joulestat/exitcode.h"
#include "joulestat/gate.h"
#include "joulestat/help.h"
#include "joulestat/jobinfo.h"
#include "joulestat/units.h"
#include "joulestat/util.h"

#include "options.h"

struct parser {
	struct raw_opts	 raw;
	poptContext	 ctx;
	char		**argv;
	char		**owned;	/* every string popt gave, also those a repeat replaced */
	size_t		 nowned;
};

/* popt replaces a repeated option's string without freeing it: keep them all. */
static void
own_strings(struct parser *ps)
{
	char *const	*const fields[] = {
		&ps->raw.weights, &ps->raw.idle_power, &ps->raw.idle_baseline,
		&ps->raw.interval, &ps->raw.json, &ps->raw.timeline, &ps->raw.repeat,
		&ps->raw.warmup, &ps->raw.cooldown, &ps->raw.output, &ps->raw.field_sep,
		&ps->raw.csv, &ps->raw.pids, &ps->raw.descendants, &ps->raw.nvml_lib,
		&ps->raw.tracker,
		&ps->raw.devices, &ps->raw.gate[GATE_ENERGY], &ps->raw.gate[GATE_ABOVE_IDLE],
		&ps->raw.gate[GATE_TIME], &ps->raw.gate[GATE_AVG_POWER],
		&ps->raw.gate[GATE_STATE_SHARE], &ps->raw.gate[GATE_REGRESSION],
		&ps->raw.gate_sigma, &ps->raw.gate_exit, &ps->raw.baseline, &ps->raw.regress,
		&ps->raw.gate_partial, &ps->raw.interval_print,
		&ps->raw.lock, &ps->raw.exclusive_wait, &ps->raw.plot,
		&ps->raw.markdown, &ps->raw.junit, &ps->raw.metrics, &ps->raw.csv_format,
		&ps->raw.require,
	};
	size_t		 i, k;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		if (*fields[i] == NULL)
			continue;
		for (k = 0; k < ps->nowned && ps->owned[k] != *fields[i]; k++)
			;
		if (k == ps->nowned) {
			ps->owned = xreallocarray(ps->owned, ps->nowned + 1, sizeof *ps->owned);
			ps->owned[ps->nowned++] = *fields[i];
		}
	}
}

static int
parse_interval(struct config *cfg, const char *s, struct errbuf *err)
{
	double	v;

	if (parse_quantity(s, UNIT_SECONDS, 1e-3, &v) != 0 || (v *= 1e3) < CONFIG_INTERVAL_MIN_MS ||
	    v > CONFIG_INTERVAL_MAX_MS || fabs(v - round(v)) > 1e-6) {
		errbuf_set(err, "invalid interval '%s': expected milliseconds from %d to %d",
		    VIS(s), CONFIG_INTERVAL_MIN_MS, CONFIG_INTERVAL_MAX_MS);
		return -1;
	}
	cfg->interval_ms = (unsigned)round(v);
	return 0;
}

/* -I: like perf stat -I, but never shorter than 10 ms (a line per device each time). */
static int
parse_print(struct config *cfg, const char *s, struct errbuf *err)
{
	uint64_t	v;

	if (parse_u64_range(s, CONFIG_PRINT_MIN_MS, CONFIG_PRINT_MAX_MS, &v) != 0) {
		errbuf_set(err, "invalid --interval-print '%s': expected milliseconds from %d to %d",
		    VIS(s), CONFIG_PRINT_MIN_MS, CONFIG_PRINT_MAX_MS);
		return -1;
	}
	cfg->print_ms = (unsigned)v;
	return 0;
}

static int
parse_pids(struct config *cfg, const char *s, struct errbuf *err)
{
	char		*copy = xstrdup(s), *tok, *rest = copy;
	uint64_t	 v;

	/* strsep, not strtok: an empty entry ("1,,2") is an error, not skipped. */
	while ((tok = strsep(&rest, ",")) != NULL) {
		if (parse_u64_range(tok, 1, INT_MAX, &v) != 0 || cfg->npids == CONFIG_MAX_PIDS) {
			errbuf_set(err, "invalid pid '%s' in --pid '%s': expected PID[,PID...]",
			    VIS(tok), VIS(s));
			free(copy);
			return -1;
		}
		cfg->pids = xreallocarray(cfg->pids, cfg->npids + 1, sizeof *cfg->pids);
		cfg->pids[cfg->npids++] = (pid_t)v;
	}
	free(copy);
	return 0;
}

static int
parse_descendants(struct config *cfg, const char *s, struct errbuf *err)
{
	static const struct {
		const char		*name;
		enum descendants	 value;
	} names[] = {
		{ "leave", DESCENDANTS_LEAVE },
		{ "wait", DESCENDANTS_WAIT },
		{ "kill", DESCENDANTS_KILL },
	};
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (strcmp(s, names[i].name) == 0) {
			cfg->descendants = names[i].value;
			return 0;
		}
	}
	errbuf_set(err, "invalid --descendants '%s': expected leave, wait or kill", VIS(s));
	return -1;
}

static int
parse_devices(struct devsel *sel, const char *list, struct errbuf *err)
{
	if (list[0] == '\0') {
		errbuf_set(err, "--devices needs \"all\" or a list of numbers, UUIDs or bus ids");
		return -1;
	}
	if (devsel_parse(sel, list, err) != 0) {
		errbuf_prefix(err, "--devices");
		return -1;
	}
	return 0;
}

/* An override from the environment; unset and empty are the same. */
static const char *
env_override(const char *name)
{
	const char	*v = getenv(name);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* Where the backends look: options, else the environment, else the system's. */
static void
resolve_sources(struct config *cfg, const char *nvml_lib)
{
	const char		*p;
	enum devsel_mask_var	 k;

	cfg->sources.sel = &cfg->devsel;
	/*
	 * A launched workload sees the GPUs its runtimes' masks leave it (set
	 * but empty hides them all); an attached one has an environment of
	 * its own, which is not read.
	 */
	for (k = 0; cfg->npids == 0 && k < DEVSEL_NMASKS; k++)
		devsel_set_mask(&cfg->devsel, k, getenv(devsel_mask_name(k)));
	cfg->sources.nvml_lib = nvml_lib != NULL && nvml_lib[0] != '\0' ? nvml_lib :
	    env_override("JOULESTAT_NVML_LIB");
	cfg->sources.pci_lib = env_override("JOULESTAT_LIBPCI");
	p = env_override("JOULESTAT_SYSFS_ROOT");
	cfg->sources.sysfs_root = p != NULL ? p : "/sys";
	p = env_override("JOULESTAT_PROC_ROOT");
	cfg->sources.proc_root = p != NULL ? p : "/proc";
	p = env_override("JOULESTAT_DEV_ROOT");
	cfg->sources.dev_root = p != NULL ? p : "/dev";
}

/* --tracker, else JOULESTAT_TRACKER, else auto; the cgroup v2 mount from JOULESTAT_CGROUP_ROOT. */
static int
parse_tracker(struct config *cfg, const char *opt, struct errbuf *err)
{
	const char	*s = opt != NULL ? opt : env_override("JOULESTAT_TRACKER");
	int		 t = s != NULL ? proctree_tracker_parse(s) : TRACKER_AUTO;

	cfg->cgroup_root = env_override("JOULESTAT_CGROUP_ROOT");
	if (t < 0) {
		errbuf_set(err, "invalid %s '%s': expected auto, cgroup or proc",
		    opt != NULL ? "--tracker" : "JOULESTAT_TRACKER", VIS(s));
		return -1;
	}
	cfg->tracker = (enum tracker)t;
	return 0;
}

static int
parse_weights(struct config *cfg, const char *s, struct errbuf *err)
{
	char	*copy = xstrdup(s), *comma = strchr(copy, ',');
	int	 rc = -1;

	if (comma != NULL) {
		*comma = '\0';
		if (parse_double(copy, &cfg->w_sm) == 0 && parse_double(comma + 1, &cfg->w_mem) == 0 &&
		    cfg->w_sm >= 0 && cfg->w_mem >= 0 && cfg->w_sm + cfg->w_mem > 0)
			rc = 0;
	}
	free(copy);
	if (rc != 0)
		errbuf_set(err, "invalid --attrib-weights '%s': expected SM,MEM, two numbers >= 0 "
		    "not both 0", VIS(s));
	return rc;
}

/* One entry of --idle-power: "W" for every device, or "DEV:W". */
static int
parse_idle_one(struct config *cfg, char *tok)
{
	struct idle_power	*ip = &cfg->idle[cfg->nidle];
	char			*colon = strchr(tok, ':');
	uint64_t		 dev;

	if (cfg->nidle == CONFIG_MAX_IDLE)
		return -1;
	ip->device = IDLE_ALL_DEVICES;
	if (colon != NULL) {
		*colon = '\0';
		if (parse_u64_range(tok, 0, CONFIG_MAX_IDLE - 1, &dev) != 0)
			return -1;
		ip->device = (int)dev;
		tok = colon + 1;
	}
	if (parse_quantity(tok, UNIT_WATTS, 1, &ip->watts) != 0 || ip->watts < 0 ||
	    ip->watts > 100000)
		return -1;
	for (size_t i = 0; i < cfg->nidle; i++) {
		if (cfg->idle[i].device == ip->device)
			return -2;	/* one idle power per device */
	}
	cfg->nidle++;
	return 0;
}

static int
parse_idle_power(struct config *cfg, const char *s, struct errbuf *err)
{
	char	*copy = xstrdup(s), *tok, *rest = copy;
	int	 rc = 0;

	while (rc == 0 && (tok = strsep(&rest, ",")) != NULL)
		rc = parse_idle_one(cfg, tok);
	free(copy);
	if (rc == -2 && cfg->idle[cfg->nidle].device == IDLE_ALL_DEVICES)
		errbuf_set(err, "invalid --idle-power '%s': a second power for all devices",
		    VIS(s));
	else if (rc == -2)
		errbuf_set(err, "invalid --idle-power '%s': a second power for device %d", VIS(s),
		    cfg->idle[cfg->nidle].device);
	else if (rc != 0)
		errbuf_set(err, "invalid --idle-power '%s': expected watts, or DEVICE:WATTS,...",
		    VIS(s));
	return rc == 0 ? 0 : -1;
}

static int
parse_series(struct config *cfg, const struct raw_opts *r, struct errbuf *err)
{
	uint64_t	v;

	if (r->repeat != NULL) {
		if (parse_u64_range(r->repeat, 1, CONFIG_MAX_REPEAT, &v) != 0) {
			errbuf_set(err, "invalid --repeat '%s': expected 1 to %d runs", VIS(r->repeat),
			    CONFIG_MAX_REPEAT);
			return -1;
		}
		cfg->repeat = (unsigned)v;
	}
	if (r->warmup != NULL) {
		if (parse_u64_range(r->warmup, 0, CONFIG_MAX_REPEAT, &v) != 0) {
			errbuf_set(err, "invalid --warmup '%s': expected 0 to %d runs", VIS(r->warmup),
			    CONFIG_MAX_REPEAT);
			return -1;
		}
		cfg->warmup = (unsigned)v;
	}
	if (r->cooldown != NULL && (parse_quantity(r->cooldown, UNIT_SECONDS, 1,
	    &cfg->cooldown_s) != 0 ||
	    cfg->cooldown_s < 0 || cfg->cooldown_s > CONFIG_MAX_COOLDOWN_S)) {
		errbuf_set(err, "invalid --cooldown '%s': expected seconds from 0 to %d",
		    VIS(r->cooldown), CONFIG_MAX_COOLDOWN_S);
		return -1;
	}
	return 0;
}

static int
parse_baseline(struct config *cfg, const char *s, struct errbuf *err)
{
	if (parse_quantity(s, UNIT_SECONDS, 1, &cfg->idle_baseline_s) != 0 ||
	    cfg->idle_baseline_s <= 0 ||
	    cfg->idle_baseline_s > CONFIG_BASELINE_MAX_S) {
		errbuf_set(err, "invalid --idle-baseline '%s': expected seconds, more than 0 and "
		    "at most %d", VIS(s), CONFIG_BASELINE_MAX_S);
		return -1;
	}
	return 0;
}

/* --lock-clocks: base, max, MHZ or MHZ,MEMMHZ. */
static int
parse_lock(struct config *cfg, const char *s, struct errbuf *err)
{
	char		*copy, *mem;
	uint64_t	 gpu, memv = 0;
	int		 rc = 0;

	if (strcmp(s, "base") == 0) {
		cfg->lock.kind = CLOCK_LOCK_BASE;
		return 0;
	}
	if (strcmp(s, "max") == 0) {
		cfg->lock.kind = CLOCK_LOCK_MAX;
		return 0;
	}
	copy = xstrdup(s);
	if ((mem = strchr(copy, ',')) != NULL)
		*mem++ = '\0';
	if (parse_u64_range(copy, 1, CONFIG_MAX_CLOCK_MHZ, &gpu) != 0 ||
	    (mem != NULL && parse_u64_range(mem, 1, CONFIG_MAX_CLOCK_MHZ, &memv) != 0)) {
		errbuf_set(err, "invalid --lock-clocks '%s': expected base, max, or MHz of the "
		    "graphics clock and optionally of memory (1410,1593)", VIS(s));
		rc = -1;
	} else
		cfg->lock = (struct clock_lock){ CLOCK_LOCK_MHZ, (unsigned)gpu, (unsigned)memv };
	free(copy);
	return rc;
}

/* --exclusive, --exclusive-timeout and --lock-clocks-required. */
static int
parse_lock_opts(struct config *cfg, const struct raw_opts *r, struct errbuf *err)
{
	if (r->lock != NULL && parse_lock(cfg, r->lock, err) != 0)
		return -1;
	if (r->is_lock_required && r->lock == NULL) {
		errbuf_set(err, "--lock-clocks-required needs --lock-clocks");
		return -1;
	}
	cfg->is_lock_required = r->is_lock_required != 0;
	/* A run that locks clocks must not have them reset by another one's end. */
	cfg->is_exclusive = r->is_exclusive != 0 || r->exclusive_wait != NULL || r->lock != NULL;
	cfg->exclusive_wait_s = CONFIG_WAIT_FOREVER;
	if (r->exclusive_wait != NULL && (parse_quantity(r->exclusive_wait, UNIT_SECONDS, 1,
	    &cfg->exclusive_wait_s) != 0 || cfg->exclusive_wait_s < 0 || cfg->exclusive_wait_s > CONFIG_MAX_WAIT_S)) {
		errbuf_set(err, "invalid --exclusive-timeout '%s': expected seconds from 0 to %d",
		    VIS(r->exclusive_wait), CONFIG_MAX_WAIT_S);
		return -1;
	}
	return 0;
}

/* --gate-sigma, --gate-exit-code, --gate-partial, --baseline and --regression-metric. */
static int
parse_gate_opts(struct config *cfg, const struct raw_opts *r, struct errbuf *err)
{
	struct gate_config	*gc = &cfg->gate;
	uint64_t		 v;
	bool			 has_regression = false;
	size_t			 i;

	gc->exit_code = EXIT_GATE_DEFAULT;
	if (r->gate_exit != NULL) {
		if (parse_u64_range(r->gate_exit, 1, EXIT_TOOL - 1, &v) != 0) {
			errbuf_set(err, "invalid --gate-exit-code '%s': expected 1 to %d",
			    VIS(r->gate_exit), EXIT_TOOL - 1);
			return -1;
		}
		gc->exit_code = (int)v;
	}
	if (r->gate_sigma != NULL && (parse_double(r->gate_sigma, &gc->sigma) != 0 ||
	    gc->sigma < 0 || gc->sigma > 10)) {
		errbuf_set(err, "invalid --gate-sigma '%s': expected a number from 0 to 10",
		    VIS(r->gate_sigma));
		return -1;
	}
	if (r->regress != NULL && gate_parse_regress(gc, r->regress, err) != 0)
		return -1;
	if (r->gate_partial != NULL && gate_parse_partial(gc, r->gate_partial, err) != 0)
		return -1;
	for (i = 0; i < gc->nspecs; i++)
		has_regression |= gc->specs[i].metric == GATE_REGRESSION;
	if (has_regression != (r->baseline != NULL)) {
		errbuf_set(err, has_regression ? "--max-regression needs --baseline FILE" :
		    "--baseline needs --max-regression PCT");
		return -1;
	}
	if (r->regress != NULL && !has_regression) {
		errbuf_set(err, "--regression-metric needs --max-regression");
		return -1;
	}
	gc->baseline_path = r->baseline;
	if (r->baseline != NULL && (r->baseline[0] == '\0' || strcmp(r->baseline, "-") == 0)) {
		errbuf_set(err, "--baseline needs the name of a summary written by --csv");
		return -1;
	}
	return 0;
}

/*
 * Output paths take %h, %r, %j and %p (README "Clusters").  Each expanded path is
 * kept in the parser's list of owned strings.
 */
static int
expand_path(struct parser *ps, const struct jobinfo *job, const char *opt, const char **path,
    struct errbuf *err)
{
	char	*out;

	if (*path == NULL || strcmp(*path, "-") == 0)
		return 0;
	if ((out = jobinfo_expand(*path, job, err)) == NULL) {
		errbuf_prefix(err, "%s", opt);
		return -1;
	}
	ps->owned = xreallocarray(ps->owned, ps->nowned + 1, sizeof *ps->owned);
	ps->owned[ps->nowned++] = out;
	*path = out;
	return 0;
}

static const char *
env_get(const char *name)
{
	return getenv(name);
}

static int
expand_paths(struct config *cfg, struct parser *ps, struct errbuf *err)
{
	char	host[JOBINFO_HOST_MAX] = "";

	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "localhost");
	if (jobinfo_get(&cfg->job, env_get, host, getpid(), err) != 0)
		return -1;
	if (expand_path(ps, &cfg->job, "--output", &cfg->out.output, err) != 0 ||
	    expand_path(ps, &cfg->job, "--csv", &cfg->out.csv_path, err) != 0 ||
	    expand_path(ps, &cfg->job, "--json", &cfg->out.json_path, err) != 0 ||
	    expand_path(ps, &cfg->job, "--timeline", &cfg->out.timeline_path, err) != 0 ||
	    expand_path(ps, &cfg->job, "--plot", &cfg->out.plot_path, err) != 0 ||
	    expand_path(ps, &cfg->job, "--junit", &cfg->out.junit_path, err) != 0 ||
	    expand_path(ps, &cfg->job, "--openmetrics", &cfg->out.metrics_path, err) != 0 ||
	    (!cfg->out.is_markdown_append &&
	    expand_path(ps, &cfg->job, "--markdown", &cfg->out.markdown_path, err) != 0))
		return -1;
	return 0;
}

/* Check and convert the raw option strings into cfg. */
static int
apply_raw(struct config *cfg, const struct raw_opts *r, struct errbuf *err)
{
	if (r->interval != NULL && parse_interval(cfg, r->interval, err) != 0)
		return -1;
	if (r->interval_print != NULL && parse_print(cfg, r->interval_print, err) != 0)
		return -1;
	if (r->weights != NULL && parse_weights(cfg, r->weights, err) != 0)
		return -1;
	if (r->idle_power != NULL && parse_idle_power(cfg, r->idle_power, err) != 0)
		return -1;
	if (r->idle_baseline != NULL && parse_baseline(cfg, r->idle_baseline, err) != 0)
		return -1;
	if (parse_series(cfg, r, err) != 0)
		return -1;
	if (r->pids != NULL && parse_pids(cfg, r->pids, err) != 0)
		return -1;
	if (r->descendants != NULL && parse_descendants(cfg, r->descendants, err) != 0)
		return -1;
	if (config_check_path("--output", r->output, true, err) != 0 ||
	    config_check_path("--csv", r->csv, true, err) != 0 ||
	    config_check_path("--json", r->json, true, err) != 0 ||
	    config_check_path("--timeline", r->timeline, true, err) != 0 ||
	    config_check_path("--nvml-lib", r->nvml_lib, false, err) != 0 ||
	    config_check_separator(r->field_sep, err) != 0)
		return -1;
	if (config_check_path("--plot", r->plot, false, err) != 0 || (r->plot != NULL &&
	    strcmp(r->plot, "-") == 0)) {
		errbuf_set(err, "--plot needs a file name");
		return -1;
	}
	if (r->plot != NULL && r->timeline != NULL && strcmp(r->timeline, "-") == 0) {
		errbuf_set(err, "--plot draws the timeline from a file: give --timeline a file name");
		return -1;
	}
	if (r->devices != NULL && parse_devices(&cfg->devsel, r->devices, err) != 0)
		return -1;
	if (parse_lock_opts(cfg, r, err) != 0 || parse_gate_opts(cfg, r, err) != 0)
		return -1;
	cfg->out.output = r->output;
	cfg->out.field_sep = r->field_sep;
	cfg->out.csv_path = r->csv;
	cfg->out.json_path = r->json;
	cfg->out.timeline_path = r->timeline;
	cfg->out.plot_path = r->plot;
	resolve_sources(cfg, r->nvml_lib);
	if (parse_tracker(cfg, r->tracker, err) != 0)
		return -1;
	cfg->out.is_quiet = r->is_quiet != 0;
	if (r->is_list_devices)
		cfg->action = ACTION_LIST_DEVICES;
	/* --list-devices writes the list, or its JSON: a run's outputs would be lost without a word. */
	if (r->is_list_devices && (r->output != NULL || r->csv != NULL || r->timeline != NULL ||
	    r->plot != NULL || r->markdown != NULL || r->junit != NULL || r->metrics != NULL)) {
		errbuf_set(err, "--list-devices writes its list to standard output, or as --json: "
		    "-o, --csv, --timeline, --plot, --markdown, --junit and --openmetrics are a run's");
		return -1;
	}
	if (r->require != NULL && (!r->is_list_devices ||
	    config_parse_require(&cfg->need, r->require, err) != 0)) {
		if (!r->is_list_devices)
			errbuf_set(err, "--require needs --list-devices");
		return -1;
	}
	return config_ci_outputs(&cfg->out, r->markdown, r->junit, r->metrics, r->csv_format,
	    getenv("GITHUB_STEP_SUMMARY"), getenv("GITHUB_ACTIONS"), err);
}

/* Take the workload's argv from what popt left over. */
static int
take_command(struct config *cfg, struct parser *ps, struct errbuf *err)
{
	const char	**rest = poptGetArgs(ps->ctx);
	int		  n = 0, i;

	while (rest != NULL && rest[n] != NULL)
		n++;
	/* A command or -p with --list-devices would be neither run nor said to be left out. */
	if (cfg->action == ACTION_LIST_DEVICES && (n > 0 || cfg->npids > 0)) {
		errbuf_set(err, "--list-devices runs nothing: give it no command and no --pid");
		return -1;
	}
	if (n > 0 && cfg->npids > 0) {
		errbuf_set(err, "give a command or --pid, not both");
		return -1;
	}
	if (cfg->npids > 0 && (cfg->repeat > 1 || cfg->warmup > 0)) {
		errbuf_set(err, "--repeat and --warmup need a command, not --pid");
		return -1;
	}
	if (n == 0 && cfg->npids == 0 && cfg->action == ACTION_RUN) {
		errbuf_set(err, "no command given");
		return -1;
	}
	ps->argv = xcalloc((size_t)n + 1, sizeof *ps->argv);
	for (i = 0; i < n; i++)
		ps->argv[i] = xstrdup(rest[i]);
	cfg->argv = ps->argv;
	cfg->argc = n;
	return 0;
}

int
config_parse(struct config *cfg, int argc, const char **argv, struct errbuf *err)
{
	struct poptOption	 table[OPTIONS_N];
	struct parser		*ps;
	char			 msg[200];
	int			 rc;

	memset(cfg, 0, sizeof *cfg);
	cfg->interval_ms = CONFIG_INTERVAL_DEFAULT_MS;
	cfg->w_sm = ATTRIB_W_SM_DEFAULT;
	cfg->w_mem = ATTRIB_W_MEM_DEFAULT;
	cfg->repeat = 1;
	ps = xcalloc(1, sizeof *ps);
	cfg->priv = ps;
	options_table(table, &ps->raw);
	ps->ctx = poptGetContext(PROGNAME, argc, argv, table, POPT_CONTEXT_POSIXMEHARDER);
	while ((rc = poptGetNextOpt(ps->ctx)) > 0) {
		if (rc >= OPT_STRING)
			own_strings(ps);
		if (rc >= OPT_GATE && gate_parse(&cfg->gate, (enum gate_metric)(rc - OPT_GATE),
		    ps->raw.gate[rc - OPT_GATE], err) != 0)
			return -1;
		if (rc >= OPT_STRING)
			continue;
		cfg->action = ACTION_HELP;
		cfg->text = options_help(table, rc);
		return 0;
	}
	if (rc < -1) {
		errbuf_set(err, "%s", help_popt_error(ps->ctx, rc, msg, sizeof msg));
		return -1;
	}
	if (apply_raw(cfg, &ps->raw, err) != 0 || expand_paths(cfg, ps, err) != 0)
		return -1;
	return take_command(cfg, ps, err);
}

void
config_free(struct config *cfg)
{
	struct parser	*ps = cfg->priv;
	int		 i;

	if (ps != NULL) {
		for (i = 0; ps->argv != NULL && ps->argv[i] != NULL; i++)
			free(ps->argv[i]);
		free(ps->argv);
		for (i = 0; i < (int)ps->nowned; i++)
			free(ps->owned[i]);
		free(ps->owned);
		poptFreeContext(ps->ctx);
		free(ps);
	}
	devsel_free(&cfg->devsel);
	free(cfg->pids);
	free(cfg->text);
	memset(cfg, 0, sizeof *cfg);
}
