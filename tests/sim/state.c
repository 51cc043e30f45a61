/*
 * The simulator's one process-global state and the gate every exported
 * call passes through: reference-counted init and shutdown, the time
 * base (time 0 is the first successful nvmlInit, on CLOCK_MONOTONIC,
 * with CLOCK_REALTIME captured at the same moment for the µs timestamps
 * NVML hands out), handle validation, and the scenario's faults (slow
 * calls, lost GPUs, calls that are never supported).  A single mutex
 * protects it all; the only time a call runs without it is while a slow
 * fault sleeps.  Ground truth is written at the final nvmlShutdown, or
 * from the destructor when the process never shut down.
 */
#include "nvsim.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct sim_state nvsim = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ctl_fd = -1,
};

static int64_t
clock_ns(clockid_t id)
{
	struct timespec	 ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
state_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

double
state_ms(int64_t now_ns)
{
	return (double)(now_ns - nvsim.t0_ns) / 1e6;
}

/* The wall clock is an affine image of the monotonic one, fixed at time 0. */
unsigned long long
state_wall_us(double t_ms)
{
	return (unsigned long long)(nvsim.rt0_us + llround(t_ms * 1000));
}

static void
sleep_ms(unsigned ms)
{
	struct timespec	 ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static bool
in_window(const struct window *w, double t_ms)
{
	return t_ms >= (double)w->from_ms &&
	    (w->to_ms == NVSIM_NEVER || t_ms < (double)w->to_ms);
}

/* The kinds of call fault, by which member of struct call_fault is set. */
enum fault_kind {
	FAULT_SLOW,
	FAULT_FAIL,
	FAULT_NOTSUPPORTED,
};

static enum fault_kind
kind_of(const struct call_fault *f)
{
	if (f->delay_ms > 0)
		return FAULT_SLOW;
	return f->rc != NVML_SUCCESS ? FAULT_FAIL : FAULT_NOTSUPPORTED;
}

/* The first fault of the kind asked for on call; slow and fail ones only inside their window. */
static const struct call_fault *
find_fault(const struct call_fault *f, size_t n, const char *call, enum fault_kind kind,
    double t_ms)
{
	for (size_t i = 0; i < n; i++) {
		if (kind_of(&f[i]) != kind || strcmp(f[i].call, call) != 0)
			continue;
		if (kind == FAULT_NOTSUPPORTED || in_window(&f[i].when, t_ms))
			return &f[i];
	}
	return NULL;
}

static const struct call_fault *
fault_for(const struct simdev *d, const char *call, enum fault_kind kind, double t_ms)
{
	const struct call_fault *f = NULL;

	if (d != NULL)
		f = find_fault(d->faults, d->nfaults, call, kind, t_ms);
	if (f == NULL)
		f = find_fault(nvsim.sc.faults, nvsim.sc.nfaults, call, kind, t_ms);
	return f;
}

bool
state_is_lost(const struct simdev *d, double t_ms)
{
	for (size_t i = 0; i < d->nlost; i++)
		if (in_window(&d->lost[i], t_ms))
			return true;
	return false;
}

/* A handle is valid only if it points at one of our devices. */
static struct simdev *
dev_of(nvmlDevice_t h)
{
	for (size_t i = 0; i < nvsim.sc.ndev; i++)
		if ((void *)h == (void *)&nvsim.sc.devs[i])
			return &nvsim.sc.devs[i];
	return NULL;
}

/* Sleep out a slow fault with the lock released; false if shut down meanwhile. */
static bool
wait_slow(const struct simdev *d, const char *call, int64_t *now_ns)
{
	const struct call_fault *f;

	f = fault_for(d, call, FAULT_SLOW, state_ms(*now_ns));
	if (f == NULL)
		return true;
	pthread_mutex_unlock(&nvsim.lock);
	sleep_ms(f->delay_ms);
	pthread_mutex_lock(&nvsim.lock);
	*now_ns = state_now_ns();
	return nvsim.refcount > 0;
}

nvmlReturn_t
state_enter(const char *call)
{
	const struct call_fault	*f;
	int64_t			 now;

	pthread_mutex_lock(&nvsim.lock);
	if (nvsim.refcount == 0)
		return state_leave(NVML_ERROR_UNINITIALIZED);
	now = state_now_ns();
	if (!wait_slow(NULL, call, &now))
		return state_leave(NVML_ERROR_UNINITIALIZED);
	if ((f = fault_for(NULL, call, FAULT_FAIL, state_ms(now))) != NULL)
		return state_leave(f->rc);
	if (fault_for(NULL, call, FAULT_NOTSUPPORTED, 0) != NULL)
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	return NVML_SUCCESS;
}

nvmlReturn_t
state_enter_device(const char *call, nvmlDevice_t h, struct simdev **dp, int64_t *now_ns)
{
	const struct call_fault	*f;
	struct simdev		*d;
	int64_t			 now;

	pthread_mutex_lock(&nvsim.lock);
	if (nvsim.refcount == 0)
		return state_leave(NVML_ERROR_UNINITIALIZED);
	if ((d = dev_of(h)) == NULL)
		return state_leave(NVML_ERROR_INVALID_ARGUMENT);
	now = state_now_ns();
	if (!wait_slow(d, call, &now))
		return state_leave(NVML_ERROR_UNINITIALIZED);
	if (state_is_lost(d, state_ms(now)))
		return state_leave(NVML_ERROR_GPU_IS_LOST);
	if ((f = fault_for(d, call, FAULT_FAIL, state_ms(now))) != NULL)
		return state_leave(f->rc);
	if (fault_for(d, call, FAULT_NOTSUPPORTED, 0) != NULL)
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	*dp = d;
	if (now_ns != NULL)
		*now_ns = now;
	return NVML_SUCCESS;
}

nvmlReturn_t
state_enter_device_args(const char *call, nvmlDevice_t h, bool is_args_ok, struct simdev **dp,
    int64_t *now_ns)
{
	nvmlReturn_t	 rc;

	if ((rc = state_enter_device(call, h, dp, now_ns)) != NVML_SUCCESS)
		return rc;
	return is_args_ok ? NVML_SUCCESS : state_leave(NVML_ERROR_INVALID_ARGUMENT);
}

bool
state_is_buffer_ok(const unsigned int *count, const void *buf)
{
	return count != NULL && (buf != NULL || *count == 0);
}

/* The MIG device h is, and its board; NULL when h is none. */
static struct simmig *
mig_of(nvmlDevice_t h, struct simdev **dp)
{
	for (size_t i = 0; i < nvsim.sc.ndev; i++) {
		for (size_t k = 0; k < nvsim.sc.devs[i].nmigs; k++) {
			if ((void *)h == (void *)&nvsim.sc.devs[i].migs[k]) {
				*dp = &nvsim.sc.devs[i];
				return &nvsim.sc.devs[i].migs[k];
			}
		}
	}
	return NULL;
}

nvmlReturn_t
state_enter_mig(const char *call, nvmlDevice_t h, struct simdev **dp, struct simmig **mp)
{
	struct simdev	*d = NULL;
	struct simmig	*m;
	int64_t		 now;

	pthread_mutex_lock(&nvsim.lock);
	if (nvsim.refcount == 0)
		return state_leave(NVML_ERROR_UNINITIALIZED);
	if ((m = mig_of(h, &d)) == NULL)
		return state_leave(NVML_ERROR_INVALID_ARGUMENT);
	now = state_now_ns();
	if (state_is_lost(d, state_ms(now)))
		return state_leave(NVML_ERROR_GPU_IS_LOST);
	if (fault_for(d, call, FAULT_NOTSUPPORTED, 0) != NULL)
		return state_leave(NVML_ERROR_NOT_SUPPORTED);
	*dp = d;
	*mp = m;
	return NVML_SUCCESS;
}

bool
state_is_mig(nvmlDevice_t h)
{
	struct simdev	*d;
	bool		 is_mig;

	pthread_mutex_lock(&nvsim.lock);
	is_mig = nvsim.refcount > 0 && mig_of(h, &d) != NULL;
	pthread_mutex_unlock(&nvsim.lock);
	return is_mig;
}

nvmlReturn_t
state_leave(nvmlReturn_t rc)
{
	pthread_mutex_unlock(&nvsim.lock);
	return rc;
}

int
state_index_of(nvmlDevice_t h)
{
	struct simdev	*d;
	int		 index;

	pthread_mutex_lock(&nvsim.lock);
	d = nvsim.refcount > 0 ? dev_of(h) : NULL;
	index = d != NULL ? (int)d->index : -1;
	pthread_mutex_unlock(&nvsim.lock);
	return index;
}

/* NVSIM_TRUTH_GAP_MS in ns; 0 when unset (no sessions). */
static int64_t
session_gap_ns(void)
{
	const char	*env = getenv("NVSIM_TRUTH_GAP_MS");
	char		*end;
	long		 v;

	if (env == NULL || *env == '\0')
		return 0;
	v = strtol(env, &end, 10);
	return *end == '\0' && v > 0 ? (int64_t)v * 1000000 : 0;
}

/*
 * Load the scenario once.  No NVSIM_SCENARIO, or a file that cannot be
 * opened, looks like a machine without the driver; a mistake in the file
 * is NVML_ERROR_UNKNOWN.  Either way the reason goes to stderr.
 */
static nvmlReturn_t
load_locked(void)
{
	const char	*path = getenv("NVSIM_SCENARIO");
	char		 err[NVSIM_ERRLEN];
	int		 rc;

	if (path == NULL || *path == '\0') {
		fprintf(stderr, "nvsim: NVSIM_SCENARIO is not set\n");
		return NVML_ERROR_DRIVER_NOT_LOADED;
	}
	if ((rc = scenario_load(path, &nvsim.sc, err)) != 0) {
		fprintf(stderr, "nvsim: %s\n", err);
		return rc == -2 ? NVML_ERROR_DRIVER_NOT_LOADED : NVML_ERROR_UNKNOWN;
	}
	nvsim.t0_ns = state_now_ns();
	nvsim.sess_gap_ns = session_gap_ns();
	nvsim.rt0_us = clock_ns(CLOCK_REALTIME) / 1000;
	nvsim.is_loaded = true;
	return NVML_SUCCESS;
}

nvmlReturn_t
state_init(void)
{
	nvmlReturn_t	 rc = NVML_SUCCESS;

	pthread_mutex_lock(&nvsim.lock);
	if (!nvsim.is_loaded)
		rc = load_locked();
	if (rc == NVML_SUCCESS) {
		/*
		 * The driver library keeps /dev/nvidiactl open from nvmlInit on,
		 * without O_CLOEXEC: so does the simulator, with /dev/null, so
		 * that the tests see whether it reaches the workload.
		 */
		if (nvsim.refcount++ == 0) {
			nvsim.ctl_fd = open("/dev/null", O_RDONLY);
			procs_watch_start();
		}
		nvsim.is_truth_due = true;
	}
	return state_leave(rc);
}

nvmlReturn_t
state_shutdown(void)
{
	pthread_t	 th;
	bool		 is_join = false;

	pthread_mutex_lock(&nvsim.lock);
	if (nvsim.refcount == 0)
		return state_leave(NVML_ERROR_UNINITIALIZED);
	if (--nvsim.refcount == 0) {
		is_join = procs_watch_stop(&th);
		truth_write(&nvsim);
		nvsim.is_truth_due = false;
		if (nvsim.ctl_fd != -1)
			close(nvsim.ctl_fd);
		nvsim.ctl_fd = -1;
	}
	pthread_mutex_unlock(&nvsim.lock);
	if (is_join)
		pthread_join(th, NULL);
	return NVML_SUCCESS;
}

void
state_note_read(struct simdev *d, int64_t now_ns)
{
	int64_t	gap = nvsim.sess_gap_ns;

	if (gap > 0 && (d->nreads == 0 || now_ns - d->last_read_ns > gap)) {
		d->is_sess_open = d->nsess < NVSIM_MAX_SESSIONS;
		if (d->is_sess_open)
			d->sess_first_ns[d->nsess++] = now_ns;
	}
	if (gap > 0 && d->is_sess_open)
		d->sess_last_ns[d->nsess - 1] = now_ns;
	if (d->nreads++ == 0)
		d->first_read_ns = now_ns;
	d->last_read_ns = now_ns;
}

nvmlReturn_t
state_copy_string(char *dst, unsigned int len, const char *src)
{
	size_t	 n = strlen(src) + 1;

	if (dst == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (len < n)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(dst, src, n);
	return NVML_SUCCESS;
}

/* A process that exits without nvmlShutdown still leaves its truth behind. */
__attribute__((destructor)) static void
state_fini(void)
{
	pthread_t	 th;
	bool		 is_join;

	pthread_mutex_lock(&nvsim.lock);
	is_join = procs_watch_stop(&th);
	if (nvsim.is_truth_due)
		truth_write(&nvsim);
	nvsim.is_truth_due = false;
	nvsim.refcount = 0;
	if (nvsim.is_loaded)
		scenario_free(&nvsim.sc);
	nvsim.is_loaded = false;
	pthread_mutex_unlock(&nvsim.lock);
	if (is_join)
		pthread_join(th, NULL);
}
