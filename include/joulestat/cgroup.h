/*
 * The workload's own cgroup v2 (HACKING.md, "Measurement rules", process
 * tree): a fresh child of joulestat's cgroup, created before the fork and
 * entered by the workload while it is still corked, so everything it ever
 * starts is in it.  The kernel then gives for one read each what a walk of
 * /proc gives only process by process: the CPU time of the whole tree
 * (cpu.stat), its members (cgroup.procs), whether any is left
 * (cgroup.events, pollable), its peak memory (memory.peak, with the memory
 * controller) and a kill of all of it that no fork escapes (cgroup.kill).
 * The files are those of the kernel's Documentation/admin-guide/cgroup-v2.rst.
 */
#ifndef JOULESTAT_CGROUP_H
#define JOULESTAT_CGROUP_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "joulestat/util.h"

struct cgroup {
	int		 parentfd;	/* joulestat's own cgroup */
	int		 dirfd;		/* the workload's, or -1 */
	int		 procs_fd;	/* cgroup.procs */
	int		 events_fd;	/* cgroup.events: poll it for POLLPRI */
	int		 cpu_fd;	/* cpu.stat */
	int		 peak_fd;	/* memory.peak, or -1 without the memory controller */
	char		 name[64];	/* under the parent */
	char		 path[512];	/* the whole path, for messages */
	char		*buf;		/* cgroup.procs as last read */
	size_t		 cap;
};

/*
 * Create the workload's cgroup under joulestat's own cgroup v2.  root is
 * where cgroup v2 is mounted, or NULL to find it in /proc/self/mountinfo
 * (/sys/fs/cgroup on a unified system, /sys/fs/cgroup/unified on a hybrid
 * one).  Returns 0, or -1 with the reason joulestat may not in err (no
 * cgroup v2, not writable); then cg holds nothing to free.
 */
int	cgroup_create(struct cgroup *cg, const char *root, struct errbuf *err);

/*
 * Remove beside cg the empty cgroups of joulestats that are gone (a
 * joulestat killed by SIGKILL cannot remove its own).  Called once the
 * workload runs: no reason to keep it waiting.
 */
void	cgroup_remove_stale(const struct cgroup *cg);

/* Move pid (the corked workload) into the cgroup.  0, or -1 with err. */
int	cgroup_enter(struct cgroup *cg, pid_t pid, struct errbuf *err);

/* The CPU time of everything that ran in the cgroup, in ns.  0 or -1. */
int	cgroup_cpu_ns(const struct cgroup *cg, int64_t *user_ns, int64_t *sys_ns);

/* The largest memory use of the cgroup (memory.peak), in KiB.  0 or -1. */
int	cgroup_peak_kib(const struct cgroup *cg, uint64_t *kib);

/* 1 when a process is left in the cgroup, 0 when none is, -1 when unknown. */
int	cgroup_populated(const struct cgroup *cg);

/* Call fn for every process in the cgroup.  Returns 0, or -1 (not read). */
int	cgroup_each_pid(struct cgroup *cg, void (*fn)(pid_t, void *), void *arg);

/*
 * Send sig to every process of the cgroup.  SIGKILL goes through
 * cgroup.kill when the kernel has it (5.14), which no fork escapes.
 */
void	cgroup_signal(struct cgroup *cg, int sig);

/*
 * Give the processes still in the cgroup back to joulestat's own, remove
 * the cgroup and close it.  Safe to call on a cgroup never created, and
 * twice.  Returns 0, or -1 with err when the directory stays.
 */
int	cgroup_remove(struct cgroup *cg, struct errbuf *err);

/*
 * The value of key in a flat keyed file ("key value" lines: cpu.stat,
 * cgroup.events).  0, -ENOENT when the key is absent, -EINVAL when its
 * value is not a number.
 */
int	cgroup_parse_keyed(const char *text, const char *key, uint64_t *value);

/*
 * Where cgroup v2 is mounted, from the text of /proc/self/mountinfo
 * (proc_pid_mountinfo(5)), into buf.  0, or -ENOENT when it is not.
 */
int	cgroup_parse_mountinfo(const char *text, char *buf, size_t size);

/*
 * The pid of the joulestat whose run's cgroup is called name
 * ("joulestat-PID-N"), or -EINVAL when name is not one.
 */
int	cgroup_parse_name(const char *name, pid_t *pid);

/* joulestat's cgroup v2 path from the text of /proc/self/cgroup (the "0::" line). */
int	cgroup_parse_self(const char *text, char *buf, size_t size);

#endif
