/*
 * libFuzzer target: per-process utilization entries as the driver returns
 * them, in either layout (bit 0 of the first byte: the versioned
 * nvmlProcessUtilizationInfo_v1_t, or the old
 * nvmlProcessUtilizationSample_t), through nvml_decode_util_info or
 * nvml_decode_util_samples and then nvml_decode_split.  Input: layout,
 * the capacity for the tree's entries, lastSeenTimeStamp (8 bytes), then
 * whole entries.  Kept entries are newer than lastSeenTimeStamp, within
 * 0..100 % and have a valid pid; the split writes at most its capacity,
 * sorted by pid, one entry per pid.
 */
#include <sys/types.h>

#include <stdbool.h>

#include "../../src/sources/nvml_decode.h"

#include "fuzz.h"

/* The "tree": even pids. */
static bool
fuzz_is_mine(pid_t pid, const void *arg)
{
	(void)arg;
	return pid % 2 == 0;
}

static void
fuzz_check_kept(const struct nvml_pid_util *v, size_t n, uint64_t last_seen_us,
    uint64_t newest_us)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		FUZZ_CHECK(v[i].ts_us > last_seen_us && v[i].ts_us <= newest_us);
		FUZZ_CHECK(v[i].pid > 0);
		FUZZ_CHECK(v[i].sm_pct <= 100 && v[i].mem_pct <= 100);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvml_pid_util	*norm;
	struct pid_usage	*mine;
	void			*entries;
	uint8_t			 hdr[2];
	uint64_t		 last_seen_us, newest_us;
	struct nvml_split	 sp;
	size_t			 esize, n, k, cap, i;
	bool			 is_info;

	fuzz_take(&data, &size, hdr, sizeof hdr);
	fuzz_take(&data, &size, &last_seen_us, sizeof last_seen_us);
	is_info = hdr[0] & 1;
	cap = hdr[1];
	esize = is_info ? sizeof(nvmlProcessUtilizationInfo_v1_t) :
	    sizeof(nvmlProcessUtilizationSample_t);
	n = size / esize;
	if ((entries = malloc(n > 0 ? n * esize : 1)) == NULL ||
	    (norm = malloc((n > 0 ? n : 1) * sizeof *norm)) == NULL ||
	    (mine = malloc((cap > 0 ? cap : 1) * sizeof *mine)) == NULL)
		abort();
	if (n > 0)
		memcpy(entries, data, n * esize);
	newest_us = last_seen_us;
	k = is_info ? nvml_decode_util_info(entries, n, last_seen_us, norm, &newest_us) :
	    nvml_decode_util_samples(entries, n, last_seen_us, norm, &newest_us);
	FUZZ_CHECK(k <= n);
	fuzz_check_kept(norm, k, last_seen_us, newest_us);
	n = nvml_decode_split(norm, k, last_seen_us, hdr[1], fuzz_is_mine, NULL, 0, mine, cap, &sp);
	FUZZ_CHECK(n <= cap && n <= k);
	/* The span reaches from the oldest kept sample's start to the newest. */
	FUZZ_CHECK(k == 0 || (sp.span_us > 0 && sp.span_us <= newest_us - last_seen_us));
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(mine[i].pid > 0 && mine[i].pid % 2 == 0 && mine[i].has_util);
		FUZZ_CHECK(mine[i].sm_pct <= 100 && mine[i].mem_pct <= 100);
		FUZZ_CHECK(mine[i].slot < PID_SLOTS_MAX && mine[i].span_ns > 0);
		if (i > 0)
			FUZZ_CHECK(mine[i].pid > mine[i - 1].pid ||
			    (mine[i].pid == mine[i - 1].pid && mine[i].slot > mine[i - 1].slot));
	}
	free(mine);
	free(norm);
	free(entries);
	return 0;
}
