/*
 * The pids given out between two refreshes of the /proc tracker
 * (proctree.c).  On a machine where other programs start processes, the
 * newest pid changes at nearly every tick, and walking every member's
 * children files each time costs several microseconds a process.  A new
 * process or thread of the tree has a member, or a root (joulestat, the
 * subreaper every orphan of the tree goes to), as its parent: a new
 * thread's stat names its process's parent, and a process whose parent
 * ended has been given to a subreaper.  Looking at each new pid's parent
 * costs one read of its stat.
 */
#include "joulestat/newpids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "joulestat/procfs.h"
#include "joulestat/util.h"

pid_t
newpids_newest(int proc_dirfd, int *fd, size_t *nfds, size_t maxfds)
{
	char	text[128];
	pid_t	pid;
	ssize_t	n;
	int	f;

	/* Opened once, and kept while the descriptor budget allows. */
	if ((f = *fd) < 0 && (f = openat(proc_dirfd, "loadavg", O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = pread_text(f, text, sizeof text);
	if (*fd < 0 && *nfds < maxfds) {
		*fd = f;
		(*nfds)++;
	} else if (*fd < 0)
		close(f);
	return n < 0 || procfs_parse_last_pid(text, &pid) != 0 ? 0 : pid;
}

bool
newpids_outside(int proc_dirfd, pid_t from, pid_t to, size_t budget,
    bool (*is_tree)(pid_t ppid, void *arg), void *arg)
{
	struct proc_stat	st;
	char			path[32], text[4096];
	ssize_t			n;
	pid_t			pid;

	if (to <= from || (size_t)(to - from) > budget)
		return false;
	for (pid = from + 1; pid <= to; pid++) {
		snprintf(path, sizeof path, "%d/stat", (int)pid);
		if ((n = read_file(proc_dirfd, path, text, sizeof text)) == -ENOENT || n == -ESRCH)
			continue;	/* ended and reaped: nothing of it is left to find */
		if (n < 0 || procfs_parse_stat(text, &st) != 0 || is_tree(st.ppid, arg))
			return false;
	}
	return true;
}
