/*
 * --exclusive: one measuring joulestat per device at a time, like Nsight
 * Compute's lock file.  Each device has a lock file in temp_dir(), named
 * by its id (the GPU UUID), held with flock(2) for the whole series; the
 * kernel drops it when the process ends, however it ends.
 */
#ifndef JOULESTAT_EXCLUSIVE_H
#define JOULESTAT_EXCLUSIVE_H

#include <stddef.h>

#include "joulestat/util.h"

struct exclusive {
	int	*fds;
	size_t	 n;
};

/*
 * Lock every id of ids[0..n), in sorted order so that two runs wanting
 * overlapping sets cannot deadlock.  When one is held, say once on
 * stderr who holds it and wait, up to wait_s seconds (negative: no
 * limit), returning early when a signal other than SIGCHLD arrives on
 * sigfd.  Returns 0; -1 with a cause in err (timeout, unusable
 * directory); or the number (> 0) of the signal that ended the wait,
 * read from sigfd.
 */
int	exclusive_take(struct exclusive *ex, const char *const *ids, size_t n, double wait_s,
	    int sigfd, struct errbuf *err);

/* Unlock and close everything exclusive_take locked. */
void	exclusive_release(struct exclusive *ex);

/* The lock file name for a device id: "joulestat-GPU-1234....lock". */
void	exclusive_name(const char *id, char *buf, size_t size);

#endif
