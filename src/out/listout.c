/*
 * --list-devices --json (listout.h): the devices the backends found, each
 * with the identity keys of the run report's device objects (index, id,
 * name, bus_id, versions, backend, backend_index, power_kind), what it
 * measures and how, its notes, and the runtime mask that hides it from a
 * workload (null when none does).
 */
#include "joulestat/listout.h"

#include <errno.h>
#include <jansson.h>

#include "joulestat/fmt.h"
#include "joulestat/schema.h"
#include "joulestat/util.h"

static json_t *
device_object(const struct device *d, const char *backend, const struct devsel *sel)
{
	json_t		*o = json_object(), *notes = json_array();
	const char	*mask = devsel_hidden_by(sel, d->number);
	unsigned	 k;
	int		 rc;

	rc = fmt_json_put(o, "index", json_integer(d->number));
	rc |= fmt_json_put(o, "id", fmt_json_text(d->id));
	rc |= fmt_json_put(o, "name", fmt_json_text(d->name));
	rc |= fmt_json_put(o, "bus_id", fmt_json_text(d->bus_id));
	rc |= fmt_json_put(o, "versions", fmt_json_text(d->version));
	rc |= fmt_json_put(o, "architecture", fmt_json_text(d->arch));
	rc |= fmt_json_put(o, "backend", fmt_json_text(backend));
	rc |= fmt_json_put(o, "backend_index", json_integer(d->index));
	rc |= fmt_json_put(o, "power_kind", fmt_json_text(schema_word_kind(d->power_kind)));
	rc |= fmt_json_put(o, "measures", fmt_json_text(d->how));
	for (k = 0; k < d->nnotes && k < DEVICE_MAX_NOTES; k++)
		rc |= json_array_append_new(notes, fmt_json_text(d->notes[k])) == 0 ? 0 : -1;
	rc |= fmt_json_put(o, "notes", notes);
	rc |= fmt_json_put(o, "hidden_by", fmt_json_text(mask));
	if (rc != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
listout_json(FILE *f, const struct run *run, const struct devsel *sel)
{
	json_t	*root = json_object(), *devs = json_array(), *notes = json_array();
	size_t	 i, k;
	int	 rc;

	rc = fmt_json_put(root, "schema_version", json_integer(1));
	for (i = 0; i < run->nbackends; i++) {
		for (k = 0; k < run->backends[i].ndev; k++)
			rc |= json_array_append_new(devs, device_object(&run->backends[i].devs[k],
			    run->backends[i].ops->name, sel)) == 0 ? 0 : -1;
	}
	for (i = 0; i < run->nnotes; i++)
		rc |= json_array_append_new(notes, fmt_json_text(run->notes[i])) == 0 ? 0 : -1;
	rc |= fmt_json_put(root, "devices", devs);
	rc |= fmt_json_put(root, "notes", notes);
	if (rc != 0) {
		json_decref(root);
		return -ENOMEM;
	}
	rc = fmt_json_dump(f, root);
	json_decref(root);
	return rc;
}
