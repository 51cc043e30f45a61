/*
 * --list-devices --json (listout.h): the devices the backends found, each
 * with the identity keys of the run report's device objects (index, id,
 * name, bus_id, versions, architecture, backend, backend_index,
 * power_kind), what it measures and how, its notes, and the runtime mask
 * that hides it from a workload (null when none does).
 */
#include "joulestat/listout.h"

#include <errno.h>
#include <jansson.h>

#include "joulestat/fmt.h"
#include "joulestat/jsonout.h"
#include "joulestat/util.h"

static json_t *
device_object(const struct device *d, const char *backend, const struct devsel *sel)
{
	json_t	*o = json_object();
	int	 rc;

	rc = jsonout_put_identity(o, d, backend);
	rc |= fmt_json_put(o, "measures", fmt_json_text(d->how));
	rc |= fmt_json_put(o, "notes", jsonout_notes(d->notes, d->nnotes));
	rc |= fmt_json_put(o, "hidden_by", fmt_json_text(devsel_hidden_by(sel, d->number)));
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
