/*
 * Opening, writing and closing the outputs of a run (include/joulestat/outputs.h).
 * A regular-file output is written to a temporary file made by mkostemp in
 * its directory and renamed over the name at the end, so that a run that
 * fails, or is killed, never empties an earlier result (joulestat(1), FILES).
 */
#include "joulestat/outputs.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/annotate.h"
#include "joulestat/csvout.h"
#include "joulestat/fmt.h"
#include "joulestat/gate.h"
#include "joulestat/jsonout.h"
#include "joulestat/junit.h"
#include "joulestat/markdown.h"
#include "joulestat/openmetrics.h"
#include "joulestat/report.h"
#include "joulestat/text.h"
#include "joulestat/util.h"

/* The mode open(2) with 0666 would give a new file: the umask applied. */
static mode_t
plain_mode(void)
{
	mode_t	mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

/*
 * A regular file (or a name not there yet): a temporary file beside it,
 * renamed over it by close_output; through a symbolic link (such as
 * /dev/stdout to a file), beside the file it leads to, which is replaced
 * and the link kept.  Anything else (a FIFO, a terminal, /dev/null) is
 * opened as it is, without blocking on a FIFO that has no reader yet:
 * that is an error rather than a wait no signal can end.
 */
static FILE *
open_file(const char *path, struct out_file *of)
{
	struct stat	 st;
	char		*dir, *base, unique[7];
	int		 fd;
	bool		 is_there = stat(path, &st) == 0;

	if (is_there && !S_ISREG(st.st_mode)) {
		if ((fd = open_output_fd(path, O_WRONLY | O_CLOEXEC, 0)) == -1)
			return NULL;
		return fdopen(fd, "w");
	}
	if (is_there && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
	    (of->target = realpath(path, NULL)) != NULL)
		path = of->target;
	if (is_there && stat(path, &st) != 0)
		goto fail;
	of->mode = is_there ? st.st_mode & 07777 : plain_mode();
	dir = xstrdup(path);
	base = xstrdup(path);
	/* The six characters mkostemp replaces; a name too long for ".NAME." a plain prefix. */
	memset(unique, 'X', sizeof unique - 1);
	unique[sizeof unique - 1] = '\0';
	if (asprintf(&of->tmp, "%s/.%s.%s", dirname(dir), strlen(basename(base)) + 8 > NAME_MAX ?
	    PROGNAME : basename(base), unique) == -1)
		of->tmp = NULL;
	free(dir);
	free(base);
	if (of->tmp == NULL) {
		errno = ENOMEM;
		goto fail;
	}
	fd = mkostemp(of->tmp, O_CLOEXEC);
	/*
	 * A file that may be written in a directory that may not (a shared
	 * results file): written in the temporary directory, copied into the
	 * file when the run is over, so a failed run still leaves it whole.
	 */
	if (fd == -1 && (errno == EACCES || errno == EPERM || errno == EROFS) && is_there &&
	    access(path, W_OK) == 0) {
		free(of->tmp);
		if (asprintf(&of->tmp, "%s/." PROGNAME ".%s", temp_dir(), unique) == -1)
			of->tmp = NULL;
		else if ((fd = mkostemp(of->tmp, O_CLOEXEC)) != -1)
			of->is_copied = true;
	}
	if (fd == -1) {
		free(of->tmp);
		of->tmp = NULL;
		goto fail;
	}
	return fdopen(fd, "w");
fail:
	free(of->target);
	of->target = NULL;
	return NULL;
}

/* How an output is named in a message: "-" is standard output. */
static const char *
shown(const char *path)
{
	if (path == NULL)
		return "standard error";
	return strcmp(path, "-") == 0 ? "standard output" : path;
}

static FILE *
open_output(const char *path, struct out_file *of, bool *is_failed)
{
	FILE	*f;

	memset(of, 0, sizeof *of);
	of->path = path;
	if (path == NULL)
		return stderr;
	if (strcmp(path, "-") == 0) {
		return stdout;
	}
	if ((f = open_file(path, of)) == NULL) {
		warnmsg("%s: %s", path, output_strerror(errno));
		*is_failed = true;
	}
	return f;
}

/*
 * A file that others write too ($GITHUB_STEP_SUMMARY): appended to in
 * place, never replaced, so what earlier steps wrote stays.
 */
static FILE *
open_append(const char *path, struct out_file *of, bool *is_failed)
{
	FILE	*f = NULL;
	int	 fd;

	memset(of, 0, sizeof *of);
	of->path = path;
	if ((fd = open_output_fd(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666)) != -1 &&
	    (f = fdopen(fd, "a")) == NULL)
		close(fd);
	if (f == NULL) {
		warnmsg("%s: %s", path, output_strerror(errno));
		*is_failed = true;
	}
	return f;
}

/* dev:ino of the file, or of its directory with its name when it is not there yet. */
static bool
identity(const char *path, char *key, size_t size)
{
	struct stat	 st;
	char		*dir, *base;
	bool		 ok;

	if (stat(path, &st) == 0) {
		snprintf(key, size, "%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
		return true;
	}
	dir = xstrdup(path);
	base = xstrdup(path);
	ok = stat(dirname(dir), &st) == 0;
	if (ok)
		snprintf(key, size, "%ju:%ju/%s", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
		    basename(base));
	free(dir);
	free(base);
	return ok;
}

/*
 * Is path the file behind joulestat's fd (its stdin, stdout or stderr)?
 * Only a regular file is lost by being both: a device such as /dev/null
 * or a terminal takes both.
 */
static bool
is_fd_file(const char *path, int fd)
{
	struct stat	a, b;

	return stat(path, &a) == 0 && S_ISREG(a.st_mode) && fstat(fd, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The standard stream whose file path is, or NULL. */
static const char *
std_stream_of(const char *path)
{
	if (is_fd_file(path, STDIN_FILENO))
		return "input";
	if (is_fd_file(path, STDOUT_FILENO))
		return "output";
	if (is_fd_file(path, STDERR_FILENO))
		return "error";
	return NULL;
}

/* An output that names one of the inputs: the input it would replace, or NULL. */
static const char *
input_named(const char *key, const char *const *inputs)
{
	char	in[4200];
	size_t	i;

	for (i = 0; inputs != NULL && inputs[i] != NULL; i++) {
		if (strcmp(inputs[i], "-") != 0 && identity(inputs[i], in, sizeof in) &&
		    strcmp(in, key) == 0)
			return inputs[i];
	}
	return NULL;
}

int
outputs_check(const struct output_paths *p, struct errbuf *err)
{
	const struct {
		const char	*opt;
		const char	*path;
	} outs[] = {
		{ "-o", p->is_quiet ? NULL : p->output },
		{ "--csv", p->csv_path },
		{ "--json", p->json_path },
		{ "--timeline", p->timeline_path },
		{ "--plot", p->plot_path },
		{ "--markdown", p->markdown_path },
		{ "--junit", p->junit_path },
		{ "--openmetrics", p->metrics_path },
	};
	char		 keys[ARRAY_SIZE(outs)][4200];
	bool		 has[ARRAY_SIZE(outs)];
	size_t		 i, k, nstdout = 0;
	const char	*what;

	for (i = 0; i < ARRAY_SIZE(outs); i++) {
		has[i] = false;
		if (outs[i].path == NULL)
			continue;
		if (strcmp(outs[i].path, "-") == 0) {
			if (p->is_stdout_closed) {
				errbuf_set(err, "%s -: standard output is closed", outs[i].opt);
				return -1;
			}
			if (++nstdout > 1) {
				errbuf_set(err, "%s -: another output is already on standard output",
				    outs[i].opt);
				return -1;
			}
			continue;
		}
		if (outs[i].path[0] == '-' || outs[i].path[0] == '\0') {
			errbuf_set(err, "%s: '%s' is not a file name (write ./%s for a file of that "
			    "name)", outs[i].opt, VIS(outs[i].path), VIS(outs[i].path));
			return -1;
		}
		if ((what = std_stream_of(outs[i].path)) != NULL) {
			errbuf_set(err, "%s %s: that is joulestat's own standard %s; write - for "
			    "standard output, or a file of its own", outs[i].opt, VIS(outs[i].path),
			    what);
			return -1;
		}
		if (outs[i].path == p->plot_path && plot_check_path(p->plot_path, err) != 0)
			return -1;
		has[i] = identity(outs[i].path, keys[i], sizeof keys[i]);
		if (has[i] && (what = input_named(keys[i], p->inputs)) != NULL) {
			errbuf_set(err, "%s %s: that is the input %s; write the output to a file "
			    "of its own", outs[i].opt, VIS(outs[i].path), VIS(what));
			return -1;
		}
		for (k = 0; has[i] && k < i; k++) {
			if (has[k] && strcmp(keys[i], keys[k]) == 0) {
				errbuf_set(err, "%s and %s name the same file, %s", outs[k].opt,
				    outs[i].opt, VIS(outs[i].path));
				return -1;
			}
		}
	}
	return 0;
}

void
outputs_init(struct outputs *o, const struct output_paths *paths)
{
	memset(o, 0, sizeof *o);
	o->paths = paths;
	o->timeline.fd = -1;
}

void
outputs_open(struct outputs *o)
{
	struct errbuf	 err = { "" };
	const char	*timeline = o->paths->timeline_path;

	if (o->paths->plot_path != NULL)
		timeline = plot_prepare(o);
	if (!o->paths->is_quiet)
		o->report = open_output(o->paths->output, &o->report_file, &o->is_failed);
	if (o->paths->csv_path != NULL)
		o->csv = open_output(o->paths->csv_path, &o->csv_file, &o->is_failed);
	if (o->paths->json_path != NULL)
		o->json = open_output(o->paths->json_path, &o->json_file, &o->is_failed);
	if (o->paths->markdown_path != NULL && o->paths->is_markdown_append)
		o->markdown = open_append(o->paths->markdown_path, &o->markdown_file,
		    &o->is_failed);
	else if (o->paths->markdown_path != NULL)
		o->markdown = open_output(o->paths->markdown_path, &o->markdown_file,
		    &o->is_failed);
	if (o->paths->junit_path != NULL)
		o->junit = open_output(o->paths->junit_path, &o->junit_file, &o->is_failed);
	if (o->paths->metrics_path != NULL)
		o->metrics = open_output(o->paths->metrics_path, &o->metrics_file, &o->is_failed);
	if (timeline != NULL) {
		o->has_timeline = timeline_open(&o->timeline, timeline, &err) == 0;
		if (!o->has_timeline) {
			warnmsg("%s", err.msg);
			o->is_failed = true;
		}
	}
}

/* An output whose file was removed during the run (its directory vanished) is lost. */
static int
check_linked(FILE *f)
{
	return f != stdout && f != stderr && fd_is_unlinked(fileno(f)) ? -ENOENT : 0;
}

/* The temporary file f, written, into the file at path in place. */
static int
copy_into(FILE *f, const char *path)
{
	char	buf[65536];
	ssize_t	n;
	int	fd, werr = 0;

	if (fflush(f) != 0 || lseek(fileno(f), 0, SEEK_SET) == -1 ||
	    (fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)) == -1)
		return -errno;
	while (werr == 0 && (n = read(fileno(f), buf, sizeof buf)) != 0) {
		if (n == -1 && errno != EINTR)
			werr = -errno;
		else if (n > 0 && write_all(fd, buf, (size_t)n) != 0)
			werr = -errno;
	}
	if (close(fd) != 0 && werr == 0)
		werr = -errno;
	return werr;
}

/* Close f; a temporary file takes the mode a plain open gives and replaces the name. */
static void
close_output(FILE *f, struct out_file *of, int werr, bool *is_failed)
{
	const char	*path = of->path;
	/* The file replaced: through a link, the one it leads to. */
	const char	*dest = of->target != NULL ? of->target : path;

	if (f == NULL)
		return;
	if (werr == 0 && !of->is_copied)
		werr = check_linked(f);
	if (werr == 0 && of->is_copied)
		werr = copy_into(f, dest);
	if (werr == 0 && of->tmp != NULL && !of->is_copied && fflush(f) == 0 &&
	    fchmod(fileno(f), of->mode) != 0)
		werr = -errno;
	if (f != stdout && f != stderr && fclose(f) != 0 && werr == 0)
		werr = -errno;
	if (werr == 0 && of->tmp != NULL && !of->is_copied &&
	    rename(of->tmp, dest) != 0)
		werr = -errno;
	if (of->tmp != NULL && (werr != 0 || of->is_copied))
		unlink(of->tmp);
	free(of->tmp);
	free(of->target);
	of->tmp = of->target = NULL;
	if (werr != 0) {
		warnmsg("%s: %s", shown(path), strerror(-werr));
		*is_failed = true;
	}
}

/*
 * A failed gate is also said on stderr when the text report is not there
 * to show it (-q, -o, -x), so a CI log always names the gate.
 */
static void
say_failed_gates(const struct output_paths *paths, const struct gate_set *gates)
{
	char	line[512];
	size_t	i;

	if (!paths->is_quiet && paths->output == NULL && paths->field_sep == NULL)
		return;
	for (i = 0; i < gates->n; i++) {
		if (gates->v[i].verdict == GATE_PASS)
			continue;
		gate_failure_line(&gates->v[i], line, sizeof line);
		warnmsg("%s", line);
	}
}

/*
 * The forms drawn from the JSON document, as `joulestat report` draws them
 * from a --json file: the Markdown summary, JUnit XML, the metrics text
 * and, in a GitHub Actions step, an annotation per failed gate.
 */
static bool
has_doc_forms(const struct outputs *o, const struct gate_set *gates)
{
	return o->markdown != NULL || o->junit != NULL || o->metrics != NULL ||
	    (o->paths->is_github && gates->nfailed > 0);
}

void
outputs_write_doc(struct outputs *o, const json_t *doc)
{
	int	werr = -ENOMEM;

	if (doc != NULL)
		werr = o->markdown != NULL ? markdown_write(o->markdown, doc) : 0;
	close_output(o->markdown, &o->markdown_file, werr, &o->is_failed);
	if (doc != NULL)
		werr = o->junit != NULL ? junit_write(o->junit, doc) : 0;
	close_output(o->junit, &o->junit_file, werr, &o->is_failed);
	if (doc != NULL)
		werr = o->metrics != NULL ? openmetrics_write(o->metrics, doc) : 0;
	close_output(o->metrics, &o->metrics_file, werr, &o->is_failed);
	if (doc != NULL && o->paths->is_github)
		annotate_github(stderr, doc);
}

void
outputs_write(struct outputs *o, const struct report *reps, size_t nreps,
    const struct gate_set *gates)
{
	struct series	 s;
	json_t		*doc;
	int		 werr = 0;

	report_series(&s, reps, nreps);
	if (o->report != NULL) {
		if (o->paths->field_sep != NULL)
			werr = csvout_summary(o->report, reps, nreps, &s, gates, o->paths->field_sep,
			    o->paths->is_csv_long);
		else if ((werr = report_write_text(o->report, reps, nreps, &s)) == 0)
			werr = gate_write_text(o->report, gates);
	}
	close_output(o->report, &o->report_file, werr, &o->is_failed);
	say_failed_gates(o->paths, gates);
	werr = o->csv != NULL ? csvout_summary(o->csv, reps, nreps, &s, gates, ",",
	    o->paths->is_csv_long) : 0;
	close_output(o->csv, &o->csv_file, werr, &o->is_failed);
	/* One document for --json and the forms drawn from it. */
	doc = o->json != NULL || has_doc_forms(o, gates) ? jsonout_build(reps, nreps, &s, gates) :
	    NULL;
	werr = o->json == NULL ? 0 : doc != NULL ? fmt_json_dump(o->json, doc) : -ENOMEM;
	close_output(o->json, &o->json_file, werr, &o->is_failed);
	if (has_doc_forms(o, gates)) {
		if (doc == NULL)
			warnmsg("out of memory for the forms drawn from the JSON report");
		outputs_write_doc(o, doc);
	}
	json_decref(doc);
	if (o->has_timeline && (werr = timeline_close(&o->timeline)) != 0) {
		warnmsg("%s: %s", o->plot_timeline != NULL ? o->plot_timeline :
		    shown(o->paths->timeline_path), strerror(-werr));
		o->is_failed = true;
	}
	if (o->plot_tool != NULL && o->has_timeline && werr == 0)
		plot_draw(o, reps[0].command_quoted);
	plot_forget(o);
	report_series_free(&s);
}

int
outputs_write_one(const char *path, int (*emit)(FILE *f, const void *arg), const void *arg)
{
	struct out_file	 of;
	bool		 is_failed = false;
	FILE		*f = open_output(path, &of, &is_failed);
	int		 werr;

	if (f == NULL)
		return -1;
	werr = emit(f, arg);
	/* Standard output stays open: what is still buffered must reach it now. */
	if (werr == 0 && (f == stdout || f == stderr) && fflush(f) != 0)
		werr = -errno;
	close_output(f, &of, werr, &is_failed);
	return is_failed ? -1 : 0;
}

void
outputs_abandon(struct outputs *o)
{
	FILE		*const files[] = { o->report, o->csv, o->json, o->markdown, o->junit,
			    o->metrics };
	struct out_file	*const of[] = { &o->report_file, &o->csv_file, &o->json_file,
			    &o->markdown_file, &o->junit_file, &o->metrics_file };
	size_t		 i;

	/* The earlier results stay: only the temporary files go. */
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (files[i] != NULL && files[i] != stdout && files[i] != stderr)
			fclose(files[i]);
		if (of[i]->tmp != NULL)
			unlink(of[i]->tmp);
		free(of[i]->tmp);
		free(of[i]->target);
		of[i]->tmp = of[i]->target = NULL;
	}
	if (o->has_timeline)
		timeline_close(&o->timeline);
	plot_forget(o);
}
