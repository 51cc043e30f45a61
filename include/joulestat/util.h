/*
 * Small helpers shared by every module: the error buffer that library
 * modules fill instead of printing, allocation that cannot fail (only used
 * before the workload starts), the monotonic clock, strict number parsers
 * and EINTR-safe reads.  Nothing here knows about devices or processes.
 */
#ifndef JOULESTAT_UTIL_H
#define JOULESTAT_UTIL_H

#include <sys/types.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROGNAME	"joulestat"
#define NSEC_PER_SEC	1000000000LL
#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_USEC	1000LL

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * fmax(3) and fmin(3) as the compiler inlines them, so that joulestat needs
 * no libm at start (HACKING.md, "Start-up cost"): the larger (smaller) of
 * the two, a NaN losing to a number.
 */
static inline double
max_d(double a, double b)
{
	return a != a || a < b ? b : a;
}

static inline double
min_d(double a, double b)
{
	return a != a || b < a ? b : a;
}

/*
 * A one-line cause, written by a library module and printed (with context
 * added) by its caller.  msg is always NUL-terminated; empty means none.
 */
struct errbuf {
	char	msg[256];
};

/* Replace the cause in err with a printf-style message.  err may be NULL. */
void	errbuf_set(struct errbuf *err, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Prefix the existing cause with "context: ".  err may be NULL. */
void	errbuf_prefix(struct errbuf *err, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * fn runs once before joulestat exits on running out of memory, so that
 * state outside the process (locked GPU clocks) is undone.  NULL clears it.
 */
void	util_on_fatal(void (*fn)(void));

/*
 * Allocation that prints "joulestat: out of memory" and exits 125 when it
 * fails.  Only for use before the workload is started.
 */
void	*xmalloc(size_t size);
void	*xcalloc(size_t nmemb, size_t size);
void	*xreallocarray(void *ptr, size_t nmemb, size_t size);
char	*xstrdup(const char *s);
int	 xasprintf(char **ret, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Print "joulestat: MESSAGE" to stderr; warn_errno appends ": strerror". */
void	warnmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
int64_t	now_ns(void);
int64_t	realtime_ns(void);

/*
 * Strict parsers: the whole string must be one number, with no sign for
 * the unsigned forms and no surrounding white space.  They return 0,
 * -EINVAL (not a number, empty, trailing garbage) or -ERANGE (does not fit
 * or outside [min, max]); *out is written only on success.
 */
int	parse_u64(const char *s, uint64_t *out);
/* Whether s is one or more decimal digits and nothing else. */
bool	is_all_digits(const char *s);
int	parse_i64(const char *s, int64_t *out);
int	parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A sysfs value: one unsigned number, with at most one trailing newline. */
int	parse_u64_line(const char *text, uint64_t *out);
/*
 * One line of a sysfs-style file into buf, without its newline.  -EINVAL
 * when it is empty or does not fit in size bytes.
 */
int	copy_line(const char *text, char *buf, size_t size);
int	parse_double(const char *s, double *out);

/*
 * Read at most size - 1 bytes of a file at offset 0 into buf and
 * NUL-terminate it.  read_file opens path relative to dirfd (AT_FDCWD for
 * plain paths); pread_text re-reads an open fd, which is cheaper for files
 * read every tick.  A kernel text file shorter than half a page takes one
 * read, not a second one to find its end.  Both return the byte count or
 * -errno.
 */
ssize_t	read_file(int dirfd, const char *path, char *buf, size_t size);
ssize_t	pread_text(int fd, char *buf, size_t size);

/*
 * pread_text into a buffer that grows: the whole of an open file from its
 * start into *buf (malloc'd, *cap bytes; both may start NULL and 0),
 * NUL-terminated.  A kernel list longer than the buffer (cgroup.procs of a
 * large tree) is appended to, page after page, where the kernel's walk of
 * it left off, never read again from its start.  Returns the byte count
 * or -errno.
 */
ssize_t	pread_grow(int fd, char **buf, size_t *cap);

/* Give *buf (NULL, *cap 0) the room pread_grow would first make, ahead of need. */
void	pread_grow_reserve(char **buf, size_t *cap);

/*
 * s made fit for a one-line message: control characters become \n, \t or
 * \xHH, and a long string is cut with "...".  Returns buf.
 */
const char *visible(const char *s, char *buf, size_t size);

/* visible() into a buffer of the statement's own, for quoting a value in a message. */
#define VIS(s)	visible((s), (char[64]){ 0 }, 64)

/* fflush f and say whether everything written to it went out: 0 or -errno. */
int	flush_status(FILE *f);

/*
 * The directory for temporary and lock files: the first of TMPDIR, TMP,
 * TEMP and TEMPDIR that is set (as Nsight Compute looks), else /tmp.
 */
const char *temp_dir(void);

/* qsort comparison of two char pointers by strcmp. */
int	cmp_strp(const void *a, const void *b);

/*
 * open(2) for writing that never waits for a FIFO's reader: with no reader
 * it fails at once (ENXIO), since a wait there would be one that no signal
 * ends (signals reach joulestat through its signalfd: joulestat(1), -o).
 * The descriptor it returns blocks as usual.  -1 with errno.
 */
int	open_output_fd(const char *path, int flags, mode_t mode);

/* strerror, but "no reader on this FIFO" for the ENXIO of open_output_fd. */
const char *output_strerror(int e);

/* True when fd is a regular file that was removed (its directory vanished). */
bool	fd_is_unlinked(int fd);

/* write(2) all of buf, retrying on EINTR and short writes.  0 or -errno. */
int	write_all(int fd, const void *buf, size_t len);

#endif
