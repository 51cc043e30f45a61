/*
 * Who is using a simulated GPU at a given instant: the loading process's
 * descendants ("tree" lines; found by walking /proc/PID/task/TID/children
 * from getpid(), the loading process itself excluded), explicit foreign
 * pids ("proc" lines) and numbered fakes ("proccount" lines, pids from
 * NVSIM_FOREIGN_BASE, above any pid Linux can hand out).  It also keeps
 * the per-device accounting buffer, which remembers processes after they
 * are gone, and the thread that keeps it up to date between calls.  The per-process sample clock (procs_tick_ms) lives here too.
 */
#include "nvsim.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TREE_MAX	100000		/* a runaway fork bomb is not a scenario */

struct pidset {
	pid_t		*v;
	size_t		 n;
	size_t		 cap;
};

static bool
pidset_has(const struct pidset *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == pid)
			return true;
	return false;
}

static int
pidset_add(struct pidset *s, pid_t pid)
{
	pid_t	*nv;

	if (pidset_has(s, pid) || s->n >= TREE_MAX)
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		if ((nv = realloc(s->v, s->cap * sizeof(*nv))) == NULL)
			return -1;
		s->v = nv;
	}
	s->v[s->n++] = pid;
	return 0;
}

/* Add the pids listed in one children file; a vanished task is no error. */
static int
read_children_file(const char *path, pid_t root, struct pidset *s)
{
	FILE	*f;
	long	 pid;
	int	 rc = 0;

	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (rc == 0 && fscanf(f, "%ld", &pid) == 1)
		if (pid > 0 && pid != root)
			rc = pidset_add(s, (pid_t)pid);
	fclose(f);
	return rc;
}

/* Children of every thread of pid: any thread may have forked. */
static int
add_children(pid_t pid, pid_t root, struct pidset *s)
{
	char		 path[64];
	DIR		*dir;
	struct dirent	*de;
	int		 rc = 0;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((dir = opendir(path)) == NULL)
		return 0;
	while (rc == 0 && (de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/children", (long)pid,
		    de->d_name);
		rc = read_children_file(path, root, s);
	}
	closedir(dir);
	return rc;
}

static int
tree_walk(struct pidset *s)
{
	pid_t	 root = getpid();

	if (add_children(root, root, s) == -1)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		if (add_children(s->v[i], root, s) == -1)
			return -1;
	return 0;
}

/*
 * A process's utilization at t_ms: constant, or with every= alternating
 * between the first values (first half of each cycle, from from=) and the
 * second.
 */
void
procs_util_at(const struct proc_spec *ps, double t_ms, double *sm, double *mem)
{
	bool	is_second = false;
	double	k;

	if (ps->every_ms > 0) {
		k = floor((t_ms - (double)(ps->from_ms > 0 ? ps->from_ms : 0)) / ps->every_ms);
		is_second = fmod(k, 2) != 0;
	}
	*sm = is_second ? ps->sm2_pct : ps->sm_pct;
	*mem = is_second ? ps->mem2_pct : ps->mem_pct;
}

/*
 * What the driver's per-process sample taken at t_ms says: the mean
 * utilization over the sample period before it, in whole percent, as the
 * fraction of the period the process kept the engines busy.
 */
void
procs_util_sample(const struct simdev *d, const struct proc_spec *ps, double t_ms,
    unsigned *sm, unsigned *mem)
{
	double	s = 0, m = 0, a, b, step = 0.5;
	int	k, n = (int)(d->procutil_ms / step);

	if (ps->every_ms == 0) {
		*sm = ps->sm_pct;
		*mem = ps->mem_pct;
		return;
	}
	for (k = 0; k < n; k++) {
		procs_util_at(ps, t_ms - d->procutil_ms + (k + 0.5) * step, &a, &b);
		s += a;
		m += b;
	}
	*sm = (unsigned)lround(s / n);
	*mem = (unsigned)lround(m / n);
}

static int
list_add(struct proc_list *pl, unsigned pid, const struct proc_spec *ps, double t_ms)
{
	struct proc_entry *nv;
	double		 sm, mem;

	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? pl->cap * 2 : 64;
		if ((nv = realloc(pl->v, pl->cap * sizeof(*nv))) == NULL)
			return -1;
		pl->v = nv;
	}
	procs_util_at(ps, t_ms, &sm, &mem);
	pl->v[pl->n++] = (struct proc_entry){ pid, (unsigned)sm, (unsigned)mem, ps->gpumem_bytes,
	    ps->is_graphics, ps->kind == PROC_TREE ? -1 : ps->from_ms,
	    ps->kind == PROC_TREE ? NVSIM_NEVER : ps->to_ms, ps };
	return 0;
}

/* Whether /proc/PID/comm is name (a vanished process is not). */
static bool
comm_is(pid_t pid, const char *name)
{
	char	 path[64], buf[32];
	FILE	*f;
	bool	 is = false;

	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	if (fgets(buf, sizeof(buf), f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		is = strcmp(buf, name) == 0;
	}
	fclose(f);
	return is;
}

static int
add_tree(struct proc_list *pl, const struct proc_spec *ps, double t_ms)
{
	struct pidset	 s = { 0 };
	const char	*env = getenv("NVSIM_PID_OFFSET");
	unsigned	 offset = env != NULL ? (unsigned)strtoul(env, NULL, 10) : 0;
	int		 rc;

	rc = tree_walk(&s);
	for (size_t i = 0; rc == 0 && i < s.n; i++)
		if (ps->comm[0] == '\0' || comm_is(s.v[i], ps->comm))
			rc = list_add(pl, (unsigned)s.v[i] + offset, ps, t_ms);
	free(s.v);
	return rc;
}

static bool
spec_is_active(const struct proc_spec *ps, double t_ms)
{
	return t_ms >= (double)ps->from_ms &&
	    (ps->to_ms == NVSIM_NEVER || t_ms < (double)ps->to_ms);
}

/* Only the first tree line whose window is open applies. */
int
procs_collect(const struct simdev *d, double t_ms, struct proc_list *out)
{
	unsigned	 fake = NVSIM_FOREIGN_BASE;
	bool		 has_tree = false;
	int		 rc = 0;

	for (size_t i = 0; rc == 0 && i < d->nprocs; i++) {
		const struct proc_spec *ps = &d->procs[i];
		bool	 is_on = spec_is_active(ps, t_ms);

		if (ps->kind == PROC_TREE && is_on && !has_tree) {
			has_tree = true;
			rc = add_tree(out, ps, t_ms);
		} else if (ps->kind == PROC_PID && is_on)
			rc = list_add(out, ps->pid, ps, t_ms);
		for (unsigned k = 0; ps->kind == PROC_MANY && k < ps->count; k++, fake++)
			if (rc == 0 && is_on)
				rc = list_add(out, fake, ps, t_ms);
	}
	return rc;
}

void
procs_free(struct proc_list *pl)
{
	free(pl->v);
	memset(pl, 0, sizeof(*pl));
}

/* The time of the latest per-process sample: a multiple of procutil_ms. */
double
procs_tick_ms(const struct simdev *d, double t_ms)
{
	return floor(t_ms / d->procutil_ms) * d->procutil_ms;
}

static int
by_pid(const void *a, const void *b)
{
	const struct proc_entry *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * A process's life as accounting sees it: the scenario's from= and to=
 * when it has them, else the first and last time an accounting call saw
 * it (tree processes).
 */
static struct acct_rec
acct_new(const struct proc_entry *e, double t_ms)
{
	return (struct acct_rec){ e->pid, e->sm_pct, e->mem_pct, e->gpumem_bytes,
	    e->from_ms >= 0 ? (double)e->from_ms : t_ms,
	    e->to_ms != NVSIM_NEVER ? (double)e->to_ms : t_ms, true };
}

static void
acct_touch(struct acct_rec *r, const struct proc_entry *e, double t_ms)
{
	r->sm_pct = e->sm_pct;
	r->mem_pct = e->mem_pct;
	if (e->gpumem_bytes > r->gpumem_bytes)
		r->gpumem_bytes = e->gpumem_bytes;
	if (e->to_ms == NVSIM_NEVER)
		r->end_ms = t_ms;
	r->is_running = true;
}

/* Merge the sorted current processes into the sorted accounting records. */
static void
acct_merge(struct simdev *d, const struct proc_list *pl, double t_ms, struct acct_rec *out,
    size_t *nout)
{
	size_t	 i = 0, j = 0, n = 0;

	while (i < d->nacct || j < pl->n) {
		if (j > 0 && j < pl->n && pl->v[j].pid == pl->v[j - 1].pid) {
			j++;
			continue;
		}
		if (j == pl->n || (i < d->nacct && d->acct[i].pid < pl->v[j].pid)) {
			out[n] = d->acct[i++];
			out[n++].is_running = false;
		} else if (i == d->nacct || pl->v[j].pid < d->acct[i].pid) {
			out[n++] = acct_new(&pl->v[j++], t_ms);
		} else {
			out[n] = d->acct[i++];
			acct_touch(&out[n++], &pl->v[j++], t_ms);
		}
	}
	*nout = n;
}

/* Bring the accounting buffer up to t_ms.  Returns 0 or -1 (no memory). */
int
procs_account(struct simdev *d, double t_ms)
{
	struct proc_list	 pl = { 0 };
	struct acct_rec		*nv;
	size_t			 n;

	if (procs_collect(d, t_ms, &pl) == -1) {
		procs_free(&pl);
		return -1;
	}
	if (pl.n > 1)
		qsort(pl.v, pl.n, sizeof(*pl.v), by_pid);
	if ((nv = calloc(d->nacct + pl.n + 1, sizeof(*nv))) == NULL) {
		procs_free(&pl);
		return -1;
	}
	acct_merge(d, &pl, t_ms, nv, &n);
	free(d->acct);
	d->acct = nv;
	d->nacct = n;
	procs_free(&pl);
	return 0;
}

/* MIG forces accounting off; a vGPU host has none to read. */
bool
procs_has_accounting(const struct simdev *d)
{
	return d->has_accounting && d->mig != MIG_ON &&
	    d->virt != NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU;
}

static void *
watch_main(void *arg)
{
	struct timespec	 ts = { 0, NVSIM_WATCH_MS * 1000000L };
	double		 t;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&nvsim.lock);
		if (nvsim.is_watch_stopped || !nvsim.is_loaded) {
			pthread_mutex_unlock(&nvsim.lock);
			return NULL;
		}
		t = state_ms(state_now_ns());
		for (size_t i = 0; i < nvsim.sc.ndev; i++)
			if (procs_has_accounting(&nvsim.sc.devs[i]))
				(void)procs_account(&nvsim.sc.devs[i], t);
		pthread_mutex_unlock(&nvsim.lock);
		nanosleep(&ts, NULL);
	}
}

/*
 * The thread blocks every signal: the loading program may take its
 * signals through a signalfd, which works only if no thread can receive
 * them.
 */
void
procs_watch_start(void)
{
	sigset_t	 all, old;
	bool		 is_needed = false;

	for (size_t i = 0; i < nvsim.sc.ndev; i++)
		is_needed |= procs_has_accounting(&nvsim.sc.devs[i]);
	if (!is_needed || nvsim.is_watching)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	nvsim.is_watch_stopped = false;
	nvsim.is_watching = pthread_create(&nvsim.watch, NULL, watch_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

bool
procs_watch_stop(pthread_t *th)
{
	if (!nvsim.is_watching)
		return false;
	nvsim.is_watch_stopped = true;
	nvsim.is_watching = false;
	*th = nvsim.watch;
	return true;
}
