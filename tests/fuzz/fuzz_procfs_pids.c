/*
 * libFuzzer target: procfs_parse_pid_list on the text of
 * /proc/PID/task/TID/children.  Every pid handed to the callback is > 0.
 */
#include <sys/types.h>

#include "joulestat/procfs.h"

#include "fuzz.h"

static void
fuzz_pid(pid_t pid, void *arg)
{
	size_t	*n = arg;

	FUZZ_CHECK(pid > 0);
	(*n)++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*text = fuzz_text(data, size);
	size_t	 n = 0;

	(void)procfs_parse_pid_list(text, fuzz_pid, &n);
	/* A pid takes at least one digit and one separator, but the last. */
	FUZZ_CHECK(n <= size / 2 + 1);
	free(text);
	return 0;
}
