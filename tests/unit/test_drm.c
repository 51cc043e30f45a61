/*
 * Unit tests of the DRM backend's pure code, src/sources/drm_parse.c
 * (HACKING.md, "Measurement rules" and "Tests"): fdinfo text as amdgpu (today's keys and the
 * 5.14-5.18 spellings), i915 and xe print it, units matched exactly,
 * truncated and hostile text; the engine bookkeeping
 * (non-monotonic counters, carry-over, cycles against total cycles); and
 * the idle-residency dither, checked against the accounting's split rule.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/util.h"

#include "../../src/sources/drm_parse.h"

#define MS(x)	((int64_t)(x) * NSEC_PER_MSEC)

/* amdgpu on Linux 6.8, from a real RX 7900 XTX (values changed). */
static const char fdinfo_amdgpu[] =
    "pos:\t0\n"
    "flags:\t02100002\n"
    "mnt_id:\t24\n"
    "ino:\t1073\n"
    "drm-driver:\tamdgpu\n"
    "drm-client-id:\t42\n"
    "drm-pdev:\t0000:03:00.0\n"
    "pasid:\t32771\n"
    "drm-memory-vram:\t262144 KiB\n"
    "drm-memory-gtt: \t2048 KiB\n"
    "drm-memory-cpu: \t0 KiB\n"
    "drm-total-vram:\t262144 KiB\n"
    "drm-shared-vram:\t0\n"
    "drm-resident-vram:\t131072 KiB\n"
    "drm-total-gtt:\t2048 KiB\n"
    "drm-resident-gtt:\t2048 KiB\n"
    "amd-evicted-vram:\t0 KiB\n"
    "amd-requested-vram:\t262144 KiB\n"
    "drm-engine-gfx:\t1234567890 ns\n"
    "drm-engine-compute:\t55 ns\n"
    "drm-engine-dma:\t987654 ns\n";

/* amdgpu on Linux 5.14-5.18: no drm- keys, percentages per ring. */
static const char fdinfo_amdgpu_514[] =
    "pos:\t0\n"
    "flags:\t02100002\n"
    "mnt_id:\t24\n"
    "pdev:\t0000:0b:00.0\n"
    "pasid:\t32774\n"
    "vram mem:\t131072 kB\n"
    "gtt mem:\t4096 kB\n"
    "cpu mem:\t0 kB\n"
    "gfx0:\t12.50%\n"
    "gfx1:\t7.25%\n"
    "compute0:\t0.0%\n"
    "dma0:\t3.0%\n"
    "enc_10:\t1.0%\n";

/* i915, the example of proc_pid_fdinfo(5), on a DG2 with local memory. */
static const char fdinfo_i915[] =
    "pos:\t0\n"
    "flags:\t02100002\n"
    "mnt_id:\t26\n"
    "ino:\t284\n"
    "drm-driver:\ti915\n"
    "drm-client-id:\t39\n"
    "drm-pdev:\t0000:03:00.0\n"
    "drm-total-local0:\t524288 KiB\n"
    "drm-resident-local0:\t512 MiB\n"
    "drm-total-system0:\t6044 KiB\n"
    "drm-resident-system0:\t6044 KiB\n"
    "drm-purgeable-system0:\t1688 KiB\n"
    "drm-total-stolen-system0:\t0\n"
    "drm-engine-render:\t346249 ns\n"
    "drm-engine-copy:\t0 ns\n"
    "drm-engine-video:\t0 ns\n"
    "drm-engine-capacity-video:\t2\n"
    "drm-engine-video-enhance:\t0 ns\n";

/* xe, the DOC block of xe_drm_client.c. */
static const char fdinfo_xe[] =
    "pos:    0\n"
    "flags:  0100002\n"
    "mnt_id: 26\n"
    "ino:    685\n"
    "drm-driver:     xe\n"
    "drm-client-id:  3\n"
    "drm-pdev:       0000:03:00.0\n"
    "drm-total-system:       0\n"
    "drm-resident-system:    0\n"
    "drm-total-gtt:  192 KiB\n"
    "drm-resident-gtt:       192 KiB\n"
    "drm-total-vram0:        23992 KiB\n"
    "drm-shared-vram0:       16 MiB\n"
    "drm-resident-vram0:     23992 KiB\n"
    "drm-cycles-rcs: 28257900\n"
    "drm-total-cycles-rcs:   7655183225\n"
    "drm-cycles-bcs: 0\n"
    "drm-total-cycles-bcs:   7655183225\n"
    "drm-cycles-vcs: 0\n"
    "drm-total-cycles-vcs:   7655183225\n"
    "drm-engine-capacity-vcs:        2\n"
    "drm-cycles-ccs: 0\n"
    "drm-total-cycles-ccs:   7655183225\n"
    "drm-engine-capacity-ccs:        4\n";

static const struct drm_engine *
engine(const struct drm_fdinfo *fi, const char *name)
{
	size_t	i;

	for (i = 0; i < fi->nengines; i++) {
		if (strcmp(fi->engines[i].name, name) == 0)
			return &fi->engines[i];
	}
	print_error("no engine %s\n", name);
	fail();
	return NULL;
}

static void
test_fdinfo_amdgpu(void **state)
{
	struct drm_fdinfo	 fi;
	const struct drm_engine	*e;

	(void)state;
	assert_int_equal(drm_parse_fdinfo(fdinfo_amdgpu, &fi), 0);
	assert_string_equal(fi.driver, "amdgpu");
	assert_string_equal(fi.pdev, "0000:03:00.0");
	assert_true(fi.has_client_id);
	assert_int_equal(fi.client_id, 42);
	assert_true(fi.has_pasid);
	assert_int_equal(fi.pasid, 32771);
	assert_false(fi.is_legacy);
	/* drm-resident-vram wins over its deprecated alias drm-memory-vram. */
	assert_true(fi.has_dev_mem);
	assert_int_equal(fi.dev_mem_kib, 131072);
	assert_int_equal(fi.nengines, 3);
	e = engine(&fi, "gfx");
	assert_int_equal(e->has, DRM_E_NS);
	assert_int_equal(e->busy_ns, 1234567890);
	assert_int_equal(e->capacity, 1);
	assert_int_equal(engine(&fi, "dma")->busy_ns, 987654);
	assert_int_equal(fi.nbad, 0);
}

static void
test_fdinfo_amdgpu_old_spellings(void **state)
{
	struct drm_fdinfo	 fi;
	const struct drm_engine	*e;

	(void)state;
	assert_int_equal(drm_parse_fdinfo(fdinfo_amdgpu_514, &fi), 0);
	assert_true(fi.is_legacy);
	assert_string_equal(fi.driver, "amdgpu");
	assert_string_equal(fi.pdev, "0000:0b:00.0");
	assert_false(fi.has_client_id);
	assert_int_equal(fi.pasid, 32774);
	/* "kB" there meant vram_mem / 1024. */
	assert_int_equal(fi.dev_mem_kib, 131072);
	e = engine(&fi, "gfx");
	assert_int_equal(e->has, DRM_E_PCT);
	/* The rings of a class add up. */
	assert_true(fabs(e->pct - 19.75) < 1e-9);
	assert_true(fabs(engine(&fi, "dma")->pct - 3.0) < 1e-9);
	/* enc_1 ring 0 is not enc ring 10. */
	assert_true(fabs(engine(&fi, "enc_1")->pct - 1.0) < 1e-9);
	assert_int_equal(fi.nbad, 0);
}

/*
 * The kernel prints the hundredths of those percentages with "%d", not
 * zero-padded: "7.5%" is 7.05 %, "7.50%" is 7.5 %, and no line has three
 * digits after the point.
 */
static void
test_fdinfo_old_percent(void **state)
{
	static const struct {
		const char	*line;
		double		 pct;		/* < 0: a bad line */
	} cases[] = {
		{ "drm-driver: amdgpu\ngfx0:\t7.5%\n", 7.05 },
		{ "drm-driver: amdgpu\ngfx0:\t7.50%\n", 7.5 },
		{ "drm-driver: amdgpu\ngfx0:\t0.9%\n", 0.09 },
		{ "drm-driver: amdgpu\ngfx0:\t100.0%\n", 100.0 },
		{ "drm-driver: amdgpu\ngfx0:\t12%\n", 12.0 },
		{ "drm-driver: amdgpu\ngfx0:\t7.123%\n", -1 },
		{ "drm-driver: amdgpu\ngfx0:\t7.%\n", -1 },
		{ "drm-driver: amdgpu\ngfx0:\t.5%\n", -1 },
		{ "drm-driver: amdgpu\ngfx0:\t-1.5%\n", -1 },
	};
	struct drm_fdinfo	fi;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(drm_parse_fdinfo(cases[i].line, &fi), 0);
		if (cases[i].pct < 0) {
			if (fi.nbad != 1)
				print_error("case %zu: %s", i, cases[i].line);
			assert_int_equal(fi.nbad, 1);
			continue;
		}
		assert_int_equal(fi.nbad, 0);
		if (fabs(engine(&fi, "gfx")->pct - cases[i].pct) > 1e-9)
			print_error("case %zu: %s read as %g", i, cases[i].line,
			    engine(&fi, "gfx")->pct);
		assert_true(fabs(engine(&fi, "gfx")->pct - cases[i].pct) < 1e-9);
	}
}

static void
test_fdinfo_i915(void **state)
{
	struct drm_fdinfo	 fi;
	const struct drm_engine	*e;

	(void)state;
	assert_int_equal(drm_parse_fdinfo(fdinfo_i915, &fi), 0);
	assert_string_equal(fi.driver, "i915");
	assert_int_equal(fi.client_id, 39);
	/* local0 is device memory, system0 is not. */
	assert_int_equal(fi.dev_mem_kib, 512 * 1024);
	/* The capacity key is not an engine called "capacity-video". */
	assert_int_equal(fi.nengines, 4);
	e = engine(&fi, "video");
	assert_int_equal(e->capacity, 2);
	assert_int_equal(engine(&fi, "render")->busy_ns, 346249);
	assert_int_equal(engine(&fi, "render")->capacity, 1);
}

static void
test_fdinfo_xe(void **state)
{
	struct drm_fdinfo	 fi;
	const struct drm_engine	*e;

	(void)state;
	assert_int_equal(drm_parse_fdinfo(fdinfo_xe, &fi), 0);
	assert_string_equal(fi.driver, "xe");
	assert_string_equal(fi.pdev, "0000:03:00.0");
	assert_int_equal(fi.client_id, 3);
	/* drm-total-cycles- is not taken for a drm-total-<region>. */
	assert_int_equal(fi.nengines, 4);
	e = engine(&fi, "rcs");
	assert_int_equal(e->has, DRM_E_CYCLES | DRM_E_TOTAL);
	assert_int_equal(e->cycles, 28257900);
	assert_int_equal(e->total_cycles, 7655183225ull);
	assert_int_equal(engine(&fi, "ccs")->capacity, 4);
	assert_int_equal(engine(&fi, "vcs")->capacity, 2);
	assert_int_equal(fi.dev_mem_kib, 23992);
	assert_int_equal(fi.nbad, 0);
}

static void
test_fdinfo_not_drm(void **state)
{
	static const char *const texts[] = {
		"pos:\t0\nflags:\t02\nmnt_id:\t8\nino:\t51231\n",
		"pos:\t0\nflags:\t02004002\nmnt_id:\t15\nino:\t1057\neventfd-count:\t0\n"
		    "eventfd-id: 2\n",
		"",
		"\n\n\n",
		"drm-engine-gfx: 5 ns\n",	/* no drm-driver: not trusted */
	};
	struct drm_fdinfo	fi;
	size_t			i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(texts); i++)
		assert_int_equal(drm_parse_fdinfo(texts[i], &fi), -ENOENT);
}

static void
test_fdinfo_units_strict(void **state)
{
	static const char *const bad[] = {
		"drm-driver: x\ndrm-engine-gfx: 123\n",		/* no unit */
		"drm-driver: x\ndrm-engine-gfx: 123 us\n",	/* wrong unit */
		"drm-driver: x\ndrm-engine-gfx: 123ns\n",	/* no space */
		"drm-driver: x\ndrm-engine-gfx: 123  ns\n",	/* two spaces */
		"drm-driver: x\ndrm-engine-gfx: -5 ns\n",
		"drm-driver: x\ndrm-engine-gfx: 0x10 ns\n",
		"drm-driver: x\ndrm-engine-gfx: 99999999999999999999 ns\n",
		"drm-driver: x\ndrm-engine-capacity-vcs: 0\n",	/* "cannot be 0" */
		"drm-driver: x\ndrm-cycles-rcs: 12 cycles\n",
		"drm-driver: x\ndrm-resident-vram0: 5 TiB\n",
		"drm-driver: x\ndrm-resident-vram0: 5 kib\n",
		"drm-driver: x\ndrm-client-id: abc\n",
		"drm-driver: x\ngfx0: 12.5\n",			/* old ring line without % */
		"drm-driver: x\ngfx0: x%\n",
	};
	struct drm_fdinfo	fi;
	size_t			i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(drm_parse_fdinfo(bad[i], &fi), 0);
		if (fi.nbad != 1)
			print_error("not refused: \"%s\"\n", bad[i]);
		assert_int_equal(fi.nbad, 1);
		assert_true(fi.nengines == 0 || fi.engines[0].has == 0);
		assert_false(fi.has_dev_mem);
	}
}

static void
test_fdinfo_truncated_and_spacing(void **state)
{
	struct drm_fdinfo	fi;

	(void)state;
	/* Cut in the middle of a value: that key is bad, the rest stands. */
	assert_int_equal(drm_parse_fdinfo("drm-driver:\ti915\ndrm-client-id:\t7\n"
	    "drm-engine-render:\t1000 ns\ndrm-engine-copy:\t12", &fi), 0);
	assert_int_equal(fi.nbad, 1);
	assert_int_equal(engine(&fi, "render")->busy_ns, 1000);
	/* Cut in the middle of a key. */
	assert_int_equal(drm_parse_fdinfo("drm-driver:\ti915\ndrm-eng", &fi), 0);
	assert_int_equal(fi.nengines, 0);
	/* Blanks after the colon do not matter; trailing ones neither. */
	assert_int_equal(drm_parse_fdinfo("drm-driver: \t amdgpu \ndrm-engine-gfx:5 ns\r\n", &fi),
	    0);
	assert_string_equal(fi.driver, "amdgpu");
	assert_int_equal(engine(&fi, "gfx")->busy_ns, 5);
	/* An engine name too long to keep is refused, not cut. */
	assert_int_equal(drm_parse_fdinfo("drm-driver: x\n"
	    "drm-engine-abcdefghijklmnopqrstuvwxyz: 5 ns\n", &fi), 0);
	assert_int_equal(fi.nengines, 0);
	assert_int_equal(fi.nbad, 1);
}

static void
test_fdinfo_many_engines_and_long_lines(void **state)
{
	char			text[4096], line[512];
	struct drm_fdinfo	fi;
	int			i;

	(void)state;
	snprintf(text, sizeof text, "drm-driver: x\n");
	for (i = 0; i < DRM_ENGINES_MAX + 4; i++) {
		snprintf(line, sizeof line, "drm-engine-e%d: %d ns\n", i, i);
		strcat(text, line);
	}
	memset(line, 'a', 300);
	line[300] = '\0';
	strcat(text, line);
	strcat(text, ": 1\ndrm-client-id: 9\n");
	assert_int_equal(drm_parse_fdinfo(text, &fi), 0);
	assert_int_equal(fi.nengines, DRM_ENGINES_MAX);
	assert_int_equal(fi.nbad, 4);
	assert_int_equal(fi.client_id, 9);
}

static void
test_size_kib(void **state)
{
	uint64_t	kib;

	(void)state;
	assert_int_equal(drm_parse_size_kib("0", &kib), 0);
	assert_int_equal(kib, 0);
	assert_int_equal(drm_parse_size_kib("1", &kib), 0);
	assert_int_equal(kib, 1);		/* rounded up */
	assert_int_equal(drm_parse_size_kib("2048", &kib), 0);
	assert_int_equal(kib, 2);
	assert_int_equal(drm_parse_size_kib("7 KiB", &kib), 0);
	assert_int_equal(kib, 7);
	assert_int_equal(drm_parse_size_kib("7 kB", &kib), 0);
	assert_int_equal(kib, 7);
	assert_int_equal(drm_parse_size_kib("3 MiB", &kib), 0);
	assert_int_equal(kib, 3072);
	assert_int_equal(drm_parse_size_kib("2 GiB", &kib), 0);
	assert_int_equal(kib, 2 * 1024 * 1024);
	assert_int_equal(drm_parse_size_kib("18446744073709551615 GiB", &kib), -ERANGE);
	assert_int_equal(drm_parse_size_kib("", &kib), -EINVAL);
	assert_int_equal(drm_parse_size_kib(" 5", &kib), -EINVAL);
	assert_int_equal(drm_parse_size_kib("5 ", &kib), -EINVAL);
	assert_int_equal(drm_parse_size_kib("5 B", &kib), -EINVAL);
}

/* An engine as fdinfo would give it. */
static struct drm_engine
ns_engine(uint64_t ns, uint64_t capacity)
{
	struct drm_engine	e;

	memset(&e, 0, sizeof e);
	snprintf(e.name, sizeof e.name, "gfx");
	e.has = DRM_E_NS;
	e.busy_ns = ns;
	e.capacity = capacity;
	return e;
}

static void
test_engine_ns_baseline_and_deltas(void **state)
{
	struct drm_engine_state	st;
	struct drm_engine	e;

	(void)state;
	memset(&st, 0, sizeof st);
	/* First sight of an old client: only a baseline. */
	e = ns_engine(MS(5000), 1);
	assert_int_equal(drm_engine_update(&st, &e, MS(0), 0, false), 0);
	e = ns_engine(MS(5040), 1);
	assert_int_equal(drm_engine_update(&st, &e, MS(100), MS(100), false), MS(40));
	/* A fresh client counts from zero. */
	memset(&st, 0, sizeof st);
	e = ns_engine(MS(30), 1);
	assert_int_equal(drm_engine_update(&st, &e, MS(100), MS(100), true), MS(30));
}

static void
test_engine_backwards_keeps_larger(void **state)
{
	struct drm_engine_state	st;
	struct drm_engine	e;
	uint64_t		sum = 0;

	(void)state;
	/*
	 * 50 % busy, read every 100 ms; the driver reports a dip for two
	 * readings (drm-usage-stats.rst allows it), then catches up.
	 */
	memset(&st, 0, sizeof st);
	e = ns_engine(MS(1000), 1);
	drm_engine_update(&st, &e, MS(0), 0, false);
	e = ns_engine(MS(1050), 1);
	sum += drm_engine_update(&st, &e, MS(100), MS(100), false);
	e = ns_engine(MS(900), 1);			/* backwards */
	assert_int_equal(drm_engine_update(&st, &e, MS(200), MS(100), false), 0);
	e = ns_engine(MS(1020), 1);			/* still below 1050 */
	assert_int_equal(drm_engine_update(&st, &e, MS(300), MS(100), false), 0);
	assert_int_equal(st.last, MS(1050));
	e = ns_engine(MS(1200), 1);			/* caught up: 150 ms of busy time */
	/* One tick holds at most 100 ms; the rest is carried over. */
	assert_int_equal(drm_engine_update(&st, &e, MS(400), MS(100), false), MS(100));
	e = ns_engine(MS(1250), 1);
	assert_int_equal(drm_engine_update(&st, &e, MS(500), MS(100), false), MS(100));
	e = ns_engine(MS(1300), 1);
	sum += MS(200) + drm_engine_update(&st, &e, MS(600), MS(100), false);
	/* 300 ms of busy time over 600 ms, exactly, in the end. */
	assert_int_equal(sum, MS(300));
	assert_int_equal(st.carry_ns, 0);
}

static void
test_engine_faster_than_clock(void **state)
{
	struct drm_engine_state	st;
	struct drm_engine	e;
	uint64_t		v = MS(5000);
	int			i;

	(void)state;
	/*
	 * amdgpu's compute counter is the sum of its rings: two rings busy
	 * for a second count 2 s.  The class is full for that second, and
	 * idle the moment the work stops.
	 */
	memset(&st, 0, sizeof st);
	e = ns_engine(v, 1);
	drm_engine_update(&st, &e, MS(0), 0, false);
	for (i = 1; i <= 10; i++) {
		v += MS(200);
		e = ns_engine(v, 1);
		assert_int_equal(drm_engine_update(&st, &e, MS(100) * i, MS(100), false), MS(100));
	}
	e = ns_engine(v, 1);
	assert_int_equal(drm_engine_update(&st, &e, MS(1100), MS(100), false), 0);
	assert_int_equal(st.carry_ns, 0);
	/*
	 * A counter that stands still for 300 ms of work and then catches up
	 * by 350 ms: within what 400 ms can hold, so all of it is handed out.
	 */
	memset(&st, 0, sizeof st);
	e = ns_engine(MS(1000), 1);
	drm_engine_update(&st, &e, MS(0), 0, false);
	for (i = 1; i <= 3; i++)
		assert_int_equal(drm_engine_update(&st, &e, MS(100) * i, MS(100), false), 0);
	e = ns_engine(MS(1350), 1);
	assert_int_equal(drm_engine_update(&st, &e, MS(400), MS(100), false), MS(100));
	assert_int_equal(drm_engine_update(&st, &e, MS(500), MS(100), false), MS(100));
	assert_int_equal(drm_engine_update(&st, &e, MS(600), MS(100), false), MS(100));
	assert_int_equal(drm_engine_update(&st, &e, MS(700), MS(100), false), MS(50));
}

static void
test_engine_capacity(void **state)
{
	struct drm_engine_state	st;
	struct drm_engine	e;

	(void)state;
	memset(&st, 0, sizeof st);
	e = ns_engine(0, 2);
	drm_engine_update(&st, &e, MS(0), 0, false);
	/* Two video engines both busy for the whole 100 ms. */
	e = ns_engine(MS(200), 2);
	assert_int_equal(drm_engine_update(&st, &e, MS(100), MS(100), false), MS(200));
	assert_int_equal(st.capacity, 2);
}

static void
test_engine_cycles(void **state)
{
	struct drm_engine_state	st;
	struct drm_engine	e;

	(void)state;
	memset(&st, 0, sizeof st);
	memset(&e, 0, sizeof e);
	snprintf(e.name, sizeof e.name, "rcs");
	e.has = DRM_E_CYCLES | DRM_E_TOTAL;
	e.capacity = 1;
	e.cycles = 1000;
	e.total_cycles = 100000;
	/* The first reading of total cycles is only a baseline, even when fresh. */
	assert_int_equal(drm_engine_update(&st, &e, MS(0), 0, true), 0);
	/* 40 % of the GPU clock, over 100 ms of wall time. */
	e.cycles = 1000 + 4000;
	e.total_cycles = 100000 + 10000;
	assert_int_equal(drm_engine_update(&st, &e, MS(100), MS(100), false), MS(40));
	/* Busy cycles going backwards: nothing, and both previous values kept. */
	e.cycles = 4000;
	e.total_cycles = 120000;
	assert_int_equal(drm_engine_update(&st, &e, MS(200), MS(100), false), 0);
	assert_int_equal(st.last_total, 110000);
	/* Caught up: the whole 200 ms stretch at 40 %, 80 ms, fits in one tick. */
	e.cycles = 5000 + 8000;
	e.total_cycles = 130000;
	assert_int_equal(drm_engine_update(&st, &e, MS(300), MS(100), false), MS(80));
	/* Total cycles standing still: no time passed on the GPU clock. */
	assert_int_equal(drm_engine_update(&st, &e, MS(400), MS(100), false), 0);
}

static void
test_engine_old_percentages(void **state)
{
	struct drm_engine_state	st;
	struct drm_engine	e;

	(void)state;
	memset(&st, 0, sizeof st);
	memset(&e, 0, sizeof e);
	e.has = DRM_E_PCT;
	e.capacity = 1;
	e.pct = 25;
	assert_int_equal(drm_engine_update(&st, &e, MS(100), MS(100), false), MS(25));
	e.pct = 180;
	assert_int_equal(drm_engine_update(&st, &e, MS(200), MS(100), false), MS(100));
}

/*
 * The idle time the accounting credits for states a (previous reading)
 * and b (this reading) over dt: its split rule gives each half of the
 * interval to one end's state.
 */
static double
credited(bool a, bool b, int64_t dt)
{
	return (a ? (double)dt / 2 : 0) + (b ? (double)dt / 2 : 0);
}

/* Run the dither over n intervals at idle fraction f, dt varying; max |error|. */
static double
dither_run(double f, int n, unsigned seed)
{
	struct drm_dither	d;
	double			truth = 0, credit = 0, worst = 0, err;
	int64_t			dt, idle;
	bool			prev, cur;
	int			i;

	memset(&d, 0, sizeof d);
	prev = drm_dither_step(&d, 0, 0, false);
	srand(seed);
	for (i = 0; i < n; i++) {
		dt = MS(90) + (int64_t)(rand() % 21) * NSEC_PER_MSEC;
		idle = (int64_t)(f * (double)dt);
		cur = drm_dither_step(&d, dt, idle, false);
		truth += (double)idle;
		credit += credited(prev, cur, dt);
		err = fabs(truth - credit);
		worst = err > worst ? err : worst;
		prev = cur;
	}
	return worst;
}

static void
test_dither_tracks_residency(void **state)
{
	static const double	fractions[] = { 0, 0.1, 0.25, 0.4, 0.5, 0.66, 0.9, 1 };
	size_t			i;
	double			worst;

	(void)state;
	/* Within 0.75 of the longest interval (110 ms) at all times, for any fraction. */
	for (i = 0; i < ARRAY_SIZE(fractions); i++) {
		worst = dither_run(fractions[i], 2000, (unsigned)i + 1);
		if (worst > 0.75 * (double)MS(110))
			print_error("fraction %.2f: error %.1f ms\n", fractions[i], worst / 1e6);
		assert_true(worst <= 0.75 * (double)MS(110));
	}
}

static void
test_dither_first_and_reset(void **state)
{
	struct drm_dither	d;

	(void)state;
	memset(&d, 0, sizeof d);
	/* The first reading takes the caller's guess. */
	assert_true(drm_dither_step(&d, 0, 0, true));
	/* Fully idle stays idle; fully awake goes awake. */
	assert_true(drm_dither_step(&d, MS(100), MS(100), false));
	assert_false(drm_dither_step(&d, MS(100), 0, false));
	assert_false(drm_dither_step(&d, MS(100), 0, false));
	/* A negative residency (a counter reset) counts as none. */
	assert_false(drm_dither_step(&d, MS(100), -MS(50), false));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fdinfo_amdgpu),
		cmocka_unit_test(test_fdinfo_amdgpu_old_spellings),
		cmocka_unit_test(test_fdinfo_old_percent),
		cmocka_unit_test(test_fdinfo_i915),
		cmocka_unit_test(test_fdinfo_xe),
		cmocka_unit_test(test_fdinfo_not_drm),
		cmocka_unit_test(test_fdinfo_units_strict),
		cmocka_unit_test(test_fdinfo_truncated_and_spacing),
		cmocka_unit_test(test_fdinfo_many_engines_and_long_lines),
		cmocka_unit_test(test_size_kib),
		cmocka_unit_test(test_engine_ns_baseline_and_deltas),
		cmocka_unit_test(test_engine_backwards_keeps_larger),
		cmocka_unit_test(test_engine_faster_than_clock),
		cmocka_unit_test(test_engine_capacity),
		cmocka_unit_test(test_engine_cycles),
		cmocka_unit_test(test_engine_old_percentages),
		cmocka_unit_test(test_dither_tracks_residency),
		cmocka_unit_test(test_dither_first_and_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
