/*
 * How a refresh of the process tree finds the members (proctree_priv.h):
 * from the roots through /proc/PID/task/TID/children, so the work grows
 * with the tree, not with the machine; on kernels without
 * CONFIG_PROC_CHILDREN one scan of the whole proc root; or, when the
 * workload has a cgroup of its own, the cgroup's list of processes.
 */
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "joulestat/cgroup.h"
#include "joulestat/util.h"

#include "proctree_priv.h"

struct pidpair {
	pid_t	pid;
	pid_t	ppid;
};

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

/* Queue the children of every thread of p.  Returns false when it is gone. */
static bool
queue_children(struct proctree *tree, struct proc *p, pid_t pid, uint64_t nthreads)
{
	char		 path[64];
	struct dirent	*de;
	DIR		*dir;
	int		 fd;

	if (nthreads == 1) {
		snprintf(path, sizeof path, "%d/task/%d/children", (int)pid, (int)pid);
		if (tree_read_keep(tree, tree->proc_dirfd, path,
		    p != NULL ? &p->children_fd : NULL) < 0)
			return false;
		procfs_parse_pid_list(tree->text, queue_push, tree);
		return true;
	}
	if (p != NULL)
		tree_close_fd(tree, &p->children_fd);	/* threads now: list each one */
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
		if (tree_read_keep(tree, dirfd(dir), path, NULL) >= 0)
			procfs_parse_pid_list(tree->text, queue_push, tree);
	}
	closedir(dir);
	return true;
}

/* Walk by children files: the cost is proportional to the tree. */
void
tree_walk_children(struct proctree *tree, int64_t t_ns)
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
		if ((p = tree_visit(tree, tree->queue[head++], t_ns, &st)) == NULL)
			continue;
		p->is_root = tree->is_root_included && head <= tree->nroots;
		if (!queue_children(tree, p, p->pid, st.num_threads))
			tree->races++;
	}
}

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
		if (parse_u64(de->d_name, &v) != 0 || tree_read_stat(tree, (pid_t)v, &st) != 0)
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
void
tree_walk_scan(struct proctree *tree, int64_t t_ns)
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
		if ((p = tree_visit(tree, tree->queue[head++], t_ns, &st)) == NULL)
			continue;
		p->is_root = tree->is_root_included && head <= tree->nroots;
		queue_scanned_children(tree, pairs, npairs, p->pid);
	}
	free(pairs);
}

/* pidfd into the tree's epoll set for procs[idx]: 0, or -1 (then fd is still the caller's). */
static int
watch_pidfd(struct proctree *tree, int fd, size_t idx)
{
	struct epoll_event	ev = { .events = EPOLLIN, .data.u64 = idx };

	if (epoll_ctl(tree->epfd, EPOLL_CTL_ADD, fd, &ev) == -1)
		return -1;
	tree->nfds++;
	return 0;
}

/* A pidfd for pid in the tree's epoll set, or -1 (the descriptor budget, kernels before 5.3). */
static int
watch_member(struct proctree *tree, pid_t pid, size_t idx)
{
	int	fd;

	if (tree->nfds >= tree->maxfds || (fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		return -1;
	if (watch_pidfd(tree, fd, idx) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

bool
proctree_start_launched(struct proctree *tree, pid_t pid, int pidfd, int64_t t_ns)
{
	struct proc	*p;

	if (tree->cg == NULL || !tree->is_bare_ok || tree->refreshes != 0 || tree->nproc != 0 ||
	    tree->nfds >= tree->maxfds || watch_pidfd(tree, pidfd, tree->nproc) != 0)
		return false;
	p = tree_add_bare(tree, pid, t_ns);
	p->pidfd = pidfd;
	tree_live_push(tree, p);
	tree->has_running = true;
	/* Newer pids than the child's may be out already: the next refresh then reads the list. */
	tree->last_pid = pid;
	tree->walk_ns = t_ns;
	tree->max_concurrent = 1;
	tree->refreshes++;
	return true;
}

/*
 * A member listed by the cgroup.  A pid that was a member at the refresh
 * before is the same process unless its pidfd said it ended (then the pid
 * was reused); only a new one is read from /proc.  Without a pidfd (the
 * descriptor budget, kernels before 5.3) its stat file, kept open, tells;
 * with one, the stat file is closed at once, while the process lives, so
 * that the reaper, not joulestat, frees its /proc entry.  While is_bare_ok
 * is set, a new member with a pidfd is not read at all (the list holds no
 * zombie: it runs); a bare one is read once it is wanted in full.
 */
static void
visit_member(pid_t pid, void *arg)
{
	struct proctree		*tree = arg;
	struct proc_stat	 st;
	struct proc		*p = tree_lookup(tree, pid);
	int			 fd;

	if (p != NULL && p->is_alive)
		return;
	if (p != NULL && p->pidfd >= 0 && p->last_seen_ns == tree->walk_ns) {
		if (p->is_bare && !tree->is_bare_ok && tree_fill_bare(tree, p) != 0)
			return;
		p->is_alive = true;
		tree_live_push(tree, p);
		return;
	}
	if (tree->is_bare_ok && (fd = watch_member(tree, pid, tree->nproc)) >= 0) {
		p = tree_add_bare(tree, pid, tree->cur_ns);
		p->pidfd = fd;
		tree_live_push(tree, p);
		tree->has_running = true;
		return;
	}
	if ((p = tree_visit(tree, pid, tree->cur_ns, &st)) == NULL || p->pidfd >= 0 ||
	    (p->pidfd = watch_member(tree, pid, (size_t)(p - tree->procs))) < 0)
		return;
	tree_close_fd(tree, &p->stat_fd);
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
			tree_close_fd(tree, &tree->procs[evs[i].data.u64].pidfd);
	} while (n == (int)ARRAY_SIZE(evs));
}

/*
 * Quiet (no pid given out) and no member's pidfd said it ended: the members
 * are the same, and cgroup.procs (costlier the larger the tree) is not read.
 * Without a pidfd a member cannot say it ended, and a bare one wanted in
 * full is read as the list is: false.
 */
static bool
keep_members(struct proctree *tree, bool is_quiet, int64_t t_ns)
{
	struct proc	*p;
	size_t		 i;

	if (!is_quiet)
		return false;
	for (i = 0; i < tree->nprev; i++) {
		p = &tree->procs[tree->prev[i]];
		if (p->pidfd < 0 || (p->is_bare && !tree->is_bare_ok))
			return false;
	}
	for (i = 0; i < tree->nprev; i++) {
		p = &tree->procs[tree->prev[i]];
		p->is_alive = true;
		p->last_seen_ns = t_ns;
		tree_live_push(tree, p);
	}
	return true;
}

void
tree_walk_cgroup(struct proctree *tree, bool is_quiet, int64_t t_ns)
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
