/*
 * Phase marks from the workload (the man page, PHASES): lines read from
 * the FIFO, each applied at a reading of every device taken when it
 * arrives, so that a phase's counter energy is the counter's delta between
 * the readings at its two marks.  Marks that arrive closer together than
 * one reading takes share a reading.
 */
#include "joulestat/marks.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/attrib.h"
#include "joulestat/markline.h"
#include "joulestat/phase.h"
#include "joulestat/proctree.h"
#include "joulestat/reading.h"
#include "joulestat/run.h"

/* Below this many descriptors (ulimit -n) there is no FIFO. */
#define MARKS_MIN_NOFILE	32

/* At the end, at most this many buffers of marks are still read. */
#define MARKS_FINISH_BUFFERS	64

int
marks_open(struct marks *mk, struct errbuf *err)
{
	const char	*tmp = getenv("TMPDIR");
	struct rlimit	 rl;

	memset(mk, 0, sizeof *mk);
	mk->fd = -1;
	/* With very few descriptors, the run comes first: the FIFO would take one it needs. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < MARKS_MIN_NOFILE) {
		errbuf_set(err, "ulimit -n is %llu, below %d: no descriptor to spare for the FIFO",
		    (unsigned long long)rl.rlim_cur, MARKS_MIN_NOFILE);
		return -1;
	}
	if (tmp == NULL || tmp[0] != '/')
		tmp = "/tmp";
	snprintf(mk->dir, sizeof mk->dir, "%s/joulestat-XXXXXX", tmp);
	/* mkdtemp makes it 0700: only the workload's user can write marks. */
	if (mkdtemp(mk->dir) == NULL) {
		errbuf_set(err, "cannot create a directory for phase marks in %s: %s", tmp,
		    strerror(errno));
		mk->dir[0] = '\0';
		return -1;
	}
	snprintf(mk->path, sizeof mk->path, "%s/mark", mk->dir);
	/*
	 * Read and write on one descriptor (Linux's fifo(7) allows it): a writer
	 * is always there, so the reader never sees end-of-file between the
	 * workload's writers, and writers never block on open.
	 */
	if (mkfifo(mk->path, 0600) != 0 ||
	    (mk->fd = open(mk->path, O_RDWR | O_NONBLOCK | O_CLOEXEC)) == -1) {
		errbuf_set(err, "cannot create the phase mark FIFO %s: %s", mk->path,
		    strerror(errno));
		marks_close(mk);
		return -1;
	}
	setenv(MARKS_ENV, mk->path, 1);
	return 0;
}

void
marks_close(struct marks *mk)
{
	if (mk->fd >= 0)
		close(mk->fd);
	mk->fd = -1;
	if (mk->dir[0] != '\0') {
		unlink(mk->path);
		rmdir(mk->dir);
		unsetenv(MARKS_ENV);
		mk->dir[0] = '\0';
	}
}

/* The run's figures at its last reading, for the marks that share it. */
static void
point_at(struct run *run, struct phase_point *pt, const struct sample **cur,
    uint64_t *range, double *a_mj, double *b_ns)
{
	const struct pid_acct	*pa;
	struct backend		*b;
	size_t			 i, k, g = 0;

	pt->t_ns = run->last_read_ns;
	proctree_cpu_ns(&run->tree, &pt->user_ns, &pt->sys_ns);
	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		for (k = 0; k < b->ndev; k++, g++) {
			cur[g] = b->is_gone ? NULL : &b->cur[k];
			range[g] = b->devs[k].energy_range_mj;
			a_mj[g] = b_ns[g] = 0;
		}
	}
	for (i = 0; i < run->attrib.pidacct.n; i++) {
		pa = &run->attrib.pidacct.v[i];
		if (pa->dev < g) {
			a_mj[pa->dev] += pa->attrib_a_mj;
			b_ns[pa->dev] += pa->attrib_b_ns;
		}
	}
	pt->cur = cur;
	pt->range_mj = range;
	pt->attrib_a_mj = a_mj;
	pt->attrib_b_ns = b_ns;
}

/* Apply the complete lines of buf[0..n) (the last may be incomplete). */
static void
apply_lines(struct run *run, const char *buf, size_t n, const struct phase_point *pt)
{
	struct marks	*mk = &run->marks;
	struct mark	 m;
	const char	*why, *nl;
	size_t		 take;

	while (n > 0) {
		nl = memchr(buf, '\n', n);
		take = nl != NULL ? (size_t)(nl - buf) : n;
		if (mk->is_skipping) {
			/* The rest of a line already counted as too long. */
		} else if (mk->nline + take > MARKS_LINE_MAX) {
			phases_bad(&run->phases, "a line over 256 bytes");
			mk->is_skipping = 1;
			mk->nline = 0;
		} else {
			memcpy(mk->line + mk->nline, buf, take);
			mk->nline += take;
		}
		if (nl == NULL)
			return;
		if (!mk->is_skipping && mk->nline > 0) {
			if (markline_parse(mk->line, mk->nline, &m, &why) == 0)
				phases_mark(&run->phases, &m, pt);
			else
				phases_bad(&run->phases, why);
		}
		mk->is_skipping = 0;
		mk->nline = 0;
		buf += take + 1;
		n -= take + 1;
	}
}

/* Read one buffer; returns the bytes read (0: nothing waiting). */
static size_t
read_some(struct run *run, bool is_last)
{
	char			buf[65536];
	size_t			nd = run->phases.ndev;
	const struct sample	**cur = xcalloc(nd + 1, sizeof *cur);
	uint64_t		*range = xcalloc(nd + 1, sizeof *range);
	double			*a = xcalloc(nd + 1, sizeof *a), *b = xcalloc(nd + 1, sizeof *b);
	struct phase_point	pt;
	ssize_t			got;
	int64_t			t;

	got = run->marks.fd >= 0 ? read(run->marks.fd, buf, sizeof buf) : -1;
	if (got > 0) {
		t = now_ns();
		/* A reading of its own, unless the last one is younger than it took. */
		if (!is_last && t - run->last_read_end_ns >= run->last_read_took_ns)
			reading_take(run, t);
		point_at(run, &pt, cur, range, a, b);
		apply_lines(run, buf, (size_t)got, &pt);
	}
	free(cur);
	free(range);
	free(a);
	free(b);
	return got > 0 ? (size_t)got : 0;
}

void
marks_read(struct run *run)
{
	read_some(run, false);
}

void
marks_finish(struct run *run)
{
	size_t			nd = run->phases.ndev;
	const struct sample	**cur = xcalloc(nd + 1, sizeof *cur);
	uint64_t		*range = xcalloc(nd + 1, sizeof *range);
	double			*a = xcalloc(nd + 1, sizeof *a), *b = xcalloc(nd + 1, sizeof *b);
	struct phase_point	pt;
	int			i;

	/* What the workload wrote before it ended (a bounded amount) is this run's. */
	for (i = 0; i < MARKS_FINISH_BUFFERS && read_some(run, true) > 0; i++)
		;
	point_at(run, &pt, cur, range, a, b);
	phases_end_all(&run->phases, &pt);
	free(cur);
	free(range);
	free(a);
	free(b);
}
