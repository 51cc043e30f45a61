/*
 * libFuzzer target: the simulated NVML's scenario parser
 * (tests/sim/scenario.c), through its one entry point scenario_load,
 * which reads a file.  The input is written to a memfd once per run and
 * handed over as /proc/self/fd/N, so the parser runs exactly as the
 * library runs it, with no file system in between and no change to the
 * simulator.  On success the scenario has 1 to NVSIM_MAX_DEVICES devices,
 * each with a phase; on failure there is a "file:line: reason" message.
 */
#include <sys/mman.h>

#include <stdio.h>
#include <unistd.h>

#include "nvsim.h"

#include "fuzz.h"

/* The memfd and its path, made on the first run and kept for the process. */
static int	fuzz_fd = -1;
static char	fuzz_path[64];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario	sc;
	char		err[NVSIM_ERRLEN];
	size_t		i;
	int		r;

	if (fuzz_fd == -1) {
		if ((fuzz_fd = memfd_create("fuzz-scenario", MFD_CLOEXEC)) == -1) {
			perror("memfd_create");
			abort();
		}
		snprintf(fuzz_path, sizeof fuzz_path, "/proc/self/fd/%d", fuzz_fd);
	}
	if (ftruncate(fuzz_fd, 0) != 0 ||
	    (size > 0 && pwrite(fuzz_fd, data, size, 0) != (ssize_t)size)) {
		perror("memfd");
		abort();
	}
	err[0] = '\0';
	r = scenario_load(fuzz_path, &sc, err);
	FUZZ_CHECK(r == 0 || r == -1);
	if (r == 0) {
		FUZZ_CHECK(sc.ndev >= 1 && sc.ndev <= NVSIM_MAX_DEVICES);
		for (i = 0; i < sc.ndev; i++)
			FUZZ_CHECK(sc.devs[i].nphases >= 1);
		scenario_free(&sc);
	} else {
		FUZZ_CHECK(err[0] != '\0' && sc.ndev == 0);
	}
	return 0;
}
