/*
 * The machine form of --list-devices (--list-devices --json FILE): every
 * device found, with what --list-devices prints, as JSON.
 */
#ifndef JOULESTAT_LISTOUT_H
#define JOULESTAT_LISTOUT_H

#include <stdio.h>

#include "joulestat/devsel.h"
#include "joulestat/run.h"

/*
 * Write {"schema_version": 1, "devices": [...], "notes": [...]} for the
 * backends run probed to f; the keys are in the man page (JSON).  0, or
 * -errno.
 */
int	listout_json(FILE *f, const struct run *run, const struct devsel *sel);

#endif
