/*
 * Per-process figures of the NVIDIA backend (nvml_priv.h): twice per
 * sample of the driver, every utilization sample of each process since the
 * previous answer (nvmlDeviceGetProcessesUtilizationInfo, else the older
 * nvmlDeviceGetProcessUtilization), weighted by the time each stands for,
 * and the device memory of the running
 * processes; the tree's processes go to the caller, the others are summed
 * into the foreign load, with the vGPU instances on a vGPU host.  When
 * accounting mode is on, at each poll and at the end, the tree's processes
 * that no sample named (NVML API Reference, nvmlDeviceGetAccountingStats).
 * NVML speaks of host pids: where /proc cannot name them (a container with
 * its own pid namespace), only the board's load is kept, unless the
 * container visibly owns the GPU (nvml_ns_match): then the board's
 * processes are the workload's, and the device's note says so.
 */
#include <sys/types.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/backend.h"
#include "joulestat/proctree.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

#include "nvml_priv.h"

/* How far an accounting record may stray from the tree's view of a process. */
#define NVML_ACCT_SLACK_NS	(1 * NSEC_PER_SEC)

/* Starting capacities of the reused buffers; they grow on demand. */
#define NVML_UTIL_CAP_MIN	32
#define NVML_PROC_CAP_MIN	16

/* The initial pid namespace's inode number (PROC_PID_INIT_INO, linux 3.8). */
#define NVML_INIT_PIDNS		"pid:[4026531836]"

/*
 * Whether NVML's pids (those of the initial pid namespace) are other than
 * the ones /proc shows the process tree by: /proc speaks for a pid
 * namespace other than the initial one.  That is so when this process is
 * in another one, unless the /proc mounted here is the host's (its pid 1
 * is in the initial namespace, as after "unshare --pid" without a new
 * /proc).
 */
bool
nvml_pids_hidden(void)
{
	char	buf[64];
	ssize_t	n;

	n = readlink("/proc/self/ns/pid", buf, sizeof buf - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (strcmp(buf, NVML_INIT_PIDNS) == 0)
		return false;
	n = readlink("/proc/1/ns/pid", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = '\0';
		return strcmp(buf, NVML_INIT_PIDNS) != 0;
	}
	return true;
}

/* A process of the tree, alive or not: samples outlive the processes they describe. */
static bool
nvml_is_mine(pid_t pid, const void *arg)
{
	return proctree_find(arg, pid) != NULL;
}

/* Host pids that /proc here cannot name: nobody is known to be ours. */
static bool
nvml_is_none(pid_t pid, const void *arg)
{
	(void)pid;
	(void)arg;
	return false;
}

/* In a container that owns the GPU: every pid the driver names is the workload's. */
static bool
nvml_is_all(pid_t pid, const void *arg)
{
	(void)pid;
	(void)arg;
	return true;
}

/* Whether /proc here shows a process with this pid. */
static bool
nvml_pid_visible(const struct proctree *tree, pid_t pid)
{
	char	name[24];

	snprintf(name, sizeof name, "%d", (int)pid);
	return faccessat(tree->proc_dirfd, name, F_OK, 0) == 0;
}

/* Whether process pid holds a file whose path starts with prefix open. */
static bool
nvml_holds_dev(int proc_dirfd, pid_t pid, const char *prefix)
{
	struct dirent	*de;
	DIR		*dir;
	char		 path[32], target[256];
	ssize_t		 n;
	size_t		 len = strlen(prefix);
	bool		 is_found = false;
	int		 fd;

	snprintf(path, sizeof path, "%d/fd", (int)pid);
	if ((fd = openat(proc_dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return false;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return false;
	}
	while (!is_found && (de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(dir), de->d_name, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		is_found = strncmp(target, prefix, len) == 0;
	}
	closedir(dir);
	return is_found;
}

/*
 * Whether a live process of the tree (joulestat itself, whose NVML holds
 * such files, aside) has an NVIDIA device file open: one directory of fd
 * links per process, read only in a pid namespace and only until one is
 * found.
 */
static bool
nvml_tree_holds_dev(const struct proctree *tree, const char *prefix)
{
	const struct proc	*p;
	pid_t			 self = getpid();
	size_t			 i;

	for (i = 0; i < tree->nlive; i++) {
		p = &tree->procs[tree->live[i]];
		if (p->pid != self && p->state != 'Z' && nvml_holds_dev(tree->proc_dirfd, p->pid,
		    prefix))
			return true;
	}
	return false;
}

/*
 * The match by container, in a pid namespace where NVML's host pids cannot
 * be looked up: when every pid the driver names (n utilization entries,
 * nrun running processes) is invisible here, it names no more running
 * processes than the tree has held at once, and the tree holds an NVIDIA
 * device file open, the common case of one container owning the GPU is
 * taken: the board's processes are the workload's.  Anything else (a named
 * pid visible here, more processes than the tree, no device file) is no
 * match, and the load stays the board's, unattributed.
 */
static bool
nvml_ns_match(struct nvml_dev *d, const struct proctree *tree, size_t n, size_t nrun)
{
	struct nvml_ctx	*ctx = d->ctx;
	size_t		 i;

	if (tree == NULL || tree->proc_dirfd < 0 || n + nrun == 0 ||
	    nrun > tree->max_concurrent)
		return false;
	for (i = 0; i < n; i++) {
		if (nvml_pid_visible(tree, (pid_t)d->norm[i].pid))
			return false;
	}
	for (i = 0; i < nrun; i++) {
		if (nvml_pid_visible(tree, d->procs[i].pid))
			return false;
	}
	if (!ctx->has_dev_fd)
		ctx->has_dev_fd = nvml_tree_holds_dev(tree, ctx->dev_prefix);
	return ctx->has_dev_fd;
}

void
nvml_ns_note(struct nvml_dev *d, struct device *dev)
{
	unsigned	no = d->ns_polls[0], yes = d->ns_polls[1];

	if (!d->ctx->is_pid_hidden || d->ns_note >= dev->nnotes || yes == 0 ||
	    (no == d->ns_noted[0] && yes == d->ns_noted[1]))
		return;
	d->ns_noted[0] = no;
	d->ns_noted[1] = yes;
	snprintf(dev->notes[d->ns_note], DEVICE_NOTE_LEN, "pid namespace: the device's "
	    "processes taken as the workload's in %u of %u answers (all their pids hidden here, "
	    "an NVIDIA device file open in the tree); by pid: docker run --pid=host", yes,
	    yes + no);
}

static int
nvml_util_reserve(struct nvml_dev *d, size_t want)
{
	size_t	cap = d->caputil, capnorm = d->caputil;

	/* Room for entries of the larger of the two layouts. */
	_Static_assert(sizeof(nvmlProcessUtilizationInfo_v1_t) >=
	    sizeof(nvmlProcessUtilizationSample_t), "largest util entry");
	if (backend_grow(&d->utilbuf, &cap, want, sizeof(nvmlProcessUtilizationInfo_v1_t)) != 0 ||
	    backend_grow(&d->norm, &capnorm, cap, sizeof *d->norm) != 0)
		return -1;
	d->caputil = cap;
	return 0;
}

/* nvmlDeviceGetProcessesUtilizationInfo: versioned, entries start with timeStamp. */
static nvmlReturn_t
nvml_util_info(struct nvml_dev *d, size_t *n)
{
	nvmlProcessesUtilizationInfo_t	info;
	nvmlReturn_t			r = NVML_ERROR_UNKNOWN;
	int				attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		memset(&info, 0, sizeof info);
		info.version = nvmlProcessesUtilizationInfo_v1;
		info.processSamplesCount = (unsigned int)d->caputil;
		info.lastSeenTimeStamp = d->util_seen_us;
		info.procUtilArray = d->caputil > 0 ? d->utilbuf : NULL;
		r = d->ctx->fn.procs_util_info(d->handle, &info);
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			break;
		if (nvml_util_reserve(d, info.processSamplesCount) != 0)
			return NVML_ERROR_MEMORY;
	}
	if (r != NVML_SUCCESS)
		return r;
	*n = info.processSamplesCount < d->caputil ? info.processSamplesCount : d->caputil;
	*n = nvml_decode_util_info(d->utilbuf, *n, d->util_seen_us, d->norm, &d->util_seen_us);
	return NVML_SUCCESS;
}

/* nvmlDeviceGetProcessUtilization: the older call, entries start with pid. */
static nvmlReturn_t
nvml_util_samples(struct nvml_dev *d, size_t *n)
{
	unsigned int	count = 0;
	nvmlReturn_t	r = NVML_ERROR_UNKNOWN;
	int		attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		count = (unsigned int)d->caputil;
		/* The timestamp goes by value, after the count pointer. */
		r = d->ctx->fn.proc_util(d->handle, d->caputil > 0 ? d->utilbuf : NULL, &count,
		    d->util_seen_us);
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			break;
		if (nvml_util_reserve(d, count) != 0)
			return NVML_ERROR_MEMORY;
	}
	if (r != NVML_SUCCESS)
		return r;
	*n = count < d->caputil ? count : d->caputil;
	*n = nvml_decode_util_samples(d->utilbuf, *n, d->util_seen_us, d->norm, &d->util_seen_us);
	return NVML_SUCCESS;
}

/*
 * Per-process utilization since the last poll, through the call chosen at
 * probe (slot).  NOT_FOUND is "no sample newer than the last one": the
 * shares of the last answer stand (NVML API Reference,
 * nvmlDeviceGetProcessUtilization).
 */
static nvmlReturn_t
nvml_util_read(struct nvml_dev *d, enum nvml_slot slot, size_t *n)
{
	nvmlReturn_t	r;

	*n = 0;
	if (slot == NVML_S_PROCS_UTIL_INFO && d->ctx->fn.procs_util_info != NULL)
		r = nvml_util_info(d, n);
	else if (slot == NVML_S_PROC_UTIL && d->ctx->fn.proc_util != NULL)
		r = nvml_util_samples(d, n);
	else
		r = NVML_ERROR_FUNCTION_NOT_FOUND;
	return r;
}

/* An answer that says the call works: samples, or none newer than the last. */
static bool
nvml_util_answers(nvmlReturn_t r)
{
	return r == NVML_SUCCESS || r == NVML_ERROR_NOT_FOUND;
}

static uint16_t
nvml_add_sat(uint16_t a, uint64_t b)
{
	return a + b > UINT16_MAX ? UINT16_MAX : (uint16_t)(a + b);
}

/* Add the utilization of vGPU instances (host side) to the foreign load. */
static void
nvml_vgpu_foreign(struct nvml_dev *d)
{
	nvmlValueType_t	type = NVML_VALUE_TYPE_UNSIGNED_INT;
	unsigned int	n = 0;
	uint64_t	sm, mem;
	size_t		i;
	nvmlReturn_t	r = NVML_ERROR_UNKNOWN;
	int		attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		n = (unsigned int)d->capvgpu;
		r = d->ctx->fn.vgpu_util(d->handle, d->vgpu_seen_us, &type, &n,
		    d->capvgpu > 0 ? d->vgpu : NULL);
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			break;
		if (backend_grow(&d->vgpu, &d->capvgpu, n, sizeof *d->vgpu) != 0)
			return;
	}
	if (r != NVML_SUCCESS)
		return;
	for (i = 0; i < n && i < d->capvgpu; i++) {
		if (d->vgpu[i].timeStamp <= d->vgpu_seen_us)
			continue;
		if (nvml_decode_value(type, &d->vgpu[i].smUtil, &sm) == 0 && sm <= 100)
			d->foreign_sm_pct = nvml_add_sat(d->foreign_sm_pct, sm);
		if (nvml_decode_value(type, &d->vgpu[i].memUtil, &mem) == 0 && mem <= 100)
			d->foreign_mem_pct = nvml_add_sat(d->foreign_mem_pct, mem);
	}
	for (i = 0; i < n && i < d->capvgpu; i++) {
		if (d->vgpu[i].timeStamp > d->vgpu_seen_us)
			d->vgpu_seen_us = d->vgpu[i].timeStamp;
	}
}

static int
nvml_procs_reserve(struct nvml_dev *d, size_t want)
{
	unsigned char		*buf;
	struct nvml_proc_mem	*procs;

	if (want <= d->capprocs)
		return 0;
	/* Grown to exactly want: capprocs is what the buffer holds. */
	if ((buf = reallocarray(d->procbuf, want, NVML_PROCESS_INFO_R535_SIZE)) == NULL)
		return -1;
	d->procbuf = buf;
	/* Compute and graphics lists end up side by side in procs. */
	if ((procs = reallocarray(d->procs, want * 2, sizeof *procs)) == NULL)
		return -1;
	d->procs = procs;
	d->capprocs = want;
	return 0;
}

/*
 * One running-process list (compute or graphics) appended to d->procs at
 * *n.  The buffer holds capprocs entries of the largest stride a driver
 * has been seen to write (32 bytes), while NVML is told capprocs entries:
 * a driver that writes another stride than its symbol promises cannot
 * overrun it, and nvml_decode_stride() finds out what was written.
 */
static nvmlReturn_t
nvml_procs_one(struct nvml_dev *d, enum nvml_slot slot, size_t *n)
{
	nvmlReturn_t	(*fn)(nvmlDevice_t, unsigned int *, void *);
	size_t		stride, bytes = 0;
	unsigned int	count = 0;
	nvmlReturn_t	r = NVML_ERROR_UNKNOWN;
	int		attempt;

	fn = slot == NVML_S_COMPUTE_PROCS ? d->ctx->fn.compute_procs : d->ctx->fn.graphics_procs;
	if (fn == NULL)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	for (attempt = 0; attempt < 2; attempt++) {
		bytes = d->capprocs * NVML_PROCESS_INFO_R535_SIZE;
		if (bytes > 0)
			memset(d->procbuf, NVML_PROC_FILL_BYTE, bytes);
		count = (unsigned int)d->capprocs;
		r = fn(d->handle, &count, d->capprocs > 0 ? d->procbuf : NULL);
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			break;
		/* Twice the need: processes come and go between the two calls. */
		if (nvml_procs_reserve(d, (size_t)count * 2 + NVML_PROC_CAP_MIN) != 0)
			return NVML_ERROR_MEMORY;
	}
	if (r != NVML_SUCCESS)
		return r;
	if (count > d->capprocs)
		count = (unsigned int)d->capprocs;
	stride = nvml_decode_stride(d->procbuf, bytes, count,
	    nvml_proc_stride(d->ctx, slot));
	*n += nvml_decode_procs(d->procbuf, count, stride, d->procs + *n);
	return NVML_SUCCESS;
}

/* The held entry for pid, created (zeroed) when missing; NULL without memory. */
static struct pid_usage *
nvml_held(struct nvml_dev *d, pid_t pid)
{
	struct pid_usage	*u;
	size_t			 i;

	for (i = 0; i < d->nheld; i++) {
		if (d->held[i].pid == pid)
			return &d->held[i];
	}
	if (backend_grow(&d->held, &d->capheld, d->nheld + 1, sizeof *d->held) != 0)
		return NULL;
	u = &d->held[d->nheld++];
	memset(u, 0, sizeof *u);
	u->pid = pid;
	return u;
}

/* The running processes, compute then graphics, into d->procs; how many. */
static size_t
nvml_poll_running(struct nvml_dev *d)
{
	size_t	n = 0;

	if (!d->has_procs)
		return 0;
	nvml_procs_one(d, NVML_S_COMPUTE_PROCS, &n);
	nvml_procs_one(d, NVML_S_GRAPHICS_PROCS, &n);
	return n;
}

/*
 * Device memory of the tree's processes, from the n running processes.
 * A listed process without a utilization entry was idle (NVML lists only
 * busy processes): 0 %, when the utilization read worked.
 */
static void
nvml_poll_memory(struct nvml_dev *d, size_t n, bool (*is_mine)(pid_t, const void *),
    const struct proctree *tree, bool is_util_ok)
{
	struct pid_usage	*u;
	size_t			 i;

	for (i = 0; i < n; i++) {
		if (!is_mine(d->procs[i].pid, tree))
			continue;
		if ((u = nvml_held(d, d->procs[i].pid)) == NULL)
			return;
		if (!u->has_util && is_util_ok)
			u->has_util = true;
		if (d->procs[i].gpu_mem_kib > u->gpu_mem_kib)
			u->gpu_mem_kib = d->procs[i].gpu_mem_kib;
	}
}

/* Hand this poll's usage to the caller: span_ns is the time it covers. */
static void
nvml_poll_emit(struct nvml_dev *d, size_t dev, int64_t span_ns, struct pid_usage_set *pids)
{
	struct pid_usage	*u;
	size_t			 i;

	for (i = 0; i < d->nheld; i++) {
		if (!d->held[i].has_util && d->held[i].gpu_mem_kib == 0)
			continue;
		u = pid_usage_add(pids);
		*u = d->held[i];
		u->dev = dev;
		/* A sample's entry covers its sample; the others the whole answer. */
		if (u->span_ns == 0)
			u->span_ns = span_ns;
		/* Named with utilization: accounting need not speak for it. */
		if (u->has_util)
			backend_intset_add(&d->seen, u->pid);
	}
}

/*
 * The driver's spacing of per-process samples, learnt from the answers:
 * the smallest spacing within one answer, or between the newest sample of
 * one answer and the oldest of the next.
 */
static void
nvml_learn_gap(struct nvml_dev *d, uint64_t gap_us)
{
	if (gap_us > 0 && (d->util_gap_us == 0 || gap_us < d->util_gap_us))
		d->util_gap_us = gap_us;
}

bool
nvml_poll_due(const struct nvml_dev *d, int64_t t_ns)
{
	/* Twice per driver sample, so that none is missed; every reading until it is known. */
	return t_ns - d->poll_ns >= (int64_t)d->util_gap_us * NSEC_PER_USEC / 2;
}

/* This answer's samples into the reading s. */
static void
nvml_poll_slots(struct nvml_dev *d, const struct nvml_split *sp, struct sample *s)
{
	unsigned	j;

	s->pid_span_ns = (int64_t)sp->span_us * NSEC_PER_USEC;
	/* The newest sample ends at its timestamp, on the wall clock. */
	s->pid_to_ns = (int64_t)d->util_seen_us * NSEC_PER_USEC - d->ctx->real_minus_mono_ns;
	/*
	 * After t_ns when the call took long, but not after it returned;
	 * before its span, or after now, the wall clock stepped.
	 */
	if (s->pid_to_ns < s->t_ns - s->pid_span_ns || s->pid_to_ns > now_ns())
		s->pid_to_ns = 0;
	s->foreign_sm_pct = d->foreign_sm_pct;
	s->foreign_mem_pct = d->foreign_mem_pct;
	s->npid_slots = sp->nslots;
	for (j = 0; j < sp->nslots; j++) {
		s->pid_slots[j].span_ns = (int64_t)sp->slot_us[j] * NSEC_PER_USEC;
		s->pid_slots[j].foreign_sm_pct = sp->slot_foreign_sm_pct[j];
		s->pid_slots[j].foreign_mem_pct = sp->slot_foreign_mem_pct[j];
	}
	s->foreign_npids = sp->foreign_npids;
	/* vGPU instances are known over the whole answer only. */
	if (d->is_vgpu_host)
		s->npid_slots = 0;
	s->valid |= M_FOREIGN;
	/* Host pids unseen here and no match: the board's load, but no shares to give out. */
	if (d->ctx->is_pid_hidden && !d->is_ns_match) {
		s->pid_span_ns = 0;
		s->npid_slots = 0;
		return;
	}
	s->valid |= M_PID_UTIL;
}

static size_t	nvml_poll_accounting(struct nvml_dev *, size_t, const struct proctree *,
		    struct pid_usage_set *);

/*
 * Accounting's figures of processes the tree saw but no sample named, as
 * the only news of this poll: a window of their own since the last poll.
 * The others' load is the last the samples gave, unknown before any.
 */
static void
nvml_poll_acct_window(struct nvml_dev *d, struct sample *s)
{
	s->pid_span_ns = s->t_ns - d->poll_ns;
	s->npid_slots = 0;
	s->is_pid_unchanged = false;
	s->valid |= M_PID_UTIL;
	if (d->has_util_seen) {
		s->foreign_sm_pct = d->foreign_sm_pct;
		s->foreign_mem_pct = d->foreign_mem_pct;
		s->valid |= M_FOREIGN;
	}
}

int
nvml_poll(struct nvml_dev *d, size_t dev, const struct proctree *tree, struct sample *s,
    struct pid_usage_set *pids)
{
	struct nvml_split	sp;
	bool			(*is_mine)(pid_t, const void *) = nvml_is_mine;
	uint64_t		since = d->util_seen_us, oldest;
	size_t			n = 0, i, nrun;
	nvmlReturn_t		r = NVML_ERROR_FUNCTION_NOT_FOUND;
	int			status = -1;

	d->nheld = 0;
	if (d->has_pid_util)
		r = nvml_util_read(d, d->util_slot, &n);
	nrun = nvml_poll_running(d);
	if (d->ctx->is_pid_hidden) {
		d->is_ns_match = nvml_ns_match(d, tree, r == NVML_SUCCESS ? n : 0, nrun);
		is_mine = d->is_ns_match ? nvml_is_all : nvml_is_none;
		if ((r == NVML_SUCCESS && n > 0) || nrun > 0)
			d->ns_polls[d->is_ns_match]++;
	}
	if (r == NVML_SUCCESS && n > 0) {
		for (oldest = d->norm[0].ts_us, i = 1; i < n; i++)
			oldest = d->norm[i].ts_us < oldest ? d->norm[i].ts_us : oldest;
		if (d->has_util_seen)
			nvml_learn_gap(d, oldest - since);
		/* Out of memory, the split keeps what fits. */
		(void)backend_grow(&d->held, &d->capheld, n, sizeof *d->held);
		d->nheld = nvml_decode_split(d->norm, n, since, d->util_gap_us, is_mine, tree, dev,
		    d->held, d->capheld, &sp);
		nvml_learn_gap(d, sp.gap_us);
		d->foreign_sm_pct = sp.foreign_sm_pct;
		d->foreign_mem_pct = sp.foreign_mem_pct;
		if (d->is_vgpu_host && d->ctx->fn.vgpu_util != NULL)
			nvml_vgpu_foreign(d);
		d->has_util_seen = true;
		nvml_poll_slots(d, &sp, s);
		status = 1;
	} else if (r == NVML_ERROR_NOT_FOUND || r == NVML_SUCCESS) {
		s->is_pid_unchanged = true;
		status = 0;
	} else if (d->has_pid_util) {
		s->is_pid_failed = true;
	}
	nvml_poll_memory(d, nrun, is_mine, tree, status == 1);
	nvml_poll_emit(d, dev, s->pid_span_ns, pids);
	if (d->is_acct && !d->ctx->is_pid_hidden && nvml_poll_accounting(d, dev, tree, pids) > 0 &&
	    status != 1 && s->t_ns > d->poll_ns) {
		nvml_poll_acct_window(d, s);
		status = 1;
	}
	d->poll_ns = s->t_ns;
	return status;
}

/*
 * Per-process utilization and running processes, tried once: what works
 * is what the polls use.  Also starts the clocks the first poll counts from.
 */
void
nvml_procs_probe(struct nvml_dev *d, struct device *dev)
{
	const struct nvml_ctx	*ctx = d->ctx;
	size_t			 n;

	d->util_seen_us = (uint64_t)(realtime_ns() / NSEC_PER_USEC);
	d->vgpu_seen_us = d->util_seen_us;
	d->poll_ns = now_ns();
	if (nvml_util_reserve(d, NVML_UTIL_CAP_MIN) != 0 ||
	    nvml_procs_reserve(d, NVML_PROC_CAP_MIN) != 0)
		return;
	/* The versioned call first (R550), else the older one. */
	d->util_slot = NVML_S_PROCS_UTIL_INFO;
	if (!d->is_mig && !nvml_util_answers(nvml_util_read(d, d->util_slot, &n)))
		d->util_slot = NVML_S_PROC_UTIL;
	if (!d->is_mig && nvml_util_answers(nvml_util_read(d, d->util_slot, &n))) {
		d->has_pid_util = true;
		dev->measures |= M_PID_UTIL;
		backend_how(dev, "pid-util", nvml_found(ctx, d->util_slot));
	}
	n = 0;
	if (nvml_procs_one(d, NVML_S_COMPUTE_PROCS, &n) == NVML_SUCCESS) {
		d->has_procs = true;
		backend_how(dev, "pid-mem", nvml_found(ctx, NVML_S_COMPUTE_PROCS));
	}
	if (dev->measures & M_PID_UTIL && !d->is_acct)
		backend_note(dev, "accounting mode is off: processes that start and end "
		    "between two per-process samples of the driver are not seen");
}

/* The pids accounting knows on this device, sorted; NULL when none. */
static unsigned int *
nvml_acct_pids(const struct nvml_dev *d, unsigned int *n)
{
	unsigned int	*pids, cap;

	*n = 0;
	if (d->ctx->fn.acct_pids(d->handle, n, NULL) != NVML_ERROR_INSUFFICIENT_SIZE || *n == 0)
		return NULL;
	cap = *n * 2;
	if ((pids = calloc(cap, sizeof *pids)) == NULL)
		return NULL;
	*n = cap;
	if (d->ctx->fn.acct_pids(d->handle, n, pids) != NVML_SUCCESS || *n > cap) {
		free(pids);
		return NULL;
	}
	qsort(pids, *n, sizeof *pids, backend_cmp_uint);
	return pids;
}

/* Append the tree's process p when only accounting has seen it. */
static void
nvml_acct_one(struct nvml_dev *d, size_t dev, const struct proc *p,
    struct pid_usage_set *pids)
{
	nvmlAccountingStats_t	 st;
	struct pid_usage	*u;

	memset(&st, 0, sizeof st);
	if (d->ctx->fn.acct_stats(d->handle, (unsigned int)p->pid, &st) != NVML_SUCCESS)
		return;
	if (!nvml_decode_accounting_matches(&st, d->ctx->real_minus_mono_ns, p->first_seen_ns,
	    p->last_seen_ns, NVML_ACCT_SLACK_NS))
		return;
	u = pid_usage_add(pids);
	u->dev = dev;
	u->pid = p->pid;
	nvml_decode_accounting(&st, u);
	/* The figures cover the process's lifetime, when it is known. */
	if (st.time != 0 && st.time < (unsigned long long)(INT64_MAX / NSEC_PER_MSEC))
		u->span_ns = (int64_t)st.time * NSEC_PER_MSEC;
	backend_intset_add(&d->seen, p->pid);
}

/*
 * At a poll: the tree's processes that ended without any sample naming
 * them (they lived between two samples of the driver), from accounting's
 * lifetime figures (NVML API Reference, nvmlDeviceGetAccountingStats).
 * Each ended process is looked up once; the accounting list is read only
 * when there is one to look up.  Returns how many entries were appended.
 */
static size_t
nvml_poll_accounting(struct nvml_dev *d, size_t dev, const struct proctree *tree,
    struct pid_usage_set *pids)
{
	const struct proc	*p;
	unsigned int		*acct, n, pid;
	size_t			 i, before = pids->n;
	bool			 is_any = false;

	if (tree == NULL)
		return 0;
	for (i = 0; i < tree->nproc && !is_any; i++) {
		p = &tree->procs[i];
		is_any = !p->is_alive && p->pid > 0 && !backend_intset_has(&d->seen, p->pid);
	}
	if (!is_any || (acct = nvml_acct_pids(d, &n)) == NULL)
		return 0;
	for (i = 0; i < tree->nproc; i++) {
		p = &tree->procs[i];
		pid = (unsigned int)p->pid;
		if (p->is_alive || p->pid <= 0 || backend_intset_has(&d->seen, p->pid))
			continue;
		/* Looked up once, found or not. */
		backend_intset_add(&d->seen, p->pid);
		if (bsearch(&pid, acct, n, sizeof *acct, backend_cmp_uint) != NULL)
			nvml_acct_one(d, dev, p, pids);
	}
	free(acct);
	return pids->n - before;
}

/*
 * Processes of the tree that lived and died between two polls: accounting
 * mode keeps their lifetime utilization and largest memory use.
 */
void
nvml_finish_accounting(struct nvml_dev *d, size_t dev, const struct proctree *tree,
    struct pid_usage_set *pids)
{
	const struct proc	*p;
	unsigned int		*acct, n, pid;
	size_t			 i;

	if (!d->is_acct || d->ctx->is_pid_hidden || tree == NULL)
		return;
	if ((acct = nvml_acct_pids(d, &n)) == NULL)
		return;
	for (i = 0; i < tree->nproc; i++) {
		p = &tree->procs[i];
		pid = (unsigned int)p->pid;
		if (p->pid <= 0 || backend_intset_has(&d->seen, p->pid) ||
		    bsearch(&pid, acct, n, sizeof *acct, backend_cmp_uint) == NULL)
			continue;
		nvml_acct_one(d, dev, p, pids);
	}
	free(acct);
}
