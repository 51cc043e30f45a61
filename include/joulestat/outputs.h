/*
 * The files a run writes: the text report (or -x CSV), the summary CSV, the
 * JSON form, the streamed timeline and the --plot drawing.  They are opened
 * before the run, so that a bad path is known at once, and written and
 * closed after it; any failure marks the outputs failed, which the run
 * command turns into exit status 125 (HACKING.md, "Exit status").
 */
#ifndef JOULESTAT_OUTPUTS_H
#define JOULESTAT_OUTPUTS_H

#include <sys/types.h>

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "joulestat/timeline.h"
#include "joulestat/util.h"

struct gate_set;
struct report;

/* Where the outputs go, as the options said. */
struct output_paths {
	const char	*output;	/* -o: report; NULL = stderr, "-" = stdout */
	const char	*field_sep;	/* -x: report as CSV with this separator */
	const char	*csv_path;	/* --csv: summary CSV, "-" = stdout */
	const char	*json_path;	/* --json: the report as JSON */
	const char	*timeline_path;	/* --timeline: one CSV row per device per reading */
	const char	*plot_path;	/* --plot: PNG drawn from the timeline */
	const char	*markdown_path;	/* --markdown: GitHub Flavored Markdown summary */
	bool		 is_markdown_append; /* ... appended to ($GITHUB_STEP_SUMMARY) */
	const char	*junit_path;	/* --junit: JUnit XML, a test case per gate */
	const char	*metrics_path;	/* --openmetrics: Prometheus/OpenMetrics text */
	bool		 is_csv_long;	/* --csv-format=long: one row per figure */
	bool		 is_github;	/* a GitHub Actions step: annotate failed gates */
	bool		 is_quiet;	/* -q: no report */
	bool		 is_stdout_closed; /* joulestat started with fd 1 closed */
	const char *const *inputs;	/* files the command reads (NULL-ended), or NULL:
					   no output may name one */
};

/* A file output: the temporary file written in place of path, renamed at the end. */
struct out_file {
	const char	*path;
	char		*target;	/* the file path's symlinks lead to, or NULL */
	char		*tmp;		/* NULL: written in place (stdout, a FIFO, a device) */
	bool		 is_copied;	/* tmp is in the temporary directory (the file's
					   own is not writable): copied into it at the end */
	mode_t		 mode;		/* what a plain open would have given path */
};

/* Every output of a run, opened before it starts. */
struct outputs {
	const struct output_paths *paths;
	FILE		*report;	/* text or -x CSV; NULL with -q */
	FILE		*csv;
	FILE		*json;
	FILE		*markdown;
	FILE		*junit;
	FILE		*metrics;
	struct out_file	 report_file, csv_file, json_file;
	struct out_file	 markdown_file, junit_file, metrics_file;
	struct timeline	 timeline;
	bool		 has_timeline;
	char		*plot_tool;	/* --plot: joulestat-plot, found before the run */
	char		*plot_timeline;	/* the timeline it draws, a temporary file without --timeline */
	sigset_t	 child_mask;	/* the signal mask joulestat started with */
	bool		 is_pipe_dfl;	/* ... and SIGPIPE had its default action */
	bool		 is_failed;	/* some output could not be opened or written */
};

/*
 * Before anything is opened: refuse names that look like options ("--";
 * "./--" is a file), two outputs that are one file (by st_dev and st_ino,
 * or directory and name), an output that is joulestat's own standard
 * output or error, and two outputs on "-".  Returns 0, or -1 with a cause.
 */
int	outputs_check(const struct output_paths *paths, struct errbuf *err);

/* A zeroed o that outputs_abandon accepts, before outputs_open. */
void	outputs_init(struct outputs *o, const struct output_paths *paths);

/* Open every output paths names; a failure is said on stderr and sets is_failed. */
void	outputs_open(struct outputs *o);

/* Write every requested form of reps (nreps > 0) with gates, and close everything. */
void	outputs_write(struct outputs *o, const struct report *reps, size_t nreps,
	    const struct gate_set *gates);

/*
 * Write the forms drawn from the JSON report doc (--markdown, --junit,
 * --openmetrics, and the annotations of a GitHub Actions step) and close
 * their files; a NULL doc (out of memory) fails them.  outputs_write does
 * this for a run; `joulestat report` for a --json file read back.
 */
void	outputs_write_doc(struct outputs *o, const json_t *doc);

/* Close without writing: the run never started or measured nothing. */
void	outputs_abandon(struct outputs *o);

/*
 * One output on its own (--list-devices --json, joulestat merge's): path
 * as the run's outputs take it ("-" standard output, NULL standard error,
 * a regular file written beside and renamed over, so that a failure keeps
 * an earlier file), written by emit(f, arg), which returns 0 or -errno.
 * Returns 0, or -1 after a message naming the output.
 */
int	outputs_write_one(const char *path, int (*emit)(FILE *f, const void *arg),
	    const void *arg);

/*
 * --plot (src/out/plot.c): find joulestat-plot and gnuplot before the run,
 * and return the timeline path to write (a temporary file without
 * --timeline); without them, say why and return the --timeline path.
 */
const char *plot_prepare(struct outputs *o);

/*
 * The --plot path can take a file before the run: named .png or .svg (the
 * format), not a directory, in a directory that is there and writable (the
 * plot is written by joulestat-plot only after the run).  0, or -1 with a
 * cause.
 */
int	plot_check_path(const char *path, struct errbuf *err);

/*
 * Run joulestat-plot on the finished timeline, titled with the command
 * (NULL: none); its failure is an output failure.
 */
void	plot_draw(struct outputs *o, const char *title);

/* Remove the temporary timeline of --plot and forget the tool. */
void	plot_forget(struct outputs *o);

#endif
