/*
 * js-work's commands that build process trees (js-work.c has the rest):
 * a tree of sleepers, a double-forked daemon, a child that ends before
 * its parent, a pid given out twice, and many short children at once.
 * Code that runs in a forked child calls only async-signal-safe functions
 * and leaves with _exit().
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "js-work.h"

#define DAEMON_SPIN_NS	 (100 * NS_PER_MS)	/* CPU the daemon burns */
#define DAEMON_LINGER_NS (150 * NS_PER_MS)	/* the middle process's life */
#define REUSE_LIFE_NS	 (150 * NS_PER_MS)	/* each incarnation's life */
#define REUSE_ATTEMPTS	 20
#define SHORT_CHILD_TAIL_NS (100 * NS_PER_MS)	/* parent's sleep after reaping */
#define FORKMANY_INFLIGHT 64

static const char ns_last_pid_path[] = "/proc/sys/kernel/ns_last_pid";

/*
 * One node of "tree": fork width children that are trees of depth - 1,
 * sleep, then wait for them.  All nodes sleep at the same time, so the
 * whole tree is alive at once for most of ns.
 */
static bool
tree_node(long depth, long width, int64_t ns)
{
	pid_t	 pid;

	for (long i = 0; depth > 0 && i < width; i++) {
		pid = fork();
		if (pid == -1)
			child_die("tree: fork failed");
		if (pid == 0)
			_exit(tree_node(depth - 1, width, ns) ? 0 : EXIT_USAGE);
	}
	sleep_ns(ns);
	return reap_all();
}

int
cmd_tree(const struct ctx *ctx, int argc, char **argv)
{
	long	 depth = long_arg(argv[0], argv[1], 0, 8);
	long	 width = long_arg(argv[0], argv[2], 1, 1024);
	int64_t	 ns = argc > 3 ? dur_arg(argv[0], argv[3]) : 200 * NS_PER_MS;

	ready(ctx);
	return tree_node(depth, width, ns) ? 0 : EXIT_USAGE;
}

/*
 * The daemon (grandchild): a new session, /dev/null for stdio, some CPU,
 * then its pid on the pipe ("ready"), then life.  The pipe's write end
 * stays open until it exits, so the main process sees EOF once it is
 * exiting.
 */
static void
daemon_main(int wfd, const char *pidfile, int64_t life_ns)
{
	pid_t	 me = getpid();
	int	 fd;

	if (setsid() == -1)
		child_die("daemonize: setsid failed");
	fd = open("/dev/null", O_RDWR);
	if (fd == -1)
		child_die("daemonize: cannot open /dev/null");
	spin_ns(DAEMON_SPIN_NS);
	if (pidfile != NULL && write_pidfile(pidfile, me) == -1)
		child_die("daemonize: cannot write the pid file");
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
	if (write(wfd, &me, sizeof(me)) != (ssize_t)sizeof(me))
		_exit(EXIT_USAGE);
	sleep_ns(life_ns);
	_exit(0);
}

/*
 * The middle process of the double fork: start the daemon, linger a moment
 * so that a sampler can see this process too, and exit.
 */
static void
daemon_middle(int rfd, int wfd, const char *pidfile, int64_t life_ns)
{
	pid_t	 pid;

	close(rfd);
	pid = fork();
	if (pid == -1)
		child_die("daemonize: fork failed");
	if (pid == 0)
		daemon_main(wfd, pidfile, life_ns);
	close(wfd);
	sleep_ns(DAEMON_LINGER_NS);
	_exit(0);
}

static ssize_t
read_retry(int fd, void *buf, size_t len)
{
	ssize_t	 n;

	do
		n = read(fd, buf, len);
	while (n == -1 && errno == EINTR);
	return n;
}

/* The state letter of /proc/PID/stat ('R', 'S', 'Z', ...), or 0 if gone. */
static char
proc_state(pid_t pid)
{
	char	 path[64], buf[512], *p;
	ssize_t	 n;
	int	 fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read_retry(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 0;
	return p[2];
}

/*
 * EOF on the pipe says the daemon is exiting; it has ended once it is a
 * zombie or gone (reaped by whoever is its parent now).  Bounded, in case
 * its pid is recycled at once.
 */
static void
daemon_wait_end(int rfd, pid_t dpid)
{
	char	 c, st;

	while (read_retry(rfd, &c, 1) > 0)
		continue;
	for (int i = 0; i < 10000; i++) {
		st = proc_state(dpid);
		if (st == 0 || st == 'Z' || st == 'X')
			return;
		sleep_ns(NS_PER_MS);
	}
}

/*
 * daemonize [-d] [-f FILE] [DUR]: classic double fork.  The daemon lives
 * DUR (default 300ms) after it is ready.  The main process reaps the middle
 * one, waits until the daemon is ready and then, unless -d (detach) was
 * given, until it has ended (a zombie or gone).  With -d the daemon
 * outlives the main process.  -f FILE: the daemon writes its own pid there
 * before it is ready.
 */
int
cmd_daemonize(const struct ctx *ctx, int argc, char **argv)
{
	const char	*pidfile = NULL;
	bool		 is_detach = false;
	int64_t		 life_ns = 300 * NS_PER_MS;
	int		 fds[2], i, st;
	pid_t		 pid, dpid;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
		if (strcmp(argv[i], "-d") == 0)
			is_detach = true;
		else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc)
			pidfile = argv[++i];
		else
			die_usage(argv[0], "invalid option", argv[i]);
	}
	if (i < argc)
		life_ns = dur_arg(argv[0], argv[i++]);
	if (i < argc)
		die_usage(argv[0], "unexpected argument", argv[i]);

	if (pipe2(fds, O_CLOEXEC) == -1)
		die_errno(argv[0], "pipe");
	pid = fork();
	if (pid == -1)
		die_errno(argv[0], "fork");
	if (pid == 0)
		daemon_middle(fds[0], fds[1], pidfile, life_ns);
	close(fds[1]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		continue;
	if (read_retry(fds[0], &dpid, sizeof(dpid)) != (ssize_t)sizeof(dpid)) {
		fprintf(stderr, "js-work: daemonize: the daemon died before it was ready\n");
		return EXIT_USAGE;
	}
	ready(ctx);
	if (!is_detach)
		daemon_wait_end(fds[0], dpid);
	return 0;
}

/*
 * short-child MS: a child spins MS ms (a bare number is milliseconds here)
 * of CPU and exits; the parent reaps it, sleeps a moment and exits.  The
 * whole run can fit between two samples, but the rusage totals include it.
 */
int
cmd_short_child(const struct ctx *ctx, int argc, char **argv)
{
	int64_t	 ns = parse_dur_unit(argv[1], NS_PER_MS);
	pid_t	 pid;

	(void)argc;
	if (ns < 0)
		die_usage(argv[0], "invalid duration", argv[1]);
	ready(ctx);
	pid = fork();
	if (pid == -1)
		die_errno(argv[0], "fork");
	if (pid == 0) {
		spin_ns(ns);
		_exit(0);
	}
	if (!reap_all())
		return EXIT_USAGE;
	sleep_ns(SHORT_CHILD_TAIL_NS);
	return 0;
}

static pid_t
fork_sleeper(int64_t ns)
{
	pid_t	 pid = fork();

	if (pid == 0) {
		sleep_ns(ns);
		_exit(0);
	}
	return pid;
}

static void
reap_one(pid_t pid)
{
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		continue;
}

/*
 * Ask the kernel for the pid after "last".  0 on success, -1 when the
 * file cannot be written at all (no permission, no such file).
 */
static int
set_ns_last_pid(pid_t last)
{
	char	 num[24];
	int	 fd = open(ns_last_pid_path, O_WRONLY | O_CLOEXEC);
	ssize_t	 n;

	if (fd == -1)
		return -1;
	safe_utoa((uintmax_t)last, num);
	n = write(fd, num, strlen(num));
	close(fd);
	return n == (ssize_t)strlen(num) ? 0 : -1;
}

/*
 * reuse-pid: child A lives a moment and is reaped; then ns_last_pid is set
 * so that the next fork gets A's pid again, and B lives a moment too.
 * Another process on the machine can win the race for that pid, so try a
 * few times.  Prints "reused PID N children C" (C: how many children this
 * process forked in all, failed attempts included), or exits 77 when the
 * kernel does not let us choose pids.
 */
int
cmd_reuse_pid(const struct ctx *ctx, int argc, char **argv)
{
	int	 nchild = 0;
	pid_t	 a, b;

	(void)argc;
	ready(ctx);
	for (int i = 0; i < REUSE_ATTEMPTS; i++) {
		if ((a = fork_sleeper(REUSE_LIFE_NS)) == -1)
			die_errno(argv[0], "fork");
		nchild++;
		reap_one(a);
		if (set_ns_last_pid(a - 1) == -1) {
			printf("cannot reuse a pid: %s: %s\n", ns_last_pid_path,
			    strerror(errno));
			return EXIT_SKIP;
		}
		if ((b = fork_sleeper(REUSE_LIFE_NS)) == -1)
			die_errno(argv[0], "fork");
		nchild++;
		reap_one(b);
		if (a == b) {
			printf("reused PID %ld children %d\n", (long)a, nchild);
			return 0;
		}
	}
	printf("cannot reuse a pid: lost the race %d times\n", REUSE_ATTEMPTS);
	return EXIT_SKIP;
}

/* forkmany N: N children that exit at once, at most 64 unreaped at a time. */
int
cmd_forkmany(const struct ctx *ctx, int argc, char **argv)
{
	long	 n = long_arg(argv[0], argv[1], 0, 1000000);
	long	 inflight = 0;
	pid_t	 pid;

	(void)argc;
	ready(ctx);
	for (long i = 0; i < n; i++) {
		if (inflight == FORKMANY_INFLIGHT) {
			while (wait(NULL) == -1 && errno == EINTR)
				continue;
			inflight--;
		}
		pid = fork();
		if (pid == -1)
			die_errno(argv[0], "fork");
		if (pid == 0)
			_exit(0);
		inflight++;
	}
	return reap_all() ? 0 : EXIT_USAGE;
}
