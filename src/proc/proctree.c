/*
 * The workload's process tree (HACKING.md, "Measurement rules"): its
 * records, and one refresh.  How a refresh finds the members is in
 * proctree_walk.c.  Processes are identified by (pid, starttime) and kept
 * after they exit, so totals and per-process tables survive them.  The
 * stat and children files of live processes stay open and are re-read with
 * pread, within a budget of file descriptors; an open /proc file never
 * reads a new process that reused the pid (it fails with ESRCH instead).
 * Reads that race with an exiting process are skipped and counted, never
 * fatal.
 */
#include "joulestat/proctree.h"

#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/newpids.h"
#include "joulestat/util.h"

#include "proctree_priv.h"

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
struct proc *
tree_lookup(const struct proctree *tree, pid_t pid)
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

struct proc *
tree_add_bare(struct proctree *tree, pid_t pid, int64_t t_ns)
{
	struct proc_stat	 st = { .pid = pid };
	struct proc		*p = add_proc(tree, &st, t_ns);

	p->is_bare = true;
	p->is_alive = true;
	p->state = '?';
	p->last_seen_ns = t_ns;
	return p;
}

int
tree_fill_bare(struct proctree *tree, struct proc *p)
{
	struct proc_stat	st;

	if (tree_read_stat(tree, p->pid, &st) != 0) {
		tree->races++;
		return -1;
	}
	p->starttime_ticks = st.starttime_ticks;
	p->ppid = st.ppid;
	p->state = st.state;
	memcpy(p->comm, st.comm, sizeof p->comm);
	p->is_bare = false;
	return 0;
}

void
tree_live_push(struct proctree *tree, struct proc *p)
{
	if (tree->nlive == tree->caplive) {
		tree->caplive = tree->caplive == 0 ? 64 : tree->caplive * 2;
		tree->live = xreallocarray(tree->live, tree->caplive, sizeof *tree->live);
	}
	tree->live[tree->nlive++] = (size_t)(p - tree->procs);
}

void
tree_close_fd(struct proctree *tree, int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		tree->nfds--;
	}
	*fd = -1;
}

/*
 * Read path under dirfd whole into the tree's text buffer, which grows to
 * hold it (a list of a thousand children is longer than any fixed buffer,
 * and a pid cut at its end would be read as another pid).  Through the
 * file open in *slot when there is one; a file opened here is kept in
 * *slot while the descriptor budget allows, and closed when slot is NULL.
 */
ssize_t
tree_read_keep(struct proctree *tree, int dirfd, const char *path, int *slot)
{
	ssize_t	n;
	int	fd;

	if (slot != NULL && *slot >= 0) {
		if ((n = pread_grow(*slot, &tree->text, &tree->captext)) >= 0)
			return n;
		tree_close_fd(tree, slot);
	}
	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) == -1)
		return -errno;
	n = pread_grow(fd, &tree->text, &tree->captext);
	if (n >= 0 && slot != NULL && tree->nfds < tree->maxfds) {
		*slot = fd;
		tree->nfds++;
	} else
		close(fd);
	return n;
}

int
tree_read_stat(const struct proctree *tree, pid_t pid, struct proc_stat *st)
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
	struct proc	*p = tree_lookup(tree, pid);
	int		 fd = -1, r;
	ssize_t		 n;

	*known = NULL;
	if (p != NULL && p->stat_fd >= 0) {
		if (pread_text(p->stat_fd, text, sizeof text) >= 0 &&
		    procfs_parse_stat(text, st) == 0) {
			*known = p;
			return 0;
		}
		tree_close_fd(tree, &p->stat_fd);	/* it ended; pid may be someone else's */
		tree_close_fd(tree, &p->children_fd);
	}
	snprintf(path, sizeof path, "%d/stat", (int)pid);
	if ((n = tree_read_keep(tree, tree->proc_dirfd, path, &fd)) < 0)
		return (int)n;
	if ((r = procfs_parse_stat(tree->text, st)) != 0) {
		tree_close_fd(tree, &fd);
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
struct proc *
tree_visit(struct proctree *tree, pid_t pid, int64_t t_ns, struct proc_stat *st)
{
	struct proc	*p;

	tree->pending_fd = -1;
	if (stat_of(tree, pid, st, &p) != 0) {
		tree->races++;
		return NULL;
	}
	if (p == NULL && is_excluded(tree, st)) {
		tree_close_fd(tree, &tree->pending_fd);
		return NULL;
	}
	if (p != NULL && p->is_alive) {
		tree_close_fd(tree, &tree->pending_fd);
		return NULL;	/* already visited in this walk */
	}
	if (p == NULL) {
		p = tree_lookup(tree, pid);
		if (p != NULL && p->starttime_ticks == st->starttime_ticks && p->is_alive) {
			tree_close_fd(tree, &tree->pending_fd);
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
		tree_close_fd(tree, &tree->pending_fd);
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
	p->named_ns = t_ns;
	p->ppid = st->ppid;
	p->state = st->state;
	p->utime_ticks = st->utime_ticks;
	p->stime_ticks = st->stime_ticks;
	p->rss_kib = st->rss_pages * tree->page_kib;
	if (p->rss_kib > p->max_rss_kib)
		p->max_rss_kib = p->rss_kib;
	p->last_seen_ns = t_ns;
	p->is_alive = true;
	tree_live_push(tree, p);
}

/* A new pid's parent is a root or a process seen before (newpids.h). */
static bool
is_tree_parent(pid_t ppid, void *arg)
{
	const struct proctree	*tree = arg;
	size_t			 i = 0;

	while (i < tree->nroots && tree->roots[i] != ppid)
		i++;
	return i < tree->nroots || tree_lookup(tree, ppid) != NULL;
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
			r = tree_read_stat(tree, p->pid, &st);
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

/*
 * CONFIG_PROC_CHILDREN is off by default in Kconfig: probed once, when a
 * walk first needs the files (the cgroup tracker never does).
 */
static bool
can_walk_children(struct proctree *tree)
{
	char		path[64];
	struct stat	sb;

	if (tree->has_children_files < 0) {
		snprintf(path, sizeof path, "%d/task/%d/children", (int)tree->roots[0],
		    (int)tree->roots[0]);
		tree->has_children_files = fstatat(tree->proc_dirfd, path, &sb, 0) == 0;
	}
	return tree->has_children_files;
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
			tree_close_fd(tree, &p->stat_fd);
			tree_close_fd(tree, &p->children_fd);
			tree_close_fd(tree, &p->pidfd);
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
		tree_walk_cgroup(tree, is_quiet, t_ns);
	else if (!is_quiet || !restat_live(tree, t_ns)) {
		if (can_walk_children(tree))
			tree_walk_children(tree, t_ns);
		else
			tree_walk_scan(tree, t_ns);
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
	tree->has_children_files = -1;
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
	const struct proc	*p = tree_lookup(tree, pid);

	return p != NULL && p->is_alive ? p : NULL;
}

void
proctree_fresh_name(struct proctree *tree, pid_t pid, int64_t t_ns, int64_t max_age_ns)
{
	struct proc		*p = tree_lookup(tree, pid);
	struct proc_stat	 st;

	if (p == NULL || !p->is_alive || (max_age_ns > 0 && t_ns - p->named_ns < max_age_ns))
		return;
	p->named_ns = t_ns;
	if (p->is_bare)
		(void)tree_fill_bare(tree, p);
	else if (tree_read_stat(tree, pid, &st) == 0 && st.starttime_ticks == p->starttime_ticks)
		memcpy(p->comm, st.comm, sizeof p->comm);
}

const struct proc *
proctree_find(const struct proctree *tree, pid_t pid)
{
	return tree_lookup(tree, pid);
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
		tree_close_fd(tree, &tree->procs[i].stat_fd);
		tree_close_fd(tree, &tree->procs[i].children_fd);
		tree_close_fd(tree, &tree->procs[i].pidfd);
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
		tree_close_fd(tree, &tree->procs[i].stat_fd);
		tree_close_fd(tree, &tree->procs[i].children_fd);
		tree_close_fd(tree, &tree->procs[i].pidfd);
	}
	free(tree->prev);
	free(tree->text);
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
