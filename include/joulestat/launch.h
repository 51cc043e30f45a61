/*
 * Starting the workload (HACKING.md, "The pipeline").  The child is forked
 * "corked": it waits on a pipe until the parent has taken its first
 * reading, then execs.  An exec failure travels back as errno on a
 * close-on-exec pipe, so 126 and 127 are told apart exactly.
 */
#ifndef JOULESTAT_LAUNCH_H
#define JOULESTAT_LAUNCH_H

#include <sys/types.h>
#include <sys/resource.h>

#include <signal.h>
#include <stdbool.h>

#include "joulestat/util.h"

struct child {
	pid_t		pid;
	int		cork_fd;	/* write end; one byte releases the child */
	int		errno_fd;	/* read end; EOF = exec succeeded */
	int		exec_errno;	/* nonzero when exec failed */
	bool		has_exited;
	int		wstatus;	/* from wait4 once has_exited */
	struct rusage	ru;		/* of the child and its waited-for descendants */
	bool		is_in_cgroup;	/* born in the cgroup asked for */
	bool		has_pidfd;	/* pidfd is the child's, from clone3 */
	int		pidfd;
};

/*
 * Fork a corked child that will exec argv (searched in PATH).  The child
 * restores child_mask as its signal mask and SIGPIPE to pipe_action before
 * exec, and closes the fds 0-2 whose bits closed_std sets.  With
 * cgroup_fd (a cgroup v2 directory, else -1) the child is born in that
 * cgroup where the kernel can (clone3 with CLONE_INTO_CGROUP, 5.7), which
 * costs far less than moving it there; c->is_in_cgroup says whether it
 * was, and then c->pidfd is its pidfd (has_pidfd).  Returns 0, or -1 with
 * a cause in err (fork or pipe failed).
 */
int	launch_prepare(struct child *c, char *const argv[], const sigset_t *child_mask,
	    const struct sigaction *pipe_action, unsigned closed_std, int cgroup_fd,
	    struct errbuf *err);

/*
 * Release the child and wait until it has exec'd or failed to.  Returns 0
 * when exec succeeded, or -1 with c->exec_errno set; the child then exits
 * by itself and must still be reaped.
 */
int	launch_start(struct child *c);

/*
 * Why exec of argv0 failed with errno e, for a message: ENOENT for a file
 * that is there means its "#!" interpreter (or ELF loader) is missing.
 * Writes the cause into buf and returns buf.
 */
const char *launch_exec_cause(const char *argv0, int e, char *buf, size_t size);

/*
 * The descriptors open now, sorted, in a new array (none without /proc):
 * taken when joulestat starts, they are those it was given, which the
 * workload gets too.
 */
void	launch_fds_open(int **fds, size_t *n);

/*
 * Mark close-on-exec every descriptor above 2 that is not in inherited
 * (sorted): a library's, such as the NVML library's device files, which it
 * opens without O_CLOEXEC.  Called before each fork of the workload; with
 * close_range(2) where the kernel has CLOSE_RANGE_CLOEXEC, else by reading
 * /proc/self/fd.
 */
void	launch_seal_fds(const int *inherited, size_t n);

/* Close the child's pidfd, if launch_prepare got one and nobody took it. */
void	launch_drop_pidfd(struct child *c);

/* Release a child that must not run: it exits without exec.  Reaps it. */
void	launch_cancel(struct child *c);

/* Make the calling process a child subreaper.  0 or -errno. */
int	launch_become_subreaper(void);

/*
 * Reap every exited child without blocking.  Records the status and
 * rusage of c when it is among them; every other one is shown to
 * on_other (when not NULL) with its rusage.  Returns the number reaped.
 */
int	launch_reap(struct child *c, void (*on_other)(void *arg, pid_t pid,
	    const struct rusage *ru), void *arg);

#endif
