/*
 * joulestat --list-devices: what can be measured here, and how.
 */
#include "joulestat/commands.h"

#include <stdio.h>

#include "joulestat/config.h"
#include "joulestat/run.h"
#include "joulestat/setup.h"
#include "joulestat/source.h"

static void
list_one(const struct device *d, size_t i, const char *backend)
{
	unsigned	k;

	printf("%zu: %s  %s\n", i, d->name, d->id);
	printf("   backend %s (its index %u), bus %s%s%s\n", backend, d->index,
	    d->bus_id[0] != '\0' ? d->bus_id : "none", d->version[0] != '\0' ? ", " : "",
	    d->version);
	printf("   measures: %s\n", d->how[0] != '\0' ? d->how : "nothing");
	for (k = 0; k < d->nnotes; k++)
		printf("   note: %s\n", d->notes[k]);
}

int
cmd_list_devices(const struct config *cfg)
{
	struct run	run = { .interval_ms = cfg->interval_ms };
	size_t		i, k, n = 0;

	setup_probe(&run, &cfg->sources);
	for (i = 0; i < run.nbackends; i++) {
		for (k = 0; k < run.backends[i].ndev; k++)
			list_one(&run.backends[i].devs[k], n++, run.backends[i].ops->name);
	}
	if (n == 0)
		printf("no devices found\n");
	for (i = 0; i < run.nnotes; i++)
		printf("%s\n", run.notes[i]);
	setup_close(&run);
	return 0;
}
