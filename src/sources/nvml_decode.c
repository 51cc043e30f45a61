/*
 * Pure decoding of NVML answers into joulestat's structs (HACKING.md, "The pipeline" and "Measurement rules").
 * This file holds no NVML calls, no clocks and no allocation: nvml.c makes
 * the calls and hands the raw answers here, and the unit tests feed
 * byte-exact structs.  It also goes the other way for --lock-clocks:
 * a request becomes the arguments of the locked-clocks calls, and their
 * outcome the words of the report.  Layouts and constants come from
 * nvml_abi.h.
 */
#include "nvml_decode.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Longer accounting times (ms) are taken as garbage: about 31 years. */
#define NVML_ACCOUNTING_MAX_MS	(1000ull * 86400 * 365 * 31)

/* Candidate entry sizes of the running-process calls, see nvml_abi.h. */
static const size_t nvml_strides[] = {
	sizeof(nvmlProcessInfo_v1_t),
	sizeof(nvmlProcessInfo_v2_t),
	NVML_PROCESS_INFO_R535_SIZE,
};

static int
nvml_decode_double(double d, uint64_t *out)
{
	if (isnan(d) || d < 0 || d >= 18446744073709551616.0)
		return -1;
	*out = (uint64_t)llround(d);
	return 0;
}

int
nvml_decode_value(nvmlValueType_t type, const nvmlValue_t *v, uint64_t *out)
{
	switch (type) {
	case NVML_VALUE_TYPE_DOUBLE:
		return nvml_decode_double(v->dVal, out);
	case NVML_VALUE_TYPE_UNSIGNED_INT:
		if (v->uiVal == NVML_VALUE_NOT_AVAILABLE_UINT)
			return -1;
		*out = v->uiVal;
		return 0;
	case NVML_VALUE_TYPE_UNSIGNED_LONG:
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
		/* unsigned long is 8 bytes on LP64, like unsigned long long. */
		if (v->ullVal == NVML_VALUE_NOT_AVAILABLE_ULL)
			return -1;
		*out = v->ullVal;
		return 0;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		if (v->sllVal < 0)
			return -1;
		*out = (uint64_t)v->sllVal;
		return 0;
	case NVML_VALUE_TYPE_SIGNED_INT:
		if (v->siVal < 0)
			return -1;
		*out = (uint64_t)v->siVal;
		return 0;
	case NVML_VALUE_TYPE_UNSIGNED_SHORT:
		if (v->usVal == 0xffff)
			return -1;
		*out = v->usVal;
		return 0;
	default:
		return -1;
	}
}

nvmlReturn_t
nvml_decode_field(const nvmlFieldValue_t *fv, uint64_t *out)
{
	if (fv->nvmlReturn != NVML_SUCCESS)
		return fv->nvmlReturn;
	if (nvml_decode_value(fv->valueType, &fv->value, out) != 0)
		return NVML_ERROR_UNKNOWN;
	return NVML_SUCCESS;
}

int
nvml_decode_pstate(nvmlPstates_t p)
{
	if (p > NVML_PSTATE_15)
		return PSTATE_UNKNOWN;
	return (int)p;
}

int64_t
nvml_decode_time_ns(uint64_t ts_us, int64_t real_minus_mono_ns)
{
	if (ts_us > (uint64_t)(INT64_MAX / NSEC_PER_USEC))
		ts_us = (uint64_t)(INT64_MAX / NSEC_PER_USEC);
	return (int64_t)ts_us * NSEC_PER_USEC - real_minus_mono_ns;
}

unsigned
nvml_decode_throttle(unsigned long long reasons)
{
	static const struct {
		unsigned long long	nvml;
		unsigned		bit;
	} map[] = {
		{ NVML_CLOCKS_EVENT_REASON_GPU_IDLE, THROTTLE_IDLE },
		{ NVML_CLOCKS_EVENT_REASON_APPLICATIONS_CLOCKS_SETTING, THROTTLE_APP_CLOCKS },
		{ NVML_CLOCKS_EVENT_REASON_SW_POWER_CAP, THROTTLE_SW_POWER },
		{ NVML_CLOCKS_EVENT_REASON_HW_SLOWDOWN, THROTTLE_HW_SLOWDOWN },
		{ NVML_CLOCKS_EVENT_REASON_SYNC_BOOST, THROTTLE_SYNC_BOOST },
		{ NVML_CLOCKS_EVENT_REASON_SW_THERMAL_SLOWDOWN, THROTTLE_SW_THERMAL },
		{ NVML_CLOCKS_EVENT_REASON_HW_THERMAL_SLOWDOWN, THROTTLE_HW_THERMAL },
		{ NVML_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN, THROTTLE_POWER_BRAKE },
		{ NVML_CLOCKS_EVENT_REASON_DISPLAY_CLOCK_SETTING, THROTTLE_DISPLAY },
	};
	unsigned long long	known = 0;
	unsigned		t = 0;
	size_t			i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		known |= map[i].nvml;
		if (reasons & map[i].nvml)
			t |= map[i].bit;
	}
	if (reasons & ~known)
		t |= THROTTLE_OTHER;
	return t;
}

/* Keep one entry if it passes the robustness filters; see the header. */
static bool
nvml_decode_keep(uint64_t ts_us, unsigned int pid, unsigned int sm, unsigned int mem,
    uint64_t last_seen_us, struct nvml_pid_util *out, uint64_t *newest_us)
{
	if (ts_us <= last_seen_us || sm > 100 || mem > 100)
		return false;
	if (pid == 0 || pid > (unsigned int)INT_MAX)
		return false;
	out->ts_us = ts_us;
	out->pid = (pid_t)pid;
	out->sm_pct = (uint8_t)sm;
	out->mem_pct = (uint8_t)mem;
	if (ts_us > *newest_us)
		*newest_us = ts_us;
	return true;
}

size_t
nvml_decode_util_info(const nvmlProcessUtilizationInfo_v1_t *v, size_t n,
    uint64_t last_seen_us, struct nvml_pid_util *out, uint64_t *newest_us)
{
	size_t	i, k = 0;

	for (i = 0; i < n; i++) {
		if (nvml_decode_keep(v[i].timeStamp, v[i].pid, v[i].smUtil, v[i].memUtil,
		    last_seen_us, &out[k], newest_us))
			k++;
	}
	return k;
}

size_t
nvml_decode_util_samples(const nvmlProcessUtilizationSample_t *v, size_t n,
    uint64_t last_seen_us, struct nvml_pid_util *out, uint64_t *newest_us)
{
	size_t	i, k = 0;

	for (i = 0; i < n; i++) {
		if (nvml_decode_keep(v[i].timeStamp, v[i].pid, v[i].smUtil, v[i].memUtil,
		    last_seen_us, &out[k], newest_us))
			k++;
	}
	return k;
}

static int
nvml_decode_ts_cmp(const void *a, const void *b)
{
	const struct nvml_pid_util	*x = a, *y = b;

	return (x->ts_us > y->ts_us) - (x->ts_us < y->ts_us);
}

static int
nvml_decode_pid_cmp(const void *a, const void *b)
{
	const struct nvml_pid_util	*x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return nvml_decode_ts_cmp(a, b);
}

static uint16_t
nvml_decode_add_sat(uint16_t a, unsigned b)
{
	return (unsigned)a + b > UINT16_MAX ? UINT16_MAX : (uint16_t)(a + b);
}

/*
 * Weight each entry by the time its sample stands for: from the previous
 * distinct timestamp (since_us before the first) to its own, but never more
 * than one sample period (period_us, else the smallest spacing in the
 * answer), in v[i].w.  v ends up sorted by time.  Returns the time the
 * samples stand for; *gap_us is the smallest spacing between two samples
 * of the answer (0 with one sample).
 */
static uint64_t
nvml_decode_weigh(struct nvml_pid_util *v, size_t n, uint64_t since_us, uint64_t period_us,
    uint64_t *gap_us)
{
	uint64_t	before = 0, first_w, cap, w, span = 0;
	size_t		i;

	qsort(v, n, sizeof *v, nvml_decode_ts_cmp);
	*gap_us = 0;
	for (i = 1; i < n; i++) {
		if (v[i].ts_us != v[i - 1].ts_us &&
		    (*gap_us == 0 || v[i].ts_us - v[i - 1].ts_us < *gap_us))
			*gap_us = v[i].ts_us - v[i - 1].ts_us;
	}
	/*
	 * A sample stands for one sample period at most: a spacing of 1.5
	 * periods or more means samples in which nobody was busy, which the
	 * driver leaves out.
	 */
	cap = period_us > 0 ? period_us : *gap_us > 0 ? *gap_us :
	    (uint64_t)PID_PERIOD_MAX_NS / NSEC_PER_USEC;
	first_w = v[0].ts_us - since_us;
	for (i = 0; i < n; i++) {
		/* before: the sample ahead of this one; 0 while in the first. */
		if (i > 0 && v[i].ts_us != v[i - 1].ts_us)
			before = v[i - 1].ts_us;
		w = before == 0 ? first_w : v[i].ts_us - before;
		/* A late sample (jitter) stands for its whole spacing; a missed one's time is idle. */
		if (cap > 0 && w > pid_late_limit(cap))
			w = cap;
		/* A weight a double holds exactly, so that it converts back. */
		if (w > UINT64_C(1) << 53)
			w = UINT64_C(1) << 53;
		v[i].w = (double)w;
		if (i == 0 || v[i].ts_us != v[i - 1].ts_us)
			span += w;
	}
	return span;
}

/* The slot of each entry (v sorted by time): the distinct timestamps, oldest merged. */
static void
nvml_decode_slots(struct nvml_pid_util *v, size_t n, struct nvml_split *out)
{
	size_t		i, ndistinct = 1, k = 0;

	for (i = 1; i < n; i++)
		ndistinct += v[i].ts_us != v[i - 1].ts_us;
	out->nslots = ndistinct < PID_SLOTS_MAX ? (unsigned)ndistinct : PID_SLOTS_MAX;
	for (i = 0; i < n; i++) {
		if (i > 0 && v[i].ts_us != v[i - 1].ts_us)
			k++;
		/* Past PID_SLOTS_MAX samples, the oldest share the first slot. */
		v[i].slot = k + out->nslots >= ndistinct ? (unsigned)(k + out->nslots - ndistinct) : 0;
		if (i == 0 || v[i].ts_us != v[i - 1].ts_us)
			out->slot_us[v[i].slot] += (uint64_t)v[i].w;
	}
}

/* A mean in whole percent from a time-weighted sum acc over w us. */
static unsigned
nvml_decode_pct(double acc, double w)
{
	double	pct = w > 0 ? acc / w + 0.5 : 0;

	return pct < UINT16_MAX ? (unsigned)pct : UINT16_MAX;
}

static uint8_t
nvml_decode_clamp(unsigned pct)
{
	return (uint8_t)(pct < 100 ? pct : 100);
}

size_t
nvml_decode_split(struct nvml_pid_util *v, size_t n, uint64_t since_us, uint64_t period_us,
    nvml_is_mine_fn is_mine, const void *arg, size_t dev, struct pid_usage *mine, size_t cap,
    struct nvml_split *out)
{
	struct pid_usage	*u;
	double			 sm[PID_SLOTS_MAX], mem[PID_SLOTS_MAX], fsm[PID_SLOTS_MAX];
	double			 fmem[PID_SLOTS_MAX], tsm, tmem, span;
	unsigned		 j;
	size_t			 i, k = 0;

	memset(out, 0, sizeof *out);
	memset(fsm, 0, sizeof fsm);
	memset(fmem, 0, sizeof fmem);
	if (n == 0)
		return 0;
	out->span_us = nvml_decode_weigh(v, n, since_us, period_us, &out->gap_us);
	nvml_decode_slots(v, n, out);
	span = (double)out->span_us;
	/* Sorted by pid, the samples of one process are one run. */
	qsort(v, n, sizeof *v, nvml_decode_pid_cmp);
	for (i = 0; i < n; ) {
		pid_t	pid = v[i].pid;
		bool	is_ours = is_mine(pid, arg);

		memset(sm, 0, sizeof sm);
		memset(mem, 0, sizeof mem);
		tsm = tmem = 0;
		for (; i < n && v[i].pid == pid; i++) {
			sm[v[i].slot] += v[i].sm_pct * v[i].w;
			mem[v[i].slot] += v[i].mem_pct * v[i].w;
			tsm += v[i].sm_pct * v[i].w;
			tmem += v[i].mem_pct * v[i].w;
		}
		if (!is_ours) {
			if (out->foreign_npids < UINT16_MAX)
				out->foreign_npids++;
			/* Absent from a sample: not busy in it (the driver lists busy processes). */
			out->foreign_sm_pct = nvml_decode_add_sat(out->foreign_sm_pct,
			    nvml_decode_pct(tsm, span));
			out->foreign_mem_pct = nvml_decode_add_sat(out->foreign_mem_pct,
			    nvml_decode_pct(tmem, span));
			for (j = 0; j < out->nslots; j++) {
				fsm[j] += sm[j];
				fmem[j] += mem[j];
			}
			continue;
		}
		for (j = 0; j < out->nslots && k < cap; j++) {
			if (sm[j] == 0 && mem[j] == 0)
				continue;
			u = &mine[k++];
			memset(u, 0, sizeof *u);
			u->dev = dev;
			u->pid = pid;
			u->slot = j;
			/* One process in one sample: at most 100 (a driver may list it twice). */
			u->sm_pct = nvml_decode_clamp(nvml_decode_pct(sm[j], (double)out->slot_us[j]));
			u->mem_pct = nvml_decode_clamp(nvml_decode_pct(mem[j], (double)out->slot_us[j]));
			u->span_ns = out->slot_us[j] < (uint64_t)(INT64_MAX / NSEC_PER_USEC) ?
			    (int64_t)out->slot_us[j] * NSEC_PER_USEC : INT64_MAX;
			u->has_util = true;
		}
	}
	for (j = 0; j < out->nslots; j++) {
		out->slot_foreign_sm_pct[j] = nvml_decode_add_sat(0,
		    nvml_decode_pct(fsm[j], (double)out->slot_us[j]));
		out->slot_foreign_mem_pct[j] = nvml_decode_add_sat(0,
		    nvml_decode_pct(fmem[j], (double)out->slot_us[j]));
	}
	return k;
}

/* Offset one past the last byte of buf that is not the fill byte. */
static size_t
nvml_decode_written(const unsigned char *buf, size_t size)
{
	while (size > 0 && buf[size - 1] == NVML_PROC_FILL_BYTE)
		size--;
	return size;
}

size_t
nvml_decode_stride(const unsigned char *buf, size_t size, unsigned count, size_t nominal)
{
	size_t	end, i;

	if (count == 0)
		return nominal;
	/*
	 * The last byte of each layout belongs to a field (usedGpuMemory,
	 * computeInstanceId or usedGpuCcProtectedMemory), never to padding,
	 * and its top byte is never 0xa5 in practice: so count entries of the
	 * right stride end exactly at the last written byte.
	 */
	end = nvml_decode_written(buf, size);
	if (end == (size_t)count * nominal)
		return nominal;
	for (i = 0; i < ARRAY_SIZE(nvml_strides); i++) {
		if (end == (size_t)count * nvml_strides[i])
			return nvml_strides[i];
	}
	return nominal;
}

size_t
nvml_decode_procs(const unsigned char *buf, unsigned count, size_t stride,
    struct nvml_proc_mem *out)
{
	unsigned int		pid;
	unsigned long long	mem;
	size_t			i, k = 0;

	for (i = 0; i < count; i++) {
		/* memcpy: the stride may leave the entries misaligned. */
		memcpy(&pid, buf + i * stride + offsetof(nvmlProcessInfo_v1_t, pid), sizeof pid);
		memcpy(&mem, buf + i * stride + offsetof(nvmlProcessInfo_v1_t, usedGpuMemory),
		    sizeof mem);
		if (pid == 0 || pid > (unsigned int)INT_MAX)
			continue;
		out[k].pid = (pid_t)pid;
		out[k].gpu_mem_kib = mem == NVML_VALUE_NOT_AVAILABLE_ULL ? 0 : mem / 1024;
		k++;
	}
	return k;
}

static int
nvml_decode_sample_cmp(const void *a, const void *b)
{
	const nvmlSample_t	*x = a, *y = b;

	return (x->timeStamp > y->timeStamp) - (x->timeStamp < y->timeStamp);
}

size_t
nvml_decode_power_samples(nvmlSample_t *v, size_t n, nvmlValueType_t type,
    uint64_t last_seen_us, int64_t real_minus_mono_ns, struct power_point *out,
    uint64_t *newest_us)
{
	uint64_t	mw, prev_us = last_seen_us;
	size_t		i, k = 0;

	qsort(v, n, sizeof *v, nvml_decode_sample_cmp);
	for (i = 0; i < n; i++) {
		/* Also drops duplicates: each kept sample is strictly newer. */
		if (v[i].timeStamp <= prev_us)
			continue;
		if (nvml_decode_value(type, &v[i].sampleValue, &mw) != 0 || mw > UINT32_MAX)
			continue;
		out[k].t_ns = nvml_decode_time_ns(v[i].timeStamp, real_minus_mono_ns);
		out[k].power_mw = (uint32_t)mw;
		k++;
		prev_us = v[i].timeStamp;
	}
	if (prev_us > *newest_us)
		*newest_us = prev_us;
	return k;
}

int64_t
nvml_decode_violation_ns(const nvmlViolationTime_t *start, const nvmlViolationTime_t *end)
{
	unsigned long long	d;

	if (end->violationTime < start->violationTime)
		return -1;
	d = end->violationTime - start->violationTime;
	return d > (unsigned long long)INT64_MAX ? INT64_MAX : (int64_t)d;
}

bool
nvml_decode_accounting_matches(const nvmlAccountingStats_t *st, int64_t real_minus_mono_ns,
    int64_t first_seen_ns, int64_t last_seen_ns, int64_t slack_ns)
{
	int64_t	start_ns, end_ns;

	if (st->startTime == 0)
		return true;		/* no start time: nothing to contradict */
	start_ns = nvml_decode_time_ns(st->startTime, real_minus_mono_ns);
	if (start_ns > last_seen_ns + slack_ns)
		return false;
	/* time is 0 while the process runs: then there is no end to compare. */
	if (st->time == 0 || st->time > NVML_ACCOUNTING_MAX_MS)
		return true;
	end_ns = start_ns + (int64_t)st->time * NSEC_PER_MSEC;
	return end_ns + slack_ns >= first_seen_ns;
}

void
nvml_decode_accounting(const nvmlAccountingStats_t *st, struct pid_usage *out)
{
	out->is_between_ticks = true;
	if (st->gpuUtilization <= 100 && st->memoryUtilization <= 100) {
		out->sm_pct = (uint8_t)st->gpuUtilization;
		out->mem_pct = (uint8_t)st->memoryUtilization;
		out->has_util = true;
	}
	if (st->maxMemoryUsage != NVML_VALUE_NOT_AVAILABLE_ULL)
		out->gpu_mem_kib = st->maxMemoryUsage / 1024;
}

/* GA100 (A100, A30, A800) answers instantly although it is Ampere. */
static bool
nvml_decode_is_ga100(unsigned int pci_device_id)
{
	return (pci_device_id >> 24) == 0x20;
}

const char *
nvml_decode_arch_name(nvmlDeviceArchitecture_t arch)
{
	static const char *const names[] = {
		[NVML_DEVICE_ARCH_KEPLER] = "Kepler", [NVML_DEVICE_ARCH_MAXWELL] = "Maxwell",
		[NVML_DEVICE_ARCH_PASCAL] = "Pascal", [NVML_DEVICE_ARCH_VOLTA] = "Volta",
		[NVML_DEVICE_ARCH_TURING] = "Turing", [NVML_DEVICE_ARCH_AMPERE] = "Ampere",
		[NVML_DEVICE_ARCH_ADA] = "Ada", [NVML_DEVICE_ARCH_HOPPER] = "Hopper",
		[NVML_DEVICE_ARCH_BLACKWELL] = "Blackwell", [NVML_DEVICE_ARCH_T23X] = "Orin",
	};

	return arch < sizeof names / sizeof names[0] && names[arch] != NULL ? names[arch] : "";
}

enum power_kind
nvml_decode_power_kind(const struct nvml_gpu_kind *k, enum nvml_kind_basis *basis)
{
	bool	is_ga100 = k->pci_device_id != 0 && nvml_decode_is_ga100(k->pci_device_id);
	bool	is_cc80 = k->has_cc && k->cc_major == 8 && k->cc_minor == 0;	/* GA100 */

	if (k->has_arch && k->arch != NVML_DEVICE_ARCH_UNKNOWN) {
		*basis = NVML_KIND_BY_ARCH;
		if (k->arch == NVML_DEVICE_ARCH_AMPERE && (is_ga100 || is_cc80))
			return POWER_KIND_INSTANT;
		return k->arch >= NVML_DEVICE_ARCH_AMPERE ? POWER_KIND_AVERAGE_1S :
		    POWER_KIND_INSTANT;
	}
	if (k->has_cc && k->cc_major > 0) {
		*basis = NVML_KIND_BY_CC;
		return k->cc_major < 8 || is_cc80 ? POWER_KIND_INSTANT : POWER_KIND_AVERAGE_1S;
	}
	if (k->pci_device_id != 0) {
		*basis = NVML_KIND_BY_PCI_ID;
		return (k->pci_device_id >> 24) <= 0x21 ? POWER_KIND_INSTANT :
		    POWER_KIND_AVERAGE_1S;
	}
	*basis = NVML_KIND_ASSUMED;
	return POWER_KIND_AVERAGE_1S;
}

/* Both bounds at mhz, unless mhz is unknown or would read as a word. */
static void
nvml_decode_lock_at(unsigned int mhz, struct nvml_lock_range *r)
{
	r->min_mhz = mhz;
	r->max_mhz = mhz;
	r->action = mhz == 0 || mhz >= NVML_CLOCK_LIMIT_ID_RANGE_START ? NVML_LOCK_INVALID :
	    NVML_LOCK_SET;
}

void
nvml_decode_lock(const struct clock_lock *req, unsigned int max_gfx_mhz,
    unsigned int max_mem_mhz, struct nvml_lock_range *gpu, struct nvml_lock_range *mem)
{
	memset(gpu, 0, sizeof *gpu);
	memset(mem, 0, sizeof *mem);
	switch (req->kind) {
	case CLOCK_LOCK_BASE:
		/* What "nvidia-smi -lgc tdp,tdp" asks for. */
		gpu->action = NVML_LOCK_SET;
		gpu->min_mhz = NVML_CLOCK_LIMIT_ID_TDP;
		gpu->max_mhz = NVML_CLOCK_LIMIT_ID_TDP;
		break;
	case CLOCK_LOCK_MAX:
		nvml_decode_lock_at(max_gfx_mhz, gpu);
		nvml_decode_lock_at(max_mem_mhz, mem);
		break;
	case CLOCK_LOCK_MHZ:
		nvml_decode_lock_at(req->gpu_mhz, gpu);
		if (req->mem_mhz != 0)
			nvml_decode_lock_at(req->mem_mhz, mem);
		break;
	case CLOCK_LOCK_NONE:
	default:
		break;
	}
}

const char *
nvml_decode_lock_reason(nvmlReturn_t r)
{
	switch (r) {
	case NVML_ERROR_NO_PERMISSION:
		return "no permission (needs root)";
	case NVML_ERROR_NOT_SUPPORTED:
		return "not supported on this GPU";
	case NVML_ERROR_FUNCTION_NOT_FOUND:
		return "not supported by this driver";
	default:
		return NULL;
	}
}

/* "graphics 1980 MHz" and the like, into buf. */
static void
nvml_decode_lock_domain(const char *domain, const struct nvml_lock_range *r, char *buf,
    size_t size)
{
	if (r->min_mhz == NVML_CLOCK_LIMIT_ID_TDP && r->max_mhz == NVML_CLOCK_LIMIT_ID_TDP)
		snprintf(buf, size, "%s at the base clock (TDP)", domain);
	else if (r->min_mhz == r->max_mhz)
		snprintf(buf, size, "%s %u MHz", domain, r->min_mhz);
	else
		snprintf(buf, size, "%s %u-%u MHz", domain, r->min_mhz, r->max_mhz);
}

void
nvml_decode_lock_note(const struct nvml_lock_range *gpu, const struct nvml_lock_range *mem,
    char *buf, size_t size)
{
	char	g[64], m[64];

	nvml_decode_lock_domain("graphics", gpu, g, sizeof g);
	if (mem == NULL || mem->action != NVML_LOCK_SET) {
		snprintf(buf, size, "clocks locked for the run: %s", g);
		return;
	}
	nvml_decode_lock_domain("memory", mem, m, sizeof m);
	snprintf(buf, size, "clocks locked for the run: %s, %s", g, m);
}
