/*
 * Starting and reaping the workload (HACKING.md, "The pipeline").
 * The child is forked corked: it blocks on a pipe until the parent has
 * taken its first reading, so measurement starts before exec, and a
 * failed set-up can cancel a child that never ran.  The exec errno comes
 * back on a close-on-exec pipe (EOF means exec succeeded).  Between fork
 * and exec the child calls only async-signal-safe functions.
 */
#include "joulestat/launch.h"

#include <linux/sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/exitcode.h"
#include "joulestat/util.h"

/* Child side: wait for the cork, then exec.  Never returns. */
static void __attribute__((noreturn))
child_exec(int cork_rd, int errno_wr, char *const argv[], const sigset_t *mask,
    const struct sigaction *pipe_action, unsigned closed_std)
{
	char	go;
	ssize_t	r;
	int	e, fd;

	do
		r = read(cork_rd, &go, 1);
	while (r == -1 && errno == EINTR);
	if (r != 1)
		_exit(EXIT_TOOL);	/* cancelled: the parent closed the cork */
	sigaction(SIGPIPE, pipe_action, NULL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	/* What joulestat was started without, the workload is too (main's hold_std_fds). */
	for (fd = 0; fd <= 2; fd++) {
		if (closed_std & (1u << fd))
			close(fd);
	}
	execvp(argv[0], argv);
	e = errno;
	(void)write_all(errno_wr, &e, sizeof e);
	_exit(EXIT_NOT_FOUND);
}

/*
 * fork(), or clone3 into the cgroup (clone3(2)): the child starts there, so
 * nothing has to be moved; moving a process takes the kernel's lock on
 * every thread group's migration and costs milliseconds.  The child of a
 * raw clone3 runs only async-signal-safe code, as after fork.  Where
 * clone3 or CLONE_INTO_CGROUP is missing, a plain fork.
 */
static pid_t
fork_into(int cgroup_fd, struct child *c)
{
	int			pidfd = -1;
	struct clone_args	args = {
		.flags = CLONE_INTO_CGROUP | CLONE_PIDFD,
		.pidfd = (uint64_t)(uintptr_t)&pidfd,
		.exit_signal = SIGCHLD,
		.cgroup = (uint64_t)cgroup_fd,
	};
	long			pid;

	if (cgroup_fd >= 0) {
		pid = syscall(SYS_clone3, &args, sizeof args);
		if (pid > 0) {
			c->is_in_cgroup = true;
			c->pidfd = pidfd;
			c->has_pidfd = true;
		}
		if (pid >= 0)
			return (pid_t)pid;
	}
	return fork();
}

int
launch_prepare(struct child *c, char *const argv[], const sigset_t *child_mask,
    const struct sigaction *pipe_action, unsigned closed_std, int cgroup_fd,
    struct errbuf *err)
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
	if ((c->pid = fork_into(cgroup_fd, c)) == -1) {
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
		child_exec(cork[0], errp[1], argv, child_mask, pipe_action, closed_std);
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

/* The file execvp would run for argv0 (execvp(3): PATH, else confstr's), in buf; false if none. */
static bool
find_program(const char *argv0, char *buf, size_t size)
{
	const char	*path = getenv("PATH"), *p, *end;
	char		 def[256];
	int		 n;

	if (argv0[0] == '\0')
		return false;	/* "dir/" would be the directory */
	if (strchr(argv0, '/') != NULL) {
		n = snprintf(buf, size, "%s", argv0);
		return n >= 0 && (size_t)n < size && access(buf, F_OK) == 0;
	}
	if (path == NULL) {
		if (confstr(_CS_PATH, def, sizeof def) == 0 || strlen(def) >= sizeof def - 1)
			return false;
		path = def;
	}
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		n = snprintf(buf, size, "%.*s%s%s", (int)(end - p), p, end == p ? "" : "/",
		    argv0);
		if (n >= 0 && (size_t)n < size && access(buf, X_OK) == 0)
			return true;
		if (*end == '\0')
			return false;
	}
}

const char *
launch_exec_cause(const char *argv0, int e, char *buf, size_t size)
{
	char	file[4096], head[256];
	ssize_t	n;
	size_t	len;
	int	fd;

	snprintf(buf, size, "%s", strerror(e));
	if (e != ENOENT || !find_program(argv0, file, sizeof file))
		return buf;
	/* The program is there: what is missing is what runs it. */
	snprintf(buf, size, "interpreter not found");
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) == -1)
		return buf;
	n = read(fd, head, sizeof head - 1);
	close(fd);
	if (n < 2 || head[0] != '#' || head[1] != '!')
		return buf;
	head[n] = '\0';
	head[strcspn(head, "\n")] = '\0';
	len = strspn(head + 2, " \t");
	head[2 + len + strcspn(head + 2 + len, " \t")] = '\0';
	if (head[2 + len] != '\0')
		snprintf(buf, size, "interpreter '%s' not found", VIS(head + 2 + len));
	return buf;
}

static int
cmp_int(const void *a, const void *b)
{
	int	x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* Call fn for each open descriptor but the directory's own; -1 without /proc. */
static int
each_fd(void (*fn)(int, void *), void *arg)
{
	struct dirent	*e;
	DIR		*d;
	uint64_t	 v;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (parse_u64_range(e->d_name, 0, INT32_MAX, &v) == 0 && (int)v != dirfd(d))
			fn((int)v, arg);
	}
	closedir(d);
	return 0;
}

struct fd_list {
	int	*v;
	size_t	 n;
};

static void
add_fd(int fd, void *arg)
{
	struct fd_list	*l = arg;

	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	l->v[l->n++] = fd;
}

/*
 * When the open descriptors are 0 to n-1, in *n; else false.  Linux 6.2
 * and later give the number of a process's open descriptors as the size
 * of /proc/PID/fd (proc(5)): one stat and n fcntl calls instead of reading
 * the directory, in the common case where nothing but stdio was given.
 */
static bool
fds_are_dense(size_t *n)
{
	struct stat	st;
	size_t		fd;

	if (stat("/proc/self/fd", &st) != 0 || st.st_size <= 0 || st.st_size > 16)
		return false;
	for (fd = 0; fd < (size_t)st.st_size; fd++) {
		if (fcntl((int)fd, F_GETFD) == -1)
			return false;
	}
	*n = (size_t)st.st_size;
	return true;
}

void
launch_fds_open(int **fds, size_t *n)
{
	struct fd_list	l = { NULL, 0 };
	size_t		k, dense;

	if (fds_are_dense(&dense)) {
		l.v = xreallocarray(NULL, dense, sizeof *l.v);
		for (k = 0; k < dense; k++)
			l.v[k] = (int)k;
		l.n = dense;
	} else {
		(void)each_fd(add_fd, &l);
		if (l.n > 1)
			qsort(l.v, l.n, sizeof *l.v, cmp_int);
	}
	*fds = l.v;
	*n = l.n;
}

static void
seal_fd(int fd, void *arg)
{
	const struct fd_list	*l = arg;
	int			 fl;

	if (fd <= STDERR_FILENO || bsearch(&fd, l->v, l->n, sizeof *l->v, cmp_int) != NULL)
		return;
	if ((fl = fcntl(fd, F_GETFD)) != -1 && (fl & FD_CLOEXEC) == 0)
		(void)fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

/* At most this many inherited descriptors are stepped over with close_range. */
#define SEAL_MAX_RANGES	64

/*
 * close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11) over every gap
 * between the inherited descriptors: no directory to read.  -1 where it
 * is missing (or under a checker that does not know it).
 */
static int
seal_ranges(const int *inherited, size_t n)
{
	unsigned	lo = STDERR_FILENO + 1;
	size_t		i;

	if (n > SEAL_MAX_RANGES)
		return -1;
	for (i = 0; i < n; i++) {
		if (inherited[i] < (int)lo)
			continue;
		if ((unsigned)inherited[i] > lo &&
		    close_range(lo, (unsigned)inherited[i] - 1, CLOSE_RANGE_CLOEXEC) != 0)
			return -1;
		lo = (unsigned)inherited[i] + 1;
	}
	return close_range(lo, ~0U, CLOSE_RANGE_CLOEXEC);
}

void
launch_seal_fds(const int *inherited, size_t n)
{
	struct fd_list	l = { (int *)(uintptr_t)inherited, n };

	if (seal_ranges(inherited, n) != 0)
		(void)each_fd(seal_fd, &l);
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
	launch_drop_pidfd(c);
	do
		r = wait4(c->pid, &c->wstatus, 0, &c->ru);
	while (r == -1 && errno == EINTR);
	c->has_exited = true;
}

void
launch_drop_pidfd(struct child *c)
{
	if (c->has_pidfd)
		close(c->pidfd);
	c->has_pidfd = false;
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
