/*
 * The phase-mark protocol, one line at a time: "phase NAME", "begin NAME",
 * "end NAME" or "end".  Words are separated by one or more spaces or tabs.
 * A name is 1 to MARK_NAME_MAX bytes of printable text (UTF-8 allowed)
 * without a comma, a colon, a double quote or a backslash, so that it
 * reads the same in a gate ("phase:NAME:500"), a CSV cell and a JSON key.
 */
#include "joulestat/markline.h"

#include <string.h>

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

bool
markline_is_name(const char *name, size_t len)
{
	size_t		i;
	unsigned char	c;

	if (len == 0 || len > MARK_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		c = (unsigned char)name[i];
		if (c < 0x20 || c == 0x7f || strchr(",:\"\\", c) != NULL)
			return false;
	}
	return !is_blank(name[0]) && !is_blank(name[len - 1]);
}

int
markline_parse(const char *line, size_t len, struct mark *m, const char **why)
{
	static const struct {
		const char	*word;
		enum mark_kind	 kind;
	} words[] = {
		{ "phase", MARK_PHASE },
		{ "begin", MARK_BEGIN },
		{ "end", MARK_END },
	};
	size_t	i, w, start;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (memchr(line, '\0', len) != NULL) {
		*why = "a NUL byte";
		return -1;
	}
	for (start = 0; start < len && is_blank(line[start]); start++)
		;
	for (w = start; w < len && !is_blank(line[w]); w++)
		;
	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (w - start == strlen(words[i].word) &&
		    memcmp(line + start, words[i].word, w - start) == 0)
			break;
	}
	if (i == sizeof words / sizeof words[0]) {
		*why = "not phase, begin or end";
		return -1;
	}
	m->kind = words[i].kind;
	while (w < len && is_blank(line[w]))
		w++;
	while (len > w && is_blank(line[len - 1]))
		len--;
	if (w == len) {
		if (m->kind != MARK_END) {
			*why = "no phase name";
			return -1;
		}
		m->name[0] = '\0';
		return 0;
	}
	if (!markline_is_name(line + w, len - w)) {
		*why = len - w > MARK_NAME_MAX ? "a phase name over 63 bytes" :
		    "a phase name with a control character, comma, colon, quote or backslash";
		return -1;
	}
	memcpy(m->name, line + w, len - w);
	m->name[len - w] = '\0';
	return 0;
}
