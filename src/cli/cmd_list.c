/*
 * joulestat --list-devices: what can be measured here, and how.
 */
#include "joulestat/commands.h"

#include <stdio.h>

#include "joulestat/config.h"
#include "joulestat/devsel.h"
#include "joulestat/run.h"
#include "joulestat/setup.h"
#include "joulestat/source.h"

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

int
cmd_list_devices(const struct config *cfg)
{
	struct run	run = { .interval_ms = cfg->interval_ms };
	char		tracker[512];
	size_t		i, k, n = 0;

	/* Every device is listed; the masks only say which the workload would see. */
	cfg->sources.sel->is_listing = true;
	setup_probe(&run, &cfg->sources);
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
	setup_close(&run);
	return 0;
}
