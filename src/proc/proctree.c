/*
 * The workload's process tree (HACKING.md, "Measurement rules").  Each refresh
 * walks from the roots through /proc/PID/task/TID/children, so per-tick
 * work grows with the tree, not with the machine; only kernels without
 * CONFIG_PROC_CHILDREN get one scan of the whole proc root per tick.
 * Processes are identified by (pid, starttime) and kept after they exit,
 * so totals and per-process tables survive them.  The stat and children
 * files of live processes stay open and are re-read with pread, within a
 * budget of file descriptors; an open /proc file never reads a new process
 * that reused the pid (it fails with ESRCH instead).  Reads that race with an
 * exiting process are skipped and counted, never fatal.
 */
#include "joulestat/proctree.h"

#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/newpids.h"
#include "joulestat/procfs.h"
#include "joulestat/util.h"

#define PROCTREE_TEXT_MAX	4096

static size_t
slot_of(const struct proctree *tree, pid_t pid)
{
	return ((size_t)pid * 2654435761u) & (tree->nslots - 1);
}

static void
slots_put(struct proctree *tree, pid_t pid, size_t idx)
{
	size_t	i = slot_of(tree, pid);

	while (tree->slots[i] != 0 && tree->procs[tree->slots[i] - 1].pid != pid)
		i = (i + 1) & (tree->nslots - 1);
	tree->slots[i] = idx + 1;
}

static void
slots_grow(struct proctree *tree)
{
	size_t	i;

	free(tree->slots);
	tree->nslots = tree->nslots == 0 ? 256 : tree->nslots * 2;
	tree->slots = xcalloc(tree->nslots, sizeof *tree->slots);
	for (i = 0; i < tree->nproc; i++)
		slots_put(tree, tree->procs[i].pid, i);
}

/* The newest process seen with this pid, or NULL. */
static struct proc *
lookup(const struct proctree *tree, pid_t pid)
{
	size_t	i;

	if (tree->nslots == 0)
		return NULL;
	for (i = slot_of(tree, pid); tree->slots[i] != 0; i = (i + 1) & (tree->nslots - 1)) {
		if (tree->procs[tree->slots[i] - 1].pid == pid)
			return &tree->procs[tree->slots[i] - 1];
	}
	return NULL;
}

static struct proc *
add_proc(struct proctree *tree, const struct proc_stat *st, int64_t t_ns)
{
	struct proc	*p;

	if (tree->nproc == tree->capproc) {
		tree->capproc = tree->capproc == 0 ? 64 : tree->capproc * 2;
		tree->procs = xreallocarray(tree->procs, tree->capproc, sizeof *tree->procs);
	}
	if (2 * (tree->nproc + 1) > tree->nslots)
		slots_grow(tree);
	p = &tree->procs[tree->nproc];
	memset(p, 0, sizeof *p);
	p->pid = st->pid;
	p->starttime_ticks = st->starttime_ticks;
	p->stat_fd = p->children_fd = p->pidfd = -1;
	p->first_seen_ns = t_ns;
	slots_put(tree, p->pid, tree->nproc);
	tree->nproc++;
	return p;
}

static void
queue_push(pid_t pid, void *arg)
{
	struct proctree	*tree = arg;

	if (tree->nqueue == tree->capqueue) {
		tree->capqueue = tree->capqueue == 0 ? 64 : tree->capqueue * 2;
		tree->queue = xreallocarray(tree->queue, tree->capqueue, sizeof *tree->queue);
	}
	tree->queue[tree->nqueue++] = pid;
}

static void
live_push(struct proctree *tree, struct proc *p)
{
	if (tree->nlive == tree->caplive) {
		tree->caplive = tree->caplive == 0 ? 64 : tree->caplive * 2;
		tree->live = xreallocarray(tree->live, tree->caplive, sizeof *tree->live);
	}
	tree->live[tree->nlive++] = (size_t)(p - tree->procs);
}

static void
close_fd(struct proctree *tree, int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		tree->nfds--;
	}
	*fd = -1;
}

/* Open path under the proc root and keep it in *slot if the budget allows. */
static ssize_t
read_keep(struct proctree *tree, const char *path, int *slot, char *text, size_t size)
{
	ssize_t	n;
	int	fd;

	if (*slot >= 0) {
		if ((n = pread_text(*slot, text, size)) >= 0)
			return n;
		close_fd(tree, slot);
	}
	if ((fd = openat(tree->proc_dirfd, path, O_RDONLY | O_CLOEXEC)) == -1)
		return -errno;
	n = pread_text(fd, text, size);
	if (n >= 0 && tree->nfds < tree->maxfds) {
		*slot = fd;
		tree->nfds++;
	} else
		close(fd);
	return n;
}

/*
 * Read a children file whole into the tree's growing buffer: a list of a
 * thousand children is longer than any fixed buffer, and a pid cut at the
 * buffer's end would be read as another pid.  fd is kept open in *slot.
 */
static ssize_t
read_children(struct proctree *tree, int dirfd, const char *path, int *slot)
{
	ssize_t	n;

	if (tree->capkids == 0) {
		tree->capkids = PROCTREE_TEXT_MAX;
		tree->kids = xmalloc(tree->capkids);
	}
	for (;;) {
		if (dirfd == tree->proc_dirfd)
			n = read_keep(tree, path, slot, tree->kids, tree->capkids);
		else
			n = read_file(dirfd, path, tree->kids, tree->capkids);
		if (n < 0 || (size_t)n < tree->capkids - 1)
			return n;
		tree->capkids *= 2;
		tree->kids = xreallocarray(tree->kids, tree->capkids, 1);
	}
}

/* Queue the children of every thread of p.  Returns false when it is gone. */
static bool
queue_children(struct proctree *tree, struct proc *p, pid_t pid, uint64_t nthreads)
{
	char		 path[64];
	struct dirent	*de;
	DIR		*dir;
	int		 fd, none = -1;

	if (nthreads == 1) {
		snprintf(path, sizeof path, "%d/task/%d/children", (int)pid, (int)pid);
		if (read_children(tree, tree->proc_dirfd, path,
		    p != NULL ? &p->children_fd : &none) < 0)
			return false;
		procfs_parse_pid_list(tree->kids, queue_push, tree);
		return true;
	}
	if (p != NULL)
		close_fd(tree, &p->children_fd);	/* threads now: list each one */
	snprintf(path, sizeof path, "%d/task", (int)pid);
	if ((fd = openat(tree->proc_dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return false;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return false;
	}
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%.20s/children", de->d_name);
		if (read_children(tree, dirfd(dir), path, &none) >= 0)
			procfs_parse_pid_list(tree->kids, queue_push, tree);
	}
	closedir(dir);
	return true;
}

static int
read_stat(const struct proctree *tree, pid_t pid, struct proc_stat *st)
{
	char	path[32], text[PROCTREE_TEXT_MAX];
	ssize_t	n;

	snprintf(path, sizeof path, "%d/stat", (int)pid);
	if ((n = read_file(tree->proc_dirfd, path, text, sizeof text)) < 0)
		return (int)n;
	return procfs_parse_stat(text, st);
}

/*
 * Read pid's stat, through the file kept open for the process last seen
 * with that pid when there is one.  *known is that process, or NULL when
 * the pid is new or now belongs to another process.
 */
static int
stat_of(struct proctree *tree, pid_t pid, struct proc_stat *st, struct proc **known)
{
	char		 path[32], text[PROCTREE_TEXT_MAX];
	struct proc	*p = lookup(tree, pid);
	int		 fd = -1, r;
	ssize_t		 n;

	*known = NULL;
	if (p != NULL && p->stat_fd >= 0) {
		if (pread_text(p->stat_fd, text, sizeof text) >= 0 &&
		    procfs_parse_stat(text, st) == 0) {
			*known = p;
			return 0;
		}
		close_fd(tree, &p->stat_fd);	/* it ended; pid may be someone else's */
		close_fd(tree, &p->children_fd);
	}
	snprintf(path, sizeof path, "%d/stat", (int)pid);
	if ((n = read_keep(tree, path, &fd, text, sizeof text)) < 0)
		return (int)n;
	if ((r = procfs_parse_stat(text, st)) != 0) {
		close_fd(tree, &fd);
		return r;
	}
	if (p != NULL && p->starttime_ticks == st->starttime_ticks && p->stat_fd < 0) {
		p->stat_fd = fd;
		*known = p;
	} else
		tree->pending_fd = fd;
	return 0;
}

static bool
is_excluded(const struct proctree *tree, const struct proc_stat *st)
{
	size_t	i;

	for (i = 0; i < tree->nexcluded; i++) {
		if (tree->excluded[i].pid == st->pid &&
		    tree->excluded[i].starttime_ticks == st->starttime_ticks)
			return true;
	}
	return false;
}

static void	note_stat(struct proctree *, struct proc *, const struct proc_stat *, int64_t);

/*
 * Record one process found by the walk; returns it, or NULL if it vanished
 * or was set aside (then its subtree is not walked either).
 */
static struct proc *
visit(struct proctree *tree, pid_t pid, int64_t t_ns, struct proc_stat *st)
{
	struct proc	*p;

	tree->pending_fd = -1;
	if (stat_of(tree, pid, st, &p) != 0) {
		tree->races++;
		return NULL;
	}
	if (p == NULL && is_excluded(tree, st)) {
		close_fd(tree, &tree->pending_fd);
		return NULL;
	}
	if (p != NULL && p->is_alive) {
		close_fd(tree, &tree->pending_fd);
		return NULL;	/* already visited in this walk */
	}
	if (p == NULL) {
		p = lookup(tree, pid);
		if (p != NULL && p->starttime_ticks == st->starttime_ticks && p->is_alive) {
			close_fd(tree, &tree->pending_fd);
			return NULL;
		}
		if (p == NULL || p->starttime_ticks != st->starttime_ticks) {
			p = add_proc(tree, st, t_ns);
			if (tree->refreshes == 0) {
				p->utime0_ticks = st->utime_ticks;
				p->stime0_ticks = st->stime_ticks;
			}
		}
		if (p->stat_fd < 0) {
			p->stat_fd = tree->pending_fd;
			tree->pending_fd = -1;
		}
		close_fd(tree, &tree->pending_fd);
	}
	note_stat(tree, p, st, t_ns);
	return p;
}

/* What one reading of p's stat says; p is live in this refresh. */
static void
note_stat(struct proctree *tree, struct proc *p, const struct proc_stat *st, int64_t t_ns)
{
	if (st->state != 'Z')
		tree->has_running = true;
	memcpy(p->comm, st->comm, sizeof p->comm);
	p->ppid = st->ppid;
	p->state = st->state;
	p->utime_ticks = st->utime_ticks;
	p->stime_ticks = st->stime_ticks;
	p->rss_kib = st->rss_pages * tree->page_kib;
	if (p->rss_kib > p->max_rss_kib)
		p->max_rss_kib = p->rss_kib;
	p->last_seen_ns = t_ns;
	p->is_alive = true;
	live_push(tree, p);
}

/* Walk by children files: the cost is proportional to the tree. */
static void
walk_children(struct proctree *tree, int64_t t_ns)
{
	struct proc_stat	 st;
	struct proc		*p;
	size_t			 head = 0, i;

	tree->nqueue = 0;
	for (i = 0; i < tree->nroots; i++) {
		if (tree->is_root_included)
			queue_push(tree->roots[i], tree);
		else
			queue_children(tree, NULL, tree->roots[i], 0);
	}
	while (head < tree->nqueue) {
		if ((p = visit(tree, tree->queue[head++], t_ns, &st)) == NULL)
			continue;
		p->is_root = tree->is_root_included && head <= tree->nroots;
		if (!queue_children(tree, p, p->pid, st.num_threads))
			tree->races++;
	}
}

struct pidpair {
	pid_t	pid;
	pid_t	ppid;
};

static int
pidpair_cmp(const void *a, const void *b)
{
	const struct pidpair	*x = a, *y = b;

	return (x->ppid > y->ppid) - (x->ppid < y->ppid);
}

/* Read (pid, ppid) of every process under the proc root, sorted by ppid. */
static struct pidpair *
scan_all(const struct proctree *tree, size_t *npairs)
{
	struct pidpair		*pairs = NULL;
	struct proc_stat	 st;
	struct dirent		*de;
	DIR			*dir;
	size_t			 n = 0, cap = 0;
	uint64_t		 v;
	int			 fd;

	if ((fd = openat(tree->proc_dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (dir = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		*npairs = 0;
		return NULL;
	}
	while ((de = readdir(dir)) != NULL) {
		if (parse_u64(de->d_name, &v) != 0 || read_stat(tree, (pid_t)v, &st) != 0)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 512 : cap * 2;
			pairs = xreallocarray(pairs, cap, sizeof *pairs);
		}
		pairs[n].pid = st.pid;
		pairs[n++].ppid = st.ppid;
	}
	closedir(dir);
	qsort(pairs, n, sizeof *pairs, pidpair_cmp);
	*npairs = n;
	return pairs;
}

static void
queue_scanned_children(struct proctree *tree, const struct pidpair *pairs, size_t n, pid_t ppid)
{
	size_t	lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pairs[mid].ppid < ppid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && pairs[lo].ppid == ppid; lo++)
		queue_push(pairs[lo].pid, tree);
}

/* Fallback for kernels without children files: one scan of the proc root. */
static void
walk_scan(struct proctree *tree, int64_t t_ns)
{
	struct proc_stat	 st;
	struct pidpair		*pairs;
	struct proc		*p;
	size_t			 npairs, head = 0, i;

	pairs = scan_all(tree, &npairs);
	tree->nqueue = 0;
	for (i = 0; i < tree->nroots; i++) {
		if (tree->is_root_included)
			queue_push(tree->roots[i], tree);
		else
			queue_scanned_children(tree, pairs, npairs, tree->roots[i]);
	}
	while (head < tree->nqueue) {
		if ((p = visit(tree, tree->queue[head++], t_ns, &st)) == NULL)
			continue;
		p->is_root = tree->is_root_included && head <= tree->nroots;
		queue_scanned_children(tree, pairs, npairs, p->pid);
	}
	free(pairs);
}

/*
 * A member listed by the cgroup.  A pid that was a member at the refresh
 * before is the same process unless its pidfd said it ended (then the pid
 * was reused); only a new one is read from /proc.  Without a pidfd (the
 * descriptor budget, kernels before 5.3) its stat file, kept open, tells;
 * with one, the stat file is closed at once, while the process lives, so
 * that the reaper, not joulestat, frees its /proc entry.
 */
static void
visit_member(pid_t pid, void *arg)
{
	struct proctree		*tree = arg;
	struct proc_stat	 st;
	struct proc		*p = lookup(tree, pid);
	struct epoll_event	 ev = { .events = EPOLLIN };

	if (p != NULL && p->is_alive)
		return;
	if (p != NULL && p->pidfd >= 0 && p->last_seen_ns == tree->walk_ns) {
		p->is_alive = true;
		live_push(tree, p);
		return;
	}
	if ((p = visit(tree, pid, tree->cur_ns, &st)) == NULL || p->pidfd >= 0 ||
	    tree->nfds >= tree->maxfds)
		return;
	if ((p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		return;
	tree->nfds++;
	ev.data.u64 = (uint64_t)(p - tree->procs);
	close_fd(tree, epoll_ctl(tree->epfd, EPOLL_CTL_ADD, p->pidfd, &ev) == -1 ? &p->pidfd :
	    &p->stat_fd);
}

/* The members whose pidfd says they ended since the refresh before: they are gone. */
static void
reap_ended(struct proctree *tree)
{
	struct epoll_event	evs[64];
	int			n, i;

	do {
		n = epoll_wait(tree->epfd, evs, (int)ARRAY_SIZE(evs), 0);
		for (i = 0; i < n; i++)
			close_fd(tree, &tree->procs[evs[i].data.u64].pidfd);
	} while (n == (int)ARRAY_SIZE(evs));
}

/*
 * Quiet (no pid given out) and no member's pidfd said it ended: the members
 * are the same, and cgroup.procs (costlier the larger the tree) is not read.
 * Without a pidfd a member cannot say it ended: false.
 */
static bool
keep_members(struct proctree *tree, bool is_quiet, int64_t t_ns)
{
	struct proc	*p;
	size_t		 i;

	if (!is_quiet)
		return false;
	for (i = 0; i < tree->nprev; i++) {
		if (tree->procs[tree->prev[i]].pidfd < 0)
			return false;
	}
	for (i = 0; i < tree->nprev; i++) {
		p = &tree->procs[tree->prev[i]];
		p->is_alive = true;
		p->last_seen_ns = t_ns;
		live_push(tree, p);
	}
	return true;
}

static void
walk_cgroup(struct proctree *tree, bool is_quiet, int64_t t_ns)
{
	size_t	i;

	reap_ended(tree);
	if (keep_members(tree, is_quiet, t_ns))
		return;
	tree->cur_ns = t_ns;
	if (cgroup_each_pid(tree->cg, visit_member, tree) != 0)
		tree->races++;
	for (i = 0; i < tree->nlive; i++)
		tree->procs[tree->live[i]].last_seen_ns = t_ns;
}

/* A new pid's parent is a root or a process seen before (newpids.h). */
static bool
is_tree_parent(pid_t ppid, void *arg)
{
	const struct proctree	*tree = arg;
	size_t			 i = 0;

	while (i < tree->nroots && tree->roots[i] != ppid)
		i++;
	return i < tree->nroots || lookup(tree, ppid) != NULL;
}

/*
 * Nothing of the tree's was created since the refresh before: only the
 * members' stat files are read (one not kept open, by its pid: none was
 * reused).  One that ended makes it false: its pid was freed, and a program
 * that sets ns_last_pid can have it given out again unseen.
 */
static bool
restat_live(struct proctree *tree, int64_t t_ns)
{
	char			 text[PROCTREE_TEXT_MAX];
	struct proc_stat	 st;
	struct proc		*p;
	size_t			 i;
	int			 r;

	for (i = 0; i < tree->nprev; i++) {
		p = &tree->procs[tree->prev[i]];
		if (p->stat_fd >= 0)
			r = pread_text(p->stat_fd, text, sizeof text) < 0 ? -1 :
			    procfs_parse_stat(text, &st);
		else
			r = read_stat(tree, p->pid, &st);
		if (r != 0 || st.starttime_ticks != p->starttime_ticks) {
			for (i = 0; i < tree->nlive; i++)
				tree->procs[tree->live[i]].is_alive = false;
			tree->nlive = 0;
			return false;
		}
		note_stat(tree, p, &st, t_ns);
	}
	return true;
}

/* Processes that were alive before this walk and are not now: let their files go. */
static void
close_ended(struct proctree *tree)
{
	struct proc	*p;
	size_t		 i;

	for (i = 0; i < tree->nprev; i++) {
		p = &tree->procs[tree->prev[i]];
		if (!p->is_alive) {
			close_fd(tree, &p->stat_fd);
			close_fd(tree, &p->children_fd);
			close_fd(tree, &p->pidfd);
		}
	}
}

size_t
proctree_refresh(struct proctree *tree, int64_t t_ns)
{
	uint64_t	rss = 0;
	size_t		i, *swap, capswap;
	pid_t		newest;
	bool		is_quiet;

	for (i = 0; i < tree->nlive; i++)
		tree->procs[tree->live[i]].is_alive = false;
	swap = tree->prev;
	capswap = tree->capprev;
	tree->prev = tree->live;
	tree->capprev = tree->caplive;
	tree->nprev = tree->nlive;
	tree->live = swap;
	tree->caplive = capswap;
	tree->nlive = 0;
	/* Nothing of the tree's was created since: the same newest pid, or new ones not its. */
	newest = newpids_newest(tree->proc_dirfd, &tree->loadavg_fd, &tree->nfds, tree->maxfds);
	is_quiet = tree->refreshes > 0 && newest != 0 && (newest == tree->last_pid ||
	    (tree->cg == NULL && newpids_outside(tree->proc_dirfd, tree->last_pid, newest,
	    tree->nprev, is_tree_parent, tree)));
	if (tree->cg != NULL)
		walk_cgroup(tree, is_quiet, t_ns);
	else if (!is_quiet || !restat_live(tree, t_ns)) {
		if (tree->has_children_files)
			walk_children(tree, t_ns);
		else
			walk_scan(tree, t_ns);
	}
	tree->last_pid = newest;
	close_ended(tree);
	tree->walk_ns = t_ns;
	for (i = 0; i < tree->nlive; i++)
		rss += tree->procs[tree->live[i]].rss_kib;
	if (rss > tree->peak_rss_kib)
		tree->peak_rss_kib = rss;
	if (tree->nlive > tree->max_concurrent)
		tree->max_concurrent = tree->nlive;
	tree->refreshes++;
	return tree->nlive;
}

int
proctree_init(struct proctree *tree, const char *proc_root, const pid_t *roots,
    size_t nroots, bool is_root_included, struct errbuf *err)
{
	char		path[64];
	struct stat	sb;
	struct rlimit	rl;
	long		page;

	memset(tree, 0, sizeof *tree);
	tree->loadavg_fd = -1;
	tree->proc_dirfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tree->proc_dirfd == -1) {
		errbuf_set(err, "%s: %s", proc_root, strerror(errno));
		return -1;
	}
	tree->roots = xcalloc(nroots, sizeof *roots);
	memcpy(tree->roots, roots, nroots * sizeof *roots);
	tree->nroots = nroots;
	tree->is_root_included = is_root_included;
	/* Half the descriptors joulestat may open, for keeping /proc files open. */
	tree->maxfds = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur > 128 ? (size_t)(rl.rlim_cur - 64) / 2 : 0;
	page = sysconf(_SC_PAGESIZE);
	tree->page_kib = page > 0 ? (uint64_t)page / 1024 : 4;
	/* CONFIG_PROC_CHILDREN is off by default in Kconfig: probe once. */
	snprintf(path, sizeof path, "%d/task/%d/children", (int)roots[0], (int)roots[0]);
	tree->has_children_files = fstatat(tree->proc_dirfd, path, &sb, 0) == 0;
	return 0;
}

int
proctree_use_cgroup(struct proctree *tree, struct cgroup *cg, struct errbuf *err)
{
	if (tree->epfd <= 0 && (tree->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		errbuf_set(err, "epoll_create1: %s", strerror(errno));
		return -1;
	}
	tree->cg = cg;
	return 0;
}

const struct proc *
proctree_find_live(const struct proctree *tree, pid_t pid)
{
	const struct proc	*p = lookup(tree, pid);

	return p != NULL && p->is_alive ? p : NULL;
}

const struct proc *
proctree_find(const struct proctree *tree, pid_t pid)
{
	return lookup(tree, pid);
}

void
proctree_cpu_ns(const struct proctree *tree, int64_t *user_ns, int64_t *sys_ns)
{
	long		hz = sysconf(_SC_CLK_TCK);
	uint64_t	ut = 0, st = 0;
	size_t		i;

	/* The cgroup's own count: exact, and its members' /proc files are not re-read. */
	if (tree->cg != NULL && cgroup_cpu_ns(tree->cg, user_ns, sys_ns) == 0)
		return;
	for (i = 0; i < tree->nproc; i++) {
		ut += tree->procs[i].utime_ticks - tree->procs[i].utime0_ticks;
		st += tree->procs[i].stime_ticks - tree->procs[i].stime0_ticks;
	}
	if (hz <= 0)
		hz = 100;
	*user_ns = (int64_t)(ut * (uint64_t)(NSEC_PER_SEC / hz));
	*sys_ns = (int64_t)(st * (uint64_t)(NSEC_PER_SEC / hz));
}

size_t
proctree_exclude_present(struct proctree *tree, int64_t t_ns)
{
	struct proc	*p;
	size_t		 i, n;

	proctree_refresh(tree, t_ns);
	n = tree->nlive;
	tree->excluded = xreallocarray(tree->excluded, tree->nexcluded + n,
	    sizeof *tree->excluded);
	for (i = 0; i < n; i++) {
		p = &tree->procs[tree->live[i]];
		tree->excluded[tree->nexcluded].pid = p->pid;
		tree->excluded[tree->nexcluded++].starttime_ticks = p->starttime_ticks;
	}
	/* Forget the walk: the tree starts empty, as if nothing had been seen. */
	for (i = 0; i < tree->nproc; i++) {
		close_fd(tree, &tree->procs[i].stat_fd);
		close_fd(tree, &tree->procs[i].children_fd);
		close_fd(tree, &tree->procs[i].pidfd);
	}
	tree->nproc = tree->nlive = tree->nprev = 0;
	if (tree->nslots > 0)
		memset(tree->slots, 0, tree->nslots * sizeof *tree->slots);
	tree->peak_rss_kib = tree->max_concurrent = tree->races = tree->refreshes = 0;
	tree->has_running = false;
	return n;
}

bool
proctree_reaped_excluded(struct proctree *tree, pid_t pid)
{
	size_t	i;

	for (i = 0; i < tree->nexcluded; i++) {
		if (tree->excluded[i].pid == pid) {
			tree->excluded[i] = tree->excluded[--tree->nexcluded];
			return true;
		}
	}
	return false;
}

void
proctree_free(struct proctree *tree)
{
	size_t	i;

	for (i = 0; i < tree->nproc; i++) {
		close_fd(tree, &tree->procs[i].stat_fd);
		close_fd(tree, &tree->procs[i].children_fd);
		close_fd(tree, &tree->procs[i].pidfd);
	}
	free(tree->prev);
	free(tree->kids);
	if (tree->proc_dirfd > 0)
		close(tree->proc_dirfd);
	if (tree->epfd > 0)
		close(tree->epfd);
	if (tree->loadavg_fd > 0)
		close(tree->loadavg_fd);
	free(tree->roots);
	free(tree->procs);
	free(tree->live);
	free(tree->slots);
	free(tree->queue);
	free(tree->excluded);
	memset(tree, 0, sizeof *tree);
}
