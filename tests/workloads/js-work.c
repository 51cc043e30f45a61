/*
 * js-work: the one helper binary that the command-line tests run under
 * joulestat (like perf's -w workloads and libuv's spawn helpers).
 * Each subcommand is a small, predictable workload: spin on the CPU, sleep,
 * build a process tree, run a second thread, exit or die of a signal,
 * double-fork a daemon, reuse a pid, echo its arguments byte for byte.  It measures nothing itself.
 *
 *	js-work [-p PIDFILE] COMMAND [ARG...]
 *
 * -p writes the pid of js-work to PIDFILE (atomically, by rename) once the
 * command is ready: signal dispositions are in place and it is about to do
 * its work.  Tests poll for that file instead of sleeping.
 *
 * Durations are a decimal number with an "ms" or "s" suffix ("300ms",
 * "1.5s"); a bare number means seconds, like sleep(1).  Errors are one line
 * on stderr and exit status 2.  Code that runs in a forked child calls only
 * async-signal-safe functions and leaves with _exit().
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "js-work.h"

/* What "echo" writes; the tests compare the streams with these exactly. */
#define ECHO_STDOUT	"js-work echo: this line goes to stdout\n"
#define ECHO_STDERR	"js-work echo: this line goes to stderr\n"

struct cmd {
	const char	*name;
	const char	*usage;		/* arguments, for the usage text */
	int		 min_args;
	int		 max_args;	/* -1: no limit */
	int		(*fn)(const struct ctx *, int, char **);
};

struct signame {
	const char	*name;
	int		 sig;
};

static const struct signame signames[] = {
	{ "HUP", SIGHUP },	{ "INT", SIGINT },	{ "QUIT", SIGQUIT },
	{ "ILL", SIGILL },	{ "ABRT", SIGABRT },	{ "FPE", SIGFPE },
	{ "KILL", SIGKILL },	{ "SEGV", SIGSEGV },	{ "PIPE", SIGPIPE },
	{ "ALRM", SIGALRM },	{ "TERM", SIGTERM },	{ "USR1", SIGUSR1 },
	{ "USR2", SIGUSR2 },	{ "CHLD", SIGCHLD },	{ "CONT", SIGCONT },
	{ "STOP", SIGSTOP },	{ "TSTP", SIGTSTP },	{ "TTIN", SIGTTIN },
	{ "TTOU", SIGTTOU },	{ "XCPU", SIGXCPU },	{ "XFSZ", SIGXFSZ },
	{ "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },	{ "WINCH", SIGWINCH },
	{ "SYS", SIGSYS },
};

/* The signals that "wait-signal" puts back to their default action. */
static const int deadly_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE,
};

/*
 * Built with AddressSanitizer (make check-asan), LeakSanitizer's check at
 * exit clones a tracer process: one more process in the tree that the tests
 * count exactly.  js-work lets the kernel free its memory; no leak check.
 * This is the sanitizer's documented hook; without sanitizers nothing
 * calls it.
 */
int	__lsan_is_turned_off(void);

int
__lsan_is_turned_off(void)
{
	return 1;
}

void
die_usage(const char *cmd, const char *what, const char *arg)
{
	fprintf(stderr, "js-work: %s: %s '%s'\n", cmd, what, arg);
	exit(EXIT_USAGE);
}

void
die_errno(const char *cmd, const char *what)
{
	fprintf(stderr, "js-work: %s: %s: %s\n", cmd, what, strerror(errno));
	exit(EXIT_USAGE);
}

/*
 * The async-signal-safe toolkit for forked children: write a string, write
 * a number, complain and _exit.
 */
static void
safe_puts(int fd, const char *s)
{
	size_t	 len = strlen(s);
	ssize_t	 n;

	while (len > 0) {
		n = write(fd, s, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

char *
safe_utoa(uintmax_t v, char *buf)
{
	char	 tmp[24];
	size_t	 n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return buf;
}

void
child_die(const char *what)
{
	safe_puts(STDERR_FILENO, "js-work: child: ");
	safe_puts(STDERR_FILENO, what);
	safe_puts(STDERR_FILENO, "\n");
	_exit(EXIT_USAGE);
}

static int64_t
now_ns(clockid_t clk)
{
	struct timespec	 ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

void
sleep_ns(int64_t ns)
{
	struct timespec	 until;
	int64_t		 t = now_ns(CLOCK_MONOTONIC) + ns;

	until.tv_sec = t / NS_PER_S;
	until.tv_nsec = t % NS_PER_S;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		continue;
}

void
spin_ns(int64_t ns)
{
	volatile double	 x = 1.0;
	int64_t		 end = now_ns(CLOCK_PROCESS_CPUTIME_ID) + ns;

	while (now_ns(CLOCK_PROCESS_CPUTIME_ID) < end) {
		for (int i = 0; i < 20000; i++)
			x = sqrt(x + (double)i);
	}
}

int64_t
parse_dur_unit(const char *s, int64_t bare_unit_ns)
{
	char	*end;
	double	 v;
	int64_t	 unit;

	if (*s == '\0' || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || !isfinite(v))
		return -1;
	if (strcmp(end, "ms") == 0)
		unit = NS_PER_MS;
	else if (strcmp(end, "s") == 0)
		unit = NS_PER_S;
	else if (*end == '\0')
		unit = bare_unit_ns;
	else
		return -1;
	if (v * (double)unit > (double)INT64_MAX / 2)
		return -1;
	return (int64_t)(v * (double)unit);
}

int64_t
dur_arg(const char *cmd, const char *s)
{
	int64_t	 ns = parse_dur_unit(s, NS_PER_S);

	if (ns < 0)
		die_usage(cmd, "invalid duration", s);
	return ns;
}

long
long_arg(const char *cmd, const char *s, long min, long max)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		die_usage(cmd, "invalid number", s);
	return v;
}

/* Accepts "TERM", "SIGTERM" or "15". */
static int
signal_arg(const char *cmd, const char *s)
{
	const char	*name = s;

	if (strncmp(name, "SIG", 3) == 0)
		name += 3;
	for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++) {
		if (strcmp(signames[i].name, name) == 0)
			return signames[i].sig;
	}
	return (int)long_arg(cmd, s, 1, SIGRTMAX);
}

int
write_pidfile(const char *path, pid_t pid)
{
	char	 tmp[PATH_MAX], num[24];
	size_t	 len = strlen(path);
	int	 fd;

	if (len + 5 > sizeof(tmp))
		return -1;
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".tmp", 5);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1)
		return -1;
	safe_puts(fd, safe_utoa((uintmax_t)pid, num));
	safe_puts(fd, "\n");
	if (close(fd) == -1 || rename(tmp, path) == -1)
		return -1;
	return 0;
}

void
ready(const struct ctx *ctx)
{
	if (ctx->pidfile != NULL && write_pidfile(ctx->pidfile, getpid()) == -1)
		die_errno("-p", ctx->pidfile);
}

bool
reap_all(void)
{
	bool	 is_ok = true;
	int	 st;
	pid_t	 pid;

	for (;;) {
		pid = waitpid(-1, &st, 0);
		if (pid == -1 && errno == EINTR)
			continue;
		if (pid == -1)
			return is_ok;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			is_ok = false;
	}
}

static void
no_core_dumps(void)
{
	struct rlimit	 rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
}

static int
cmd_spin(const struct ctx *ctx, int argc, char **argv)
{
	int64_t	 ns = dur_arg(argv[0], argv[1]);

	(void)argc;
	ready(ctx);
	spin_ns(ns);
	return 0;
}

static int
cmd_sleep(const struct ctx *ctx, int argc, char **argv)
{
	int64_t	 ns = dur_arg(argv[0], argv[1]);

	(void)argc;
	ready(ctx);
	sleep_ns(ns);
	return 0;
}

static int
cmd_exit(const struct ctx *ctx, int argc, char **argv)
{
	(void)argc;
	ready(ctx);
	return (int)long_arg(argv[0], argv[1], 0, 255);
}

/* Die of the named signal with its default action (no core file). */
static int
cmd_signal(const struct ctx *ctx, int argc, char **argv)
{
	int		 sig = signal_arg(argv[0], argv[1]);
	sigset_t	 set;

	(void)argc;
	no_core_dumps();
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	ready(ctx);
	raise(sig);
	/* A stopping signal stops us; once continued, report the surprise. */
	fprintf(stderr, "js-work: signal: still alive after SIG%s\n", argv[1]);
	return EXIT_USAGE;
}

/*
 * One line per argument: bytes 0x21-0x7e except backslash as they are,
 * everything else (space, backslash, control, non-ASCII) as \xHH.  An empty
 * argument is an empty line.
 */
static int
cmd_args(const struct ctx *ctx, int argc, char **argv)
{
	const unsigned char	*p;

	ready(ctx);
	for (int i = 1; i < argc; i++) {
		for (p = (const unsigned char *)argv[i]; *p != '\0'; p++) {
			if (*p > 0x20 && *p < 0x7f && *p != '\\')
				putchar(*p);
			else
				printf("\\x%02x", *p);
		}
		putchar('\n');
	}
	return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}

/* stdin is worth reading unless it is a terminal or another char device. */
static bool
is_stdin_data(void)
{
	struct stat	 sb;

	if (fstat(STDIN_FILENO, &sb) == -1)
		return false;
	return !S_ISCHR(sb.st_mode) && !S_ISDIR(sb.st_mode);
}

static int
copy_fd(int from, int to)
{
	char	 buf[65536];
	ssize_t	 n;

	for (;;) {
		n = read(from, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? 0 : -1;
		for (ssize_t off = 0, w; off < n; off += w) {
			w = write(to, buf + off, (size_t)(n - off));
			if (w == -1 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				return -1;
		}
	}
}

/*
 * echo: ECHO_STDOUT to stdout, ECHO_STDERR to stderr, then stdin copied to
 * stdout when stdin is a file or a pipe (not a terminal, not /dev/null).
 */
static int
cmd_echo(const struct ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ready(ctx);
	safe_puts(STDOUT_FILENO, ECHO_STDOUT);
	safe_puts(STDERR_FILENO, ECHO_STDERR);
	if (is_stdin_data() && copy_fd(STDIN_FILENO, STDOUT_FILENO) == -1)
		die_errno("echo", "copying stdin");
	return 0;
}

/* ignore SIG... DUR: ignore the signals, then sleep; exit 0. */
static int
cmd_ignore(const struct ctx *ctx, int argc, char **argv)
{
	int64_t	 ns = dur_arg(argv[0], argv[argc - 1]);
	int	 sig;

	for (int i = 1; i < argc - 1; i++) {
		sig = signal_arg(argv[0], argv[i]);
		if (signal(sig, SIG_IGN) == SIG_ERR)
			die_usage(argv[0], "cannot ignore", argv[i]);
	}
	ready(ctx);
	sleep_ns(ns);
	return 0;
}

/* wait-signal DUR: default actions for the deadly signals, sleep, exit 0. */
static int
cmd_wait_signal(const struct ctx *ctx, int argc, char **argv)
{
	int64_t		 ns = dur_arg(argv[0], argv[1]);
	sigset_t	 set;
	size_t		 i;

	(void)argc;
	no_core_dumps();
	sigemptyset(&set);
	for (i = 0; i < sizeof(deadly_signals) / sizeof(deadly_signals[0]); i++) {
		signal(deadly_signals[i], SIG_DFL);
		sigaddset(&set, deadly_signals[i]);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	ready(ctx);
	sleep_ns(ns);
	return 0;
}

/*
 * rusage FILE CMD [ARG...]: run CMD, wait for it, write "USER SYS MAXRSS"
 * (the seconds of CMD and its reaped descendants, and the largest one's
 * peak RSS in KiB, as a plain fork and exec sees it) to FILE and exit as
 * CMD did: time(1) without depending on /usr/bin/time being installed.
 */
static int
cmd_rusage(const struct ctx *ctx, int argc, char **argv)
{
	struct rusage	 ru;
	FILE		*f;
	pid_t		 pid;
	int		 status;

	(void)argc;
	ready(ctx);
	pid = fork();
	if (pid == -1)
		die_errno(argv[0], "fork");
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		die_errno(argv[0], argv[2]);
	}
	while (wait4(pid, &status, 0, &ru) == -1)
		if (errno != EINTR)
			die_errno(argv[0], "wait4");
	if ((f = fopen(argv[1], "w")) == NULL)
		die_errno(argv[0], argv[1]);
	fprintf(f, "%.6f %.6f %ld\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
	if (fclose(f) != 0)
		die_errno(argv[0], argv[1]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* pidfile FILE DUR: the same as "-p FILE sleep DUR". */
static int
cmd_pidfile(const struct ctx *ctx, int argc, char **argv)
{
	struct ctx	 mine = *ctx;
	int64_t		 ns = dur_arg(argv[0], argv[2]);

	(void)argc;
	mine.pidfile = argv[1];
	ready(ctx);
	ready(&mine);
	sleep_ns(ns);
	return 0;
}

static void *
thread_sleep(void *arg)
{
	sleep_ns(*(const int64_t *)arg);
	return NULL;
}

/* thread DUR: sleep in two threads, so the process has a thread id that is not its pid. */
static int
cmd_thread(const struct ctx *ctx, int argc, char **argv)
{
	int64_t		ns = dur_arg(argv[0], argv[1]);
	pthread_t	t;
	int		e;

	(void)argc;
	if ((e = pthread_create(&t, NULL, thread_sleep, &ns)) != 0) {
		fprintf(stderr, "js-work thread: pthread_create: %s\n", strerror(e));
		return 1;
	}
	ready(ctx);
	pthread_join(t, NULL);
	return 0;
}

/* Open $JOULESTAT_MARK for writing, as a program would. */
static int
open_marks(void)
{
	const char	*path = getenv("JOULESTAT_MARK");
	int		 fd;

	if (path == NULL || (fd = open(path, O_WRONLY | O_CLOEXEC)) == -1) {
		fprintf(stderr, "js-work: marks: cannot open $JOULESTAT_MARK: %s\n",
		    path == NULL ? "not set" : strerror(errno));
		exit(EXIT_USAGE);
	}
	return fd;
}

/* One mark line, in one write. */
static void
write_mark(int fd, const char *line)
{
	size_t	len = strlen(line);

	if (write(fd, line, len) != (ssize_t)len) {
		fprintf(stderr, "js-work: marks: write: %s\n", strerror(errno));
		exit(EXIT_USAGE);
	}
}

/* One mark as a script would send it: open, write, close. */
static void
send_mark(const char *line)
{
	int	fd = open_marks();

	write_mark(fd, line);
	close(fd);
}

/*
 * marks LOG STEP...: each STEP is a duration (sleep), "phase:NAME",
 * "begin:NAME", "end:NAME" or "end" (one mark line: open, write, close),
 * "raw:TEXT" (TEXT and a newline, sent as it is) or "flood:N" (N lines
 * "begin f" / "end f" in turn, one write each on one open descriptor, as
 * fast as they go).  LOG gets "T_NS LINE" for each mark, with
 * CLOCK_MONOTONIC just before its write.
 */
static int
cmd_marks(const struct ctx *ctx, int argc, char **argv)
{
	FILE	*log = fopen(argv[1], "w");
	char	 line[512];
	char	*colon;
	long	 i, n;
	int	 k, fd;

	if (log == NULL)
		die_usage(argv[0], "cannot create", argv[1]);
	ready(ctx);
	for (k = 2; k < argc; k++) {
		colon = strchr(argv[k], ':');
		if (strncmp(argv[k], "flood:", 6) == 0) {
			n = strtol(argv[k] + 6, NULL, 10);
			fprintf(log, "%" PRId64 " flood %ld\n", now_ns(CLOCK_MONOTONIC), n);
			fd = open_marks();
			for (i = 0; i < n; i++)
				write_mark(fd, i % 2 == 0 ? "begin f\n" : "end f\n");
			close(fd);
			fprintf(log, "%" PRId64 " flood done\n", now_ns(CLOCK_MONOTONIC));
			continue;
		}
		if (strncmp(argv[k], "raw:", 4) == 0)
			snprintf(line, sizeof line, "%s\n", argv[k] + 4);
		else if (strcmp(argv[k], "end") == 0)
			snprintf(line, sizeof line, "end\n");
		else if (colon != NULL)
			snprintf(line, sizeof line, "%.*s %s\n", (int)(colon - argv[k]), argv[k],
			    colon + 1);
		else {
			sleep_ns(dur_arg(argv[0], argv[k]));
			continue;
		}
		fprintf(log, "%" PRId64 " %s", now_ns(CLOCK_MONOTONIC), line);
		fflush(log);
		send_mark(line);
	}
	fclose(log);
	return 0;
}

static const struct cmd cmds[] = {
	{ "args", "[ARG...]", 0, -1, cmd_args },
	{ "daemonize", "[-d] [-f PIDFILE] [DUR]", 0, 4, cmd_daemonize },
	{ "echo", "", 0, 0, cmd_echo },
	{ "exit", "N", 1, 1, cmd_exit },
	{ "forkmany", "N", 1, 1, cmd_forkmany },
	{ "marks", "LOG STEP...", 1, -1, cmd_marks },
	{ "ignore", "SIG... DUR", 2, -1, cmd_ignore },
	{ "pidfile", "FILE DUR", 2, 2, cmd_pidfile },
	{ "reuse-pid", "", 0, 0, cmd_reuse_pid },
	{ "rusage", "FILE CMD [ARG...]", 2, -1, cmd_rusage },
	{ "short-child", "MS", 1, 1, cmd_short_child },
	{ "signal", "NAME", 1, 1, cmd_signal },
	{ "sleep", "DUR", 1, 1, cmd_sleep },
	{ "spin", "DUR", 1, 1, cmd_spin },
	{ "thread", "DUR", 1, 1, cmd_thread },
	{ "tree", "DEPTH WIDTH [DUR]", 2, 3, cmd_tree },
	{ "wait-signal", "DUR", 1, 1, cmd_wait_signal },
};

static void
usage(void)
{
	fprintf(stderr, "usage: js-work [-p PIDFILE] COMMAND [ARG...]\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(stderr, "       js-work %s%s%s\n", cmds[i].name,
		    *cmds[i].usage != '\0' ? " " : "", cmds[i].usage);
	exit(EXIT_USAGE);
}

static const struct cmd *
cmd_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	}
	return NULL;
}

int
main(int argc, char *argv[])
{
	struct ctx	 ctx = { NULL };
	const struct cmd *cmd;
	int		 i = 1, nargs;

	if (argc > 2 && strcmp(argv[1], "-p") == 0) {
		ctx.pidfile = argv[2];
		i = 3;
	}
	if (i >= argc)
		usage();
	if ((cmd = cmd_find(argv[i])) == NULL) {
		fprintf(stderr, "js-work: unknown command '%s'\n", argv[i]);
		usage();
	}
	nargs = argc - i - 1;
	if (nargs < cmd->min_args || (cmd->max_args >= 0 && nargs > cmd->max_args)) {
		fprintf(stderr, "js-work: %s: wrong number of arguments\n", cmd->name);
		usage();
	}
	return cmd->fn(&ctx, argc - i, argv + i);
}
