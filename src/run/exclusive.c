/*
 * Device lock files for --exclusive.  flock(2) rather than fcntl locks:
 * the lock belongs to the open file, is inherited by nobody (O_CLOEXEC),
 * and is dropped by the kernel when joulestat ends, even by SIGKILL, so a
 * crashed run never blocks the next one.  The holder writes its pid into
 * the file only so that a waiting run can say whom it waits for.
 */
#include "joulestat/exclusive.h"

#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/signals.h"
#include "joulestat/util.h"

#define EXCLUSIVE_POLL_MS	100

void
exclusive_name(const char *id, char *buf, size_t size)
{
	size_t	i, n;

	n = (size_t)snprintf(buf, size, "joulestat-");
	for (i = 0; id[i] != '\0' && n + 6 < size; i++, n++) {
		/* Only characters that are safe in a file name on any file system. */
		buf[n] = (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'A' && id[i] <= 'Z') ||
		    (id[i] >= 'a' && id[i] <= 'z') || id[i] == '-' || id[i] == '.' ? id[i] : '_';
	}
	snprintf(buf + n, size - n, ".lock");
}

/* Open or create the lock file at path: a descriptor, or -1 with errno. */
static int
open_lock_fd(const char *path)
{
	int	fd, tries;

	for (tries = 0; tries < 3; tries++) {
		/* Non-blocking: a FIFO planted there must not hold the open. */
		if ((fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) != -1 ||
		    errno != ENOENT)
			return fd;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd != -1) {
			/* 0666 whatever the umask: another user's run takes the same lock. */
			(void)fchmod(fd, 0666);
			return fd;
		}
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/*
 * Open the lock file, creating it if need be.  O_CREAT only with O_EXCL:
 * with fs.protected_regular, O_CREAT on another user's file in a sticky
 * directory such as /tmp fails even though plain opening is allowed.  The
 * name is joulestat's, not the user's, in a directory anybody may write:
 * a symbolic link (O_NOFOLLOW) or anything but a regular file planted
 * there is refused, so a run as root never writes through it.
 */
static int
open_lock(const char *path, struct errbuf *err)
{
	struct stat	sb;
	int		fd;

	if ((fd = open_lock_fd(path)) == -1) {
		errbuf_set(err, "--exclusive: %s: %s", path, errno == ELOOP ?
		    "a symbolic link, not followed for a lock file" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		errbuf_set(err, "--exclusive: %s: not a regular file, refused as a lock file",
		    path);
		close(fd);
		return -1;
	}
	return fd;
}

/* The pid the holder wrote, or 0. */
static long
holder(int fd)
{
	char	buf[24];
	ssize_t	n = pread(fd, buf, sizeof buf - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static void
mark_holder(int fd)
{
	char	buf[24];
	int	n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) == 0)
		(void)!pwrite(fd, buf, (size_t)n, 0);
}

/*
 * Wait for the lock on fd.  Returns 0 when held, -1 on timeout or error,
 * or the number of a signal that arrived on sigfd.
 */
static int
wait_lock(int fd, const char *id, const char *path, double wait_s, int sigfd,
    struct errbuf *err)
{
	int64_t		start = now_ns();
	bool		is_said = false;
	int		sig;

	while (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			errbuf_set(err, "--exclusive: %s: %s", path, strerror(errno));
			return -1;
		}
		if (wait_s >= 0 && (double)(now_ns() - start) / 1e9 >= wait_s) {
			errbuf_set(err, "--exclusive: device %s is still in use by joulestat pid %ld "
			    "after %.1f s (--exclusive-timeout)", id, holder(fd), wait_s);
			return -1;
		}
		if (!is_said) {
			warnmsg("waiting for device %s, in use by joulestat pid %ld (--exclusive)", id,
			    holder(fd));
			is_said = true;
		}
		if ((sig = wait_for_signal(sigfd, now_ns() + EXCLUSIVE_POLL_MS * NSEC_PER_MSEC)) != 0)
			return sig;
	}
	return 0;
}

int
exclusive_take(struct exclusive *ex, const char *const *ids, size_t n, double wait_s, int sigfd,
    struct errbuf *err)
{
	const char	**sorted = xcalloc(n, sizeof *sorted);
	char		 name[160], *path;
	size_t		 i;
	int		 fd, rc = 0;

	memset(ex, 0, sizeof *ex);
	ex->fds = xcalloc(n, sizeof *ex->fds);
	memcpy(sorted, ids, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, cmp_strp);
	for (i = 0; i < n && rc == 0; i++) {
		if (i > 0 && strcmp(sorted[i], sorted[i - 1]) == 0)
			continue;	/* one GPU seen by two backends */
		exclusive_name(sorted[i], name, sizeof name);
		xasprintf(&path, "%s/%s", temp_dir(), name);
		if ((fd = open_lock(path, err)) == -1)
			rc = -1;
		else if ((rc = wait_lock(fd, sorted[i], path, wait_s, sigfd, err)) != 0)
			close(fd);
		else {
			mark_holder(fd);
			ex->fds[ex->n++] = fd;
		}
		free(path);
	}
	free(sorted);
	if (rc != 0)
		exclusive_release(ex);
	return rc;
}

void
exclusive_release(struct exclusive *ex)
{
	size_t	i;

	for (i = 0; i < ex->n; i++) {
		/* Forget the pid first: the next holder must not name us. */
		(void)!ftruncate(ex->fds[i], 0);
		close(ex->fds[i]);
	}
	free(ex->fds);
	memset(ex, 0, sizeof *ex);
}
