/*
 * libFuzzer target: `joulestat report` on a JSON file it did not write.
 * The input is parsed by jansson; a document doc_check accepts is drawn
 * as Markdown, JUnit XML and metrics text (src/out/markdown.c, junit.c,
 * openmetrics.c), whatever the types of its members, without a crash or
 * a write error; one it refuses leaves a cause.
 */
#include <jansson.h>

#include "joulestat/doc.h"
#include "joulestat/junit.h"
#include "joulestat/markdown.h"
#include "joulestat/openmetrics.h"
#include "joulestat/util.h"

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct errbuf	 err = { { 0 } };
	json_t		*doc;
	char		*out = NULL;
	size_t		 len = 0;
	FILE		*f;

	if ((doc = json_loadb((const char *)data, size, 0, NULL)) == NULL)
		return 0;
	if (doc_check(doc, &err) != 0) {
		FUZZ_CHECK(err.msg[0] != '\0');
		json_decref(doc);
		return 0;
	}
	if ((f = open_memstream(&out, &len)) == NULL)
		abort();
	FUZZ_CHECK(markdown_write(f, doc) == 0);
	FUZZ_CHECK(junit_write(f, doc) == 0);
	FUZZ_CHECK(openmetrics_write(f, doc) == 0);
	fclose(f);
	FUZZ_CHECK(len > 0);
	free(out);
	json_decref(doc);
	return 0;
}
