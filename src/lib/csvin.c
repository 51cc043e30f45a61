/*
 * CSV in, through libcsv (never hand-roll quoting).  libcsv
 * calls back once per field and once per row end; the callbacks build the
 * rows.  Used on files of joulestat's own making, so memory is simply the
 * file's size a few times over, capped by CSVIN_MAX_BYTES.
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
};

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
	if (t->nrows == t->cap) {
		t->cap = t->cap == 0 ? 64 : t->cap * 2;
		t->rows = xreallocarray(t->rows, t->cap, sizeof *t->rows);
	}
	if (b->cur.n == 0)
		b->cur.line = b->start;
	t->rows[t->nrows++] = b->cur;
	memset(&b->cur, 0, sizeof b->cur);
	b->cap = 0;
	b->is_between = true;
}

/* A line of nothing but white space, which libcsv skips between rows. */
static bool
is_blank(const char *line, size_t n)
{
	return n > 0 && line[n - 1] == '\n' && strspn(line, " \t\r") == n - 1;
}

/* Feed text to the parser a line at a time, so that row starts have line numbers. */
static int
feed(struct csv_parser *p, struct builder *b, const char *text, size_t len)
{
	const char	*nl;
	size_t		 off = 0, n;

	while (off < len) {
		nl = memchr(text + off, '\n', len - off);
		n = nl != NULL ? (size_t)(nl - (text + off)) + 1 : len - off;
		b->line++;
		if (b->is_between) {
			b->start = b->line;
			/* libcsv skips blank lines between rows; a row begins after them. */
			b->is_between = is_blank(text + off, n);
		}
		if (csv_parse(p, text + off, n, on_field, on_row, b) != n)
			return -1;
		off += n;
	}
	return csv_fini(p, on_field, on_row, b);
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
	if (rc != 0)
		errbuf_set(err, "line %zu: %s", b.line, csv_strerror(csv_error(&p)));
	else if (t->nrows == 0) {
		errbuf_set(err, "empty file, not a joulestat CSV");
		rc = -1;
	}
	for (size_t i = 0; i < b.cur.n; i++)
		free(b.cur.f[i]);
	free(b.cur.f);
	csv_free(&p);
	return rc == 0 ? 0 : -1;
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
