/*
 * Unit tests of the DRM backend's sysfs parsers, src/sources/drm_parse.c
 * (HACKING.md, "Measurement rules" and "Tests"): pp_dpm_* tables with and
 * without the deep-sleep "S:" line, fine-grained and unmarked ones as real
 * cards print them, and uevent and sysfs values.  fdinfo and the engine
 * bookkeeping are in test_drm.c.
 */
#include <errno.h>
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

static void
test_dpm_polaris(void **state)
{
	struct drm_dpm	dpm;

	(void)state;
	assert_int_equal(drm_parse_dpm("0: 300Mhz \n1: 600Mhz \n2: 900Mhz \n3: 1145Mhz *\n"
	    "4: 1215Mhz \n5: 1257Mhz \n6: 1300Mhz \n7: 1366Mhz \n", 0, &dpm), 0);
	assert_true(dpm.has_current);
	assert_false(dpm.is_sleep);
	assert_int_equal(dpm.level, 3);
	assert_int_equal(dpm.mhz, 1145);
	assert_int_equal(dpm.nlevels, 8);
}

static void
test_dpm_deep_sleep(void **state)
{
	struct drm_dpm	dpm;

	(void)state;
	/* Newer kernels: "S:" first, and the levels numbered from 1 then. */
	assert_int_equal(drm_parse_dpm("S: 19Mhz *\n1: 500Mhz \n2: 1200Mhz \n3: 2304Mhz \n", 0, &dpm),
	    0);
	assert_true(dpm.has_current);
	assert_true(dpm.is_sleep);
	assert_int_equal(dpm.mhz, 19);
	assert_int_equal(dpm.nlevels, 3);
	assert_false(dpm.is_deduced_sleep);
	/* The level is the kernel's label: 789 MHz is level 1 with or without "S:". */
	assert_int_equal(drm_parse_dpm("S: 500Mhz \n1: 789Mhz *\n", 0, &dpm), 0);
	assert_false(dpm.is_sleep);
	assert_int_equal(dpm.level, 1);
	assert_int_equal(drm_parse_dpm("0: 500Mhz \n1: 789Mhz *\n", 0, &dpm), 0);
	assert_int_equal(dpm.level, 1);
	assert_int_equal(drm_parse_dpm("1: 500Mhz \n2: 1200Mhz *\n3: 2304Mhz \n", 0, &dpm), 0);
	assert_int_equal(dpm.level, 2);
}

/* Fine-grained tables of real cards (LACT's snapshots, tests/fixtures/README). */
static void
test_dpm_fine_grained_sleep(void **state)
{
	struct drm_dpm	dpm;

	(void)state;
	/* RX 7600S asleep: the current clock 0 is below half of 255 MHz. */
	assert_int_equal(drm_parse_dpm("0: 255Mhz\n1: 0Mhz *\n2: 1841Mhz\n", 0, &dpm), 0);
	assert_true(dpm.is_sleep);
	assert_true(dpm.is_deduced_sleep);
	assert_int_equal(dpm.mhz, 0);
	/* A clock of a few MHz is asleep too; just under half the minimum, not yet. */
	assert_int_equal(drm_parse_dpm("0: 500Mhz\n1: 31Mhz *\n2: 2100Mhz\n", 0, &dpm), 0);
	assert_true(dpm.is_sleep);
	assert_int_equal(drm_parse_dpm("0: 500Mhz\n1: 250Mhz *\n2: 2100Mhz\n", 0, &dpm), 0);
	assert_false(dpm.is_sleep);
	assert_int_equal(dpm.level, 1);
	/*
	 * RX 6600 XT with its graphics block off (GFXOFF): every clock reads 0,
	 * the lowest level's too, and both lines are marked.  Asleep, not DPM0.
	 */
	assert_int_equal(drm_parse_dpm("0: 0Mhz *\n1: 0Mhz *\n", 0, &dpm), 0);
	assert_true(dpm.is_sleep);
	assert_true(dpm.is_deduced_sleep);
	/* RX 6600 at work: the middle line is the current clock, level 1. */
	assert_int_equal(drm_parse_dpm("0: 500Mhz \n1: 2605Mhz *\n2: 2700Mhz \n", 0, &dpm), 0);
	assert_false(dpm.is_sleep);
	assert_int_equal(dpm.level, 1);
	assert_int_equal(dpm.mhz, 2605);
	/* At the lowest level of a table whose next level is more than twice it. */
	assert_int_equal(drm_parse_dpm("0: 500Mhz *\n1: 1200Mhz \n2: 2304Mhz \n", 0, &dpm), 0);
	assert_false(dpm.is_sleep);
	assert_int_equal(dpm.level, 0);
	/* Phoenix at its lowest level. */
	assert_int_equal(drm_parse_dpm("0: 800Mhz *\n1: 1100Mhz \n2: 2700Mhz \n", 0, &dpm), 0);
	assert_false(dpm.is_sleep);
	assert_int_equal(dpm.level, 0);
}

static void
test_dpm_other_shapes(void **state)
{
	struct drm_dpm	dpm;

	(void)state;
	/* Fine-grained: min, current, max; the middle line is the current clock. */
	assert_int_equal(drm_parse_dpm("0: 500Mhz\n1: 1834Mhz *\n2: 2500Mhz\n", 0, &dpm), 0);
	assert_int_equal(dpm.level, 1);
	assert_int_equal(dpm.mhz, 1834);
	/* Renoir: an unnumbered current line between two levels. */
	assert_int_equal(drm_parse_dpm("0: 400Mhz\n   1200Mhz *\n1: 1400Mhz\n", 0, &dpm), 0);
	assert_int_equal(dpm.level, 1);
	assert_int_equal(dpm.mhz, 1200);
	/* Older kernels mark only exact matches: maybe no current line at all. */
	assert_int_equal(drm_parse_dpm("0: 300Mhz \n1: 600Mhz \n", 0, &dpm), 0);
	assert_false(dpm.has_current);
	assert_int_equal(dpm.nlevels, 2);
	/* The correct spelling, and no trailing newline. */
	assert_int_equal(drm_parse_dpm("0: 96MHz *\n1: 1249MHz ", 0, &dpm), 0);
	assert_int_equal(dpm.mhz, 96);
}

/*
 * Tables that mark exact matches only: no line marked at 1904 MHz of a
 * 1905 MHz level.  The hwmon clock names the level within 1 %, no further.
 */
static void
test_dpm_by_clock(void **state)
{
	static const char	table[] = "0: 300Mhz \n1: 1000Mhz \n2: 1905Mhz \n";
	struct drm_dpm		dpm;

	(void)state;
	assert_int_equal(drm_parse_dpm(table, 0, &dpm), 0);
	assert_false(dpm.has_current);
	assert_int_equal(drm_parse_dpm(table, 1904, &dpm), 0);
	assert_true(dpm.has_current);
	assert_true(dpm.is_by_clock);
	assert_false(dpm.is_sleep);
	assert_int_equal(dpm.level, 2);
	assert_int_equal(dpm.mhz, 1905);
	assert_int_equal(drm_parse_dpm(table, 300, &dpm), 0);
	assert_int_equal(dpm.level, 0);
	assert_true(dpm.is_lowest);
	/* 19 MHz is 1 % of 1905; 20 MHz off is between levels. */
	assert_int_equal(drm_parse_dpm(table, 1886, &dpm), 0);
	assert_int_equal(dpm.level, 2);
	assert_int_equal(drm_parse_dpm(table, 1885, &dpm), 0);
	assert_false(dpm.has_current);
	assert_int_equal(drm_parse_dpm(table, 650, &dpm), 0);
	assert_false(dpm.has_current);
	/* A marked line wins over the clock; "S:" is never matched. */
	assert_int_equal(drm_parse_dpm("0: 300Mhz *\n1: 1000Mhz \n", 1000, &dpm), 0);
	assert_int_equal(dpm.level, 0);
	assert_false(dpm.is_by_clock);
	assert_int_equal(drm_parse_dpm("S: 19Mhz \n1: 500Mhz \n", 19, &dpm), 0);
	assert_false(dpm.has_current);
}

/*
 * Navi 1x at its top clock (navi10_print_clk_levels; LACT's RX 5700 XT):
 * two level lines, neither marked.  The parser says so and names the top
 * line; it does not choose it, as a table that is not fine-grained marks
 * no line for a clock between its levels too.
 */
static void
test_dpm_two_unmarked(void **state)
{
	struct drm_dpm	dpm;

	(void)state;
	assert_int_equal(drm_parse_dpm("0: 300Mhz \n1: 1900Mhz \n", 0, &dpm), 0);
	assert_false(dpm.has_current);
	assert_true(dpm.is_two_unmarked);
	assert_int_equal(dpm.top_level, 1);
	assert_int_equal(dpm.top_mhz, 1900);
	/* Marked, matched by the clock, three lines or an "S:" line: not that case. */
	assert_int_equal(drm_parse_dpm("0: 300Mhz *\n1: 1900Mhz \n", 0, &dpm), 0);
	assert_false(dpm.is_two_unmarked);
	assert_int_equal(drm_parse_dpm("0: 300Mhz \n1: 1900Mhz \n", 1899, &dpm), 0);
	assert_true(dpm.is_by_clock);
	assert_false(dpm.is_two_unmarked);
	assert_int_equal(drm_parse_dpm("0: 300Mhz \n1: 1000Mhz \n2: 1900Mhz \n", 0, &dpm), 0);
	assert_false(dpm.is_two_unmarked);
	assert_int_equal(drm_parse_dpm("S: 19Mhz \n1: 500Mhz \n2: 1900Mhz \n", 0, &dpm), 0);
	assert_false(dpm.is_two_unmarked);
}

static void
test_dpm_garbage(void **state)
{
	static const char *const bad[] = {
		"",
		"\n",
		"0: 2.5GT/s, x8 *\n1: 8.0GT/s, x16 \n",	/* pp_dpm_pcie */
		"0: 300 Mhz *\n",
		"0: 300Mhz **\n",
		"0: 300Mhz x\n",
		"0: Mhz *\n",
		": 300Mhz *\n",
		"0: 300Mhz *\n\n1: 600Mhz \n",
		"0: 99999999999Mhz *\n",
		"0: 300Mhz *\n1: 600Mhz \n2: 9",			/* truncated */
	};
	struct drm_dpm	dpm;
	size_t		i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (drm_parse_dpm(bad[i], 0, &dpm) != -EINVAL)
			print_error("not refused: \"%s\"\n", bad[i]);
		assert_int_equal(drm_parse_dpm(bad[i], 0, &dpm), -EINVAL);
	}
}

static void
test_uevent_and_values(void **state)
{
	struct drm_uevent	ue;
	uint64_t		v;

	(void)state;
	assert_int_equal(drm_parse_uevent("DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_ID=1002:744C\n"
	    "PCI_SUBSYS_ID=1EAE:7901\nPCI_SLOT_NAME=0000:03:00.0\nMODALIAS=pci:v00001002\n", &ue), 0);
	assert_string_equal(ue.driver, "amdgpu");
	assert_string_equal(ue.slot, "0000:03:00.0");
	assert_int_equal(ue.vendor, 0x1002);
	assert_int_equal(ue.device, 0x744c);
	assert_int_equal(drm_parse_uevent("MODALIAS=virtio:d00000010v00001AF4\n", &ue), -EINVAL);
	assert_int_equal(drm_parse_uevent("DRIVER=\n", &ue), -EINVAL);

	assert_int_equal(drm_parse_value("123000000\n", &v), 0);
	assert_int_equal(v, 123000000);
	assert_int_equal(drm_parse_value("18446744073709551615", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(drm_parse_value("18446744073709551616\n", &v), -ERANGE);
	assert_int_equal(drm_parse_value("", &v), -EINVAL);
	assert_int_equal(drm_parse_value("\n", &v), -EINVAL);
	assert_int_equal(drm_parse_value("12 \n", &v), -EINVAL);
	assert_int_equal(drm_parse_value("12\n\n", &v), -EINVAL);
	assert_int_equal(drm_parse_value("-1\n", &v), -EINVAL);

	assert_true(drm_is_copy_engine("dma"));
	assert_true(drm_is_copy_engine("copy"));
	assert_true(drm_is_copy_engine("bcs"));
	assert_false(drm_is_copy_engine("gfx"));
	assert_false(drm_is_copy_engine("ccs"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dpm_polaris),
		cmocka_unit_test(test_dpm_deep_sleep),
		cmocka_unit_test(test_dpm_fine_grained_sleep),
		cmocka_unit_test(test_dpm_other_shapes),
		cmocka_unit_test(test_dpm_by_clock),
		cmocka_unit_test(test_dpm_two_unmarked),
		cmocka_unit_test(test_dpm_garbage),
		cmocka_unit_test(test_uevent_and_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
