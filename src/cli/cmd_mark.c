/*
 * joulestat mark [--begin | --end] [NAME]: the phase-mark protocol for
 * shell scripts.  It writes one line to the FIFO named by $JOULESTAT_MARK
 * ("phase NAME", "begin NAME", "end NAME" or "end"); without the variable
 * it does nothing, so a script runs the same with and without joulestat.
 */
#include "joulestat/commands.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/exitcode.h"
#include "joulestat/help.h"
#include "joulestat/markline.h"
#include "joulestat/marks.h"
#include "joulestat/util.h"

static const char MARK_USAGE[] = "usage: joulestat mark [--begin | --end] [NAME]";

enum mark_opt {
	OPT_BEGIN = 1,
	OPT_END,
	OPT_HELP,
};

static const struct poptOption mark_options[] = {
	{ "begin", 'b', POPT_ARG_NONE, NULL, OPT_BEGIN,
	    "NAME begins inside the phases already open", NULL },
	{ "end", 'e', POPT_ARG_NONE, NULL, OPT_END,
	    "NAME ends (without NAME: the innermost open phase)", NULL },
	{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
	POPT_TABLEEND
};

static int
usage_error(const char *msg)
{
	return help_usage_error("mark", MARK_USAGE, msg);
}

static int
print_help(void)
{
	printf("%s\n\nMark a phase of the workload joulestat is measuring: without an option, "
	    "the\nphase NAME begins and the one the last such mark began ends.  Outside "
	    "joulestat\n($%s unset) it does nothing.\n\n", MARK_USAGE, MARKS_ENV);
	help_print_options(stdout, mark_options, true);
	printf("\nExit status: 0; 125 for a bad option or name, or when the mark cannot be "
	    "written.\nSee joulestat(1), PHASES.\n");
	return fflush(stdout) == 0 ? 0 : EXIT_TOOL;
}

/* Write line to the FIFO at path in one write, so marks never interleave. */
static int
send_line(const char *path, const char *line)
{
	struct stat	st;
	size_t		len = strlen(line);
	ssize_t		n;
	int		fd;

	/* Non-blocking: with no joulestat reading it, say so instead of hanging. */
	if ((fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		warnmsg("mark: cannot open %s: %s", path, errno == ENXIO ?
		    "no joulestat is reading it" : strerror(errno));
		return EXIT_TOOL;
	}
	/* joulestat's is a FIFO: a file of that name is somebody else's, and stays as it is. */
	if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
		close(fd);
		warnmsg("mark: %s is not a FIFO, so no joulestat is reading it", path);
		return EXIT_TOOL;
	}
	while ((n = write(fd, line, len)) == -1 && errno == EAGAIN)
		usleep(1000);	/* the FIFO is full: joulestat is behind, wait for it */
	close(fd);
	if (n != (ssize_t)len) {
		warnmsg("mark: cannot write to %s: %s", path, n == -1 ? strerror(errno) :
		    "short write");
		return EXIT_TOOL;
	}
	return 0;
}

int
mark_main(int argc, char **argv)
{
	poptContext	 ctx = poptGetContext("joulestat mark", argc, (const char **)argv,
			    mark_options, POPT_CONTEXT_POSIXMEHARDER);
	const char	**rest, *kind = "phase", *name, *path;
	char		  line[MARK_NAME_MAX + 16], msg[200];
	int		  rc, n = 0;

	while ((rc = poptGetNextOpt(ctx)) > 0) {
		if (rc == OPT_HELP) {
			poptFreeContext(ctx);
			return print_help();
		}
		kind = rc == OPT_BEGIN ? "begin" : "end";
	}
	if (rc < -1) {
		help_popt_error(ctx, rc, msg, sizeof msg);
		poptFreeContext(ctx);
		return usage_error(msg);
	}
	rest = poptGetArgs(ctx);
	while (rest != NULL && rest[n] != NULL)
		n++;
	name = n > 0 ? rest[0] : "";
	rc = 0;
	if (n > 1)
		rc = usage_error("one phase name only (quote a name with spaces)");
	else if (n == 0 && strcmp(kind, "end") != 0)
		rc = usage_error("no phase name");
	else if (n == 1 && !markline_is_name(name, strlen(name)))
		rc = usage_error("a phase name is 1 to 63 bytes of printable text without a "
		    "comma, colon, quote or backslash, and no blank at either end");
	if (rc == 0 && (path = getenv(MARKS_ENV)) != NULL && path[0] != '\0') {
		snprintf(line, sizeof line, "%s%s%s\n", kind, n > 0 ? " " : "", name);
		rc = send_line(path, line);
	}
	poptFreeContext(ctx);
	return rc;
}
