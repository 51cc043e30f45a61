/*
 * Reading the JSON report back (doc.h): the checks `joulestat report`
 * makes on a --json file, and the few accessors the forms drawn from it
 * share.  Keys are those jsonout.c writes, listed in the man page (JSON).
 */
#include "joulestat/doc.h"

#include <string.h>

#include "joulestat/jsonout.h"

int
doc_check(const json_t *doc, struct errbuf *err)
{
	const json_t	*runs, *v;
	size_t		 i;

	if (!json_is_object(doc)) {
		errbuf_set(err, "not a joulestat JSON report: the document is not an object");
		return -1;
	}
	v = json_object_get(doc, "schema_version");
	if (!json_is_integer(v) || json_integer_value(v) != JSONOUT_SCHEMA_VERSION) {
		errbuf_set(err, "not a joulestat JSON report of schema_version %d",
		    JSONOUT_SCHEMA_VERSION);
		return -1;
	}
	runs = json_object_get(doc, "runs");
	if (!json_is_array(runs) || json_array_size(runs) == 0) {
		errbuf_set(err, "the report has no runs");
		return -1;
	}
	json_array_foreach(runs, i, v) {
		if (!json_is_object(v) || !json_is_array(json_object_get(v, "devices"))) {
			errbuf_set(err, "run %zu of the report is not an object with devices", i + 1);
			return -1;
		}
	}
	if (!json_is_array(json_object_get(doc, "gates"))) {
		errbuf_set(err, "the report has no gates array");
		return -1;
	}
	return 0;
}

bool
doc_real(const json_t *o, const char *key, double *v)
{
	const json_t	*x = json_object_get(o, key);

	if (!json_is_number(x))
		return false;
	*v = json_number_value(x);
	return true;
}

const char *
doc_text(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

const json_t *
doc_array(const json_t *o, const char *key)
{
	const json_t	*a = json_object_get(o, key);

	return json_is_array(a) ? a : NULL;
}

size_t
doc_failed_gates(const json_t *doc)
{
	const json_t	*g;
	size_t		 i, n = 0;

	json_array_foreach(doc_array(doc, "gates"), i, g) {
		if (!json_is_true(json_object_get(g, "passed")))
			n++;
	}
	return n;
}

const char *
doc_gate_comparison(const json_t *gate)
{
	const char	*c = doc_text(gate, "comparison");

	return c != NULL && strcmp(c, ">=") == 0 ? ">=" : "<=";
}
