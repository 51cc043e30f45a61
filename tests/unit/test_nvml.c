/*
 * Unit tests of the pure NVML decoders in src/sources/nvml_decode.c.  The
 * NVML answers are built here byte by byte at the offsets written out in
 * nvml.h (NVML 12.2 and 13.3), not through our own struct
 * definitions, so a layout mistake in nvml_abi.h shows up as a failure
 * rather than cancelling out: field values with mixed per-field errors,
 * P-state 32, CLOCK_REALTIME microsecond timestamps, process samples of
 * both layouts with tree and foreign pids, and running-process entries
 * of 16, 24 and 32 bytes.  The --lock-clocks requests are checked the
 * same way: against the nvmlClockLimitId_t numbers of NVIDIA's header
 * (TDP 0xffffff01, words from 0xffffff00 up), not our macros.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/source.h"

#include "../../src/sources/nvml_decode.h"

/* The tree of the split tests: pids 100, 101 and 102. */
static const pid_t tree_pids[] = { 100, 101, 102 };

static bool
in_tree(pid_t pid, const void *arg)
{
	size_t	i;

	(void)arg;
	for (i = 0; i < ARRAY_SIZE(tree_pids); i++) {
		if (tree_pids[i] == pid)
			return true;
	}
	return false;
}

static void
put_u32(unsigned char *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, sizeof v);
}

static void
put_u64(unsigned char *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, sizeof v);
}

/* One nvmlFieldValue_t, 40 bytes: id 0, scope 4, ts 8, latency 16, type 24, ret 28, value 32. */
static void
put_field(unsigned char *p, uint32_t id, uint32_t type, uint32_t ret, uint64_t value)
{
	memset(p, 0, 40);
	put_u32(p, 0, id);
	put_u64(p, 8, 1700000000000000ull);
	put_u32(p, 24, type);
	put_u32(p, 28, ret);
	put_u64(p, 32, value);
}

static void
test_field_values(void **state)
{
	unsigned char		raw[7 * 40];
	nvmlFieldValue_t	fv[7];
	uint64_t		v = 0;
	double			d = 212.6;
	uint64_t		dbits;

	(void)state;
	assert_int_equal(sizeof fv, sizeof raw);
	memcpy(&dbits, &d, sizeof dbits);
	put_field(raw + 0 * 40, 186, 1, 0, 251000);			/* POWER_INSTANT, uint */
	put_field(raw + 1 * 40, 83, 3, 0, 123456789012ull);		/* energy, ull */
	put_field(raw + 2 * 40, 185, 1, 3, 999);			/* NOT_SUPPORTED */
	put_field(raw + 3 * 40, 186, 1, 0, 0xffffffffu);		/* not available */
	put_field(raw + 4 * 40, 186, 0, 0, dbits);			/* double */
	put_field(raw + 5 * 40, 186, 4, 0, (uint64_t)-5);		/* negative sll */
	put_field(raw + 6 * 40, 186, 99, 0, 1);				/* unknown type */
	memcpy(fv, raw, sizeof raw);

	assert_int_equal(nvml_decode_field(&fv[0], &v), NVML_SUCCESS);
	assert_int_equal(v, 251000);
	assert_int_equal(nvml_decode_field(&fv[1], &v), NVML_SUCCESS);
	assert_true(v == 123456789012ull);
	v = 7;
	assert_int_equal(nvml_decode_field(&fv[2], &v), NVML_ERROR_NOT_SUPPORTED);
	assert_int_equal(v, 7);
	assert_int_equal(nvml_decode_field(&fv[3], &v), NVML_ERROR_UNKNOWN);
	assert_int_equal(nvml_decode_field(&fv[4], &v), NVML_SUCCESS);
	assert_int_equal(v, 213);
	assert_int_equal(nvml_decode_field(&fv[5], &v), NVML_ERROR_UNKNOWN);
	assert_int_equal(nvml_decode_field(&fv[6], &v), NVML_ERROR_UNKNOWN);
}

static void
test_value_types(void **state)
{
	nvmlValue_t	val;
	uint64_t	v;

	(void)state;
	memset(&val, 0, sizeof val);
	val.usVal = 42;
	assert_int_equal(nvml_decode_value(NVML_VALUE_TYPE_UNSIGNED_SHORT, &val, &v), 0);
	assert_int_equal(v, 42);
	val.siVal = 17;
	assert_int_equal(nvml_decode_value(NVML_VALUE_TYPE_SIGNED_INT, &val, &v), 0);
	assert_int_equal(v, 17);
	val.siVal = -1;
	assert_int_equal(nvml_decode_value(NVML_VALUE_TYPE_SIGNED_INT, &val, &v), -1);
	val.ullVal = UINT64_MAX;
	assert_int_equal(nvml_decode_value(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, &val, &v), -1);
	val.ulVal = 5;
	assert_int_equal(nvml_decode_value(NVML_VALUE_TYPE_UNSIGNED_LONG, &val, &v), 0);
	assert_int_equal(v, 5);
	val.dVal = -0.5;
	assert_int_equal(nvml_decode_value(NVML_VALUE_TYPE_DOUBLE, &val, &v), -1);
}

static void
test_pstate(void **state)
{
	(void)state;
	assert_int_equal(nvml_decode_pstate(0), 0);
	assert_int_equal(nvml_decode_pstate(8), 8);
	assert_int_equal(nvml_decode_pstate(15), 15);
	assert_int_equal(nvml_decode_pstate(32), PSTATE_UNKNOWN);
	assert_int_equal(nvml_decode_pstate(16), PSTATE_UNKNOWN);
	assert_int_equal(nvml_decode_pstate(0xffffffffu), PSTATE_UNKNOWN);
}

static void
test_timestamps(void **state)
{
	/* Realtime 1700000000 s while the monotonic clock read 5 s. */
	const int64_t	off = 1700000000LL * NSEC_PER_SEC - 5 * NSEC_PER_SEC;

	(void)state;
	assert_int_equal(nvml_decode_time_ns(1700000000000000ull, off), 5 * NSEC_PER_SEC);
	assert_int_equal(nvml_decode_time_ns(1700000000123456ull, off),
	    5 * NSEC_PER_SEC + 123456 * NSEC_PER_USEC);
	/* A sample from before the monotonic epoch is negative, not wrapped. */
	assert_true(nvml_decode_time_ns(1699999990000000ull, off) < 0);
}

/* nvml.h's nvmlClocksEventReasons bits, one enum throttle bit each. */
static void
test_throttle(void **state)
{
	(void)state;
	assert_int_equal(nvml_decode_throttle(0), 0);
	assert_int_equal(nvml_decode_throttle(0x1), THROTTLE_IDLE);
	assert_int_equal(nvml_decode_throttle(0x2), THROTTLE_APP_CLOCKS);
	assert_int_equal(nvml_decode_throttle(0x4), THROTTLE_SW_POWER);
	assert_int_equal(nvml_decode_throttle(0x8), THROTTLE_HW_SLOWDOWN);
	assert_int_equal(nvml_decode_throttle(0x10), THROTTLE_SYNC_BOOST);
	assert_int_equal(nvml_decode_throttle(0x20), THROTTLE_SW_THERMAL);
	assert_int_equal(nvml_decode_throttle(0x40), THROTTLE_HW_THERMAL);
	assert_int_equal(nvml_decode_throttle(0x80), THROTTLE_POWER_BRAKE);
	assert_int_equal(nvml_decode_throttle(0x100), THROTTLE_DISPLAY);
	assert_int_equal(nvml_decode_throttle(0x1ull << 40), THROTTLE_OTHER);
	assert_int_equal(nvml_decode_throttle(0x1 | 0x4 | 0x40 | 0x8),
	    THROTTLE_IDLE | THROTTLE_SW_POWER | THROTTLE_HW_THERMAL | THROTTLE_HW_SLOWDOWN);
}

/* nvmlProcessUtilizationInfo_v1_t, 40 bytes: ts 0, pid 8, sm 12, mem 16, enc 20 ... */
static void
put_info(unsigned char *p, uint64_t ts, uint32_t pid, uint32_t sm, uint32_t mem)
{
	memset(p, 0, 40);
	put_u64(p, 0, ts);
	put_u32(p, 8, pid);
	put_u32(p, 12, sm);
	put_u32(p, 16, mem);
	put_u32(p, 20, 3);
}

/* nvmlProcessUtilizationSample_t, 32 bytes: pid 0, ts 8, sm 16, mem 20, enc 24, dec 28. */
static void
put_sample(unsigned char *p, uint32_t pid, uint64_t ts, uint32_t sm, uint32_t mem)
{
	memset(p, 0, 32);
	put_u32(p, 0, pid);
	put_u64(p, 8, ts);
	put_u32(p, 16, sm);
	put_u32(p, 20, mem);
}

/* The same seven answers in either layout, newer than last seen = 1000. */
static const struct util_row {
	uint64_t	ts;
	uint32_t	pid, sm, mem;
} util_rows[] = {
	{ 1500, 100, 40, 10 },		/* tree */
	{ 1600, 200, 30, 20 },		/* foreign */
	{ 1700, 101, 50, 5 },		/* tree */
	{ 900, 102, 90, 90 },		/* stale: not newer than last seen */
	{ 1800, 201, 101, 0 },		/* util above 100 */
	{ 1900, 100, 60, 30 },		/* tree, second sample of 100 */
	{ 2000, 202, 25, 15 },		/* foreign */
};

static void
check_split(struct nvml_pid_util *norm, size_t n, uint64_t newest)
{
	struct pid_usage	mine[8];
	struct nvml_split	sp;
	size_t			k;

	assert_int_equal(n, 5);
	assert_true(newest == 2000);
	/*
	 * Samples at 1500, 1600, 1700, 1900 and 2000 us after the last answer
	 * at 1000: the smallest spacing is 100, the sample period, so each
	 * stands for 100 us (the first not 500, the one at 1900 not 200: the
	 * samples between, in which nobody was busy, are left out); 500 us in
	 * all.  A process absent from a sample was idle in it.
	 */
	k = nvml_decode_split(norm, n, 1000, 0, in_tree, NULL, 3, mine, ARRAY_SIZE(mine), &sp);
	assert_true(sp.span_us == 500);
	assert_true(sp.gap_us == 100);
	/* One entry per process and sample it was busy in, each with its sample's span. */
	assert_int_equal(k, 3);
	assert_int_equal(sp.nslots, 5);
	assert_true(sp.slot_us[0] == 100 && sp.slot_us[3] == 100 && sp.slot_us[4] == 100);
	assert_int_equal(mine[0].pid, 100);
	assert_int_equal(mine[0].slot, 0);
	assert_int_equal(mine[0].sm_pct, 40);
	assert_int_equal(mine[0].mem_pct, 10);
	assert_true(mine[0].span_ns == 100000);
	assert_int_equal(mine[0].dev, 3);
	assert_true(mine[0].has_util);
	assert_false(mine[0].is_between_ticks);
	assert_int_equal(mine[1].pid, 100);
	assert_int_equal(mine[1].slot, 3);
	assert_int_equal(mine[1].sm_pct, 60);
	assert_true(mine[1].span_ns == 100000);
	assert_int_equal(mine[2].pid, 101);
	assert_int_equal(mine[2].slot, 2);
	assert_int_equal(mine[2].sm_pct, 50);
	assert_int_equal(mine[2].mem_pct, 5);
	/* Everybody else over the answer: 30 x 100 / 500 + 25 x 100 / 500, rounded each. */
	assert_int_equal(sp.foreign_sm_pct, 11);	/* 6 + 5 */
	assert_int_equal(sp.foreign_mem_pct, 7);	/* 4 + 3 */
	/* ... and in each sample. */
	assert_int_equal(sp.slot_foreign_sm_pct[1], 30);
	assert_int_equal(sp.slot_foreign_mem_pct[1], 20);
	assert_int_equal(sp.slot_foreign_sm_pct[4], 25);
	assert_int_equal(sp.slot_foreign_sm_pct[0], 0);

	/* No room: the tree's entries are dropped, the foreign sum stays. */
	k = nvml_decode_split(norm, n, 1000, 0, in_tree, NULL, 0, mine, 0, &sp);
	assert_int_equal(k, 0);
	assert_int_equal(sp.foreign_sm_pct, 11);
}

/*
 * Two samples of one process, 300 us apart, the first 100 us after the
 * last answer: two entries, 80% standing for 100 us and 20% for 300 us.
 */
static void
test_split_uneven_spacing(void **state)
{
	struct nvml_pid_util	norm[] = {
		{ .ts_us = 1400, .pid = 100, .sm_pct = 20, .mem_pct = 0 },
		{ .ts_us = 1100, .pid = 100, .sm_pct = 80, .mem_pct = 40 },
	};
	struct pid_usage	mine[2];
	struct nvml_split	sp;

	(void)state;
	assert_int_equal(nvml_decode_split(norm, 2, 1000, 0, in_tree, NULL, 0, mine, 2, &sp), 2);
	assert_true(sp.span_us == 400);
	assert_true(sp.gap_us == 300);
	assert_true(sp.slot_us[0] == 100 && sp.slot_us[1] == 300);
	assert_int_equal(mine[0].sm_pct, 80);
	assert_int_equal(mine[1].sm_pct, 20);
	/* Weighted by time: 35% over the answer, not the 50% of a plain mean. */
	assert_int_equal((mine[0].sm_pct * 100 + mine[1].sm_pct * 300) / 400, 35);
	/* With the driver's period known to be 100 us, each sample stands for 100 at most. */
	assert_int_equal(nvml_decode_split(norm, 2, 1000, 100, in_tree, NULL, 0, mine, 2, &sp), 2);
	assert_true(sp.span_us == 200);
	assert_true(sp.slot_us[0] == 100 && sp.slot_us[1] == 100);
}

/*
 * One sample 5 s after the last, the driver's period not known yet: it
 * stands for the longest period a driver samples over, not for 5 s (the
 * time before was idle: no sample means nobody was busy).
 */
static void
test_split_one_sample_unknown_period(void **state)
{
	struct nvml_pid_util	norm[] = { { .ts_us = 5001000, .pid = 100, .sm_pct = 60 } };
	struct pid_usage	mine[1];
	struct nvml_split	sp;

	(void)state;
	assert_int_equal(nvml_decode_split(norm, 1, 1000, 0, in_tree, NULL, 0, mine, 1, &sp), 1);
	assert_true(sp.span_us == (uint64_t)PID_PERIOD_MAX_NS / 1000);
	assert_true(mine[0].span_ns == PID_PERIOD_MAX_NS);
	/* Known, the period rules. */
	assert_int_equal(nvml_decode_split(norm, 1, 1000, 166000, in_tree, NULL, 0, mine, 1, &sp),
	    1);
	assert_true(sp.span_us == 166000);
}

/*
 * Samples late by less than half a period (a driver's timer jitters)
 * stand for their whole spacing: a lone busy process keeps all of its
 * time; only a spacing of 1.5 periods or more has a missed, idle sample.
 */
static void
test_split_jitter(void **state)
{
	struct nvml_pid_util	norm[] = {
		{ .ts_us = 1100, .pid = 100, .sm_pct = 50 },
		{ .ts_us = 1230, .pid = 100, .sm_pct = 50 },
		{ .ts_us = 1480, .pid = 100, .sm_pct = 50 },
	};
	struct pid_usage	mine[3];
	struct nvml_split	sp;

	(void)state;
	assert_int_equal(nvml_decode_split(norm, 3, 1000, 100, in_tree, NULL, 0, mine, 3, &sp), 3);
	/* 100, then 130 whole, then 250 (a missed sample) as 100. */
	assert_true(sp.span_us == 330);
}

static void
test_util_info_layout(void **state)
{
	unsigned char			raw[ARRAY_SIZE(util_rows) * 40];
	nvmlProcessUtilizationInfo_v1_t	v[ARRAY_SIZE(util_rows)];
	struct nvml_pid_util		norm[ARRAY_SIZE(util_rows)];
	uint64_t			newest = 1000;
	size_t				i, n;

	(void)state;
	assert_int_equal(sizeof v, sizeof raw);
	for (i = 0; i < ARRAY_SIZE(util_rows); i++)
		put_info(raw + i * 40, util_rows[i].ts, util_rows[i].pid, util_rows[i].sm,
		    util_rows[i].mem);
	memcpy(v, raw, sizeof raw);
	n = nvml_decode_util_info(v, ARRAY_SIZE(v), 1000, norm, &newest);
	check_split(norm, n, newest);
}

static void
test_util_samples_layout(void **state)
{
	unsigned char			raw[ARRAY_SIZE(util_rows) * 32];
	nvmlProcessUtilizationSample_t	v[ARRAY_SIZE(util_rows)];
	struct nvml_pid_util		norm[ARRAY_SIZE(util_rows)];
	uint64_t			newest = 1000;
	size_t				i, n;

	(void)state;
	assert_int_equal(sizeof v, sizeof raw);
	for (i = 0; i < ARRAY_SIZE(util_rows); i++)
		put_sample(raw + i * 32, util_rows[i].pid, util_rows[i].ts, util_rows[i].sm,
		    util_rows[i].mem);
	memcpy(v, raw, sizeof raw);
	n = nvml_decode_util_samples(v, ARRAY_SIZE(v), 1000, norm, &newest);
	check_split(norm, n, newest);
}

static void
test_util_bad_pids(void **state)
{
	unsigned char			raw[2 * 40];
	nvmlProcessUtilizationInfo_v1_t	v[2];
	struct nvml_pid_util		norm[2];
	uint64_t			newest = 0;

	(void)state;
	put_info(raw, 10, 0, 10, 10);
	put_info(raw + 40, 11, 0x80000000u, 10, 10);
	memcpy(v, raw, sizeof raw);
	assert_int_equal(nvml_decode_util_info(v, 2, 0, norm, &newest), 0);
	assert_true(newest == 0);
}

/* One running-process entry of any stride: pid at 0, usedGpuMemory at 8. */
static void
put_proc(unsigned char *p, size_t stride, uint32_t pid, uint64_t mem)
{
	memset(p, 0, stride);
	put_u32(p, 0, pid);
	put_u64(p, 8, mem);
	if (stride >= 24) {
		put_u32(p, 16, 0xffffffffu);		/* gpuInstanceId, MIG off */
		put_u32(p, 20, 0xffffffffu);		/* computeInstanceId */
	}
	if (stride >= 32)
		put_u64(p, 24, 0);			/* usedGpuCcProtectedMemory */
}

static void
check_stride(size_t written, size_t nominal)
{
	unsigned char		buf[8 * 32];
	struct nvml_proc_mem	out[3];
	size_t			stride;

	memset(buf, NVML_PROC_FILL_BYTE, sizeof buf);
	put_proc(buf, written, 100, 64ull << 20);
	put_proc(buf + written, written, 200, 0xffffffffffffffffull);
	put_proc(buf + 2 * written, written, 101, 1ull << 30);
	stride = nvml_decode_stride(buf, sizeof buf, 3, nominal);
	if (stride != written)
		print_error("wrote %zu-byte entries, nominal %zu: got %zu\n", written, nominal,
		    stride);
	assert_int_equal(stride, written);
	assert_int_equal(nvml_decode_procs(buf, 3, stride, out), 3);
	assert_int_equal(out[0].pid, 100);
	assert_int_equal(out[0].gpu_mem_kib, 64 * 1024);
	assert_int_equal(out[1].pid, 200);
	assert_int_equal(out[1].gpu_mem_kib, 0);	/* not available: unknown */
	assert_int_equal(out[2].pid, 101);
	assert_int_equal(out[2].gpu_mem_kib, 1024 * 1024);
}

static void
test_proc_strides(void **state)
{
	unsigned char	buf[4 * 32];

	(void)state;
	check_stride(24, 24);		/* _v3 as documented */
	check_stride(16, 16);		/* plain symbol */
	check_stride(16, 24);		/* a 550.127 driver writing v1 from _v3 */
	check_stride(32, 24);		/* early R535 writing 32 bytes from _v3 */
	check_stride(24, 16);

	/* Nothing written, or nothing to go by: the nominal stride. */
	memset(buf, NVML_PROC_FILL_BYTE, sizeof buf);
	assert_int_equal(nvml_decode_stride(buf, sizeof buf, 2, 24), 24);
	assert_int_equal(nvml_decode_stride(buf, sizeof buf, 0, 16), 16);
	memset(buf, 0, sizeof buf);
	assert_int_equal(nvml_decode_stride(buf, sizeof buf, 2, 24), 24);
}

static void
test_proc_bad_pid(void **state)
{
	unsigned char		buf[2 * 24];
	struct nvml_proc_mem	out[2];

	(void)state;
	put_proc(buf, 24, 0, 100);
	put_proc(buf + 24, 24, 300, 2048);
	assert_int_equal(nvml_decode_procs(buf, 2, 24, out), 1);
	assert_int_equal(out[0].pid, 300);
	assert_int_equal(out[0].gpu_mem_kib, 2);
}

static void
test_power_samples(void **state)
{
	/* Realtime 1000 s at monotonic 10 s. */
	const int64_t		off = 990 * NSEC_PER_SEC;
	unsigned char		raw[6 * 16];
	nvmlSample_t		v[6];
	struct power_point	out[6];
	uint64_t		newest = 1000000000ull;
	size_t			n;

	(void)state;
	/* nvmlSample_t, 16 bytes: timeStamp 0, value 8 (uiVal for power). */
	memset(raw, 0, sizeof raw);
	put_u64(raw + 0, 0, 1000200000ull);	put_u32(raw + 0, 8, 300000);
	put_u64(raw + 16, 0, 1000100000ull);	put_u32(raw + 16, 8, 200000);
	put_u64(raw + 32, 0, 999900000ull);	put_u32(raw + 32, 8, 100000);	/* old */
	put_u64(raw + 48, 0, 1000100000ull);	put_u32(raw + 48, 8, 200000);	/* dup */
	put_u64(raw + 64, 0, 1000300000ull);	put_u32(raw + 64, 8, 0xffffffffu);
	put_u64(raw + 80, 0, 1000000000ull);	put_u32(raw + 80, 8, 50000);	/* == seen */
	memcpy(v, raw, sizeof raw);
	n = nvml_decode_power_samples(v, 6, NVML_VALUE_TYPE_UNSIGNED_INT, 1000000000ull, off, out,
	    &newest);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].t_ns, 10 * NSEC_PER_SEC + 100 * NSEC_PER_MSEC);
	assert_int_equal(out[0].power_mw, 200000);
	assert_int_equal(out[1].t_ns, 10 * NSEC_PER_SEC + 200 * NSEC_PER_MSEC);
	assert_int_equal(out[1].power_mw, 300000);
	assert_true(newest == 1000200000ull);
}

static void
test_violation(void **state)
{
	unsigned char		raw[2 * 16];
	nvmlViolationTime_t	v[2];

	(void)state;
	/* nvmlViolationTime_t, 16 bytes: referenceTime 0, violationTime (ns) 8. */
	put_u64(raw, 0, 1000);
	put_u64(raw, 8, 5000000);
	put_u64(raw + 16, 0, 2000);
	put_u64(raw + 16, 8, 7500000);
	memcpy(v, raw, sizeof raw);
	assert_int_equal(nvml_decode_violation_ns(&v[0], &v[1]), 2500000);
	assert_int_equal(nvml_decode_violation_ns(&v[1], &v[0]), -1);
	assert_int_equal(nvml_decode_violation_ns(&v[0], &v[0]), 0);
}

static void
test_accounting(void **state)
{
	/* Realtime 1000 s at monotonic 0. */
	const int64_t		off = 1000 * NSEC_PER_SEC;
	unsigned char		raw[56];
	nvmlAccountingStats_t	st;
	struct pid_usage	u;

	(void)state;
	/* nvmlAccountingStats_t, 56 bytes: gpu 0, mem 4, maxMem 8, time 16, start 24, run 32. */
	memset(raw, 0, sizeof raw);
	put_u32(raw, 0, 70);
	put_u32(raw, 4, 20);
	put_u64(raw, 8, 512ull << 20);
	put_u64(raw, 16, 300);				/* ran 300 ms */
	put_u64(raw, 24, 1005000000ull);		/* started at monotonic 5 s */
	memcpy(&st, raw, sizeof raw);

	memset(&u, 0, sizeof u);
	nvml_decode_accounting(&st, &u);
	assert_true(u.has_util);
	assert_true(u.is_between_ticks);
	assert_int_equal(u.sm_pct, 70);
	assert_int_equal(u.mem_pct, 20);
	assert_int_equal(u.gpu_mem_kib, 512 * 1024);

	/* Seen by the tree from 4.9 s to 5.1 s: the record fits. */
	assert_true(nvml_decode_accounting_matches(&st, off, 4900 * NSEC_PER_MSEC,
	    5100 * NSEC_PER_MSEC, 0));
	/* Tree process last seen at 3 s: the record started later, another process. */
	assert_false(nvml_decode_accounting_matches(&st, off, 2 * NSEC_PER_SEC,
	    3 * NSEC_PER_SEC, 0));
	/* Tree process first seen at 6 s: the record ended at 5.3 s. */
	assert_false(nvml_decode_accounting_matches(&st, off, 6 * NSEC_PER_SEC,
	    7 * NSEC_PER_SEC, 0));
	assert_true(nvml_decode_accounting_matches(&st, off, 6 * NSEC_PER_SEC,
	    7 * NSEC_PER_SEC, NSEC_PER_SEC));

	/* Still running (time 0): only the start is checked. */
	st.time = 0;
	assert_true(nvml_decode_accounting_matches(&st, off, 6 * NSEC_PER_SEC,
	    7 * NSEC_PER_SEC, 0));

	/* Utilization not available: memory still counts. */
	st.gpuUtilization = 0xffffffffu;
	memset(&u, 0, sizeof u);
	nvml_decode_accounting(&st, &u);
	assert_false(u.has_util);
	assert_int_equal(u.gpu_mem_kib, 512 * 1024);
}

/* The power kind of a GPU the library describes by k, and what decided it, in *basis. */
static enum power_kind
kind_of(bool has_arch, nvmlDeviceArchitecture_t arch, int cc_major, int cc_minor,
    unsigned int pci_device_id, enum nvml_kind_basis *basis)
{
	struct nvml_gpu_kind	k;

	memset(&k, 0, sizeof k);
	k.has_arch = has_arch;
	k.arch = arch;
	k.has_cc = cc_major > 0;
	k.cc_major = cc_major;
	k.cc_minor = cc_minor;
	k.pci_device_id = pci_device_id;
	return nvml_decode_power_kind(&k, basis);
}

static void
test_power_kind(void **state)
{
	enum nvml_kind_basis	b;

	(void)state;
	assert_int_equal(kind_of(true, NVML_DEVICE_ARCH_VOLTA, 0, 0, 0x1db410de, &b),
	    POWER_KIND_INSTANT);
	assert_int_equal(b, NVML_KIND_BY_ARCH);
	assert_int_equal(kind_of(true, NVML_DEVICE_ARCH_AMPERE, 0, 0, 0x220410de, &b),
	    POWER_KIND_AVERAGE_1S);
	assert_int_equal(b, NVML_KIND_BY_ARCH);
	/* A100 SXM4 (GA100) keeps instantaneous readings. */
	assert_int_equal(kind_of(true, NVML_DEVICE_ARCH_AMPERE, 0, 0, 0x20b010de, &b),
	    POWER_KIND_INSTANT);
	assert_int_equal(kind_of(true, NVML_DEVICE_ARCH_AMPERE, 8, 0, 0, &b),
	    POWER_KIND_INSTANT);
	assert_int_equal(kind_of(true, NVML_DEVICE_ARCH_HOPPER, 0, 0, 0x233010de, &b),
	    POWER_KIND_AVERAGE_1S);
	/* B200 (0x2901): Blackwell, NVML_DEVICE_ARCH_BLACKWELL from the 13.x headers. */
	assert_int_equal(kind_of(true, NVML_DEVICE_ARCH_BLACKWELL, 0, 0, 0x290110de, &b),
	    POWER_KIND_AVERAGE_1S);
	assert_int_equal(b, NVML_KIND_BY_ARCH);
	assert_string_equal(nvml_decode_arch_name(NVML_DEVICE_ARCH_HOPPER), "Hopper");
	assert_string_equal(nvml_decode_arch_name(NVML_DEVICE_ARCH_BLACKWELL), "Blackwell");
	assert_string_equal(nvml_decode_arch_name(NVML_DEVICE_ARCH_T23X), "Orin");
	assert_string_equal(nvml_decode_arch_name(12), "");
	assert_string_equal(nvml_decode_arch_name(NVML_DEVICE_ARCH_UNKNOWN), "");
	/* Nothing known: assumed, as every current GPU averages. */
	assert_int_equal(kind_of(false, 0, 0, 0, 0, &b), POWER_KIND_AVERAGE_1S);
	assert_int_equal(b, NVML_KIND_ASSUMED);
	/* No architecture: the compute capability decides (R470 has it). */
	assert_int_equal(kind_of(false, 0, 6, 0, 0, &b), POWER_KIND_INSTANT);
	assert_int_equal(b, NVML_KIND_BY_CC);
	assert_int_equal(kind_of(true, NVML_DEVICE_ARCH_UNKNOWN, 7, 5, 0, &b),
	    POWER_KIND_INSTANT);
	assert_int_equal(kind_of(false, 0, 8, 0, 0, &b), POWER_KIND_INSTANT);
	assert_int_equal(kind_of(false, 0, 8, 6, 0, &b), POWER_KIND_AVERAGE_1S);
	assert_int_equal(kind_of(false, 0, 9, 0, 0, &b), POWER_KIND_AVERAGE_1S);
	/* Neither: the PCI device id.  P100 (GP100, 0x15f8) is instantaneous. */
	assert_int_equal(kind_of(false, 0, 0, 0, 0x15f810de, &b), POWER_KIND_INSTANT);
	assert_int_equal(b, NVML_KIND_BY_PCI_ID);
	assert_int_equal(kind_of(false, 0, 0, 0, 0x1eb810de, &b), POWER_KIND_INSTANT);
	assert_int_equal(kind_of(false, 0, 0, 0, 0x20b210de, &b), POWER_KIND_INSTANT);
	assert_int_equal(kind_of(true, NVML_DEVICE_ARCH_UNKNOWN, 0, 0, 0x2b8510de, &b),
	    POWER_KIND_AVERAGE_1S);
	assert_int_equal(b, NVML_KIND_BY_PCI_ID);
	assert_int_equal(kind_of(false, 0, 0, 0, 0x220410de, &b), POWER_KIND_AVERAGE_1S);
}

/* A --lock-clocks request as main.c would build it. */
static struct clock_lock
lock_req(enum clock_lock_kind kind, unsigned gpu_mhz, unsigned mem_mhz)
{
	struct clock_lock	req;

	memset(&req, 0, sizeof req);
	req.kind = kind;
	req.gpu_mhz = gpu_mhz;
	req.mem_mhz = mem_mhz;
	return req;
}

static void
assert_range(const struct nvml_lock_range *r, enum nvml_lock_action action, unsigned min,
    unsigned max)
{
	assert_int_equal(r->action, action);
	if (action != NVML_LOCK_SET)
		return;
	assert_int_equal(r->min_mhz, min);
	assert_int_equal(r->max_mhz, max);
}

/* base is "nvidia-smi -lgc tdp,tdp": both bounds the TDP word, memory untouched. */
static void
test_lock_base(void **state)
{
	struct clock_lock	req = lock_req(CLOCK_LOCK_BASE, 0, 0);
	struct nvml_lock_range	gpu, mem;

	(void)state;
	nvml_decode_lock(&req, 1980, 2619, &gpu, &mem);
	assert_range(&gpu, NVML_LOCK_SET, 0xffffff01u, 0xffffff01u);
	assert_range(&mem, NVML_LOCK_LEAVE, 0, 0);
}

/* max takes GetMaxClockInfo's answers; an unknown (0) one cannot be locked. */
static void
test_lock_max(void **state)
{
	struct clock_lock	req = lock_req(CLOCK_LOCK_MAX, 1200, 800);
	struct nvml_lock_range	gpu, mem;

	(void)state;
	nvml_decode_lock(&req, 1980, 2619, &gpu, &mem);
	assert_range(&gpu, NVML_LOCK_SET, 1980, 1980);
	assert_range(&mem, NVML_LOCK_SET, 2619, 2619);
	nvml_decode_lock(&req, 1980, 0, &gpu, &mem);
	assert_range(&gpu, NVML_LOCK_SET, 1980, 1980);
	assert_range(&mem, NVML_LOCK_INVALID, 0, 0);
	nvml_decode_lock(&req, 0, 2619, &gpu, &mem);
	assert_range(&gpu, NVML_LOCK_INVALID, 0, 0);
}

/* MHZ[,MEMMHZ]: memory only when asked; no number NVML would read as a word. */
static void
test_lock_mhz(void **state)
{
	struct clock_lock	req = lock_req(CLOCK_LOCK_MHZ, 1500, 0);
	struct nvml_lock_range	gpu, mem;

	(void)state;
	nvml_decode_lock(&req, 1980, 2619, &gpu, &mem);
	assert_range(&gpu, NVML_LOCK_SET, 1500, 1500);
	assert_range(&mem, NVML_LOCK_LEAVE, 0, 0);
	req = lock_req(CLOCK_LOCK_MHZ, 1500, 1215);
	nvml_decode_lock(&req, 0, 0, &gpu, &mem);
	assert_range(&gpu, NVML_LOCK_SET, 1500, 1500);
	assert_range(&mem, NVML_LOCK_SET, 1215, 1215);
	req = lock_req(CLOCK_LOCK_MHZ, 0xfffffeffu, 0xffffff00u);
	nvml_decode_lock(&req, 0, 0, &gpu, &mem);
	assert_range(&gpu, NVML_LOCK_SET, 0xfffffeffu, 0xfffffeffu);
	assert_range(&mem, NVML_LOCK_INVALID, 0, 0);
	req = lock_req(CLOCK_LOCK_MHZ, 0xffffff01u, 0);
	nvml_decode_lock(&req, 0, 0, &gpu, &mem);
	assert_range(&gpu, NVML_LOCK_INVALID, 0, 0);
	req = lock_req(CLOCK_LOCK_MHZ, 0, 0);
	nvml_decode_lock(&req, 0, 0, &gpu, &mem);
	assert_range(&gpu, NVML_LOCK_INVALID, 0, 0);
	req = lock_req(CLOCK_LOCK_NONE, 1500, 1215);
	nvml_decode_lock(&req, 1980, 2619, &gpu, &mem);
	assert_range(&gpu, NVML_LOCK_LEAVE, 0, 0);
	assert_range(&mem, NVML_LOCK_LEAVE, 0, 0);
}

/* NO_PERMISSION 4, NOT_SUPPORTED 3, FUNCTION_NOT_FOUND 13; the rest is NVML's text. */
static void
test_lock_reason(void **state)
{
	(void)state;
	assert_string_equal(nvml_decode_lock_reason(4), "no permission (needs root)");
	assert_string_equal(nvml_decode_lock_reason(3), "not supported on this GPU");
	assert_string_equal(nvml_decode_lock_reason(13), "not supported by this driver");
	assert_null(nvml_decode_lock_reason(2));
	assert_null(nvml_decode_lock_reason(15));
	assert_null(nvml_decode_lock_reason(0));
}

static void
test_lock_note(void **state)
{
	struct clock_lock	req = lock_req(CLOCK_LOCK_MAX, 0, 0);
	struct nvml_lock_range	gpu, mem;
	char			buf[200], tiny[12];

	(void)state;
	nvml_decode_lock(&req, 1980, 2619, &gpu, &mem);
	nvml_decode_lock_note(&gpu, &mem, buf, sizeof buf);
	assert_string_equal(buf, "clocks locked for the run: graphics 1980 MHz, memory 2619 MHz");
	/* A memory lock that failed is not in the note. */
	nvml_decode_lock_note(&gpu, NULL, buf, sizeof buf);
	assert_string_equal(buf, "clocks locked for the run: graphics 1980 MHz");
	req = lock_req(CLOCK_LOCK_BASE, 0, 0);
	nvml_decode_lock(&req, 1980, 2619, &gpu, &mem);
	nvml_decode_lock_note(&gpu, &mem, buf, sizeof buf);
	assert_string_equal(buf, "clocks locked for the run: graphics at the base clock (TDP)");
	gpu.min_mhz = 1200;
	gpu.max_mhz = 1400;
	nvml_decode_lock_note(&gpu, NULL, buf, sizeof buf);
	assert_string_equal(buf, "clocks locked for the run: graphics 1200-1400 MHz");
	nvml_decode_lock_note(&gpu, NULL, tiny, sizeof tiny);
	assert_string_equal(tiny, "clocks lock");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_values),
		cmocka_unit_test(test_value_types),
		cmocka_unit_test(test_pstate),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_throttle),
		cmocka_unit_test(test_util_info_layout),
		cmocka_unit_test(test_split_uneven_spacing),
		cmocka_unit_test(test_split_one_sample_unknown_period),
		cmocka_unit_test(test_split_jitter),
		cmocka_unit_test(test_util_samples_layout),
		cmocka_unit_test(test_util_bad_pids),
		cmocka_unit_test(test_proc_strides),
		cmocka_unit_test(test_proc_bad_pid),
		cmocka_unit_test(test_power_samples),
		cmocka_unit_test(test_violation),
		cmocka_unit_test(test_accounting),
		cmocka_unit_test(test_power_kind),
		cmocka_unit_test(test_lock_base),
		cmocka_unit_test(test_lock_max),
		cmocka_unit_test(test_lock_mhz),
		cmocka_unit_test(test_lock_reason),
		cmocka_unit_test(test_lock_note),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
