/*
 * The one table of device backends, in probe order (STYLE §3).  Adding a
 * vendor is adding one file in src/sources/ and one line here; nothing
 * registers itself.  Also the one helper every backend shares.
 */
#include "joulestat/source.h"

#include <stddef.h>
#include <string.h>

#include "joulestat/util.h"

extern const struct source_ops nvml_ops, drm_ops, rapl_ops;

const struct source_ops *const sources[] = {
	&nvml_ops,
	&drm_ops,
	&rapl_ops,
	NULL
};

struct pid_usage *
pid_usage_add(struct pid_usage_set *set)
{
	struct pid_usage	*u;

	if (set->n == set->cap) {
		set->cap = set->cap == 0 ? 16 : set->cap * 2;
		set->v = xreallocarray(set->v, set->cap, sizeof *set->v);
	}
	u = &set->v[set->n++];
	memset(u, 0, sizeof *u);
	return u;
}
