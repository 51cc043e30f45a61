/*
 * libFuzzer target: a running-process buffer as nvml.c gets it back from
 * nvmlDevice{Compute,Graphics}RunningProcesses*, through
 * nvml_decode_stride and nvml_decode_procs.  As in nvml_procs_one, the
 * buffer holds cap entries of the largest stride (32 bytes), is filled
 * with NVML_PROC_FILL_BYTE, and the driver then writes what it wants and
 * reports count <= cap entries.  Input: cap, count, the symbol's nominal
 * stride (bit 0: 16 or 24 bytes), then the bytes the driver wrote.  The
 * guessed stride must keep count entries inside the buffer.
 */
#include <limits.h>

#include "../../src/sources/nvml_decode.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvml_proc_mem	*out;
	unsigned char		*buf;
	uint8_t			 hdr[3];
	size_t			 cap, bytes, nominal, stride, n, i;
	unsigned		 count;

	fuzz_take(&data, &size, hdr, sizeof hdr);
	cap = hdr[0];
	count = cap > 0 ? hdr[1] % (cap + 1) : 0;
	nominal = (hdr[2] & 1) ? sizeof(nvmlProcessInfo_v2_t) : sizeof(nvmlProcessInfo_v1_t);
	bytes = cap * NVML_PROCESS_INFO_R535_SIZE;
	if ((buf = malloc(bytes > 0 ? bytes : 1)) == NULL ||
	    (out = calloc(count > 0 ? count : 1, sizeof *out)) == NULL)
		abort();
	memset(buf, NVML_PROC_FILL_BYTE, bytes);
	if (size > 0 && bytes > 0)
		memcpy(buf, data, size < bytes ? size : bytes);
	stride = nvml_decode_stride(buf, bytes, count, nominal);
	FUZZ_CHECK(stride == 16 || stride == 24 || stride == 32);
	FUZZ_CHECK((size_t)count * stride <= bytes);
	n = nvml_decode_procs(buf, count, stride, out);
	FUZZ_CHECK(n <= count);
	for (i = 0; i < n; i++)
		FUZZ_CHECK(out[i].pid > 0);
	free(out);
	free(buf);
	return 0;
}
