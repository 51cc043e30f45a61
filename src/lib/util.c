/*
 * The small helpers declared in util.h: error buffers, allocation that
 * cannot fail, clocks, strict number parsing and EINTR-safe file reads.
 * Nothing here knows about devices or processes.
 */
#include "joulestat/util.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "joulestat/exitcode.h"

void
errbuf_set(struct errbuf *err, const char *fmt, ...)
{
	va_list	ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
}

void
errbuf_prefix(struct errbuf *err, const char *fmt, ...)
{
	char	joined[2 * sizeof err->msg + 2];
	va_list	ap;
	size_t	n;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(joined, sizeof err->msg, fmt, ap);
	va_end(ap);
	n = strlen(joined);
	memcpy(joined + n, ": ", 2);
	memcpy(joined + n + 2, err->msg, sizeof err->msg);
	/* The cause may lose its tail; the context must not. */
	joined[sizeof err->msg - 1] = '\0';
	memcpy(err->msg, joined, sizeof err->msg);
}

static void	(*fatal_hook)(void);

void
util_on_fatal(void (*fn)(void))
{
	fatal_hook = fn;
}

static void
out_of_memory(void)
{
	static const char	msg[] = PROGNAME ": out of memory\n";
	void			(*hook)(void) = fatal_hook;

	(void)write_all(STDERR_FILENO, msg, sizeof msg - 1);
	/* Once only: the hook itself may run out of memory. */
	fatal_hook = NULL;
	if (hook != NULL)
		hook();
	_exit(EXIT_TOOL);
}

void *
xmalloc(size_t size)
{
	void	*p;

	if ((p = malloc(size == 0 ? 1 : size)) == NULL)
		out_of_memory();
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void	*p;

	if ((p = calloc(nmemb == 0 ? 1 : nmemb, size == 0 ? 1 : size)) == NULL)
		out_of_memory();
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void	*p;

	if ((p = reallocarray(ptr, nmemb == 0 ? 1 : nmemb, size == 0 ? 1 : size)) == NULL)
		out_of_memory();
	return p;
}

char *
xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		out_of_memory();
	return p;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory();
	return n;
}

void
warnmsg(const char *fmt, ...)
{
	va_list	ap;

	fflush(stdout);
	fputs(PROGNAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int64_t
clock_ns(clockid_t id)
{
	struct timespec	ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int64_t
now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int64_t
realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

bool
is_all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
	}
	return true;
}

int
parse_u64(const char *s, uint64_t *out)
{
	unsigned long long	 v;
	char			*end;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int
parse_i64(const char *s, int64_t *out)
{
	long long	 v;
	char		*end;

	if (s == NULL || (!isdigit((unsigned char)s[0]) && s[0] != '-'))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0')
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int
copy_line(const char *text, char *buf, size_t size)
{
	size_t	len = strlen(text);

	if (len > 0 && text[len - 1] == '\n')
		len--;
	if (len == 0 || len >= size)
		return -EINVAL;
	memcpy(buf, text, len);
	buf[len] = '\0';
	return 0;
}

int
parse_u64_line(const char *text, uint64_t *out)
{
	char	buf[32];

	if (copy_line(text, buf, sizeof buf) != 0)
		return -EINVAL;
	return parse_u64(buf, out);
}

int
parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t	v;
	int		r;

	if ((r = parse_u64(s, &v)) != 0)
		return r;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * A decimal number as the man page's OPTIONS write it: an optional '-',
 * digits with an optional fraction, an optional exponent.  strtod alone
 * would also take hex, "inf", "nan", '+' and leading white space, which
 * the integer options refuse.
 */
static bool
is_decimal(const char *s)
{
	size_t	int_digits, frac_digits = 0;

	if (*s == '-')
		s++;
	int_digits = strspn(s, "0123456789");
	s += int_digits;
	if (*s == '.') {
		frac_digits = strspn(s + 1, "0123456789");
		s += 1 + frac_digits;
	}
	if (int_digits + frac_digits == 0)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!isdigit((unsigned char)*s))
			return false;
		s += strspn(s, "0123456789");
	}
	return *s == '\0';
}

int
parse_double(const char *s, double *out)
{
	double	 v;
	char	*end;

	if (s == NULL || !is_decimal(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || isnan(v))
		return -EINVAL;
	if (errno == ERANGE || isinf(v))
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * The kernel makes the text of a /proc, sysfs or cgroup file at each read
 * (seq_file): a read hands out whole lines until the caller's buffer or the
 * kernel's own, a page at least, is full.  A read shorter than both, with
 * room left in that page for one more line, has therefore given the whole
 * file; reading on would make the text over again only to find its end,
 * which doubles the cost of every file read each tick.
 */
#define PREAD_WHOLE_BELOW	2048

ssize_t
pread_text(int fd, char *buf, size_t size)
{
	size_t	n = 0;
	ssize_t	r;

	if (size == 0)
		return -EINVAL;
	while (n < size - 1) {
		do
			r = pread(fd, buf + n, size - 1 - n, (off_t)n);
		while (r == -1 && errno == EINTR);
		if (r == -1)
			return -errno;
		if (r == 0)
			break;
		n += (size_t)r;
		if (n < size - 1 && (size_t)r < PREAD_WHOLE_BELOW)
			break;
	}
	buf[n] = '\0';
	return (ssize_t)n;
}

static void
grow(char **buf, size_t *cap)
{
	*cap = *cap < 2 * PREAD_WHOLE_BELOW ? 4 * PREAD_WHOLE_BELOW : 2 * *cap;
	*buf = xreallocarray(*buf, *cap, 1);
}

void
pread_grow_reserve(char **buf, size_t *cap)
{
	if (*cap < 2 * PREAD_WHOLE_BELOW)
		grow(buf, cap);
}

ssize_t
pread_grow(int fd, char **buf, size_t *cap)
{
	size_t	n = 0;
	ssize_t	r;

	for (;;) {
		if (*cap - n < PREAD_WHOLE_BELOW)
			grow(buf, cap);
		/* The next offset is where the kernel's text stopped: it goes on from there. */
		do
			r = pread(fd, *buf + n, *cap - 1 - n, (off_t)n);
		while (r == -1 && errno == EINTR);
		if (r == -1)
			return -errno;
		n += (size_t)r;
		/* The buffer had room for more than r: as in pread_text, the file has ended. */
		if ((size_t)r < PREAD_WHOLE_BELOW)
			break;
	}
	(*buf)[n] = '\0';
	return (ssize_t)n;
}

ssize_t
read_file(int dirfd, const char *path, char *buf, size_t size)
{
	ssize_t	n;
	int	fd;

	do
		fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	while (fd == -1 && errno == EINTR);
	if (fd == -1)
		return -errno;
	n = pread_text(fd, buf, size);
	close(fd);
	return n;
}

int
open_output_fd(const char *path, int flags, mode_t mode)
{
	int	fd, fl;

	if ((fd = open(path, flags | O_NONBLOCK, mode)) == -1)
		return -1;
	if ((fl = fcntl(fd, F_GETFL)) != -1)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

const char *
output_strerror(int e)
{
	return e == ENXIO ? "no reader on this FIFO (it is not waited for)" : strerror(e);
}

bool
fd_is_unlinked(int fd)
{
	struct stat	sb;

	return fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_nlink == 0;
}

int
write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 r;

	while (len > 0) {
		r = write(fd, p, len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return -errno;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

const char *
visible(const char *s, char *buf, size_t size)
{
	size_t	n = 0;
	int	w;

	for (; *s != '\0' && n + 8 < size; s++) {
		if (*s == '\n')
			w = snprintf(buf + n, size - n, "\\n");
		else if (*s == '\t')
			w = snprintf(buf + n, size - n, "\\t");
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			w = snprintf(buf + n, size - n, "\\x%02x", (unsigned char)*s);
		else
			w = snprintf(buf + n, size - n, "%c", *s);
		n += (size_t)w;
	}
	snprintf(buf + n, size - n, "%s", *s != '\0' ? "..." : "");
	return buf;
}

int
flush_status(FILE *f)
{
	if (fflush(f) == EOF || ferror(f))
		return -(errno != 0 ? errno : EIO);
	return 0;
}

int
cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *
temp_dir(void)
{
	static const char *const vars[] = { "TMPDIR", "TMP", "TEMP", "TEMPDIR" };
	const char		*v;
	size_t			 i;

	for (i = 0; i < ARRAY_SIZE(vars); i++) {
		if ((v = getenv(vars[i])) != NULL && v[0] != '\0')
			return v;
	}
	return "/tmp";
}
