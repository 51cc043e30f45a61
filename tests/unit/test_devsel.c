/*
 * Unit tests of device selection (src/sources/devsel.c): parsing of -d lists,
 * matching by index, by id without regard to case and by PCI bus id in
 * NVML's, sysfs's and lspci's spellings, and the report of entries that
 * matched no device.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/devsel.h"

#define UUID0	"GPU-5f1c3a2e-0b7d-4c11-9e0a-1234567890ab"
#define UUID1	"GPU-00aa11bb-22cc-33dd-44ee-55ff66778899"
#define BUS0	"00000000:3B:00.0"		/* as NVML writes it */
#define BUS1	"00000000:AF:00.0"

static void
test_parse(void **state)
{
	struct devsel	sel;
	struct errbuf	err;

	(void)state;
	memset(&err, 0, sizeof err);
	assert_int_equal(devsel_parse(&sel, NULL, &err), 0);
	assert_int_equal(sel.n, 0);
	devsel_free(&sel);
	assert_int_equal(devsel_parse(&sel, "", &err), 0);
	assert_int_equal(sel.n, 0);
	devsel_free(&sel);

	assert_int_equal(devsel_parse(&sel, "0, " UUID0 " ,3b:00.0", &err), 0);
	assert_int_equal(sel.n, 3);
	assert_int_equal(sel.v[0].kind, DEVSEL_INDEX);
	assert_int_equal(sel.v[0].index, 0);
	assert_int_equal(sel.v[1].kind, DEVSEL_ID);
	assert_string_equal(sel.v[1].text, UUID0);
	assert_int_equal(sel.v[2].kind, DEVSEL_BUS_ID);
	assert_int_equal(sel.v[2].domain, 0);
	assert_int_equal(sel.v[2].bus, 0x3b);
	assert_int_equal(sel.v[2].device, 0);
	assert_int_equal(sel.v[2].function, 0);
	devsel_free(&sel);

	assert_int_equal(devsel_parse(&sel, "0001:3B:1f.7", &err), 0);
	assert_int_equal(sel.v[0].kind, DEVSEL_BUS_ID);
	assert_int_equal(sel.v[0].domain, 1);
	assert_int_equal(sel.v[0].device, 0x1f);
	assert_int_equal(sel.v[0].function, 7);
	devsel_free(&sel);

	/* Not a bus id (device > 0x1f, too many digits): compared as an id. */
	assert_int_equal(devsel_parse(&sel, "3b:20.0,123456789:3b:00.0", &err), 0);
	assert_int_equal(sel.v[0].kind, DEVSEL_ID);
	assert_int_equal(sel.v[1].kind, DEVSEL_ID);
	devsel_free(&sel);
}

static void
test_parse_errors(void **state)
{
	static const char *const bad[] = {
		"0,,1",
		",",
		"0, ",
		"4294967296",
		"GPU-0123456789012345678901234567890123456789012345678901234567890123456789"
		    "012345678901234567890123",
	};
	struct devsel	sel;
	struct errbuf	err;
	size_t		i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&err, 0, sizeof err);
		if (devsel_parse(&sel, bad[i], &err) != -1)
			print_error("accepted \"%s\"\n", bad[i]);
		assert_int_equal(devsel_parse(&sel, bad[i], &err), -1);
		assert_true(err.msg[0] != '\0');
		assert_null(sel.v);
		assert_int_equal(sel.n, 0);
	}
}

static void
test_match_all(void **state)
{
	struct devsel	sel;
	struct errbuf	err;

	(void)state;
	memset(&err, 0, sizeof err);
	assert_int_equal(devsel_parse(&sel, NULL, &err), 0);
	assert_true(devsel_match(&sel, 0, UUID0, BUS0));
	assert_true(devsel_match(&sel, 7, NULL, NULL));
	assert_int_equal(devsel_check(&sel, &err), 0);
	devsel_free(&sel);
}

static void
test_match_index_and_id(void **state)
{
	struct devsel	sel;
	struct errbuf	err;

	(void)state;
	memset(&err, 0, sizeof err);
	assert_int_equal(devsel_parse(&sel, "1,gpu-5F1C3A2E-0B7D-4C11-9E0A-1234567890AB", &err),
	    0);
	assert_true(devsel_match(&sel, 0, UUID0, BUS0));	/* by id, any case */
	assert_true(devsel_match(&sel, 1, UUID1, BUS1));	/* by index */
	assert_false(devsel_match(&sel, 2, "GPU-other", "00000000:D8:00.0"));
	assert_false(devsel_match(&sel, 3, NULL, NULL));
	assert_int_equal(devsel_check(&sel, &err), 0);
	devsel_free(&sel);

	/* A prefix of a UUID is not the UUID. */
	assert_int_equal(devsel_parse(&sel, "GPU-5f1c3a2e", &err), 0);
	assert_false(devsel_match(&sel, 0, UUID0, BUS0));
	devsel_free(&sel);
}

static void
test_match_bus_id(void **state)
{
	static const char *const same[] = {
		"00000000:3B:00.0", "00000000:3b:00.0", "0000:3b:00.0", "0000:3B:00.0",
		"3b:00.0", "3B:0.0", "0:3b:00.0",
	};
	static const char *const other[] = {
		"0001:3b:00.0", "3c:00.0", "3b:01.0", "3b:00.1",
	};
	struct devsel	sel;
	struct errbuf	err;
	size_t		i;

	(void)state;
	memset(&err, 0, sizeof err);
	for (i = 0; i < ARRAY_SIZE(same); i++) {
		assert_int_equal(devsel_parse(&sel, same[i], &err), 0);
		if (!devsel_match(&sel, 5, UUID0, BUS0))
			print_error("\"%s\" does not select %s\n", same[i], BUS0);
		assert_true(devsel_match(&sel, 5, UUID0, BUS0));
		/* The device's bus id may be in any spelling too. */
		assert_true(devsel_match(&sel, 6, UUID1, "0000:3b:00.0"));
		devsel_free(&sel);
	}
	for (i = 0; i < ARRAY_SIZE(other); i++) {
		assert_int_equal(devsel_parse(&sel, other[i], &err), 0);
		if (devsel_match(&sel, 5, UUID0, BUS0))
			print_error("\"%s\" selects %s\n", other[i], BUS0);
		assert_false(devsel_match(&sel, 5, UUID0, BUS0));
		devsel_free(&sel);
	}
	/* A device without a bus id is never selected by one. */
	assert_int_equal(devsel_parse(&sel, "3b:00.0", &err), 0);
	assert_false(devsel_match(&sel, 0, UUID0, NULL));
	assert_false(devsel_match(&sel, 0, UUID0, ""));
	devsel_free(&sel);
}

static void
test_unmatched(void **state)
{
	struct devsel	sel;
	struct errbuf	err;

	(void)state;
	memset(&err, 0, sizeof err);
	assert_int_equal(devsel_parse(&sel, "0,7,GPU-nope,af:00.0", &err), 0);
	assert_true(devsel_match(&sel, 0, UUID0, BUS0));
	assert_true(devsel_match(&sel, 1, UUID1, BUS1));	/* by bus id af:00.0 */
	assert_int_equal(devsel_check(&sel, &err), -1);
	assert_string_equal(err.msg, "no device matches 7, GPU-nope");
	assert_true(sel.v[0].is_matched);
	assert_false(sel.v[1].is_matched);
	assert_true(sel.v[3].is_matched);
	devsel_free(&sel);
	devsel_free(&sel);		/* safe twice */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_match_all),
		cmocka_unit_test(test_match_index_and_id),
		cmocka_unit_test(test_match_bus_id),
		cmocka_unit_test(test_unmatched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
