/*
 * GitHub Actions annotations for failed gates (annotate.h).  The runner
 * reads workflow commands from the step's standard output and error; a
 * command's data escapes '%', CR and LF as %25, %0D and %0A, and a
 * property value also ':' and ',' as %3A and %2C (GitHub's
 * "Workflow commands for GitHub Actions").  joulestat writes them to its
 * standard error, beside its other messages, so the workload's standard
 * output stays its own.
 */
#include "joulestat/annotate.h"

#include <string.h>

#include "joulestat/doc.h"
#include "joulestat/util.h"

bool
annotate_is_github(const char *github_actions)
{
	return github_actions != NULL && strcmp(github_actions, "true") == 0;
}

static void
escaped(FILE *f, const char *s, bool is_property)
{
	for (; s != NULL && *s != '\0'; s++) {
		switch (*s) {
		case '%': fputs("%25", f); break;
		case '\r': fputs("%0D", f); break;
		case '\n': fputs("%0A", f); break;
		case ':': fputs(is_property ? "%3A" : ":", f); break;
		case ',': fputs(is_property ? "%2C" : ",", f); break;
		default: fputc(*s, f);
		}
	}
}

int
annotate_github(FILE *f, const json_t *doc)
{
	const json_t	*g;
	const char	*unit, *detail;
	char		 num[64];
	double		 v;
	size_t		 i;

	json_array_foreach(doc_array(doc, "gates"), i, g) {
		if (json_is_true(json_object_get(g, "passed")))
			continue;
		unit = doc_text(g, "unit");
		detail = doc_text(g, "detail");
		fputs("::error title=", f);
		escaped(f, "joulestat gate ", true);
		escaped(f, doc_text(g, "gate"), true);
		fputs("::gate failed: ", f);
		escaped(f, doc_text(g, "figure"), false);
		if (doc_real(g, "measured", &v)) {
			snprintf(num, sizeof num, ": %.3f %s", v, unit != NULL ? unit : "");
			escaped(f, num, false);
		}
		if (doc_real(g, "limit", &v)) {
			snprintf(num, sizeof num, ", limit %s %.3f %s", doc_gate_comparison(g), v,
			    unit != NULL ? unit : "");
			escaped(f, num, false);
		}
		if (detail != NULL && detail[0] != '\0') {
			fputs("; ", f);
			escaped(f, detail, false);
		}
		fputc('\n', f);
	}
	return flush_status(f);
}
