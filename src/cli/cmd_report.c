/*
 * The report command: joulestat report [--markdown FILE|github] [--junit
 * FILE] [--openmetrics FILE] FILE.json.  Draws the same forms a run
 * writes from a --json file written earlier ("-" reads standard input),
 * so a CI step can publish a result without measuring again.  It does not
 * annotate failed gates again: the run that judged them did.
 */
#include "joulestat/commands.h"

#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/config_ci.h"
#include "joulestat/doc.h"
#include "joulestat/exitcode.h"
#include "joulestat/help.h"
#include "joulestat/outputs.h"
#include "joulestat/util.h"

static const char REPORT_USAGE[] =
    "usage: joulestat report [--markdown FILE|github] [--junit FILE] [--openmetrics FILE] "
    "FILE.json";

enum report_opt {
	OPT_HELP = 1,
	OPT_JUNIT,
	OPT_MARKDOWN,
	OPT_METRICS,
};

static const struct poptOption report_options[] = {
	{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
	{ "junit", '\0', POPT_ARG_STRING, NULL, OPT_JUNIT,
	    "write JUnit XML to FILE: a test case per gate", "FILE" },
	{ "markdown", '\0', POPT_ARG_STRING, NULL, OPT_MARKDOWN,
	    "write a Markdown summary to FILE; github appends it to $GITHUB_STEP_SUMMARY",
	    "FILE|github" },
	{ "openmetrics", '\0', POPT_ARG_STRING, NULL, OPT_METRICS,
	    "write the figures as Prometheus/OpenMetrics text to FILE", "FILE" },
	POPT_TABLEEND
};

/* The option values, each the last one given (popt hands over copies). */
struct report_opts {
	char	*v[OPT_METRICS + 1];
};

static int
usage_error(const char *msg)
{
	return help_usage_error("report", REPORT_USAGE, msg);
}

static int
print_help(void)
{
	printf("%s\n\nDraw the Markdown summary, JUnit XML or metrics text of a run from the\n"
	    "JSON report it wrote (joulestat --json FILE); - reads standard input.\n\n",
	    REPORT_USAGE);
	help_print_options(stdout, report_options, true);
	printf("\nExit status: 0; 125 if the file cannot be read or is not a joulestat JSON\n"
	    "report, or an output cannot be written.  See joulestat(1).\n");
	return fflush(stdout) == 0 ? 0 : EXIT_TOOL;
}

static json_t *
load(const char *path, struct errbuf *err)
{
	json_error_t	 je;
	json_t		*doc;
	FILE		*f = stdin;
	int		 e = 0;

	/* The file's own error, not jansson's "line -1: unable to open" or "'[' expected". */
	if (strcmp(path, "-") != 0 && (f = fopen(path, "r")) == NULL) {
		errbuf_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	doc = json_loadf(f, 0, &je);
	if (ferror(f))
		e = errno;
	if (f != stdin)
		fclose(f);
	if (doc == NULL && e != 0) {
		errbuf_set(err, "%s: %s", path, strerror(e));
		return NULL;
	}
	if (doc == NULL) {
		errbuf_set(err, "%s: line %d: %s", strcmp(path, "-") == 0 ? "standard input" :
		    path, je.line, je.text);
		return NULL;
	}
	if (doc_check(doc, err) != 0) {
		errbuf_prefix(err, "%s", path);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* Check the outputs, read the file, write every form asked for. */
static int
report_run(const struct report_opts *ro, const char *path)
{
	const char		*inputs[] = { path, NULL };
	struct output_paths	 paths = { .is_quiet = true, .inputs = inputs };
	struct outputs		 o;
	struct errbuf		 err = { "" };
	json_t			*doc;

	if (config_ci_outputs(&paths, ro->v[OPT_MARKDOWN], ro->v[OPT_JUNIT], ro->v[OPT_METRICS],
	    NULL, getenv("GITHUB_STEP_SUMMARY"), NULL, &err) != 0)
		return usage_error(err.msg);
	if (outputs_check(&paths, &err) != 0 || (doc = load(path, &err)) == NULL) {
		warnmsg("%s", err.msg);
		return EXIT_TOOL;
	}
	outputs_init(&o, &paths);
	outputs_open(&o);
	if (o.is_failed) {
		outputs_abandon(&o);
		json_decref(doc);
		return EXIT_TOOL;
	}
	outputs_write_doc(&o, doc);
	json_decref(doc);
	return o.is_failed ? EXIT_TOOL : 0;
}

int
report_main(int argc, char **argv)
{
	struct report_opts	 ro = { { NULL } };
	poptContext		 ctx;
	const char		**rest;
	char			 msg[256];
	int			 rc, status, n = 0;

	ctx = poptGetContext("joulestat report", argc, (const char **)argv, report_options,
	    POPT_CONTEXT_POSIXMEHARDER);
	while ((rc = poptGetNextOpt(ctx)) > 0) {
		if (rc == OPT_HELP) {
			status = print_help();
			goto out;
		}
		free(ro.v[rc]);
		ro.v[rc] = poptGetOptArg(ctx);
	}
	if (rc < -1) {
		help_popt_error(ctx, rc, msg, sizeof msg);
		status = usage_error(msg);
		goto out;
	}
	rest = poptGetArgs(ctx);
	while (rest != NULL && rest[n] != NULL)
		n++;
	if (n != 1)
		status = usage_error(n == 0 ? "no JSON report given" : "one JSON report at a time");
	else
		status = report_run(&ro, rest[0]);
out:
	for (n = 0; n <= OPT_METRICS; n++)
		free(ro.v[n]);
	poptFreeContext(ctx);
	return status;
}
