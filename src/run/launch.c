/*
 * Starting and reaping the workload (HACKING.md, "The pipeline").
 * The child is forked corked: it blocks on a pipe until the parent has
 * taken its first reading, so measurement starts before exec, and a
 * failed set-up can cancel a child that never ran.  The exec errno comes
 * back on a close-on-exec pipe (EOF means exec succeeded).  Between fork
 * and exec the child calls only async-signal-safe functions.
 */
#include "joulestat/launch.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/exitcode.h"
#include "joulestat/util.h"

/* Child side: wait for the cork, then exec.  Never returns. */
static void __attribute__((noreturn))
child_exec(int cork_rd, int errno_wr, char *const argv[], const sigset_t *mask,
    const struct sigaction *pipe_action)
{
	char	go;
	ssize_t	r;
	int	e;

	do
		r = read(cork_rd, &go, 1);
	while (r == -1 && errno == EINTR);
	if (r != 1)
		_exit(EXIT_TOOL);	/* cancelled: the parent closed the cork */
	sigaction(SIGPIPE, pipe_action, NULL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execvp(argv[0], argv);
	e = errno;
	(void)write_all(errno_wr, &e, sizeof e);
	_exit(EXIT_NOT_FOUND);
}

int
launch_prepare(struct child *c, char *const argv[], const sigset_t *child_mask,
    const struct sigaction *pipe_action, struct errbuf *err)
{
	int	cork[2], errp[2];

	memset(c, 0, sizeof *c);
	c->cork_fd = c->errno_fd = -1;
	if (pipe2(cork, O_CLOEXEC) == -1) {
		errbuf_set(err, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(errp, O_CLOEXEC) == -1) {
		errbuf_set(err, "pipe: %s", strerror(errno));
		close(cork[0]);
		close(cork[1]);
		return -1;
	}
	if ((c->pid = fork()) == -1) {
		errbuf_set(err, "fork: %s", strerror(errno));
		close(cork[0]);
		close(cork[1]);
		close(errp[0]);
		close(errp[1]);
		return -1;
	}
	if (c->pid == 0) {
		close(cork[1]);
		close(errp[0]);
		child_exec(cork[0], errp[1], argv, child_mask, pipe_action);
	}
	close(cork[0]);
	close(errp[1]);
	c->cork_fd = cork[1];
	c->errno_fd = errp[0];
	return 0;
}

int
launch_start(struct child *c)
{
	ssize_t	r;
	int	e = 0;

	(void)write_all(c->cork_fd, "g", 1);
	close(c->cork_fd);
	c->cork_fd = -1;
	do
		r = read(c->errno_fd, &e, sizeof e);
	while (r == -1 && errno == EINTR);
	close(c->errno_fd);
	c->errno_fd = -1;
	if (r == (ssize_t)sizeof e) {
		c->exec_errno = e;
		return -1;
	}
	return 0;
}

void
launch_cancel(struct child *c)
{
	pid_t	r;

	if (c->cork_fd != -1)
		close(c->cork_fd);
	if (c->errno_fd != -1)
		close(c->errno_fd);
	c->cork_fd = c->errno_fd = -1;
	do
		r = wait4(c->pid, &c->wstatus, 0, &c->ru);
	while (r == -1 && errno == EINTR);
	c->has_exited = true;
}

int
launch_become_subreaper(void)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1)
		return -errno;
	return 0;
}

int
launch_reap(struct child *c, void (*on_other)(void *arg, pid_t pid, const struct rusage *ru),
    void *arg)
{
	struct rusage	ru;
	pid_t		pid;
	int		st, n = 0;

	for (;;) {
		do
			pid = wait4(-1, &st, WNOHANG, &ru);
		while (pid == -1 && errno == EINTR);
		if (pid <= 0)
			return n;
		n++;
		if (pid == c->pid) {
			c->has_exited = true;
			c->wstatus = st;
			c->ru = ru;
		} else if (on_other != NULL)
			on_other(arg, pid, &ru);
	}
}
