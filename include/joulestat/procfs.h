/*
 * Pure parsers for the /proc text joulestat reads: text in, struct out,
 * error out.  No file access happens here, so the parsers can be fed
 * strings copied from real kernels in unit tests and fuzzed.
 */
#ifndef JOULESTAT_PROCFS_H
#define JOULESTAT_PROCFS_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#define PROCFS_COMM_MAX		64	/* kernel comm is <= 15 bytes; room for more */
#define PROCFS_NSPID_MAX	8

/* The fields of /proc/PID/stat that joulestat uses (proc_pid_stat(5)). */
struct proc_stat {
	pid_t		pid;			/* field 1 */
	char		comm[PROCFS_COMM_MAX];	/* field 2, without the parentheses */
	char		state;			/* field 3 */
	pid_t		ppid;			/* field 4 */
	uint64_t	utime_ticks;		/* field 14, clock ticks */
	uint64_t	stime_ticks;		/* field 15 */
	uint64_t	num_threads;		/* field 20 */
	uint64_t	starttime_ticks;	/* field 22, ticks since boot */
	uint64_t	rss_pages;		/* field 24 */
};

/* The fields of /proc/PID/status that joulestat uses (proc_pid_status(5)). */
struct proc_status {
	uint64_t	vmhwm_kib;		/* VmHWM; 0 when absent (kernel thread, zombie) */
	uint64_t	vmrss_kib;		/* VmRSS; 0 when absent */
	pid_t		tgid;			/* Tgid, the process of a thread; 0 when absent */
	pid_t		nspid[PROCFS_NSPID_MAX]; /* NSpid, outermost namespace first */
	size_t		nnspid;			/* 0 when the line is absent (before 4.1) */
};

/*
 * Parse the text of /proc/PID/stat.  comm is taken between the first '('
 * and the LAST ')', since a process name may itself contain spaces and
 * parentheses.  Returns 0, -EINVAL for malformed or truncated text, or
 * -ERANGE when a number does not fit.
 */
int	procfs_parse_stat(const char *text, struct proc_stat *out);

/*
 * The newest pid the kernel gave out in the reader's pid namespace: the
 * last field of /proc/loadavg (proc_loadavg(5)).  0, or -1 when malformed.
 */
int	procfs_parse_last_pid(const char *loadavg, pid_t *pid);

/*
 * Parse the text of /proc/PID/status.  Unknown keys are ignored; a known
 * key with a malformed value, or a kB value without its exact " kB" unit,
 * is -EINVAL.  Returns 0, -EINVAL or -ERANGE.
 */
int	procfs_parse_status(const char *text, struct proc_status *out);

/*
 * Parse a space-separated list of pids (the text of
 * /proc/PID/task/TID/children).  Calls fn(pid, arg) for each; stops and
 * returns -EINVAL at the first token that is not a pid > 0.  Returns 0.
 */
int	procfs_parse_pid_list(const char *text, void (*fn)(pid_t, void *), void *arg);

#endif
