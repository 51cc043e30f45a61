/*
 * --plot: joulestat-plot (scripts/joulestat-plot, drawn by gnuplot) run on
 * the finished timeline.  The tools are looked for before the run, next to
 * the joulestat binary first, then in PATH.
 */
#include "joulestat/outputs.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "joulestat/util.h"

/* An executable called name in dir, or NULL. */
static char *
find_in(const char *dir, size_t len, const char *name)
{
	char	*path;

	xasprintf(&path, "%.*s/%s", (int)len, dir, name);
	if (access(path, X_OK) == 0)
		return path;
	free(path);
	return NULL;
}

/* name next to the joulestat binary, else in PATH. */
static char *
find_tool(const char *name)
{
	char		 self[4096], *slash, *found;
	const char	*path = getenv("PATH"), *p, *end;
	ssize_t		 n;

	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL &&
		    (found = find_in(self, (size_t)(slash - self), name)) != NULL)
			return found;
	}
	for (p = path != NULL ? path : ""; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end > p && (found = find_in(p, (size_t)(end - p), name)) != NULL)
			return found;
	}
	return NULL;
}

void
plot_forget(struct outputs *o)
{
	if (o->plot_timeline != NULL)
		unlink(o->plot_timeline);
	free(o->plot_timeline);
	free(o->plot_tool);
	o->plot_timeline = o->plot_tool = NULL;
}

int
plot_check_path(const char *path, struct errbuf *err)
{
	struct stat	 st;
	char		*copy, *dir;
	size_t		 len = strlen(path);
	int		 rc = 0;

	if ((len > 0 && path[len - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
		errbuf_set(err, "--plot %s: is a directory; give the plot a file name", VIS(path));
		return -1;
	}
	if (len < 4 || (strcasecmp(path + len - 4, ".png") != 0 &&
	    strcasecmp(path + len - 4, ".svg") != 0)) {
		errbuf_set(err, "--plot %s: the plot is PNG or SVG by its name: give it .png or "
		    ".svg", VIS(path));
		return -1;
	}
	copy = xstrdup(path);
	dir = dirname(copy);
	if (stat(dir, &st) != 0)
		rc = errno;
	else if (!S_ISDIR(st.st_mode))
		rc = ENOTDIR;
	else if (access(dir, W_OK | X_OK) != 0)
		rc = errno;
	if (rc != 0)
		errbuf_set(err, "--plot %s: %s: %s", VIS(path), VIS(dir), strerror(rc));
	free(copy);
	return rc == 0 ? 0 : -1;
}

/*
 * --plot needs joulestat-plot and gnuplot; without them the run goes on
 * and says why there will be no plot.  Without --timeline, the timeline
 * is written to a temporary file.
 */
const char *
plot_prepare(struct outputs *o)
{
	char	*gnuplot, *tmp, unique[7];
	int	 fd;

	if ((o->plot_tool = find_tool("joulestat-plot")) == NULL) {
		warnmsg("--plot: joulestat-plot not found next to joulestat or in PATH: no plot");
		return o->paths->timeline_path;
	}
	if ((gnuplot = find_tool("gnuplot")) == NULL) {
		warnmsg("--plot: gnuplot is not installed (apt-get install gnuplot-nox): no plot");
		plot_forget(o);
		return o->paths->timeline_path;
	}
	free(gnuplot);
	/* config refuses --timeline=- with --plot: a timeline path is a file. */
	if (o->paths->timeline_path != NULL)
		return o->paths->timeline_path;
	/* The six characters mkstemps replaces. */
	memset(unique, 'X', sizeof unique - 1);
	unique[sizeof unique - 1] = '\0';
	xasprintf(&tmp, "%s/joulestat-plot-%s.csv", temp_dir(), unique);
	if ((fd = mkstemps(tmp, 4)) == -1) {
		warnmsg("--plot: %s: %s", tmp, strerror(errno));
		o->is_failed = true;
		free(tmp);
		plot_forget(o);
		return o->paths->timeline_path;
	}
	close(fd);
	o->plot_timeline = tmp;
	return tmp;
}

void
plot_draw(struct outputs *o, const char *title)
{
	posix_spawnattr_t	 attr;
	sigset_t		 dfl;
	char			 dash_o[] = "-o", dash_title[] = "--title", dashes[] = "--";
	char			*argv[8] = { o->plot_tool, dash_o, (char *)o->paths->plot_path };
	pid_t			 pid;
	int			 st = 0, rc, n = 3;

	if (title != NULL) {
		argv[n++] = dash_title;
		argv[n++] = (char *)title;
	}
	argv[n++] = dashes;
	argv[n++] = o->plot_timeline != NULL ? o->plot_timeline :
	    (char *)o->paths->timeline_path;
	argv[n] = NULL;
	/* The signals as joulestat found them: SIGPIPE is ignored only here. */
	sigemptyset(&dfl);
	if (o->is_pipe_dfl)
		sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &o->child_mask);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&pid, o->plot_tool, NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (rc != 0)
		warnmsg("--plot: %s: %s", o->plot_tool, strerror(rc));
	else {
		while ((rc = (int)waitpid(pid, &st, 0)) == -1 && errno == EINTR)
			;
		rc = rc == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
		if (rc != 0)
			warnmsg("--plot: joulestat-plot failed: no plot in %s", o->paths->plot_path);
	}
	o->is_failed |= rc != 0;
}
