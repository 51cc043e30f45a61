/*
 * CSV in, through libcsv (never hand-roll quoting).  libcsv
 * calls back once per field and once per row end; the callbacks build the
 * rows.  csvin_parse keeps every row (memory is the text's size a few
 * times over, for --baseline); the streams keep only the header and the
 * row at hand (joulestat merge, whose ranks may have run long series).
 */
#include "joulestat/csvin.h"

#include <csv.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/util.h"

struct builder {
	struct csvin	*t;
	struct csvin_row cur;
	size_t		 cap;
	size_t		 line;		/* lines seen so far, for messages */
	size_t		 start;		/* line where the current row began */
	bool		 is_between;	/* the last row has ended; the next has not begun */
	bool		 is_mid_line;	/* the text fed so far ends inside a line */
	int		(*fn)(const struct csvin *, void *); /* streaming: per row, then freed */
	void		*arg;
	bool		 is_stopped;	/* fn returned nonzero */
};

static void
row_free(struct csvin_row *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->f[i]);
	free(r->f);
	memset(r, 0, sizeof *r);
}

static void
on_field(void *s, size_t len, void *data)
{
	struct builder	*b = data;
	char		*f = xmalloc(len + 1);

	if (len > 0)
		memcpy(f, s, len);
	f[len] = '\0';
	if (b->cur.n == b->cap) {
		b->cap = b->cap == 0 ? 16 : b->cap * 2;
		b->cur.f = xreallocarray(b->cur.f, b->cap, sizeof *b->cur.f);
	}
	if (b->cur.n == 0)
		b->cur.line = b->start;
	b->cur.f[b->cur.n++] = f;
}

static void
on_row(int c, void *data)
{
	struct builder	*b = data;
	struct csvin	*t = b->t;

	(void)c;
	if (b->cur.n == 0)
		b->cur.line = b->start;
	b->cap = 0;
	b->is_between = true;
	if (b->fn != NULL) {
		/* Streaming: rows[0] is the header, rows[1] the row at hand. */
		if (t->nrows == 0) {
			t->rows = xcalloc(2, sizeof *t->rows);
			t->cap = 2;
		}
		t->rows[t->nrows == 0 ? 0 : 1] = b->cur;
		memset(&b->cur, 0, sizeof b->cur);
		if (t->nrows < 2)
			t->nrows++;
		if (!b->is_stopped && b->fn(t, b->arg) != 0)
			b->is_stopped = true;
		if (t->nrows == 2)
			row_free(&t->rows[1]);
		return;
	}
	if (t->nrows == t->cap) {
		t->cap = t->cap == 0 ? 64 : t->cap * 2;
		t->rows = xreallocarray(t->rows, t->cap, sizeof *t->rows);
	}
	t->rows[t->nrows++] = b->cur;
	memset(&b->cur, 0, sizeof b->cur);
}

/* A line of nothing but white space, which libcsv skips between rows. */
static bool
is_blank(const char *line, size_t n)
{
	return n > 0 && line[n - 1] == '\n' && strspn(line, " \t\r") == n - 1;
}

/*
 * Feed text to the parser a line at a time, so that row starts have line
 * numbers.  The text may end inside a line: the next call goes on with it.
 */
static int
feed(struct csv_parser *p, struct builder *b, const char *text, size_t len)
{
	const char	*nl;
	size_t		 off = 0, n;

	while (off < len && !b->is_stopped) {
		nl = memchr(text + off, '\n', len - off);
		n = nl != NULL ? (size_t)(nl - (text + off)) + 1 : len - off;
		if (!b->is_mid_line) {
			b->line++;
			if (b->is_between) {
				b->start = b->line;
				/* libcsv skips blank lines between rows; a row begins after them. */
				b->is_between = is_blank(text + off, n);
			}
		}
		b->is_mid_line = nl == NULL;
		if (csv_parse(p, text + off, n, on_field, on_row, b) != n)
			return -1;
		off += n;
	}
	return 0;
}

static int
finish(struct csv_parser *p, struct builder *b, int rc, struct errbuf *err)
{
	if (rc == 0 && !b->is_stopped)
		rc = csv_fini(p, on_field, on_row, b);
	if (b->is_stopped)
		rc = -1;		/* the callback said why */
	else if (rc != 0)
		errbuf_set(err, "line %zu: %s", b->line, csv_strerror(csv_error(p)));
	else if (b->t->nrows == 0) {
		errbuf_set(err, "empty file, not a joulestat CSV");
		rc = -1;
	}
	row_free(&b->cur);
	csv_free(p);
	return rc == 0 ? 0 : -1;
}

int
csvin_parse(struct csvin *t, const char *text, size_t len, struct errbuf *err)
{
	struct csv_parser	p;
	struct builder		b = { .t = t, .is_between = true };
	int			rc;

	memset(t, 0, sizeof *t);
	if (csv_init(&p, CSV_STRICT | CSV_APPEND_NULL | CSV_STRICT_FINI) != 0) {
		errbuf_set(err, "out of memory");
		return -1;
	}
	rc = feed(&p, &b, text, len);
	return finish(&p, &b, rc, err);
}

/* Stream text, or the file at fd when text is NULL, through fn. */
static int
stream(const char *text, size_t len, int fd, int (*fn)(const struct csvin *, void *), void *arg,
    struct errbuf *err)
{
	struct csvin		t = { NULL, 0, 0 };
	struct csv_parser	p;
	struct builder		b = { .t = &t, .is_between = true, .fn = fn, .arg = arg };
	char			buf[65536];
	size_t			total = 0;
	ssize_t			n;
	int			rc = 0;

	if (csv_init(&p, CSV_STRICT | CSV_APPEND_NULL | CSV_STRICT_FINI) != 0) {
		errbuf_set(err, "out of memory");
		return -1;
	}
	if (text != NULL)
		rc = feed(&p, &b, text, len);
	while (text == NULL && rc == 0 && !b.is_stopped) {
		if ((n = read(fd, buf, sizeof buf)) == -1 && errno == EINTR)
			continue;
		if (n == -1 || (total += (size_t)(n > 0 ? n : 0)) > CSVIN_MAX_BYTES) {
			errbuf_set(err, "%s", n == -1 ? strerror(errno) : "larger than 256 MiB");
			b.is_stopped = true;
		} else if (n == 0)
			break;
		else
			rc = feed(&p, &b, buf, (size_t)n);
	}
	rc = finish(&p, &b, rc, err);
	csvin_free(&t);
	return rc;
}

int
csvin_stream_text(const char *text, size_t len, int (*fn)(const struct csvin *, void *),
    void *arg, struct errbuf *err)
{
	return stream(text, len, -1, fn, arg, err);
}

int
csvin_stream_file(const char *path, int (*fn)(const struct csvin *, void *), void *arg,
    struct errbuf *err)
{
	int	fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		errbuf_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = stream(NULL, 0, fd, fn, arg, err);
	close(fd);
	if (rc != 0)
		errbuf_prefix(err, "%s", path);
	return rc;
}

int
csvin_load(struct csvin *t, const char *path, struct errbuf *err)
{
	char	*text = NULL;
	size_t	 len = 0, cap = 0;
	ssize_t	 n;
	int	 fd, rc;

	memset(t, 0, sizeof *t);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		errbuf_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap == 0 ? 65536 : cap * 2;
			text = xreallocarray(text, cap, 1);
		}
		n = read(fd, text + len, cap - len);
		if (n > 0)
			len += (size_t)n;
	} while ((n > 0 || (n == -1 && errno == EINTR)) && len <= CSVIN_MAX_BYTES);
	rc = n == -1 ? errno : 0;
	close(fd);
	if (rc != 0 || len > CSVIN_MAX_BYTES) {
		errbuf_set(err, "%s: %s", path, rc != 0 ? strerror(rc) : "larger than 256 MiB");
		free(text);
		return -1;
	}
	rc = csvin_parse(t, text, len, err);
	free(text);
	if (rc != 0)
		errbuf_prefix(err, "%s", path);
	return rc;
}

void
csvin_free(struct csvin *t)
{
	size_t	i, k;

	for (i = 0; i < t->nrows; i++) {
		for (k = 0; k < t->rows[i].n; k++)
			free(t->rows[i].f[k]);
		free(t->rows[i].f);
	}
	free(t->rows);
	memset(t, 0, sizeof *t);
}

int
csvin_col(const struct csvin *t, const char *name)
{
	size_t	k;

	for (k = 0; t->nrows > 0 && k < t->rows[0].n; k++) {
		if (strcmp(t->rows[0].f[k], name) == 0)
			return (int)k;
	}
	return -1;
}

const char *
csvin_get(const struct csvin *t, size_t row, int col)
{
	if (col < 0 || row >= t->nrows || (size_t)col >= t->rows[row].n)
		return "";
	return t->rows[row].f[col];
}
