/*
 * A GPU that does not answer at probe is kept and identified on the first
 * reading it answers (HACKING.md, "The backend contract").  Driven through
 * the NVML backend itself, on the simulated NVML (tests/sim/README) with a
 * GPU lost for its first 300 ms: while it is lost it keeps the name and
 * notes probe gave it; once identified it has the scenario's UUID, name
 * and bus id, and still what selection gave it at probe: its number, and
 * the runtime family whose mask can hide it.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "joulestat/devsel.h"
#include "joulestat/proctree.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

extern const struct source_ops nvml_ops;

static const char scenario[] =
    "device 0\n"
    "name Late GPU\n"
    "uuid GPU-00000000-1111-2222-3333-444444444444\n"
    "busid 00000000:41:00.0\n"
    "phase at=0 power=200 pstate=0\n"
    "lost 0 300\n";

static void
test_identified_late(void **state)
{
	const char		*simlib = getenv("SIMLIB");
	char			 path[] = "/tmp/nvml-late-XXXXXX";
	struct devsel		 sel;
	struct source_config	 sc;
	struct proctree		 tree;
	struct pid_usage_set	 pids = { 0 };
	struct errbuf		 err = { "" };
	struct sample		 s;
	struct device		*devs = NULL;
	size_t			 ndev = 0;
	unsigned		 number;
	int			 fd, tries;

	(void)state;
	if (simlib == NULL || access(simlib, R_OK) != 0)
		skip();
	assert_true((fd = mkstemp(path)) != -1);
	assert_int_equal(write(fd, scenario, sizeof scenario - 1), (ssize_t)(sizeof scenario - 1));
	close(fd);
	setenv("NVSIM_SCENARIO", path, 1);
	memset(&sel, 0, sizeof sel);
	memset(&sc, 0, sizeof sc);
	memset(&tree, 0, sizeof tree);
	sc.sel = &sel;
	sc.nvml_lib = simlib;

	assert_int_equal(nvml_ops.probe(&sc, &devs, &ndev, &err), 0);
	assert_int_equal(ndev, 1);
	assert_string_equal(devs[0].id, "nvml:0");
	assert_int_equal(devs[0].family, DEVSEL_F_CUDA);
	assert_int_equal(devs[0].nnotes, 1);
	assert_non_null(strstr(devs[0].notes[0], "did not answer at start"));
	number = devs[0].number;

	/* Lost for 300 ms from the first nvmlInit: at most a few seconds of tries. */
	for (tries = 0; tries < 200; tries++) {
		memset(&s, 0, sizeof s);
		assert_int_equal(nvml_ops.sample(devs, ndev, &tree, &s, &pids, &err), 0);
		if (!s.is_lost)
			break;
		assert_string_equal(devs[0].id, "nvml:0");
		assert_string_equal(devs[0].name, "NVIDIA GPU 0");
		nanosleep(&(struct timespec){ 0, 25 * 1000 * 1000 }, NULL);
	}
	assert_false(s.is_lost);
	assert_string_equal(devs[0].id, "GPU-00000000-1111-2222-3333-444444444444");
	assert_string_equal(devs[0].name, "Late GPU");
	assert_string_equal(devs[0].bus_id, "00000000:41:00.0");
	assert_int_equal(devs[0].number, number);
	assert_int_equal(devs[0].family, DEVSEL_F_CUDA);
	assert_true(devs[0].nnotes >= 1);
	assert_non_null(strstr(devs[0].notes[0], "did not answer at start"));
	assert_true(devs[0].measures & M_POWER);
	assert_true(s.valid & M_POWER);

	nvml_ops.close(devs, ndev);
	free(devs);
	free(pids.v);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identified_late),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
