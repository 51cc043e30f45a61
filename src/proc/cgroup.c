/*
 * The workload's cgroup v2 (include/joulestat/cgroup.h).  Every file named
 * here is described in the kernel's Documentation/admin-guide/cgroup-v2.rst:
 * a hybrid hierarchy mounts cgroup v2 at /sys/fs/cgroup/unified, usually
 * with no controller, and still has cgroup.procs, cgroup.events,
 * cgroup.kill and the basic cpu.stat there, which is all the tracking
 * needs; memory.peak exists only with the memory controller.
 */
#include "joulestat/cgroup.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/magic.h>

#include "joulestat/procfs.h"
#include "joulestat/util.h"

#define CGROUP_TEXT_MAX	4096
/* The name of a run's cgroup: the prefix, joulestat's pid, the run's number. */
#define CGROUP_PREFIX	"joulestat-"
/* Attempts at giving back processes that keep forking before the rmdir. */
#define CGROUP_DRAIN_TRIES	16

int
cgroup_parse_keyed(const char *text, const char *key, uint64_t *value)
{
	size_t		 klen = strlen(key);
	const char	*p = text;
	char		 num[32];
	size_t		 n;

	while (*p != '\0') {
		if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
			p += klen + 1;
			n = strcspn(p, "\n");
			if (n == 0 || n >= sizeof num)
				return -EINVAL;
			memcpy(num, p, n);
			num[n] = '\0';
			return parse_u64(num, value) == 0 ? 0 : -EINVAL;
		}
		p += strcspn(p, "\n");
		if (*p == '\n')
			p++;
	}
	return -ENOENT;
}

/* Field i (0-based, space separated) of line, into buf; false if absent or too long. */
static bool
field(const char *line, int i, char *buf, size_t size)
{
	size_t	n;

	for (; i > 0; i--) {
		line += strcspn(line, " \n");
		if (*line != ' ')
			return false;
		line++;
	}
	n = strcspn(line, " \n");
	if (n == 0 || n >= size)
		return false;
	memcpy(buf, line, n);
	buf[n] = '\0';
	return true;
}

int
cgroup_parse_mountinfo(const char *text, char *buf, size_t size)
{
	const char	*line, *sep;
	char		 fstype[32];

	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER" */
	for (line = text; *line != '\0'; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != '\0')) {
		sep = strstr(line, " - ");
		if (sep == NULL || sep > line + strcspn(line, "\n"))
			continue;
		if (!field(sep + 3, 0, fstype, sizeof fstype) || strcmp(fstype, "cgroup2") != 0)
			continue;
		/* Mount points with spaces are escaped (\040): none is taken apart here. */
		if (field(line, 4, buf, size))
			return 0;
	}
	return -ENOENT;
}

int
cgroup_parse_self(const char *text, char *buf, size_t size)
{
	const char	*line;
	size_t		 n;

	for (line = text; *line != '\0'; ) {
		n = strcspn(line, "\n");
		if (strncmp(line, "0::/", 4) == 0 && n - 3 < size) {
			memcpy(buf, line + 3, n - 3);
			buf[n - 3] = '\0';
			return 0;
		}
		line += n;
		if (*line == '\n')
			line++;
	}
	return -ENOENT;
}

/* Read a whole small text file into a fresh buffer; NULL on failure. */
static char *
slurp(const char *path)
{
	size_t	cap = CGROUP_TEXT_MAX;
	char	*buf = NULL;
	ssize_t	n;

	for (;;) {
		buf = xreallocarray(buf, cap, 1);
		if ((n = read_file(AT_FDCWD, path, buf, cap)) < 0) {
			free(buf);
			return NULL;
		}
		if ((size_t)n < cap - 1)
			return buf;
		cap *= 2;
	}
}

/*
 * Where systemd and the container runtimes mount cgroup v2: unified, or
 * hybrid beside the v1 controllers (statfs(2), CGROUP2_SUPER_MAGIC); two
 * calls instead of reading a mount table that can be long.
 */
static const char *
well_known_mount(void)
{
	static const char *const	 paths[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct statfs			 sf;
	size_t				 i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (statfs(paths[i], &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC)
			return paths[i];
	}
	return NULL;
}

static int
open_own(struct cgroup *cg, const char *root, struct errbuf *err)
{
	char	mnt[256], self[256], *text;
	int	r;

	if (root == NULL)
		root = well_known_mount();
	if (root == NULL) {
		if ((text = slurp("/proc/self/mountinfo")) == NULL) {
			errbuf_set(err, "/proc/self/mountinfo: %s", strerror(errno));
			return -1;
		}
		r = cgroup_parse_mountinfo(text, mnt, sizeof mnt);
		free(text);
		if (r != 0) {
			errbuf_set(err, "no cgroup v2 mounted");
			return -1;
		}
		root = mnt;
	}
	if ((text = slurp("/proc/self/cgroup")) == NULL) {
		errbuf_set(err, "/proc/self/cgroup: %s", strerror(errno));
		return -1;
	}
	r = cgroup_parse_self(text, self, sizeof self);
	free(text);
	if (r != 0) {
		errbuf_set(err, "joulestat is in no cgroup v2");
		return -1;
	}
	snprintf(cg->path, sizeof cg->path, "%s%s", root, strcmp(self, "/") == 0 ? "" : self);
	if ((cg->parentfd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		errbuf_set(err, "%s: %s", VIS(cg->path), strerror(errno));
		return -1;
	}
	if (faccessat(cg->parentfd, "cgroup.procs", F_OK, 0) != 0) {
		errbuf_set(err, "%s: not a cgroup v2 directory", VIS(cg->path));
		return -1;
	}
	return 0;
}

int
cgroup_parse_name(const char *name, pid_t *pid)
{
	const char	*p, *dash;
	char		 num[16];
	uint64_t	 v, run;
	size_t		 n;

	if (strncmp(name, CGROUP_PREFIX, strlen(CGROUP_PREFIX)) != 0)
		return -EINVAL;
	p = name + strlen(CGROUP_PREFIX);
	if ((dash = strchr(p, '-')) == NULL || (n = (size_t)(dash - p)) == 0 || n >= sizeof num)
		return -EINVAL;
	memcpy(num, p, n);
	num[n] = '\0';
	if (parse_u64(num, &v) != 0 || v == 0 || v > INT32_MAX || parse_u64(dash + 1, &run) != 0)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

/*
 * A joulestat killed by SIGKILL leaves its cgroup behind, empty.  A run
 * removes the cgroups of joulestats that are gone: a name of ours whose pid
 * is no process (kill(2) says ESRCH).  One read of the parent directory;
 * rmdir fails on a cgroup that still holds a process or a cgroup of its
 * own, so nothing that runs is touched, and a living joulestat's is never
 * even tried.
 */
void
cgroup_remove_stale(const struct cgroup *cg)
{
	struct dirent	*de;
	DIR		*dir;
	pid_t		 pid, self = getpid();
	int		 fd, parentfd = cg->parentfd;

	if ((fd = openat(parentfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		if ((de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) &&
		    cgroup_parse_name(de->d_name, &pid) == 0 && pid != self &&
		    kill(pid, 0) == -1 && errno == ESRCH)
			(void)unlinkat(parentfd, de->d_name, AT_REMOVEDIR);
	}
	closedir(dir);
}

static void
close_all(struct cgroup *cg)
{
	int	*fds[] = { &cg->procs_fd, &cg->events_fd, &cg->cpu_fd, &cg->peak_fd,
	    &cg->dirfd, &cg->parentfd };
	size_t	 i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	free(cg->buf);
	cg->buf = NULL;
	cg->cap = 0;
	cg->name[0] = '\0';
}

int
cgroup_create(struct cgroup *cg, const char *root, struct errbuf *err)
{
	unsigned	i;
	size_t		len;

	memset(cg, 0, sizeof *cg);
	cg->parentfd = cg->dirfd = cg->procs_fd = cg->events_fd = cg->cpu_fd = cg->peak_fd = -1;
	if (open_own(cg, root, err) != 0) {
		close_all(cg);
		return -1;
	}
	for (i = 0; ; i++) {
		snprintf(cg->name, sizeof cg->name, CGROUP_PREFIX "%d-%u", (int)getpid(), i);
		if (mkdirat(cg->parentfd, cg->name, 0755) == 0)
			break;
		if (errno != EEXIST || i == 100) {
			errbuf_set(err, "cannot create a cgroup in %s: %s", VIS(cg->path),
			    strerror(errno));
			close_all(cg);
			return -1;
		}
	}
	len = strlen(cg->path);
	snprintf(cg->path + len, sizeof cg->path - len, "/%s", cg->name);
	cg->dirfd = openat(cg->parentfd, cg->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->dirfd != -1) {
		cg->procs_fd = openat(cg->dirfd, "cgroup.procs", O_RDWR | O_CLOEXEC);
		cg->events_fd = openat(cg->dirfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
		cg->cpu_fd = openat(cg->dirfd, "cpu.stat", O_RDONLY | O_CLOEXEC);
		cg->peak_fd = openat(cg->dirfd, "memory.peak", O_RDONLY | O_CLOEXEC);
	}
	if (cg->procs_fd == -1 || cg->events_fd == -1 || cg->cpu_fd == -1) {
		errbuf_set(err, "%s: no cgroup.procs, cgroup.events or cpu.stat: %s",
		    VIS(cg->path), strerror(errno));
		(void)cgroup_remove(cg, &(struct errbuf){ "" });
		return -1;
	}
	/*
	 * Room for cgroup.procs now: when joulestat runs out of memory,
	 * cgroup_remove still lists what runs, to give it back and rmdir.
	 */
	pread_grow_reserve(&cg->buf, &cg->cap);
	return 0;
}

int
cgroup_enter(struct cgroup *cg, pid_t pid, struct errbuf *err)
{
	char	num[24];
	int	n = snprintf(num, sizeof num, "%d\n", (int)pid);

	if (pwrite(cg->procs_fd, num, (size_t)n, 0) != n) {
		errbuf_set(err, "%s: cannot move the workload in: %s", VIS(cg->path),
		    strerror(errno));
		return -1;
	}
	return 0;
}

static int
read_keyed(int fd, const char *key, uint64_t *v)
{
	char	text[CGROUP_TEXT_MAX];

	if (fd < 0 || pread_text(fd, text, sizeof text) < 0)
		return -1;
	return cgroup_parse_keyed(text, key, v) == 0 ? 0 : -1;
}

int
cgroup_cpu_ns(const struct cgroup *cg, int64_t *user_ns, int64_t *sys_ns)
{
	char		text[CGROUP_TEXT_MAX];
	uint64_t	u, s;

	if (cg->cpu_fd < 0 || pread_text(cg->cpu_fd, text, sizeof text) < 0 ||
	    cgroup_parse_keyed(text, "user_usec", &u) != 0 ||
	    cgroup_parse_keyed(text, "system_usec", &s) != 0)
		return -1;
	*user_ns = (int64_t)u * NSEC_PER_USEC;
	*sys_ns = (int64_t)s * NSEC_PER_USEC;
	return 0;
}

int
cgroup_peak_kib(const struct cgroup *cg, uint64_t *kib)
{
	char		text[64];
	uint64_t	v;

	if (cg->peak_fd < 0 || pread_text(cg->peak_fd, text, sizeof text) < 0 ||
	    parse_u64_line(text, &v) != 0)
		return -1;
	*kib = v / 1024;
	return 0;
}

int
cgroup_populated(const struct cgroup *cg)
{
	uint64_t	v;

	if (read_keyed(cg->events_fd, "populated", &v) != 0)
		return -1;
	return v != 0;
}

int
cgroup_each_pid(struct cgroup *cg, void (*fn)(pid_t, void *), void *arg)
{
	/* The list of a thousand processes is longer than any fixed buffer. */
	if (cg->procs_fd < 0 || pread_grow(cg->procs_fd, &cg->buf, &cg->cap) < 0)
		return -1;
	return procfs_parse_pid_list(cg->buf, fn, arg) == 0 ? 0 : -1;
}

static void
signal_one(pid_t pid, void *arg)
{
	kill(pid, *(int *)arg);
}

void
cgroup_signal(struct cgroup *cg, int sig)
{
	int	fd;

	if (cg->dirfd < 0)
		return;
	if (sig == SIGKILL && (fd = openat(cg->dirfd, "cgroup.kill", O_WRONLY | O_CLOEXEC)) != -1) {
		if (write(fd, "1", 1) == 1) {
			close(fd);
			return;
		}
		close(fd);
	}
	(void)cgroup_each_pid(cg, signal_one, &sig);
}

struct give_back {
	int	parentfd;
	int	fd;	/* the parent's cgroup.procs, opened for the first pid */
	size_t	n;
};

static void
give_back_one(pid_t pid, void *arg)
{
	struct give_back	*g = arg;
	char			 num[24];
	int			 n = snprintf(num, sizeof num, "%d\n", (int)pid);

	if (g->fd == -1)
		g->fd = openat(g->parentfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (g->fd != -1)
		(void)pwrite(g->fd, num, (size_t)n, 0);
	g->n++;
}

int
cgroup_remove(struct cgroup *cg, struct errbuf *err)
{
	struct give_back	g;
	int			i, rc = 0;

	if (cg->parentfd >= 0 && cg->name[0] != '\0') {
		/* What is left running (--descendants=leave) goes back where joulestat is. */
		g.parentfd = cg->parentfd;
		g.fd = -1;
		for (i = 0; i < CGROUP_DRAIN_TRIES; i++) {
			g.n = 0;
			if (cgroup_each_pid(cg, give_back_one, &g) != 0 || g.n == 0 ||
			    g.fd == -1)
				break;
		}
		if (g.fd != -1)
			close(g.fd);
		if (unlinkat(cg->parentfd, cg->name, AT_REMOVEDIR) != 0 && errno != ENOENT) {
			errbuf_set(err, "cannot remove cgroup %s: %s", VIS(cg->path), strerror(errno));
			rc = -1;
		}
	}
	close_all(cg);
	return rc;
}
