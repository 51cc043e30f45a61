/*
 * libFuzzer target: procfs_parse_stat on the text of /proc/PID/stat.
 * On success the pid is valid and comm is a terminated string.
 */
#include <string.h>

#include "joulestat/procfs.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_stat	 st;
	char			*text = fuzz_text(data, size);

	if (procfs_parse_stat(text, &st) == 0) {
		FUZZ_CHECK(st.pid > 0);
		FUZZ_CHECK(st.ppid >= 0);
		FUZZ_CHECK(memchr(st.comm, '\0', sizeof st.comm) != NULL);
	}
	free(text);
	return 0;
}
