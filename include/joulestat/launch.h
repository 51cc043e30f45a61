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
};

/*
 * Fork a corked child that will exec argv (searched in PATH).  The child
 * restores child_mask as its signal mask and SIGPIPE to pipe_action before
 * exec.  Returns 0, or -1 with a cause in err (fork or pipe failed).
 */
int	launch_prepare(struct child *c, char *const argv[], const sigset_t *child_mask,
	    const struct sigaction *pipe_action, struct errbuf *err);

/*
 * Release the child and wait until it has exec'd or failed to.  Returns 0
 * when exec succeeded, or -1 with c->exec_errno set; the child then exits
 * by itself and must still be reaped.
 */
int	launch_start(struct child *c);

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
