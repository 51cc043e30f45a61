/*
 * The one table of device backends, in probe order.  Adding a vendor is
 * adding its files in src/sources/ and one line here; nothing registers
 * itself (HACKING.md, "Adding a vendor, a figure or an option").  What the
 * backends share is in backend.c.
 */
#include "joulestat/source.h"

#include <stddef.h>

extern const struct source_ops nvml_ops, drm_ops, rapl_ops;

const struct source_ops *const sources[] = {
	&nvml_ops,
	&drm_ops,
	&rapl_ops,
	NULL
};
