/*
 * What the kernel gave out since the tree's refresh before (src/proc/newpids.c):
 * the /proc tracker walks the tree's children files only when a new pid
 * can be the tree's.
 */
#ifndef JOULESTAT_NEWPIDS_H
#define JOULESTAT_NEWPIDS_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

/*
 * The newest pid given out in the proc root at proc_dirfd, from its
 * loadavg (procfs.h), or 0 when unknown.  *fd keeps the file open between
 * calls (-1 the first time; the caller closes it) when *nfds, the files
 * the caller keeps, is below maxfds, and counts it there.  The same at two
 * refreshes: no process or thread was created in between.
 */
pid_t	newpids_newest(int proc_dirfd, int *fd, size_t *nfds, size_t maxfds);

/*
 * True when none of the pids after "from", up to "to", can be the tree's:
 * each is gone (or a thread not to be found by its id), or its parent is
 * one is_tree says is not the tree's.  False when there are more than
 * budget of them (walking the tree is then cheaper than looking), when
 * "to" is not after "from" (the pids wrapped), or when one cannot be read.
 */
bool	newpids_outside(int proc_dirfd, pid_t from, pid_t to, size_t budget,
	    bool (*is_tree)(pid_t ppid, void *arg), void *arg);

#endif
