/*
 * joulestat --list-devices: what can be measured here, and how; with
 * --json FILE the same as JSON, and with --require whether the machine
 * offers what a CI job needs (exit status 2 when it does not).
 */
#include "joulestat/commands.h"

#include <stdio.h>
#include <string.h>

#include "joulestat/config.h"
#include "joulestat/devsel.h"
#include "joulestat/exitcode.h"
#include "joulestat/listout.h"
#include "joulestat/outputs.h"
#include "joulestat/run.h"
#include "joulestat/setup.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

static void
list_one(const struct device *d, const char *backend, const struct devsel *sel)
{
	const char	*mask = devsel_hidden_by(sel, d->number);
	unsigned	 k;

	printf("%u: %s  %s\n", d->number, d->name, d->id);
	printf("   backend %s (its index %u), bus %s%s%s\n", backend, d->index,
	    d->bus_id[0] != '\0' ? d->bus_id : "none", d->version[0] != '\0' ? ", " : "",
	    d->version);
	printf("   measures: %s\n", d->how[0] != '\0' ? d->how : "nothing");
	for (k = 0; k < d->nnotes; k++)
		printf("   note: %s\n", d->notes[k]);
	if (mask != NULL)
		printf("   hidden from the workload by %s: a run leaves it out unless -d "
		    "names it\n", mask);
}

/* Does device d, of backend, meet need? */
static bool
is_needed(const struct device_need *need, const struct device *d, const char *backend)
{
	switch (need->kind) {
	case NEED_GPU: return d->family != DEVSEL_F_NONE;
	case NEED_NVIDIA: return d->family == DEVSEL_F_CUDA;
	case NEED_AMD: return d->family == DEVSEL_F_ROCM;
	case NEED_INTEL: return d->family == DEVSEL_F_ZE;
	case NEED_RAPL: return strcmp(backend, "rapl") == 0;
	case NEED_NONE: case NEED_COUNT: break;
	}
	return true;
}

/* --require: 0 when the machine offers it, else EXIT_NOT_OFFERED with a line on stderr. */
static int
check_need(const struct config *cfg, const struct run *run)
{
	size_t	i, k, n = 0;

	if (cfg->need.kind == NEED_NONE)
		return 0;
	for (i = 0; i < run->nbackends; i++) {
		for (k = 0; k < run->backends[i].ndev; k++)
			n += is_needed(&cfg->need, &run->backends[i].devs[k],
			    run->backends[i].ops->name);
	}
	if (n >= cfg->need.n)
		return 0;
	if (cfg->need.kind == NEED_COUNT)
		warnmsg("--require %u: %zu device%s found", cfg->need.n, n, n == 1 ? "" : "s");
	else
		warnmsg("--require: no device of that kind found");
	return EXIT_NOT_OFFERED;
}

struct list_doc {
	const struct run	*run;
	const struct devsel	*sel;
};

static int
emit_list(FILE *f, const void *arg)
{
	const struct list_doc	*d = arg;

	return listout_json(f, d->run, d->sel);
}

/* --list-devices --json FILE ("-" for standard output).  0 or EXIT_TOOL. */
static int
write_json(const char *path, const struct run *run, const struct devsel *sel)
{
	const struct list_doc	d = { run, sel };

	return outputs_write_one(path, emit_list, &d) == 0 ? 0 : EXIT_TOOL;
}

/* The --json file is checked as a run's outputs are, before anything is probed. */
static int
check_json(const char *path)
{
	const struct output_paths	paths = { .is_quiet = true, .json_path = path };
	struct errbuf			err = { "" };

	if (outputs_check(&paths, &err) == 0)
		return 0;
	warnmsg("%s", err.msg);
	return EXIT_TOOL;
}

int
cmd_list_devices(const struct config *cfg)
{
	struct run	run = { .interval_ms = cfg->interval_ms };
	char		tracker[512];
	size_t		i, k, n = 0;
	int		status = 0;

	if (cfg->out.json_path != NULL && (status = check_json(cfg->out.json_path)) != 0)
		return status;
	/* Every device is listed; the masks only say which the workload would see. */
	cfg->sources.sel->is_listing = true;
	setup_probe(&run, &cfg->sources);
	if (cfg->out.json_path != NULL) {
		status = write_json(cfg->out.json_path, &run, cfg->sources.sel);
		if (status == 0)
			status = check_need(cfg, &run);
		setup_close(&run);
		return status;
	}
	for (i = 0; i < run.nbackends; i++) {
		for (k = 0; k < run.backends[i].ndev; k++, n++)
			list_one(&run.backends[i].devs[k], run.backends[i].ops->name,
			    cfg->sources.sel);
	}
	if (n == 0)
		printf("no devices found\n");
	for (i = 0; i < run.nnotes; i++)
		printf("%s\n", run.notes[i]);
	setup_describe_tracker(cfg->tracker, cfg->cgroup_root, tracker, sizeof tracker);
	printf("process tree: %s\n", tracker);
	status = check_need(cfg, &run);
	setup_close(&run);
	return status;
}
