/*
 * What the two files of js-work share (js-work.c: the commands, their
 * table and the helpers; js-work-tree.c: the commands that build process
 * trees, daemons and reused pids).  Helpers that run in a forked child
 * are async-signal-safe, as the commands that call them require.
 */
#ifndef JS_WORK_H
#define JS_WORK_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#define EXIT_USAGE	2
#define EXIT_SKIP	77	/* the automake/TAP "skipped" status */

#define NS_PER_MS	 INT64_C(1000000)
#define NS_PER_S	 INT64_C(1000000000)

struct ctx {
	const char	*pidfile;	/* -p, or NULL */
};

/* A bad argument: one line on stderr, exit status 2 (EXIT_USAGE). */
void	die_usage(const char *cmd, const char *what, const char *arg);
/* A failed call: one line with errno on stderr, exit status 2. */
void	die_errno(const char *cmd, const char *what);
/* Format v in decimal into buf (at least 24 bytes); returns buf. */
char	*safe_utoa(uintmax_t v, char *buf);
/* The same from a forked child: async-signal-safe, _exit(2). */
void	child_die(const char *what);
/* Sleep until CLOCK_MONOTONIC has advanced by ns; signals don't cut it short. */
void	sleep_ns(int64_t ns);
/*
 * Burn ns of this process's CPU time, in user mode: check the clock (a
 * system call) only between chunks of arithmetic, so that sys time stays
 * small.  Measured in CPU time, so a loaded machine makes it take longer
 * but never less.
 */
void	spin_ns(int64_t ns);
/* Parse "300ms", "1.5s" or "2" (seconds).  -1 when s is not a duration. */
int64_t	parse_dur_unit(const char *s, int64_t bare_unit_ns);
/* A duration argument of cmd, or die_usage. */
int64_t	dur_arg(const char *cmd, const char *s);
/* A whole number argument of cmd within [min, max], or die_usage. */
long	long_arg(const char *cmd, const char *s, long min, long max);
/*
 * Write pid to path: to a temporary name first, then rename, so a reader
 * polling for the file never sees it half written.  Safe in a child.
 */
int	write_pidfile(const char *path, pid_t pid);
/* The -p rendezvous: this process is ready. */
void	ready(const struct ctx *ctx);
/* Wait for every child; true when all exited with status 0. */
bool	reap_all(void);

/* The commands of js-work-tree.c (usage: js-work.c's table). */
int	cmd_tree(const struct ctx *ctx, int argc, char **argv);
int	cmd_daemonize(const struct ctx *ctx, int argc, char **argv);
int	cmd_short_child(const struct ctx *ctx, int argc, char **argv);
int	cmd_reuse_pid(const struct ctx *ctx, int argc, char **argv);
int	cmd_forkmany(const struct ctx *ctx, int argc, char **argv);

#endif
