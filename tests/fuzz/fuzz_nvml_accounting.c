/*
 * libFuzzer target: accounting records (nvmlDeviceGetAccountingStats)
 * through nvml_decode_accounting_matches and nvml_decode_accounting, and
 * violation counters (nvmlDeviceGetViolationStatus) through
 * nvml_decode_violation_ns.  The record and the counters are the
 * driver's bytes, anything at all; the process's first and last sighting
 * are CLOCK_MONOTONIC times of up to 2^61 ns (73 years of uptime), the
 * slack at most 2^40 ns, and the realtime-minus-monotonic offset within
 * 0..2^62 ns, as on any real machine.
 */
#include "../../src/sources/nvml_decode.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	nvmlAccountingStats_t	st;
	nvmlViolationTime_t	vt[2];
	struct pid_usage	u;
	uint64_t		raw[4];
	int64_t			first_ns, last_ns, slack_ns, off_ns;

	fuzz_take(&data, &size, &st, sizeof st);
	fuzz_take(&data, &size, raw, sizeof raw);
	fuzz_take(&data, &size, vt, sizeof vt);
	first_ns = (int64_t)(raw[0] & ((1ull << 61) - 1));
	last_ns = (int64_t)(raw[1] & ((1ull << 61) - 1));
	slack_ns = (int64_t)(raw[2] & ((1ull << 40) - 1));
	off_ns = (int64_t)(raw[3] & ((1ull << 62) - 1));
	if (last_ns < first_ns)
		last_ns = first_ns;
	(void)nvml_decode_accounting_matches(&st, off_ns, first_ns, last_ns, slack_ns);
	memset(&u, 0, sizeof u);
	nvml_decode_accounting(&st, &u);
	FUZZ_CHECK(u.is_between_ticks);
	if (u.has_util)
		FUZZ_CHECK(u.sm_pct <= 100 && u.mem_pct <= 100);
	FUZZ_CHECK(nvml_decode_violation_ns(&vt[0], &vt[1]) >= -1);
	return 0;
}
