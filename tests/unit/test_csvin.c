/*
 * Unit tests of reading CSV back in src/lib/csvin.c (--baseline, joulestat
 * merge): libcsv in strict mode, so quoted fields may hold commas, doubled
 * quotes and newlines, while a stray quote is an error that names its
 * line; every row knows the line it starts on, however many lines the
 * fields before it spanned; columns are found by header name, and a field
 * past the end of a short row reads as empty.  csvin_load reads a file
 * and names it in its causes.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "joulestat/csvin.h"
#include "joulestat/util.h"

/* s holds sub, printing both when it does not. */
#define assert_contains(s, sub) do {						\
	const char *s_ = (s), *sub_ = (sub);					\
	if (strstr(s_, sub_) == NULL) {						\
		print_error("\"%s\" does not contain \"%s\"\n", s_, sub_);	\
		fail();								\
	}									\
} while (0)

struct fixture {
	struct csvin	t;
	struct errbuf	err;
	char		path[64];	/* a temporary file, removed in teardown */
};

static int
setup(void **state)
{
	struct fixture	*fx;

	if ((fx = calloc(1, sizeof *fx)) == NULL)
		return -1;
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*fx = *state;

	csvin_free(&fx->t);
	if (fx->path[0] != '\0')
		unlink(fx->path);
	free(fx);
	return 0;
}

/* Parse text (strlen) and expect rc; the table is kept for the checks. */
static void
parse(struct fixture *fx, const char *text, int rc)
{
	csvin_free(&fx->t);
	fx->err.msg[0] = '\0';
	if (csvin_parse(&fx->t, text, strlen(text), &fx->err) != rc) {
		print_error("csvin_parse rc != %d (%s) for:\n%s\n", rc, fx->err.msg, text);
		fail();
	}
}

/* Row r has exactly the n fields given, and starts on line. */
static void
check_row(const struct fixture *fx, size_t r, size_t line, size_t n, ...)
{
	const struct csvin_row	*row;
	va_list			 ap;
	size_t			 i;

	assert_true(r < fx->t.nrows);
	row = &fx->t.rows[r];
	if (row->n != n)
		print_error("row %zu has %zu fields, want %zu\n", r, row->n, n);
	assert_int_equal(row->n, n);
	if (row->line != line)
		print_error("row %zu starts on line %zu, want %zu\n", r, row->line, line);
	assert_int_equal(row->line, line);
	va_start(ap, n);
	for (i = 0; i < n; i++)
		assert_string_equal(row->f[i], va_arg(ap, const char *));
	va_end(ap);
}

static void
test_plain(void **state)
{
	struct fixture	*fx = *state;

	parse(fx, "a,b,c\n1,2,3\nx,,z\n", 0);
	assert_int_equal(fx->t.nrows, 3);
	check_row(fx, 0, 1, 3, "a", "b", "c");
	check_row(fx, 1, 2, 3, "1", "2", "3");
	check_row(fx, 2, 3, 3, "x", "", "z");

	/* No final newline; CRLF line ends; a trailing separator is an empty field. */
	parse(fx, "a,b\r\n1,2,\r\n3,4", 0);
	assert_int_equal(fx->t.nrows, 3);
	check_row(fx, 0, 1, 2, "a", "b");
	check_row(fx, 1, 2, 3, "1", "2", "");
	check_row(fx, 2, 3, 2, "3", "4");
}

static void
test_quoted(void **state)
{
	struct fixture	*fx = *state;

	parse(fx, "cmd,n\n\"sh -c \"\"echo a,b\"\"\",1\n\"\",2\n", 0);
	assert_int_equal(fx->t.nrows, 3);
	check_row(fx, 1, 2, 2, "sh -c \"echo a,b\"", "1");
	check_row(fx, 2, 3, 2, "", "2");
}

/* A newline inside quotes belongs to the field; the next row starts after it. */
static void
test_newline_in_field(void **state)
{
	struct fixture	*fx = *state;

	parse(fx, "n,cmd\n1,\"first\nsecond\nthird\"\n2,x\n", 0);
	assert_int_equal(fx->t.nrows, 3);
	check_row(fx, 1, 2, 2, "1", "first\nsecond\nthird");
	check_row(fx, 2, 5, 2, "2", "x");
}

/*
 * The row's line is where it starts, also when its first field is the
 * quoted one that spans lines.
 */
static void
test_newline_in_first_field(void **state)
{
	struct fixture	*fx = *state;

	parse(fx, "cmd,n\n\"first\nsecond\",1\n\"a\nb\nc\",2\nlast,3\n", 0);
	assert_int_equal(fx->t.nrows, 4);
	check_row(fx, 1, 2, 2, "first\nsecond", "1");
	check_row(fx, 2, 4, 2, "a\nb\nc", "2");
	check_row(fx, 3, 7, 2, "last", "3");
}

static void
test_blank_lines(void **state)
{
	struct fixture	*fx = *state;

	/* libcsv skips empty lines; the line numbers still count them. */
	parse(fx, "a\n\n\nb\n", 0);
	assert_int_equal(fx->t.nrows, 2);
	check_row(fx, 0, 1, 1, "a");
	check_row(fx, 1, 4, 1, "b");
	parse(fx, "a\r\n\r\n\r\nb\r\n", 0);
	assert_int_equal(fx->t.nrows, 2);
	check_row(fx, 1, 4, 1, "b");
}

/*
 * libcsv trims spaces and tabs around unquoted fields, so a line of only
 * white space (or a lone CR before the LF) is as blank as an empty one
 * and gives no row; it is still a line the next row comes after.
 */
static void
test_white_space_lines(void **state)
{
	struct fixture	*fx = *state;

	parse(fx, "a\n  \n\t\nb\n", 0);
	assert_int_equal(fx->t.nrows, 2);
	check_row(fx, 0, 1, 1, "a");
	check_row(fx, 1, 4, 1, "b");
	parse(fx, "a\n\r\r\nb\n", 0);
	assert_int_equal(fx->t.nrows, 2);
	check_row(fx, 1, 3, 1, "b");
}

static void
test_errors(void **state)
{
	struct fixture	*fx = *state;

	/* A quote inside an unquoted field. */
	parse(fx, "a,b\n1,2\nx\"y,3\n", -1);
	assert_int_equal(strncmp(fx->err.msg, "line 3: ", 8), 0);
	/* Text after a closing quote. */
	parse(fx, "a,b\n\"x\"y,3\n", -1);
	assert_int_equal(strncmp(fx->err.msg, "line 2: ", 8), 0);
	/* A quote that is never closed, found at the end. */
	parse(fx, "a,b\n1,\"open\nstill open\n", -1);
	assert_int_equal(strncmp(fx->err.msg, "line 3: ", 8), 0);
	/* Nothing at all, or only line ends. */
	parse(fx, "", -1);
	assert_string_equal(fx->err.msg, "empty file, not a joulestat CSV");
	parse(fx, "\n\r\n\n", -1);
	assert_string_equal(fx->err.msg, "empty file, not a joulestat CSV");
}

static void
test_col_and_get(void **state)
{
	struct fixture	*fx = *state;

	parse(fx, "scope,run,wall_s,run\nrun,1,2.5\ndevice\n", 0);
	assert_int_equal(csvin_col(&fx->t, "scope"), 0);
	assert_int_equal(csvin_col(&fx->t, "wall_s"), 2);
	/* The first of two columns with the same name. */
	assert_int_equal(csvin_col(&fx->t, "run"), 1);
	assert_int_equal(csvin_col(&fx->t, "energy_j"), -1);
	assert_int_equal(csvin_col(&fx->t, "Scope"), -1);
	assert_int_equal(csvin_col(&fx->t, ""), -1);
	assert_string_equal(csvin_get(&fx->t, 1, 2), "2.5");
	/* Past a short row's end, a missing column, a missing row: all "". */
	assert_string_equal(csvin_get(&fx->t, 1, 3), "");
	assert_string_equal(csvin_get(&fx->t, 2, 0), "device");
	assert_string_equal(csvin_get(&fx->t, 2, 1), "");
	assert_string_equal(csvin_get(&fx->t, 1, -1), "");
	assert_string_equal(csvin_get(&fx->t, 3, 0), "");
	assert_string_equal(csvin_get(&fx->t, 1000, 0), "");

	/* A freed table has no columns. */
	csvin_free(&fx->t);
	assert_int_equal(fx->t.nrows, 0);
	assert_int_equal(csvin_col(&fx->t, "scope"), -1);
}

static void
test_many_rows(void **state)
{
	struct fixture	*fx = *state;
	char		*text = NULL;
	size_t		 len = 0, i;
	FILE		*f;
	char		 want[32];

	/* More rows than the first allocation, and wider than the first row array. */
	assert_non_null(f = open_memstream(&text, &len));
	for (i = 0; i < 40; i++)
		fprintf(f, "c%zu%s", i, i < 39 ? "," : "\n");
	for (i = 1; i <= 200; i++)
		fprintf(f, "%zu,\"q%zu\"\n", i, i);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(csvin_parse(&fx->t, text, len, &fx->err), 0);
	free(text);
	assert_int_equal(fx->t.nrows, 201);
	assert_int_equal(fx->t.rows[0].n, 40);
	assert_int_equal(csvin_col(&fx->t, "c39"), 39);
	for (i = 1; i <= 200; i++) {
		snprintf(want, sizeof want, "q%zu", i);
		assert_string_equal(csvin_get(&fx->t, i, 1), want);
		assert_int_equal(fx->t.rows[i].line, i + 1);
	}
}

/* What a stream delivered: every row's fields joined, and the header seen once. */
struct seen_rows {
	size_t	nheader, nrows, stop_at;
	char	last[64];
	size_t	last_line;
};

static int
on_row(const struct csvin *t, void *arg)
{
	struct seen_rows	*s = arg;

	assert_true(t->nrows == 1 || t->nrows == 2);
	if (t->nrows == 1) {
		s->nheader++;
		return 0;
	}
	assert_int_equal(t->rows[0].n, 2);
	assert_string_equal(csvin_get(t, 0, 0), "id");
	s->nrows++;
	snprintf(s->last, sizeof s->last, "%s|%s", csvin_get(t, 1, 0), csvin_get(t, 1, 1));
	s->last_line = t->rows[1].line;
	return s->nrows == s->stop_at ? -1 : 0;
}

/* Streaming: rows one at a time, with the numbers of lines past 64 KiB reads. */
static void
test_stream(void **state)
{
	struct fixture		*fx = *state;
	struct seen_rows	 s = { 0 };
	char			*text = NULL;
	size_t			 len = 0, i;
	FILE			*f;
	int			 fd;

	/* 20000 rows (about 400 KiB), one with a quoted newline, so reads end mid-row. */
	assert_non_null(f = open_memstream(&text, &len));
	fprintf(f, "id,text\n");
	for (i = 1; i <= 20000; i++)
		fprintf(f, i == 5000 ? "%zu,\"two\nlines\"\n" : "%zu,\"row %zu, quoted\"\n", i, i);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(csvin_stream_text(text, len, on_row, &s, &fx->err), 0);
	assert_int_equal(s.nheader, 1);
	assert_int_equal(s.nrows, 20000);
	assert_string_equal(s.last, "20000|row 20000, quoted");
	assert_int_equal(s.last_line, 20002);

	snprintf(fx->path, sizeof fx->path, "/tmp/joulestat-test-csvin.XXXXXX");
	assert_true((fd = mkstemp(fx->path)) >= 0);
	assert_int_equal(write_all(fd, text, len), 0);
	close(fd);
	free(text);
	memset(&s, 0, sizeof s);
	assert_int_equal(csvin_stream_file(fx->path, on_row, &s, &fx->err), 0);
	assert_int_equal(s.nrows, 20000);
	assert_string_equal(s.last, "20000|row 20000, quoted");
	assert_int_equal(s.last_line, 20002);

	/* The callback stops the stream; its own cause stays, with the file's name. */
	memset(&s, 0, sizeof s);
	s.stop_at = 7000;
	errbuf_set(&fx->err, "stopped");
	assert_int_equal(csvin_stream_file(fx->path, on_row, &s, &fx->err), -1);
	assert_int_equal(s.nrows, 7000);
	assert_int_equal(s.last_line, 7002);
	assert_non_null(strstr(fx->err.msg, "stopped"));
	assert_non_null(strstr(fx->err.msg, fx->path));

	/* A file cut inside a quoted field is an error with its line. */
	assert_int_equal(csvin_stream_text("a,b\n1,\"x", 9, on_row, &s, &fx->err), -1);
	assert_non_null(strstr(fx->err.msg, "line 2"));
}

static void
test_embedded_nul(void **state)
{
	struct fixture	*fx = *state;
	static const char text[] = "a,b\nx\0y,z\n";

	/* The length, not a NUL, ends the input; a field stops being a C string at its NUL. */
	assert_int_equal(csvin_parse(&fx->t, text, sizeof text - 1, &fx->err), 0);
	assert_int_equal(fx->t.nrows, 2);
	assert_int_equal(fx->t.rows[1].n, 2);
	assert_string_equal(csvin_get(&fx->t, 1, 0), "x");
	assert_string_equal(csvin_get(&fx->t, 1, 1), "z");
}

static void
test_load(void **state)
{
	struct fixture	*fx = *state;
	static const char text[] = "h1,h2\n\"a,b\",c\n";
	int		 fd;

	snprintf(fx->path, sizeof fx->path, "/tmp/joulestat-test-csvin.XXXXXX");
	assert_true((fd = mkstemp(fx->path)) >= 0);
	assert_int_equal(write_all(fd, text, sizeof text - 1), 0);
	close(fd);
	assert_int_equal(csvin_load(&fx->t, fx->path, &fx->err), 0);
	assert_int_equal(fx->t.nrows, 2);
	check_row(fx, 1, 2, 2, "a,b", "c");

	/* A parse error names the file and the line. */
	assert_true((fd = open(fx->path, O_WRONLY | O_TRUNC)) >= 0);
	assert_int_equal(write_all(fd, "h\n\"x\n", 5), 0);
	close(fd);
	csvin_free(&fx->t);
	assert_int_equal(csvin_load(&fx->t, fx->path, &fx->err), -1);
	assert_int_equal(strncmp(fx->err.msg, fx->path, strlen(fx->path)), 0);
	assert_contains(fx->err.msg, ": line 2: ");

	/* A file that is not there. */
	unlink(fx->path);
	csvin_free(&fx->t);
	assert_int_equal(csvin_load(&fx->t, fx->path, &fx->err), -1);
	assert_int_equal(strncmp(fx->err.msg, fx->path, strlen(fx->path)), 0);
	assert_contains(fx->err.msg, ": No such file or directory");
	assert_int_equal(fx->t.nrows, 0);
	fx->path[0] = '\0';
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quoted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newline_in_field, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newline_in_first_field, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blank_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_white_space_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_col_and_get, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_embedded_nul, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
