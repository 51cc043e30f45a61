/*
 * Unit tests of device selection (src/sources/devsel.c): parsing of -d lists,
 * matching by number, by BACKEND:NAME, by id or alias without regard to
 * case and by PCI bus id in NVML's, sysfs's and lspci's spellings, "all",
 * the report of entries that matched no device, and the visible-device
 * masks of the GPU runtimes.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/devsel.h"

#define UUID0	"GPU-5f1c3a2e-0b7d-4c11-9e0a-1234567890ab"
#define UUID1	"GPU-00aa11bb-22cc-33dd-44ee-55ff66778899"
#define BUS0	"00000000:3B:00.0"		/* as NVML writes it */
#define BUS1	"00000000:AF:00.0"

/* Device number n, an NVIDIA GPU (NVML index n), asked about as the backend would. */
static bool
pick(struct devsel *sel, unsigned n, const char *id, const char *bus_id)
{
	struct devsel_dev	d = { .backend = "nvml", .id = id, .bus_id = bus_id,
				    .family = DEVSEL_F_CUDA };
	char			local[16];
	unsigned		number;
	bool			is_selected;

	snprintf(local, sizeof local, "%u", n);
	d.local = local;
	sel->next = n;
	is_selected = devsel_match(sel, &d, &number);
	assert_int_equal(number, n);
	return is_selected;
}

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
	assert_true(pick(&sel, 0, UUID0, BUS0));
	assert_true(pick(&sel, 7, NULL, NULL));
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
	assert_true(pick(&sel, 0, UUID0, BUS0));	/* by id, any case */
	assert_true(pick(&sel, 1, UUID1, BUS1));	/* by index */
	assert_false(pick(&sel, 2, "GPU-other", "00000000:D8:00.0"));
	assert_false(pick(&sel, 3, NULL, NULL));
	assert_int_equal(devsel_check(&sel, &err), 0);
	devsel_free(&sel);

	/* A prefix of a UUID is not the UUID. */
	assert_int_equal(devsel_parse(&sel, "GPU-5f1c3a2e", &err), 0);
	assert_false(pick(&sel, 0, UUID0, BUS0));
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
		if (!pick(&sel, 5, UUID0, BUS0))
			print_error("\"%s\" does not select %s\n", same[i], BUS0);
		assert_true(pick(&sel, 5, UUID0, BUS0));
		/* The device's bus id may be in any spelling too. */
		assert_true(pick(&sel, 6, UUID1, "0000:3b:00.0"));
		devsel_free(&sel);
	}
	for (i = 0; i < ARRAY_SIZE(other); i++) {
		assert_int_equal(devsel_parse(&sel, other[i], &err), 0);
		if (pick(&sel, 5, UUID0, BUS0))
			print_error("\"%s\" selects %s\n", other[i], BUS0);
		assert_false(pick(&sel, 5, UUID0, BUS0));
		devsel_free(&sel);
	}
	/* A device without a bus id is never selected by one. */
	assert_int_equal(devsel_parse(&sel, "3b:00.0", &err), 0);
	assert_false(pick(&sel, 0, UUID0, NULL));
	assert_false(pick(&sel, 0, UUID0, ""));
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
	assert_true(pick(&sel, 0, UUID0, BUS0));
	assert_true(pick(&sel, 1, UUID1, BUS1));	/* by bus id af:00.0 */
	assert_int_equal(devsel_check(&sel, &err), -1);
	assert_string_equal(err.msg, "no device matches 7, GPU-nope");
	assert_true(sel.v[0].is_matched);
	assert_false(sel.v[1].is_matched);
	assert_true(sel.v[3].is_matched);
	devsel_free(&sel);
	devsel_free(&sel);		/* safe twice */
}


/* A node: two NVIDIA boards, amdgpu card1 and card2, Intel card3, package-0. */
struct node_dev {
	const char		*backend, *local, *id, *bus_id;
	enum devsel_family	 family;
	const char		*alias;
};

static const struct node_dev node[] = {
	{ "nvml", "0", UUID0, BUS0, DEVSEL_F_CUDA, "MIG-c6d1a5b0-3f2e-5d8a-9b1c-0e4f7a2d6c11" },
	{ "nvml", "1", UUID1, BUS1, DEVSEL_F_CUDA, "MIG-9a0e5f7c-1b2d-5c3e-8f4a-6d7b0c1e2f33" },
	{ "drm", "card1", "0000:03:00.0", "0000:03:00.0", DEVSEL_F_ROCM, NULL },
	{ "drm", "card2", "0000:04:00.0", "0000:04:00.0", DEVSEL_F_ROCM, NULL },
	{ "drm", "card3", "0000:05:00.0", "0000:05:00.0", DEVSEL_F_ZE, NULL },
	{ "rapl", "package-0", "package-0", NULL, DEVSEL_F_NONE, NULL },
};

/* Probe the node: bit N of the result is device N selected. */
static unsigned
probe_node(struct devsel *sel)
{
	struct devsel_dev	d;
	unsigned		bits = 0, number;
	size_t			i;

	devsel_rewind(sel);
	for (i = 0; i < ARRAY_SIZE(node); i++) {
		memset(&d, 0, sizeof d);
		d.backend = node[i].backend;
		d.local = node[i].local;
		d.id = node[i].id;
		d.bus_id = node[i].bus_id;
		d.family = node[i].family;
		d.aliases = &node[i].alias;
		d.naliases = node[i].alias != NULL;
		if (devsel_match(sel, &d, &number))
			bits |= 1u << number;
		assert_int_equal(number, i);
	}
	return bits;
}

static unsigned
probe_with(const char *list, enum devsel_mask_var var, const char *mask)
{
	struct devsel	sel;
	struct errbuf	err = { "" };
	unsigned	bits;

	memset(&sel, 0, sizeof sel);
	assert_int_equal(devsel_parse(&sel, list, &err), 0);
	if (var != DEVSEL_NMASKS)
		devsel_set_mask(&sel, var, mask);
	bits = probe_node(&sel);
	devsel_free(&sel);
	return bits;
}

static void
test_local_and_all(void **state)
{
	struct devsel	sel;
	struct errbuf	err = { "" };

	(void)state;
	/* The number is the place in the whole list, not the backend's index. */
	assert_int_equal(probe_with("2", DEVSEL_NMASKS, NULL), 1u << 2);
	assert_int_equal(probe_with("drm:card1", DEVSEL_NMASKS, NULL), 1u << 2);
	assert_int_equal(probe_with("nvml:1,rapl:package-0", DEVSEL_NMASKS, NULL),
	    1u << 1 | 1u << 5);
	assert_int_equal(probe_with("DRM:card2", DEVSEL_NMASKS, NULL), 1u << 3);
	assert_int_equal(probe_with("drm:1", DEVSEL_NMASKS, NULL), 0);
	assert_int_equal(probe_with("rapl:card1", DEVSEL_NMASKS, NULL), 0);
	/* A MIG instance selects its board. */
	assert_int_equal(probe_with("mig-C6D1A5B0-3f2e-5d8a-9b1c-0e4f7a2d6c11", DEVSEL_NMASKS,
	    NULL), 1u << 0);
	assert_int_equal(probe_with("all", DEVSEL_NMASKS, NULL), 0x3f);
	assert_int_equal(probe_with("all", DEVSEL_M_CUDA, "1"), 0x3f);
	assert_int_equal(devsel_parse(&sel, "all,0", &err), -1);
	assert_string_equal(err.msg, "\"all\" cannot be combined with other devices");
	assert_null(sel.v);
	/* Two probes number the same way. */
	memset(&sel, 0, sizeof sel);
	assert_int_equal(devsel_parse(&sel, "3", &err), 0);
	assert_int_equal(probe_node(&sel), 1u << 3);
	assert_int_equal(probe_node(&sel), 1u << 3);
	assert_int_equal(devsel_check(&sel, &err), 0);
	devsel_free(&sel);
}

static void
test_masks(void **state)
{
	struct devsel	sel;
	char		buf[200];
	unsigned	number;

	(void)state;
	/* Nothing set: everything.  Masks hide only their own vendor's GPUs. */
	assert_int_equal(probe_with(NULL, DEVSEL_NMASKS, NULL), 0x3f);
	assert_int_equal(probe_with(NULL, DEVSEL_M_CUDA, "1"), 0x3e);
	assert_int_equal(probe_with(NULL, DEVSEL_M_CUDA, UUID0), 0x3d);
	assert_int_equal(probe_with(NULL, DEVSEL_M_CUDA,
	    "MIG-c6d1a5b0-3f2e-5d8a-9b1c-0e4f7a2d6c11"), 0x3d);
	/*
	 * A MIG-enabled board whose MIG devices could not be listed may be
	 * the MIG device's board: kept.  A board not in MIG mode is not.
	 */
	memset(&sel, 0, sizeof sel);
	devsel_set_mask(&sel, DEVSEL_M_CUDA, "MIG-c6d1a5b0-3f2e-5d8a-9b1c-0e4f7a2d6c11");
	devsel_rewind(&sel);
	assert_true(devsel_match(&sel, &(struct devsel_dev){ .backend = "nvml", .local = "0",
	    .id = UUID1, .family = DEVSEL_F_CUDA, .is_mig_unlisted = true }, &number));
	assert_false(devsel_match(&sel, &(struct devsel_dev){ .backend = "nvml", .local = "1",
	    .id = UUID0, .family = DEVSEL_F_CUDA }, &number));
	devsel_free(&sel);
	/* Set but empty hides them all; the list ends at the first bad entry. */
	assert_int_equal(probe_with(NULL, DEVSEL_M_CUDA, ""), 0x3c);
	assert_int_equal(probe_with(NULL, DEVSEL_M_CUDA, "NoDevFiles"), 0x3c);
	assert_int_equal(probe_with(NULL, DEVSEL_M_CUDA, "0,-1,1"), 0x3d);
	assert_int_equal(probe_with(NULL, DEVSEL_M_ROCR, "1"), 0x3b);
	assert_int_equal(probe_with(NULL, DEVSEL_M_HIP, "0"), 0x37);
	assert_int_equal(probe_with(NULL, DEVSEL_M_ZE, "0.1"), 0x3f);
	assert_int_equal(probe_with(NULL, DEVSEL_M_ZE, "1"), 0x2f);
	/* -d wins over the masks. */
	assert_int_equal(probe_with("0", DEVSEL_M_CUDA, "1"), 0x01);

	/* HIP numbers what ROCR left, in ROCR's order. */
	memset(&sel, 0, sizeof sel);
	devsel_set_mask(&sel, DEVSEL_M_ROCR, "1,0");
	devsel_set_mask(&sel, DEVSEL_M_HIP, "0");
	assert_int_equal(probe_node(&sel), 0x3b);
	assert_null(devsel_hidden_by(&sel, 3));
	assert_string_equal(devsel_hidden_by(&sel, 2), "HIP_VISIBLE_DEVICES");
	assert_true(devsel_describe(&sel, buf, sizeof buf));
	assert_string_equal(buf, "measuring the devices the workload can see "
	    "(ROCR_VISIBLE_DEVICES=1,0, HIP_VISIBLE_DEVICES=0): 1 device hidden from it; "
	    "-d all measures every device");
	/* Listing: everything, marked. */
	sel.is_listing = true;
	assert_int_equal(probe_node(&sel), 0x3f);
	assert_string_equal(devsel_hidden_by(&sel, 2), "HIP_VISIBLE_DEVICES");
	assert_false(devsel_describe(&sel, buf, sizeof buf));
	devsel_free(&sel);
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
		cmocka_unit_test(test_local_and_all),
		cmocka_unit_test(test_masks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
