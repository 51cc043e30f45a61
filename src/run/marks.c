/*
 * Phase marks from the workload (the man page, PHASES): lines read from
 * the FIFO, each applied at a reading of every device taken when it
 * arrives, so that a phase's counter energy is the counter's delta between
 * the readings at its two marks.  Marks that arrive closer together than
 * one reading takes share a reading.
 */
#include "joulestat/marks.h"

#include <linux/magic.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
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

/*
 * A directory the user's runtime files may live in: absolute, a directory,
 * owned by us and writable by nobody else (the XDG Base Directory
 * Specification's terms for $XDG_RUNTIME_DIR), so nobody else can even see
 * the FIFO there.
 */
static bool
is_private_dir(const char *dir)
{
	struct stat	st;

	return dir != NULL && dir[0] == '/' && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/*
 * Where the FIFO may be made, the i-th choice: /dev/shm when it is a tmpfs
 * (containers such as Apptainer's bind it, so a command run in one still
 * sees the FIFO), then $XDG_RUNTIME_DIR when it is the user's own, then
 * the temporary directory; "" for a choice that is not there, NULL after
 * the last.  In memory, creating and removing it costs a fraction of what
 * it costs on a disk's file system (HACKING.md, "Start-up cost").
 */
static const char *
fifo_dir(int i)
{
	const char	*dir;
	struct statfs	 fs;

	switch (i) {
	case 0:
		return statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC ? "/dev/shm" : "";
	case 1:
		dir = getenv("XDG_RUNTIME_DIR");
		return is_private_dir(dir) ? dir : "";
	case 2:
		dir = temp_dir();
		return dir[0] == '/' ? dir : "/tmp";
	default:
		return NULL;
	}
}

/* An unpredictable name in dir, so nobody can make it first; -1 when none was free. */
static int
make_fifo(struct marks *mk, const char *dir)
{
	static const char	digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char		r[12];
	char			name[sizeof r + 1];
	size_t			k;
	int			tries;

	for (tries = 0; tries < 100; tries++) {
		if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
			for (k = 0; k < sizeof r; k++)
				r[k] = (unsigned char)(now_ns() >> (k % 8 * 5)) + (unsigned char)tries;
		}
		for (k = 0; k < sizeof r; k++)
			name[k] = digits[r[k] % (sizeof digits - 1)];
		name[sizeof r] = '\0';
		snprintf(mk->path, sizeof mk->path, "%s/joulestat-%s.mark", dir, name);
		/* mkfifo never follows or reuses what is there: the FIFO it makes is ours. */
		if (mkfifo(mk->path, 0600) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int
marks_open(struct marks *mk, struct errbuf *err)
{
	const char	*dir, *tried = NULL;
	struct rlimit	 rl;
	int		 i, e = 0;

	memset(mk, 0, sizeof *mk);
	mk->fd = -1;
	/* With very few descriptors, the run comes first: the FIFO would take one it needs. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < MARKS_MIN_NOFILE) {
		errbuf_set(err, "ulimit -n is %llu, below %d: no descriptor to spare for the FIFO",
		    (unsigned long long)rl.rlim_cur, MARKS_MIN_NOFILE);
		return -1;
	}
	/* Mode 0600: only the workload's user can write marks.  A place that refuses it, the next. */
	for (i = 0; (dir = fifo_dir(i)) != NULL; i++) {
		if (dir[0] == '\0')
			continue;
		if (make_fifo(mk, dir) == 0)
			break;
		e = errno;
		tried = dir;
	}
	if (dir == NULL) {
		errbuf_set(err, "cannot create the phase mark FIFO in %s: %s", tried,
		    strerror(e));
		return -1;
	}
	mk->is_made = true;
	/*
	 * Read and write on one descriptor (Linux's fifo(7) allows it): a writer
	 * is always there, so the reader never sees end-of-file between the
	 * workload's writers, and writers never block on open.
	 */
	if ((mk->fd = open(mk->path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		errbuf_set(err, "cannot open the phase mark FIFO %s: %s", mk->path,
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
	if (mk->is_made) {
		unlink(mk->path);
		unsetenv(MARKS_ENV);
		mk->is_made = false;
	}
}

/* A phase point and the per-device arrays it points into. */
struct point_buf {
	struct phase_point	 pt;
	const struct sample	**cur;
	uint64_t		*range;
	double			*a_mj;
	double			*b_ns;
};

/* The run's figures at its last reading, for the marks that share it. */
static void
point_at(struct run *run, struct point_buf *pb)
{
	const struct pid_acct	*pa;
	struct backend		*b;
	size_t			 i, k, g = 0, nd = run->phases.ndev;

	pb->cur = xcalloc(nd + 1, sizeof *pb->cur);
	pb->range = xcalloc(nd + 1, sizeof *pb->range);
	pb->a_mj = xcalloc(nd + 1, sizeof *pb->a_mj);
	pb->b_ns = xcalloc(nd + 1, sizeof *pb->b_ns);
	pb->pt.t_ns = run->last_read_ns;
	proctree_cpu_ns(&run->tree, &pb->pt.user_ns, &pb->pt.sys_ns);
	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		for (k = 0; k < b->ndev && g < nd; k++, g++) {
			pb->cur[g] = b->is_gone ? NULL : &b->cur[k];
			pb->range[g] = b->devs[k].energy_range_mj;
		}
	}
	for (i = 0; i < run->attrib.pidacct.n; i++) {
		pa = &run->attrib.pidacct.v[i];
		if (pa->dev < g) {
			pb->a_mj[pa->dev] += pa->attrib_a_mj;
			pb->b_ns[pa->dev] += pa->attrib_b_ns;
		}
	}
	pb->pt.cur = pb->cur;
	pb->pt.range_mj = pb->range;
	pb->pt.attrib_a_mj = pb->a_mj;
	pb->pt.attrib_b_ns = pb->b_ns;
}

static void
point_free(struct point_buf *pb)
{
	free(pb->cur);
	free(pb->range);
	free(pb->a_mj);
	free(pb->b_ns);
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
	struct point_buf	pb;
	ssize_t			got;
	int64_t			t;

	got = run->marks.fd >= 0 ? read(run->marks.fd, buf, sizeof buf) : -1;
	if (got <= 0)
		return 0;
	t = now_ns();
	/* A reading of its own, unless the last one is younger than it took. */
	if (!is_last && t - run->last_read_end_ns >= run->last_read_took_ns)
		reading_take(run, t);
	point_at(run, &pb);
	apply_lines(run, buf, (size_t)got, &pb.pt);
	point_free(&pb);
	return (size_t)got;
}

void
marks_read(struct run *run)
{
	read_some(run, false);
}

void
marks_finish(struct run *run)
{
	struct point_buf	pb;
	int			i;

	/* What the workload wrote before it ended (a bounded amount) is this run's. */
	for (i = 0; i < MARKS_FINISH_BUFFERS && read_some(run, true) > 0; i++)
		;
	/* The run's figures at its end are needed only by a phase still open. */
	if (run->phases.nopen == 0)
		return;
	point_at(run, &pb);
	phases_end_all(&run->phases, &pb.pt);
	point_free(&pb);
}
