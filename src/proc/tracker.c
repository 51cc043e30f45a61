/*
 * The process-tree trackers' names (proctree.h): the words of --tracker,
 * JOULESTAT_TRACKER and the run's metadata.
 */
#include <string.h>

#include "joulestat/proctree.h"
#include "joulestat/util.h"

static const char *const tracker_names[] = {
	[TRACKER_AUTO] = "auto",
	[TRACKER_CGROUP] = "cgroup",
	[TRACKER_PROC] = "proc",
};

const char *
proctree_tracker_name(enum tracker t)
{
	return tracker_names[t];
}

int
proctree_tracker_parse(const char *s)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(tracker_names); i++) {
		if (strcmp(s, tracker_names[i]) == 0)
			return (int)i;
	}
	return -1;
}
