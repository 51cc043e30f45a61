/*
 * Help text from a popt option table, in groups.  A table entry of kind
 * POPT_ARG_INCLUDE_TABLE whose description is set starts a group (its
 * description is the heading); the options follow it.  An option's
 * description is a one-line summary, optionally followed by a newline and
 * the details: -h prints summaries only, --help the whole text.  Lines are
 * wrapped at 79 columns with the descriptions in one column, as in
 * perf-stat(1) and hyperfine's help.
 */
#include "joulestat/help.h"

#include <popt.h>
#include <stdio.h>
#include <string.h>

#include "joulestat/exitcode.h"
#include "joulestat/util.h"

enum {
	HELP_WIDTH = 79,	/* the last column a line may use */
	HELP_DESC_COL = 32,	/* where descriptions start */
};

/* "  -i, --interval=MS" or "      --json=FILE" or "  -h": the option as typed. */
static int
print_form(FILE *f, const struct poptOption *o)
{
	int	n;

	if (o->shortName != '\0' && o->longName != NULL)
		n = fprintf(f, "  -%c, --%s", o->shortName, o->longName);
	else if (o->shortName != '\0')
		n = fprintf(f, "  -%c", o->shortName);
	else
		n = fprintf(f, "      --%s", o->longName);
	if (o->argDescrip != NULL)
		n += fprintf(f, o->longName != NULL ? "=%s" : " %s", o->argDescrip);
	return n;
}

/*
 * Write the LEN bytes of TEXT word by word from column COL, wrapping to
 * column INDENT; a newline in the text is a space here.
 */
static void
print_wrapped(FILE *f, const char *text, size_t len, int col, int indent)
{
	const char	*p = text, *end = text + len;
	size_t		 w;

	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		for (w = 0; p + w < end && p[w] != ' ' && p[w] != '\n'; w++)
			;
		if (w == 0)
			break;
		if (col > indent && col + 1 + (int)w > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += (int)w;
		p += w;
	}
	fputc('\n', f);
}

/* The summary of a description: its first line, without a closing ';' or ','. */
static size_t
summary_len(const char *descrip)
{
	size_t	n = strcspn(descrip, "\n");

	while (n > 0 && strchr(";,: ", descrip[n - 1]) != NULL)
		n--;
	return n;
}

static void
print_option(FILE *f, const struct poptOption *o, bool is_full)
{
	int	col = print_form(f, o);

	if (col + 2 > HELP_DESC_COL) {
		fprintf(f, "\n%*s", HELP_DESC_COL, "");
	} else {
		fprintf(f, "%*s", HELP_DESC_COL - col, "");
	}
	print_wrapped(f, o->descrip,
	    is_full ? strlen(o->descrip) : summary_len(o->descrip), HELP_DESC_COL, HELP_DESC_COL);
}

void
help_print_options(FILE *f, const struct poptOption *table, bool is_full)
{
	const struct poptOption	*o;

	for (o = table; o->longName != NULL || o->shortName != '\0' || o->arg != NULL; o++) {
		if ((o->argInfo & POPT_ARG_MASK) == POPT_ARG_INCLUDE_TABLE) {
			if (o->descrip != NULL)
				fprintf(f, "\n%s:\n", o->descrip);
			continue;
		}
		if (o->descrip != NULL)
			print_option(f, o, is_full);
	}
}

void
help_print_text(FILE *f, const char *text)
{
	const char	*line = text;
	size_t		 n;

	/* A line that starts with a space is an example: printed as it is. */
	while (*line != '\0') {
		n = strcspn(line, "\n");
		if (line[0] == ' ' || n == 0) {
			fwrite(line, 1, n, f);
			fputc('\n', f);
		} else {
			print_wrapped(f, line, n, 0, 0);
		}
		line += n + (line[n] == '\n');
	}
}

const char *
help_popt_error(poptContext ctx, int rc, char *buf, size_t size)
{
	snprintf(buf, size, "%s: %s", VIS(poptBadOption(ctx, POPT_BADOPTION_NOALIAS)),
	    poptStrerror(rc));
	return buf;
}

int
help_usage_error(const char *word, const char *usage, const char *msg)
{
	if (word != NULL)
		warnmsg("%s: %s", word, msg);
	else
		warnmsg("%s", msg);
	fprintf(stderr, "%s\n", usage);
	return EXIT_TOOL;
}
