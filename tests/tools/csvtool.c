/*
 * csvtool: reads joulestat's CSV output with a real CSV parser (libcsv) so
 * that the command-line tests never split CSV with cut or awk, which would
 * pass on broken quoting (perf's CSV linter test).  It checks
 * that every row has the same number of fields and looks values up by
 * column name.  It does no arithmetic on the values.
 *
 *	csvtool [-s SEP] check FILE                    rows=N fields=M
 *	csvtool [-s SEP] get FILE COLUMN [KEY=VALUE...] the value in the first match
 *	csvtool [-s SEP] count FILE [KEY=VALUE...]      how many data rows match
 *	csvtool [-s SEP] filled FILE KEY                 "KEY's value<TAB>column" for
 *	                                                 every non-empty cell of a row
 *	csvtool [-s SEP] values FILE COLUMN...           the columns' values of each
 *	                                                 row, tab-separated
 *
 * The first row is the header for get and count.  FILE "-" is stdin.
 * Exit status: 0 success; 1 rows of differing lengths, or no such column
 * or row; 2 usage, I/O or parse error, or an empty file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <csv.h>

#define EXIT_MISMATCH	1
#define EXIT_TROUBLE	2

struct field {
	char	*s;		/* NUL-terminated copy; may hold NULs itself */
	size_t	 len;
};

struct row {
	struct field	*fields;
	size_t		 nfields;
};

struct table {
	struct row	*rows;
	size_t		 nrows;
	size_t		 cap;
	struct row	 cur;		/* the row being parsed */
};

struct filter {
	const char	*key;
	const char	*value;
	size_t		 col;		/* index of key in the header */
};

struct cmd {
	const char	*name;
	int		 min_args;
	int		 max_args;	/* -1: no limit */
	int		(*fn)(const struct table *, int, char **);
};

static void
usage(void)
{
	fprintf(stderr, "usage: csvtool [-s SEP] check FILE\n"
	    "       csvtool [-s SEP] get FILE COLUMN [KEY=VALUE ...]\n"
	    "       csvtool [-s SEP] count FILE [KEY=VALUE ...]\n"
	    "       csvtool [-s SEP] filled FILE KEY\n"
	    "       csvtool [-s SEP] values FILE COLUMN ...\n");
	exit(EXIT_TROUBLE);
}

static void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size) {
		fprintf(stderr, "csvtool: out of memory\n");
		exit(EXIT_TROUBLE);
	}
	p = realloc(p, n * size);
	if (p == NULL && n * size != 0) {
		fprintf(stderr, "csvtool: out of memory\n");
		exit(EXIT_TROUBLE);
	}
	return p;
}

/* libcsv callback: one field ended. */
static void
table_field(void *s, size_t len, void *data)
{
	struct table	*t = data;
	struct row	*r = &t->cur;
	struct field	*f;

	r->fields = xreallocarray(r->fields, r->nfields + 1, sizeof(*r->fields));
	f = &r->fields[r->nfields++];
	f->s = xreallocarray(NULL, len + 1, 1);
	if (len > 0)
		memcpy(f->s, s, len);
	f->s[len] = '\0';
	f->len = len;
}

/* libcsv callback: one row ended. */
static void
table_row(int c, void *data)
{
	struct table	*t = data;

	(void)c;
	if (t->nrows == t->cap) {
		t->cap = t->cap == 0 ? 16 : t->cap * 2;
		t->rows = xreallocarray(t->rows, t->cap, sizeof(*t->rows));
	}
	t->rows[t->nrows++] = t->cur;
	t->cur.fields = NULL;
	t->cur.nfields = 0;
}

/* Keep spaces and tabs: a value is exactly what is between separators. */
static int
no_space(unsigned char c)
{
	(void)c;
	return 0;
}

static FILE *
open_input(const char *path)
{
	FILE	*fp;

	if (strcmp(path, "-") == 0)
		return stdin;
	if ((fp = fopen(path, "r")) == NULL) {
		fprintf(stderr, "csvtool: %s: %s\n", path, strerror(errno));
		exit(EXIT_TROUBLE);
	}
	return fp;
}

static void
parse_error(const char *path, struct csv_parser *p)
{
	fprintf(stderr, "csvtool: %s: %s\n", path, csv_strerror(csv_error(p)));
	exit(EXIT_TROUBLE);
}

/* Parse the whole of path into t, strictly; exits on any problem. */
static void
table_load(struct table *t, const char *path, unsigned char sep)
{
	struct csv_parser	 p;
	char			 buf[65536];
	size_t			 n;
	FILE			*fp = open_input(path);

	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
		parse_error(path, &p);
	csv_set_delim(&p, sep);
	csv_set_space_func(&p, no_space);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		if (csv_parse(&p, buf, n, table_field, table_row, t) != n)
			parse_error(path, &p);
	}
	if (ferror(fp)) {
		fprintf(stderr, "csvtool: %s: read error\n", path);
		exit(EXIT_TROUBLE);
	}
	if (csv_fini(&p, table_field, table_row, t) != 0)
		parse_error(path, &p);
	csv_free(&p);
	if (fp != stdin)
		fclose(fp);
	if (t->nrows == 0) {
		fprintf(stderr, "csvtool: %s: no rows\n", path);
		exit(EXIT_TROUBLE);
	}
}

static void
table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		for (size_t j = 0; j < t->rows[i].nfields; j++)
			free(t->rows[i].fields[j].s);
		free(t->rows[i].fields);
	}
	free(t->rows);
}

/* The index of the header column named name, or -1. */
static long
column_find(const struct table *t, const char *name)
{
	const struct row	*h = &t->rows[0];

	for (size_t i = 0; i < h->nfields; i++) {
		if (strlen(h->fields[i].s) == h->fields[i].len &&
		    strcmp(h->fields[i].s, name) == 0)
			return (long)i;
	}
	return -1;
}

static long
column_need(const struct table *t, const char *name)
{
	long	 col = column_find(t, name);

	if (col == -1) {
		fprintf(stderr, "csvtool: no column '%s'\n", name);
		exit(EXIT_MISMATCH);
	}
	return col;
}

/* Turn KEY=VALUE arguments into filters on header columns. */
static struct filter *
filters_parse(const struct table *t, int argc, char **argv)
{
	struct filter	*fs = xreallocarray(NULL, (size_t)argc + 1, sizeof(*fs));
	char		*eq;

	for (int i = 0; i < argc; i++) {
		if ((eq = strchr(argv[i], '=')) == NULL) {
			fprintf(stderr, "csvtool: '%s' is not KEY=VALUE\n", argv[i]);
			exit(EXIT_TROUBLE);
		}
		*eq = '\0';
		fs[i].key = argv[i];
		fs[i].value = eq + 1;
		fs[i].col = (size_t)column_need(t, argv[i]);
	}
	return fs;
}

static bool
row_matches(const struct row *r, const struct filter *fs, int nfs)
{
	const struct field	*f;

	for (int i = 0; i < nfs; i++) {
		if (fs[i].col >= r->nfields)
			return false;
		f = &r->fields[fs[i].col];
		if (f->len != strlen(fs[i].value) || memcmp(f->s, fs[i].value, f->len) != 0)
			return false;
	}
	return true;
}

static int
cmd_check(const struct table *t, int argc, char **argv)
{
	size_t	 want = t->rows[0].nfields;

	(void)argc;
	(void)argv;
	printf("rows=%zu fields=%zu\n", t->nrows, want);
	for (size_t i = 1; i < t->nrows; i++) {
		if (t->rows[i].nfields != want) {
			fprintf(stderr, "csvtool: row %zu has %zu fields, row 1 has %zu\n",
			    i + 1, t->rows[i].nfields, want);
			return EXIT_MISMATCH;
		}
	}
	return 0;
}

static int
cmd_get(const struct table *t, int argc, char **argv)
{
	size_t			 col = (size_t)column_need(t, argv[0]);
	struct filter		*fs = filters_parse(t, argc - 1, argv + 1);
	const struct row	*r;

	for (size_t i = 1; i < t->nrows; i++) {
		r = &t->rows[i];
		if (col < r->nfields && row_matches(r, fs, argc - 1)) {
			fwrite(r->fields[col].s, 1, r->fields[col].len, stdout);
			putchar('\n');
			free(fs);
			return 0;
		}
	}
	fprintf(stderr, "csvtool: no row matches\n");
	free(fs);
	return EXIT_MISMATCH;
}

static int
cmd_count(const struct table *t, int argc, char **argv)
{
	struct filter	*fs = filters_parse(t, argc, argv);
	size_t		 n = 0;

	for (size_t i = 1; i < t->nrows; i++) {
		if (row_matches(&t->rows[i], fs, argc))
			n++;
	}
	printf("%zu\n", n);
	free(fs);
	return 0;
}

/* Print one field, then c. */
static void
put_field(const struct row *r, size_t col, int c)
{
	if (col < r->nfields)
		fwrite(r->fields[col].s, 1, r->fields[col].len, stdout);
	putchar(c);
}

static int
cmd_filled(const struct table *t, int argc, char **argv)
{
	size_t			 key = (size_t)column_need(t, argv[0]);
	const struct row	*r, *h = &t->rows[0];

	(void)argc;
	for (size_t i = 1; i < t->nrows; i++) {
		r = &t->rows[i];
		for (size_t j = 0; j < r->nfields && j < h->nfields; j++) {
			if (j == key || r->fields[j].len == 0)
				continue;
			put_field(r, key, '\t');
			put_field(h, j, '\n');
		}
	}
	return 0;
}

static int
cmd_values(const struct table *t, int argc, char **argv)
{
	size_t	*cols = xreallocarray(NULL, (size_t)argc, sizeof(*cols));

	for (int k = 0; k < argc; k++)
		cols[k] = (size_t)column_need(t, argv[k]);
	for (size_t i = 1; i < t->nrows; i++) {
		for (int k = 0; k < argc; k++)
			put_field(&t->rows[i], cols[k], k + 1 < argc ? '\t' : '\n');
	}
	free(cols);
	return 0;
}

static const struct cmd cmds[] = {
	{ "check", 0, 0, cmd_check },
	{ "count", 0, -1, cmd_count },
	{ "filled", 1, 1, cmd_filled },
	{ "get", 1, -1, cmd_get },
	{ "values", 1, -1, cmd_values },
};

static const struct cmd *
cmd_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	}
	return NULL;
}

/* SEP is one byte; "\t" spelled out is accepted for a tab. */
static unsigned char
sep_parse(const char *s)
{
	if (strcmp(s, "\\t") == 0)
		return '\t';
	if (strlen(s) != 1 || *s == '"' || *s == '\n' || *s == '\r') {
		fprintf(stderr, "csvtool: invalid separator '%s'\n", s);
		exit(EXIT_TROUBLE);
	}
	return (unsigned char)*s;
}

int
main(int argc, char *argv[])
{
	const struct cmd	*cmd;
	struct table		 t = { 0 };
	unsigned char		 sep = ',';
	int			 ch, nargs, rc;

	while ((ch = getopt(argc, argv, "+s:")) != -1) {
		switch (ch) {
		case 's':
			sep = sep_parse(optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2 || (cmd = cmd_find(argv[0])) == NULL)
		usage();
	nargs = argc - 2;
	if (nargs < cmd->min_args || (cmd->max_args >= 0 && nargs > cmd->max_args))
		usage();
	table_load(&t, argv[1], sep);
	rc = cmd->fn(&t, nargs, argv + 2);
	table_free(&t);
	if (fflush(stdout) != 0)
		return EXIT_TROUBLE;
	return rc;
}
