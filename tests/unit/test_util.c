/*
 * Unit tests of the strict number parsers and the error buffer in
 * src/lib/util.c: every number joulestat reads goes
 * through parse_u64 and friends, so signs, white space, trailing garbage
 * and overflow must be refused here, and *out must stay untouched on
 * failure.  errbuf_prefix must keep the context when the cause is long.
 * pread_text reads the kernel's text files in one read where it can, and
 * must still read a long one to its end.
 */
#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "joulestat/util.h"

/* A value no parser produces, to see that failures leave *out alone. */
#define SENTINEL	0x5a5a5a5a5a5a5a5aULL

struct u64_case {
	const char	*s;
	int		 rc;
	uint64_t	 v;
};

struct i64_case {
	const char	*s;
	int		 rc;
	int64_t		 v;
};

static void
check_u64(const struct u64_case *c)
{
	uint64_t	v = SENTINEL;
	int		rc;

	rc = parse_u64(c->s, &v);
	if (rc != c->rc)
		print_error("parse_u64(\"%s\") = %d, want %d\n", c->s, rc, c->rc);
	assert_int_equal(rc, c->rc);
	assert_true(v == (c->rc == 0 ? c->v : SENTINEL));
}

static void
test_parse_u64(void **state)
{
	static const struct u64_case cases[] = {
		{ "0", 0, 0 },
		{ "7", 0, 7 },
		{ "007", 0, 7 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "99999999999999999999999999999999999999", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "-0", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "\t1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "1\n", -EINVAL, 0 },
		{ "1x", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 },
		{ "1.0", -EINVAL, 0 },
		{ "1 2", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 },
	};
	uint64_t	v = SENTINEL;
	size_t		i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		check_u64(&cases[i]);
	assert_int_equal(parse_u64(NULL, &v), -EINVAL);
	assert_true(v == SENTINEL);
}

static void
check_i64(const struct i64_case *c)
{
	int64_t	v = (int64_t)SENTINEL;
	int	rc;

	rc = parse_i64(c->s, &v);
	if (rc != c->rc)
		print_error("parse_i64(\"%s\") = %d, want %d\n", c->s, rc, c->rc);
	assert_int_equal(rc, c->rc);
	assert_true(v == (c->rc == 0 ? c->v : (int64_t)SENTINEL));
}

static void
test_parse_i64(void **state)
{
	static const struct i64_case cases[] = {
		{ "0", 0, 0 },
		{ "-0", 0, 0 },
		{ "42", 0, 42 },
		{ "-42", 0, -42 },
		{ "9223372036854775807", 0, INT64_MAX },
		{ "-9223372036854775808", 0, INT64_MIN },
		{ "9223372036854775808", -ERANGE, 0 },
		{ "-9223372036854775809", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "-", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ "--1", -EINVAL, 0 },
		{ "-+1", -EINVAL, 0 },
		{ "- 1", -EINVAL, 0 },
		{ " -1", -EINVAL, 0 },
		{ "-1 ", -EINVAL, 0 },
		{ "1-", -EINVAL, 0 },
		{ "12ab", -EINVAL, 0 },
		{ "0x1f", -EINVAL, 0 },
	};
	int64_t	v = (int64_t)SENTINEL;
	size_t	i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		check_i64(&cases[i]);
	assert_int_equal(parse_i64(NULL, &v), -EINVAL);
	assert_true(v == (int64_t)SENTINEL);
}

static void
test_parse_u64_range(void **state)
{
	uint64_t	v = SENTINEL;

	(void)state;
	assert_int_equal(parse_u64_range("1", 1, 60000, &v), 0);
	assert_true(v == 1);
	assert_int_equal(parse_u64_range("60000", 1, 60000, &v), 0);
	assert_true(v == 60000);
	v = SENTINEL;
	assert_int_equal(parse_u64_range("0", 1, 60000, &v), -ERANGE);
	assert_int_equal(parse_u64_range("60001", 1, 60000, &v), -ERANGE);
	assert_int_equal(parse_u64_range("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(parse_u64_range("-5", 1, 60000, &v), -EINVAL);
	assert_int_equal(parse_u64_range("", 1, 60000, &v), -EINVAL);
	assert_int_equal(parse_u64_range("10x", 1, 60000, &v), -EINVAL);
	assert_true(v == SENTINEL);
	/* An empty range [5, 5] admits exactly one value. */
	assert_int_equal(parse_u64_range("5", 5, 5, &v), 0);
	assert_true(v == 5);
}

static void
test_parse_double(void **state)
{
	static const char *const bad[] = {
		"", " 1", "\t1", "1 ", "1\n", "1,5", "1.5x", "x", ".", "-", "e5", "nan", "NAN",
		/* One number syntax with the integer options: decimal, no '+', no hex. */
		"0x10", "0X1p3", "-0x1", "+0.25", "+1", "inf", "-inf", "infinity", "1e", "1e+",
		"--1", "1.5.2",
	};
	static const char *const huge[] = { "1e400", "-1e400" };
	double	v = 123.25;
	size_t	i;

	(void)state;
	assert_int_equal(parse_double("1.5", &v), 0);
	assert_true(v == 1.5);
	assert_int_equal(parse_double("-2", &v), 0);
	assert_true(v == -2.0);
	assert_int_equal(parse_double("0.25", &v), 0);
	assert_true(v == 0.25);
	assert_int_equal(parse_double("5.", &v), 0);
	assert_true(v == 5.0);
	assert_int_equal(parse_double("2E-1", &v), 0);
	assert_true(v == 0.2);
	assert_int_equal(parse_double("1e3", &v), 0);
	assert_true(v == 1000.0);
	assert_int_equal(parse_double(".5", &v), 0);
	assert_true(v == 0.5);
	v = 123.25;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse_double(bad[i], &v) != -EINVAL)
			print_error("parse_double(\"%s\") accepted\n", bad[i]);
		assert_int_equal(parse_double(bad[i], &v), -EINVAL);
	}
	for (i = 0; i < ARRAY_SIZE(huge); i++) {
		if (parse_double(huge[i], &v) != -ERANGE)
			print_error("parse_double(\"%s\") not -ERANGE\n", huge[i]);
		assert_int_equal(parse_double(huge[i], &v), -ERANGE);
	}
	assert_int_equal(parse_double(NULL, &v), -EINVAL);
	assert_true(v == 123.25);
}

static void
test_errbuf_set_prefix(void **state)
{
	struct errbuf	err;

	(void)state;
	memset(&err, 'x', sizeof err);
	errbuf_set(&err, "cannot open %s", "/dev/nvidia0");
	assert_string_equal(err.msg, "cannot open /dev/nvidia0");
	errbuf_prefix(&err, "nvml: %s", "probe");
	assert_string_equal(err.msg, "nvml: probe: cannot open /dev/nvidia0");
	errbuf_prefix(&err, "dev %d", 3);
	assert_string_equal(err.msg, "dev 3: nvml: probe: cannot open /dev/nvidia0");
	/* A NULL buffer is allowed and ignored. */
	errbuf_set(NULL, "x");
	errbuf_prefix(NULL, "x");
}

static void
test_errbuf_prefix_truncation(void **state)
{
	struct errbuf	err;
	char		cause[400], want[sizeof err.msg];
	size_t		len;

	(void)state;
	memset(cause, 'c', sizeof cause - 1);
	cause[sizeof cause - 1] = '\0';
	errbuf_set(&err, "%s", cause);
	assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
	errbuf_prefix(&err, "context %s", "here");
	/* The context survives whole; the cause loses its tail. */
	len = strlen(err.msg);
	assert_int_equal(len, sizeof err.msg - 1);
	assert_memory_equal(err.msg, "context here: ccc", 17);
	assert_true(strspn(err.msg + 14, "c") == len - 14);

	/* A context longer than the buffer is cut, and still NUL-terminated. */
	errbuf_set(&err, "cause");
	errbuf_prefix(&err, "%s", cause);
	memset(want, 'c', sizeof want - 1);
	want[sizeof want - 1] = '\0';
	assert_string_equal(err.msg, want);

	/* A cause that just fits, with a short context, is cut at the end only. */
	memset(cause, 'd', sizeof err.msg - 1);
	cause[sizeof err.msg - 1] = '\0';
	errbuf_set(&err, "%s", cause);
	errbuf_prefix(&err, "a");
	assert_memory_equal(err.msg, "a: ddd", 6);
	assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
}

/*
 * The kernel hands a text file longer than a page out a page of whole
 * lines at a time (seq_file): such a short read is not the end.  The
 * process's own maps, grown past two pages with mappings that cannot merge,
 * read by pread_text and by plain reads to the end, are the same text.
 */
static void
test_pread_text_long_proc(void **state)
{
	static char	 a[1 << 16], b[1 << 16];
	void		*maps[80];
	size_t		 i, n = 0;
	ssize_t		 got, r;
	int		 fd;

	(void)state;
	memset(a, 1, sizeof a);
	memset(b, 1, sizeof b);
	for (i = 0; i < ARRAY_SIZE(maps); i++) {
		maps[i] = mmap(NULL, 4096, i % 2 ? PROT_READ : PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(maps[i] != MAP_FAILED);
	}
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	got = pread_text(fd, a, sizeof a);
	while ((r = pread(fd, b + n, sizeof b - 1 - n, (off_t)n)) > 0)
		n += (size_t)r;
	close(fd);
	for (i = 0; i < ARRAY_SIZE(maps); i++)
		munmap(maps[i], 4096);
	assert_true(n > 4096 + 2048);
	assert_int_equal(got, n);
	assert_memory_equal(a, b, n);
	assert_int_equal(a[n], '\0');
}

/* A short file is read whole; a long one up to the buffer, NUL-terminated. */
static void
test_pread_text_sizes(void **state)
{
	char	path[] = "/tmp/test_util.XXXXXX", text[3000], buf[4000];
	int	fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	memset(text, 'x', sizeof text);
	assert_int_equal(write(fd, text, sizeof text), sizeof text);
	assert_int_equal(pread_text(fd, buf, sizeof buf), sizeof text);
	assert_memory_equal(buf, text, sizeof text);
	assert_int_equal(buf[sizeof text], '\0');
	assert_int_equal(pread_text(fd, buf, 1000), 999);
	assert_int_equal(strlen(buf), 999);
	assert_int_equal(pread_text(fd, buf, 0), -EINVAL);
	close(fd);
	assert_int_equal(pread_text(fd, buf, sizeof buf), -EBADF);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_i64),
		cmocka_unit_test(test_parse_u64_range),
		cmocka_unit_test(test_parse_double),
		cmocka_unit_test(test_errbuf_set_prefix),
		cmocka_unit_test(test_errbuf_prefix_truncation),
		cmocka_unit_test(test_pread_text_long_proc),
		cmocka_unit_test(test_pread_text_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
