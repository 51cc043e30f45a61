/*
 * libFuzzer target: procfs_parse_status on the text of /proc/PID/status.
 * On success every NSpid value is a valid pid and there are not more of
 * them than the struct holds.
 */
#include "joulestat/procfs.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_status	 st;
	char			*text = fuzz_text(data, size);
	size_t			 i;

	if (procfs_parse_status(text, &st) == 0) {
		FUZZ_CHECK(st.nnspid <= PROCFS_NSPID_MAX);
		for (i = 0; i < st.nnspid; i++)
			FUZZ_CHECK(st.nspid[i] > 0);
	}
	free(text);
	return 0;
}
