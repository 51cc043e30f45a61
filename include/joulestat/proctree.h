/*
 * The workload's process tree (HACKING.md, "Measurement rules"), walked
 * on the first and last readings and at most every READING_TREE_GAP_NS
 * between them, or that per hundred members when no device reads them
 * (src/run/reading.c).  The walk starts at the root pids and follows
 * /proc/PID/task/TID/children, so its cost grows with the tree and not
 * with the machine; when the kernel lacks those files it falls back to one
 * scan of /proc.  When no pid was given out since the refresh before (the
 * newest pid in /proc/loadavg is the same) and no member ended, only the
 * members' stat files are read.  With a cgroup (proctree_use_cgroup) the
 * members are its cgroup.procs instead.  A process is identified by (pid,
 * starttime): a pid that comes back with another start time is a new
 * process.  Every process ever seen is kept, so totals survive its exit.
 */
#ifndef JOULESTAT_PROCTREE_H
#define JOULESTAT_PROCTREE_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

#include "joulestat/cgroup.h"
#include "joulestat/procfs.h"
#include "joulestat/util.h"

/*
 * How the tree's members are found: the workload's own cgroup v2 where
 * joulestat may create one, else the walk of /proc (--tracker, man page).
 */
enum tracker {
	TRACKER_AUTO,		/* cgroup where it can, else proc */
	TRACKER_CGROUP,		/* cgroup or fail */
	TRACKER_PROC,		/* the /proc walk */
};

/* "auto", "cgroup" or "proc". */
const char	*proctree_tracker_name(enum tracker t);

/* The tracker named s, or -1. */
int	proctree_tracker_parse(const char *s);

struct proc {
	pid_t		 pid;
	pid_t		 ppid;
	uint64_t	 starttime_ticks;	/* identity, with pid */
	char		 comm[PROCFS_COMM_MAX];
	char		 state;			/* as last seen: R, S, Z, ... */
	uint64_t	 utime_ticks;		/* as last seen */
	uint64_t	 stime_ticks;
	uint64_t	 utime0_ticks;		/* at the first walk, for a process */
	uint64_t	 stime0_ticks;		/* already there (attach mode); else 0 */
	uint64_t	 rss_kib;		/* as last seen */
	uint64_t	 max_rss_kib;		/* largest RSS seen at a tick */
	int64_t		 first_seen_ns;
	int64_t		 last_seen_ns;
	int64_t		 named_ns;		/* when comm was read */
	bool		 is_alive;		/* seen by the latest refresh */
	bool		 is_root;		/* one of the -p pids */
	bool		 is_bare;		/* cgroup member known by its pid and pidfd: start
						   time, name, state and figures not read */
	int		 stat_fd;		/* /proc/PID/stat kept open while alive, or -1 */
	int		 children_fd;		/* /proc/PID/task/PID/children, or -1 */
	int		 pidfd;			/* cgroup tracker: readable once it ends, or -1 */
};

/* A process by its identity. */
struct proc_id {
	pid_t		 pid;
	uint64_t	 starttime_ticks;
};

struct proctree {
	int		 proc_dirfd;		/* the proc root, usually /proc */
	struct cgroup	*cg;			/* members from its cgroup.procs, or NULL */
	int		 epfd;			/* with cg: the members' pidfds */
	int		 loadavg_fd;		/* /proc/loadavg, or -1 */
	pid_t		 last_pid;		/* its newest pid at the refresh before */
	int64_t		 walk_ns;		/* the time of the latest refresh */
	int64_t		 cur_ns;		/* walk scratch: the time of this one */
	int		 has_children_files;	/* else scan the proc root; -1: not probed yet */
	bool		 is_bare_ok;		/* no device reads the members: a new cgroup
						   member is recorded bare (is_bare), and
						   src/run/reading.c walks a large tree less often */
	bool		 is_root_included;	/* attach: roots are measured too */
	pid_t		*roots;
	size_t		 nroots;
	struct proc	*procs;			/* every process ever seen */
	size_t		 nproc;
	size_t		 capproc;
	size_t		*live;			/* indices into procs of live ones */
	size_t		 nlive;
	size_t		 caplive;
	size_t		*prev;			/* the live ones of the walk before */
	size_t		 nprev;
	size_t		 capprev;
	size_t		 nfds;			/* files kept open for live processes */
	size_t		 maxfds;		/* at most this many */
	int		 pending_fd;		/* walk scratch: a stat file not yet given to a proc */
	char		*text;			/* walk scratch: a file read by tree_read_keep */
	size_t		 captext;
	size_t		*slots;			/* hash: pid -> index + 1 of newest */
	size_t		 nslots;
	pid_t		*queue;			/* walk scratch */
	size_t		 nqueue;
	size_t		 capqueue;
	uint64_t	 page_kib;
	uint64_t	 max_concurrent;
	uint64_t	 peak_rss_kib;		/* largest sum of RSS at one tick */
	uint64_t	 races;			/* processes that vanished mid-read */
	uint64_t	 refreshes;
	bool		 has_running;		/* a walk found a process not a zombie */
	struct proc_id	*excluded;		/* not the workload's: neither they nor */
	size_t		 nexcluded;		/* their descendants are walked */
};

/*
 * Prepare a tree rooted at roots[0..nroots).  proc_root is the procfs
 * mount to read ("/proc" unless overridden for fixtures).  When
 * is_root_included is false the roots themselves are not measured, only
 * their descendants: joulestat passes its own pid in launch mode, since as
 * a subreaper it is the parent of the workload and of every orphan.
 * Returns 0, or -1 with a cause in err (the proc root cannot be opened).
 */
int	proctree_init(struct proctree *tree, const char *proc_root,
	    const pid_t *roots, size_t nroots, bool is_root_included,
	    struct errbuf *err);

/*
 * Walk the tree once at time t_ns (CLOCK_MONOTONIC): add new processes,
 * update the live ones, mark the vanished ones dead.  Processes that
 * disappear during the walk are skipped and counted in races.  Returns the
 * number of live processes.
 */
size_t	proctree_refresh(struct proctree *tree, int64_t t_ns);

/*
 * The first refresh of a tree in a fresh cgroup (proctree_use_cgroup) at
 * time t_ns, when the one process it can hold is the child just born in
 * it, pid, whose pidfd clone3 gave (CLONE_PIDFD) and is_bare_ok: the child
 * is recorded bare, taking pidfd, with nothing read in /proc or the
 * cgroup.  false, with pidfd still the caller's, when that does not apply
 * (then proctree_refresh).
 */
bool	proctree_start_launched(struct proctree *tree, pid_t pid, int pidfd, int64_t t_ns);

/*
 * From now on, the members are the processes of cg (cgroup.procs), not the
 * descendants found through /proc: one read a refresh, one epoll_wait on
 * the members' pidfds for those that ended, and /proc/PID/stat only of a
 * new process (its identity and name).  While is_bare_ok is set, not even
 * that: a new member is recorded by its pid and its pidfd alone, bare (the
 * list holds no zombie, so it runs).  A bare member is read in full when a
 * refresh without is_bare_ok lists it, or when proctree_fresh_name asks
 * for its name.  0, or -1 with err.
 */
int	proctree_use_cgroup(struct proctree *tree, struct cgroup *cg, struct errbuf *err);

/*
 * The name of live process pid read again if it was read max_age_ns or
 * more before t_ns (0: now), and a bare member's identity with it.  A
 * member that a pidfd follows (the cgroup tracker) is not re-read each
 * tick, so an exec would keep the name it had when first seen: the
 * launched command's was joulestat's.
 */
void	proctree_fresh_name(struct proctree *tree, pid_t pid, int64_t t_ns, int64_t max_age_ns);

/* The live process with this pid, or NULL when pid is not in the tree. */
const struct proc *proctree_find_live(const struct proctree *tree, pid_t pid);

/*
 * The newest process of the tree with this pid, alive or ended, or NULL:
 * a driver reports samples of a process after it has exited.
 */
const struct proc *proctree_find(const struct proctree *tree, pid_t pid);

/*
 * Sum of the user and system CPU time of every process, in ns, from the
 * first walk on: what a process found by the first walk had used before
 * (an attached one's whole life until then) is not counted.  With a
 * cgroup, its cpu.stat: everything that ran in it.
 */
void	proctree_cpu_ns(const struct proctree *tree, int64_t *user_ns, int64_t *sys_ns);

/*
 * Walk the tree once and set every process found (and so its subtree)
 * aside for good: what earlier runs left running is not this run's.
 * Returns how many processes were set aside.
 */
size_t	proctree_exclude_present(struct proctree *tree, int64_t t_ns);

/*
 * True when pid, just reaped, was one of the processes set aside by
 * proctree_exclude_present; it is forgotten, since its pid may now be reused.
 */
bool	proctree_reaped_excluded(struct proctree *tree, pid_t pid);

void	proctree_free(struct proctree *tree);

#endif
