/*
 * The merge command: joulestat merge [-q] [-o FILE] [--csv FILE] [--json
 * FILE] FILE...  Its options, its help, reading every file into one job
 * (src/merge/) and writing the report, the CSV and the JSON
 * (mergeout.c).  The outputs are opened only when every file read.
 */
#include "joulestat/commands.h"

#include <popt.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/exitcode.h"
#include "joulestat/help.h"
#include "joulestat/merge.h"
#include "joulestat/outputs.h"
#include "joulestat/util.h"

static const char MERGE_USAGE[] =
    "usage: joulestat merge [-q] [-o FILE] [--csv FILE] [--json FILE] FILE...";

enum merge_opt {
	OPT_CSV = 1,
	OPT_HELP,
	OPT_JSON,
	OPT_OUTPUT,
	OPT_QUIET,
};

static const struct poptOption merge_options[] = {
	{ "csv", '\0', POPT_ARG_STRING, NULL, OPT_CSV,
	    "write the merged CSV to FILE (- for standard output)", "FILE" },
	{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
	{ "json", '\0', POPT_ARG_STRING, NULL, OPT_JSON,
	    "write the merged JSON to FILE (- for standard output)", "FILE" },
	{ "output", 'o', POPT_ARG_STRING, NULL, OPT_OUTPUT,
	    "write the report to FILE instead of standard output", "FILE" },
	{ "quiet", 'q', POPT_ARG_NONE, NULL, OPT_QUIET, "print no report", NULL },
	POPT_TABLEEND
};

struct merge_opts {
	char	*output;
	char	*csv;
	char	*json;
	bool	 is_quiet;
};

static int
usage_error(const char *msg)
{
	return help_usage_error("merge", MERGE_USAGE, msg);
}

static int
print_help(void)
{
	printf("%s\n\nAdd up the summary CSVs (joulestat --csv) of the ranks of one job: a device\n"
	    "that ranks on one host measured at the same time is counted once.\n\n", MERGE_USAGE);
	help_print_options(stdout, merge_options, true);
	printf("\nExit status: 0; 125 if a file is missing or malformed, or the files are\n"
	    "not the ranks of one job.  See joulestat(1).\n");
	return fflush(stdout) == 0 ? 0 : EXIT_TOOL;
}

/* A repeated option's last value wins; popt hands over a copy. */
static void
take_arg(char **dst, poptContext ctx)
{
	free(*dst);
	*dst = poptGetOptArg(ctx);
}

static bool
is_stdout(const char *path)
{
	return path != NULL && strcmp(path, "-") == 0;
}

/* Returns -1 to go on, or the exit status (help, usage error). */
static int
parse_options(struct merge_opts *o, poptContext ctx)
{
	const char	**files;
	char		  msg[200];
	int		  rc;

	while ((rc = poptGetNextOpt(ctx)) > 0) {
		switch (rc) {
		case OPT_CSV: take_arg(&o->csv, ctx); break;
		case OPT_HELP: return print_help();
		case OPT_JSON: take_arg(&o->json, ctx); break;
		case OPT_OUTPUT: take_arg(&o->output, ctx); break;
		case OPT_QUIET: o->is_quiet = true; break;
		}
	}
	if (rc < -1) {
		help_popt_error(ctx, rc, msg, sizeof msg);
		return usage_error(msg);
	}
	files = poptGetArgs(ctx);
	if (files == NULL || files[0] == NULL)
		return usage_error("no files given");
	/* Two documents on one stream cannot be parsed apart. */
	if (is_stdout(o->csv) + is_stdout(o->json) + (!o->is_quiet && is_stdout(o->output)) > 1)
		return usage_error("only one of -o, --csv and --json can be - (standard output)");
	return -1;
}

/* The merged forms, for outputs_write_one, which passes the job on as it is. */
static int
emit_report(FILE *f, const void *job)
{
	return merge_write_report(f, job);
}

static int
emit_csv(FILE *f, const void *job)
{
	return merge_write_csv(f, job);
}

static int
emit_json(FILE *f, const void *job)
{
	return merge_write_json(f, job);
}

/*
 * Where the text report goes: -o, else standard output, or standard error
 * when --csv=- or --json=- has standard output (joulestat(1), merge).
 */
static const char *
text_path(const struct merge_opts *o)
{
	if (o->output != NULL)
		return o->output;
	return is_stdout(o->csv) || is_stdout(o->json) ? NULL : "-";
}

static int
write_outputs(const struct merge_opts *o, const struct merge_job *job)
{
	const struct {
		bool		 is_on;
		const char	*path;		/* NULL: standard error */
		int		(*emit)(FILE *, const void *);
	} outs[] = {
		{ !o->is_quiet, text_path(o), emit_report },
		{ o->csv != NULL, o->csv, emit_csv },
		{ o->json != NULL, o->json, emit_json },
	};
	size_t	i;
	int	rc = 0;

	for (i = 0; i < ARRAY_SIZE(outs); i++) {
		if (outs[i].is_on && outputs_write_one(outs[i].path, outs[i].emit, job) != 0)
			rc = -1;
	}
	return rc;
}

/*
 * The outputs, checked as a run's are, and against the files merged: no
 * output may replace one of them.
 */
static int
check_outputs(const struct merge_opts *o, const char **files)
{
	const char		*text = o->is_quiet ? NULL : text_path(o);
	const struct output_paths paths = {
		.is_quiet = text == NULL || strcmp(text, "-") == 0,
		.output = text,
		.csv_path = o->csv,
		.json_path = o->json,
		.inputs = files,
	};
	struct errbuf		 err = { "" };

	if (outputs_check(&paths, &err) == 0)
		return 0;
	warnmsg("merge: %s", err.msg);
	return -1;
}

/* Read every file into one job; the outputs are opened only when all of them read. */
static int
merge_files(const struct merge_opts *o, const char **files)
{
	struct merge_job	job = { 0 };
	struct merge_rank	r;
	struct errbuf		err = { "" };
	size_t			i;
	int			status = EXIT_TOOL;

	if (check_outputs(o, files) != 0)
		return EXIT_TOOL;
	for (i = 0; files[i] != NULL; i++) {
		if (merge_load_file(&r, files[i], &err) != 0 ||
		    merge_job_add(&job, &r, &err) != 0) {
			merge_rank_free(&r);
			break;
		}
	}
	if (files[i] == NULL && merge_job_total(&job, &err) == 0)
		status = write_outputs(o, &job) == 0 ? 0 : EXIT_TOOL;
	if (err.msg[0] != '\0')
		warnmsg("merge: %s", err.msg);
	merge_job_free(&job);
	return status;
}

int
merge_main(int argc, char **argv)
{
	struct merge_opts	  o = { 0 };
	poptContext		  ctx;
	const char		**args;
	int			  status;

	/* popt's help names argv[0]: "joulestat merge", not "merge". */
	args = xcalloc((size_t)argc + 1, sizeof *args);
	memcpy(args, argv, (size_t)argc * sizeof *args);
	args[0] = PROGNAME " merge";
	/* Options may follow the files, as in "merge r*.csv --csv m.csv". */
	ctx = poptGetContext(PROGNAME " merge", argc, args, merge_options, 0);
	poptSetOtherOptionHelp(ctx, "[OPTION...] FILE...");
	if ((status = parse_options(&o, ctx)) < 0)
		status = merge_files(&o, poptGetArgs(ctx));
	free(o.output);
	free(o.csv);
	free(o.json);
	poptFreeContext(ctx);
	free(args);
	return status;
}
