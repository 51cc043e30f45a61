/*
 * The workload's DRM clients (drm_priv.h), read through /proc/PID/fdinfo
 * as Documentation/gpu/drm-usage-stats.rst describes: engine busy time,
 * and memory, per client and device.
 *
 * Only the pids of the workload's tree are visited, never the whole of
 * /proc.  A DRM fd is recognised the kernel way, by fstatat on
 * /proc/PID/fd/N giving a character device of major 226; when that link
 * cannot be followed (fixture trees, which hold no device nodes), the fd's
 * fdinfo decides by its mandatory drm-driver key.  Clients are counted
 * once per (drm-pdev, drm-client-id), whatever the number of fds and
 * processes that share them.  The fds of a process are listed again only
 * when their number changed (the size of /proc/PID/fd) or once a second,
 * and fds found not to be DRM fds are not looked at in between: a process
 * with a thousand fds then costs tens of microseconds per tick, not
 * milliseconds.  xe takes a runtime-PM reference for every fdinfo read.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/backend.h"
#include "joulestat/proctree.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

#include "drm_parse.h"
#include "drm_priv.h"

#define DRM_MAJOR		226		/* Documentation/admin-guide/devices.txt */
/*
 * fds found not to be DRM fds are not looked at again for this long: a
 * process with a thousand fds would otherwise cost a thousand fstatat
 * calls (about 2 ms) per tick.  A new fd number is looked at at once; an
 * old number reused for a DRM device is found within this time, and its
 * counters, which start at its creation, lose nothing in launch mode.
 */
#define DRM_RECHECK_NS		(1 * NSEC_PER_SEC)

/* The device whose PCI slot is pdev; ndev when none. */
static size_t
drm_dev_by_pdev(const struct drm_ctx *ctx, const char *pdev)
{
	size_t	i;

	for (i = 0; i < ctx->ndev; i++) {
		if (strcasecmp(ctx->devs[i].pdev, pdev) == 0)
			return i;
	}
	return ctx->ndev;
}

/* Remember a process whose fdinfo was refused, once. */
static void
drm_denied_add(struct drm_ctx *ctx, const struct proc *p)
{
	struct drm_denied	*dn;
	size_t			 i;

	for (i = 0; i < ctx->ndenied; i++) {
		if (ctx->denied[i].pid == p->pid &&
		    ctx->denied[i].starttime_ticks == p->starttime_ticks)
			return;
	}
	if (backend_grow(&ctx->denied, &ctx->capdenied, ctx->ndenied + 1, sizeof *ctx->denied) != 0)
		return;
	dn = &ctx->denied[ctx->ndenied++];
	dn->pid = p->pid;
	dn->starttime_ticks = p->starttime_ticks;
	memcpy(dn->comm, p->comm, sizeof dn->comm);
}

static struct drm_fdref *
drm_ref_find(struct drm_ctx *ctx, pid_t pid, int fd)
{
	size_t	i;

	for (i = 0; i < ctx->nrefs; i++) {
		if (ctx->refs[i].pid == pid && ctx->refs[i].fd == fd)
			return &ctx->refs[i];
	}
	return NULL;
}

/* Whether the fd link at ctx->path names /dev/kfd. */
static bool
drm_is_kfd(struct drm_ctx *ctx)
{
	char	target[16];

	return readlinkat(ctx->proc_dirfd, ctx->path, target, sizeof target) == 8 &&
	    memcmp(target, "/dev/kfd", 8) == 0;
}

/*
 * Whether fd of process p is a DRM fd: 1 yes, 0 no, -1 cannot tell (the
 * link cannot be followed: let the fdinfo text decide).  ROCm and HIP
 * submit compute work through /dev/kfd, whose queues no DRM fdinfo
 * counts: a process holding it is noted in ctx, and its fd is no DRM fd.
 */
static int
drm_is_drm_fd(struct drm_ctx *ctx, const struct proc *p, int fd)
{
	struct stat	st;
	int		is = -1;

	snprintf(ctx->path, sizeof ctx->path, "%d/fd/%d", (int)p->pid, fd);
	if (fstatat(ctx->proc_dirfd, ctx->path, &st, 0) == 0) {
		if (S_ISCHR(st.st_mode) && major(st.st_rdev) == DRM_MAJOR)
			return 1;
		if (!S_ISCHR(st.st_mode))
			return 0;
		is = 0;
	}
	if (drm_is_kfd(ctx)) {
		if (ctx->kfd_pid == 0)
			ctx->kfd_pid = p->pid;
		return 0;
	}
	return is;
}

/* The non-DRM fd list of process p, started afresh when due; NULL without memory. */
static struct drm_pidfds *
drm_pidfds_get(struct drm_ctx *ctx, const struct proc *p, int64_t t_ns)
{
	struct drm_pidfds	*pf = NULL;
	size_t			 i;

	for (i = 0; i < ctx->npfs && pf == NULL; i++) {
		if (ctx->pfs[i].pid == p->pid)
			pf = &ctx->pfs[i];
	}
	if (pf == NULL) {
		if (backend_grow(&ctx->pfs, &ctx->cappfs, ctx->npfs + 1, sizeof *ctx->pfs) != 0)
			return NULL;
		pf = &ctx->pfs[ctx->npfs++];
		memset(pf, 0, sizeof *pf);
		pf->pid = p->pid;
		pf->starttime_ticks = p->starttime_ticks;
		pf->checked_ns = t_ns;
	}
	/* Another process with the same pid, or time to look again. */
	pf->is_due = pf->starttime_ticks != p->starttime_ticks ||
	    t_ns - pf->checked_ns >= DRM_RECHECK_NS;
	if (pf->is_due) {
		pf->starttime_ticks = p->starttime_ticks;
		pf->fds.n = 0;
		pf->nopen = 0;
		pf->checked_ns = t_ns;
	}
	pf->round = ctx->round;
	return pf;
}

/* Stop following ref: its fd is gone or is not a DRM fd. */
static void
drm_ref_drop(struct drm_ctx *ctx, struct drm_fdref *ref)
{
	close(ref->handle);
	*ref = ctx->refs[--ctx->nrefs];
}

/*
 * The followed fd (pid, fd), opened when it is new and may be a DRM fd;
 * NULL if it is not (then it goes on the process's non-DRM list).
 */
static struct drm_fdref *
drm_ref_get(struct drm_ctx *ctx, const struct proc *p, struct drm_pidfds *pf, int dfd,
    const char *name, int fd)
{
	struct drm_fdref	*ref;
	int			 h;

	if ((ref = drm_ref_find(ctx, p->pid, fd)) != NULL)
		return ref;
	if (backend_intset_has(&pf->fds, fd))
		return NULL;
	if (drm_is_drm_fd(ctx, p, fd) == 0) {
		backend_intset_add(&pf->fds, fd);
		return NULL;
	}
	if ((h = openat(dfd, name, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == EACCES || errno == EPERM)
			drm_denied_add(ctx, p);
		return NULL;
	}
	if (backend_grow(&ctx->refs, &ctx->caprefs, ctx->nrefs + 1, sizeof *ctx->refs) != 0) {
		close(h);
		return NULL;
	}
	ref = &ctx->refs[ctx->nrefs++];
	ref->pid = p->pid;
	ref->fd = fd;
	ref->handle = h;
	ref->round = 0;
	return ref;
}

/* The client (dev, id), created when new (*is_new); NULL without memory. */
static struct drm_client *
drm_client_get(struct drm_ctx *ctx, size_t dev, uint64_t id, bool *is_new)
{
	struct drm_client	*c;
	size_t			 i;

	*is_new = false;
	for (i = 0; i < ctx->nclients; i++) {
		if (ctx->clients[i].dev == dev && ctx->clients[i].id == id)
			return &ctx->clients[i];
	}
	if (backend_grow(&ctx->clients, &ctx->capclients, ctx->nclients + 1,
	    sizeof *ctx->clients) != 0)
		return NULL;
	c = &ctx->clients[ctx->nclients++];
	memset(c, 0, sizeof *c);
	c->dev = dev;
	c->id = id;
	*is_new = true;
	return c;
}

/* The state of engine class name of client c; *is_new when it is met first now. */
static struct drm_engine_state *
drm_client_engine(struct drm_client *c, const char *name, bool *is_new)
{
	struct drm_engine_state	*st;
	size_t			 i;

	*is_new = false;
	for (i = 0; i < c->nengines; i++) {
		if (strcmp(c->engines[i].name, name) == 0)
			return &c->engines[i];
	}
	if (c->nengines == DRM_ENGINES_MAX)
		return NULL;
	*is_new = true;
	st = &c->engines[c->nengines++];
	memset(st, 0, sizeof *st);
	snprintf(st->name, sizeof st->name, "%s", name);
	return st;
}

/* This scan's usage of device dev by pid, created when new; NULL without memory. */
static struct drm_use *
drm_use_get(struct drm_ctx *ctx, size_t dev, pid_t pid)
{
	struct drm_use	*u;
	size_t		 i;

	for (i = 0; i < ctx->nuses; i++) {
		if (ctx->uses[i].dev == dev && ctx->uses[i].pid == pid)
			return &ctx->uses[i];
	}
	if (backend_grow(&ctx->uses, &ctx->capuses, ctx->nuses + 1, sizeof *ctx->uses) != 0)
		return NULL;
	u = &ctx->uses[ctx->nuses++];
	memset(u, 0, sizeof *u);
	u->dev = dev;
	u->pid = pid;
	return u;
}

static void
drm_use_add(struct drm_use *u, const char *name, double frac)
{
	size_t	i;

	for (i = 0; i < u->nclasses; i++) {
		if (strcmp(u->classes[i].name, name) == 0) {
			u->classes[i].frac += frac;
			return;
		}
	}
	if (u->nclasses == DRM_ENGINES_MAX)
		return;
	snprintf(u->classes[u->nclasses].name, sizeof u->classes[0].name, "%s", name);
	u->classes[u->nclasses++].frac = frac;
}

/*
 * Counters of a client first seen in launch mode start from zero: its
 * process was born during the run, so the client was too, unless it came
 * from outside (an fd passed over a socket).  Busy time longer than the
 * process's life says so, and then the first reading is a baseline.
 */
static bool
drm_is_fresh(const struct proc *p, const struct drm_engine *e, int64_t t_ns, bool is_launch)
{
	int64_t	life = t_ns - p->first_seen_ns;

	if (!is_launch || !(e->has & DRM_E_NS) || life < 0)
		return false;
	return e->busy_ns <= (uint64_t)life * (e->capacity > 0 ? e->capacity : 1);
}

/* Fold one engine class of a client into the process's usage. */
static void
drm_use_engine(struct drm_use *u, struct drm_engine_state *st, const struct drm_engine *e,
    int64_t t_ns, int64_t span_ns, bool is_fresh)
{
	bool		was = st->has_last || (e->has & DRM_E_PCT) || is_fresh;
	uint64_t	busy = drm_engine_update(st, e, t_ns, span_ns, is_fresh);

	if (!was || span_ns <= 0)
		return;
	u->has_util = true;
	u->engine_ns += busy;
	drm_use_add(u, st->name, (double)busy / ((double)span_ns * (double)st->capacity));
}

/* One DRM fdinfo of process p, read at t_ns. */
static void
drm_client_update(struct drm_ctx *ctx, const struct proc *p, const struct drm_fdinfo *fi,
    int64_t t_ns, int64_t span_ns, bool is_launch)
{
	struct drm_client	*c;
	struct drm_engine_state	*st;
	struct drm_use		*u;
	size_t			 dev, i;
	uint64_t		 id;
	bool			 is_new, is_new_engine, is_fresh;

	/* A client of another GPU (NVIDIA, unselected) is not ours. */
	if ((dev = drm_dev_by_pdev(ctx, fi->pdev)) == ctx->ndev)
		return;
	/* The old amdgpu format has no client id; its pasid is one per client. */
	id = fi->has_client_id ? fi->client_id : fi->pasid;
	if (!fi->has_client_id && !fi->has_pasid)
		return;
	if ((c = drm_client_get(ctx, dev, id, &is_new)) == NULL || c->round == ctx->round)
		return;
	/* Counted once, for the first process of the tree holding it. */
	c->round = ctx->round;
	if ((u = drm_use_get(ctx, dev, p->pid)) == NULL)
		return;
	if (fi->has_dev_mem) {
		u->has_mem = true;
		u->mem_kib += fi->dev_mem_kib;
	}
	for (i = 0; i < fi->nengines; i++) {
		if ((st = drm_client_engine(c, fi->engines[i].name, &is_new_engine)) == NULL)
			continue;
		/*
		 * amdgpu prints an engine's line only after its first use
		 * (Documentation/gpu/drm-usage-stats.rst: an absent key is 0),
		 * so an engine that appears on a client already known was at 0
		 * at the last scan: its first value is busy time since then.
		 */
		is_fresh = is_new ? drm_is_fresh(p, &fi->engines[i], t_ns, is_launch) :
		    is_new_engine;
		drm_use_engine(u, st, &fi->engines[i], t_ns, span_ns, is_fresh);
	}
}

/* Read a followed fd of process p. */
static void
drm_ref_read(struct drm_ctx *ctx, const struct proc *p, struct drm_pidfds *pf,
    struct drm_fdref *ref, int64_t span_ns, bool is_launch)
{
	struct drm_fdinfo	fi;
	ssize_t			n;
	int			fd = ref->fd;

	ref->round = ctx->round;
	if ((n = pread_text(ref->handle, ctx->text, sizeof ctx->text)) < 0) {
		if (n == -EACCES || n == -EPERM)
			drm_denied_add(ctx, p);
		else
			/* ESRCH, ENOENT: the process or the fd is gone (its pid may come back). */
			drm_ref_drop(ctx, ref);
		return;
	}
	if (drm_parse_fdinfo(ctx->text, &fi) == 0) {
		drm_client_update(ctx, p, &fi, now_ns(), span_ns, is_launch);
		return;
	}
	/* No drm-driver key: not a DRM fd (or no longer one). */
	drm_ref_drop(ctx, ref);
	backend_intset_add(&pf->fds, fd);
}

/* One fd of process p: follow it if it is a DRM fd. */
static void
drm_scan_fd(struct drm_ctx *ctx, const struct proc *p, struct drm_pidfds *pf, int dfd,
    const char *name, int64_t span_ns, bool is_launch)
{
	struct drm_fdref	*ref;
	uint64_t		 fd;

	if (parse_u64_range(name, 0, INT32_MAX, &fd) != 0)
		return;
	if ((ref = drm_ref_get(ctx, p, pf, dfd, name, (int)fd)) != NULL)
		drm_ref_read(ctx, p, pf, ref, span_ns, is_launch);
}

/*
 * The number of open fds of pid: the size of /proc/PID/fd (Linux 6.2 and
 * later); 0 when unknown (older kernels say 0, fixture trees have no fd
 * directory).
 */
static int64_t
drm_nopen(struct drm_ctx *ctx, pid_t pid)
{
	struct stat	st;

	snprintf(ctx->path, sizeof ctx->path, "%d/fd", (int)pid);
	if (fstatat(ctx->proc_dirfd, ctx->path, &st, 0) == -1)
		return 0;
	return st.st_size;
}

/*
 * Only the fds already followed, when the process has as many open fds as
 * at the last listing: the directory listing is the main cost of a
 * process with many fds.  A number closed and reused in between is seen
 * at the next full listing (DRM_RECHECK_NS).
 */
static bool
drm_scan_known(struct drm_ctx *ctx, const struct proc *p, struct drm_pidfds *pf,
    int64_t span_ns, bool is_launch)
{
	int64_t	nopen = drm_nopen(ctx, p->pid);
	size_t	i;

	if (nopen <= 0 || nopen != pf->nopen || pf->is_due) {
		pf->nopen = nopen;
		return false;
	}
	for (i = ctx->nrefs; i-- > 0;) {
		/* Reading may drop the entry, which moves the last one to i. */
		if (ctx->refs[i].pid == p->pid && ctx->refs[i].round != ctx->round)
			drm_ref_read(ctx, p, pf, &ctx->refs[i], span_ns, is_launch);
	}
	return true;
}

/* Every fd of process p. */
static void
drm_scan_pid(struct drm_ctx *ctx, const struct proc *p, int64_t t_ns, int64_t span_ns,
    bool is_launch)
{
	const struct dirent64	*de;
	struct drm_pidfds	*pf;
	ssize_t			 n, off;
	int			 dfd;

	if ((pf = drm_pidfds_get(ctx, p, t_ns)) == NULL ||
	    drm_scan_known(ctx, p, pf, span_ns, is_launch))
		return;
	snprintf(ctx->path, sizeof ctx->path, "%d/fdinfo", (int)p->pid);
	if ((dfd = backend_open_dir(ctx->proc_dirfd, ctx->path)) == -1) {
		/* ENOENT or ESRCH: it just ended. */
		if (errno == EACCES || errno == EPERM)
			drm_denied_add(ctx, p);
		return;
	}
	while ((n = getdents64(dfd, ctx->dents, sizeof ctx->dents)) > 0) {
		for (off = 0; off < n; off += de->d_reclen) {
			de = (const struct dirent64 *)(ctx->dents + off);
			if (de->d_name[0] != '.')
				drm_scan_fd(ctx, p, pf, dfd, de->d_name, span_ns, is_launch);
		}
	}
	close(dfd);
}

/* Let go of the fds and clients that this scan did not meet. */
static void
drm_scan_forget(struct drm_ctx *ctx)
{
	size_t	i;

	for (i = 0; i < ctx->nrefs;) {
		if (ctx->refs[i].round == ctx->round)
			i++;
		else
			drm_ref_drop(ctx, &ctx->refs[i]);
	}
	for (i = 0; i < ctx->nclients;) {
		if (ctx->clients[i].round == ctx->round)
			i++;
		else
			ctx->clients[i] = ctx->clients[--ctx->nclients];
	}
	for (i = 0; i < ctx->npfs;) {
		if (ctx->pfs[i].round == ctx->round) {
			i++;
			continue;
		}
		backend_intset_free(&ctx->pfs[i].fds);
		ctx->pfs[i] = ctx->pfs[--ctx->npfs];
	}
}

/*
 * Hand the scan's usage on: SM% is the busiest engine class other than
 * copy engines, mem% the busiest copy engine class, each as a share of the
 * class's capacity over the interval.
 */
void
drm_scan_emit(struct drm_ctx *ctx, int64_t span_ns, struct pid_usage_set *pids)
{
	const struct drm_use	*u;
	struct pid_usage	*pu;
	double			 sm, mem;
	size_t			 i, k;

	for (i = 0; i < ctx->nuses; i++) {
		u = &ctx->uses[i];
		sm = mem = 0;
		for (k = 0; k < u->nclasses; k++) {
			if (drm_is_copy_engine(u->classes[k].name))
				mem = u->classes[k].frac > mem ? u->classes[k].frac : mem;
			else
				sm = u->classes[k].frac > sm ? u->classes[k].frac : sm;
		}
		pu = pid_usage_add(pids);
		pu->dev = u->dev;
		pu->pid = u->pid;
		pu->has_util = u->has_util;
		pu->sm_pct = (uint8_t)(sm >= 1 ? 100 : sm * 100 + 0.5);
		pu->mem_pct = (uint8_t)(mem >= 1 ? 100 : mem * 100 + 0.5);
		pu->span_ns = span_ns;
		pu->engine_ns = u->engine_ns;
		pu->gpu_mem_kib = u->has_mem ? u->mem_kib : 0;
	}
}

/* One pass over the DRM fds of the tree's live processes. */
void
drm_scan(struct drm_ctx *ctx, const struct proctree *tree, int64_t t_ns, int64_t span_ns)
{
	const struct proc	*p;
	size_t			 i;

	ctx->round++;
	ctx->nuses = 0;
	for (i = 0; i < tree->nlive; i++) {
		p = &tree->procs[tree->live[i]];
		if (p->state != 'Z')
			drm_scan_pid(ctx, p, t_ns, span_ns, !tree->is_root_included);
	}
	drm_scan_forget(ctx);
}

/* Name the processes whose fdinfo was refused, on every device. */
void
drm_finish_denied(const struct drm_ctx *ctx, struct device *dev)
{
	char	text[DEVICE_NOTE_LEN];
	size_t	len, i;
	int	w;

	if (ctx->ndenied == 0 || dev->nnotes == DEVICE_MAX_NOTES)
		return;
	len = (size_t)snprintf(text, sizeof text, "fdinfo of %zu workload process%s could not "
	    "be read (permission denied; it needs ptrace access):", ctx->ndenied,
	    ctx->ndenied == 1 ? "" : "es");
	for (i = 0; i < ctx->ndenied && len < sizeof text; i++) {
		w = snprintf(text + len, sizeof text - len, "%s %d (%.16s)", i == 0 ? "" : ",",
		    (int)ctx->denied[i].pid, ctx->denied[i].comm);
		if (w < 0 || (size_t)w >= sizeof text - len - 4) {
			snprintf(text + len, sizeof text - len, " ...");
			break;
		}
		len += (size_t)w;
	}
	backend_note(dev, "%s", text);
}

void
drm_fdinfo_end_run(struct drm_ctx *ctx)
{
	ctx->ndenied = 0;
	ctx->kfd_pid = 0;
}

void
drm_fdinfo_free(struct drm_ctx *ctx)
{
	size_t	i;

	for (i = 0; i < ctx->nrefs; i++)
		close(ctx->refs[i].handle);
	if (ctx->proc_dirfd >= 0)
		close(ctx->proc_dirfd);
	free(ctx->clients);
	free(ctx->refs);
	free(ctx->uses);
	for (i = 0; i < ctx->npfs; i++)
		backend_intset_free(&ctx->pfs[i].fds);
	free(ctx->pfs);
	free(ctx->denied);
}
