/*
 * jsontool: reads joulestat's JSON output with a real JSON parser
 * (jansson) so that the command-line tests never pick JSON apart with
 * grep or awk, which would pass on broken escaping.  It checks that a file
 * is valid JSON, without duplicate keys, and looks values up by path.  It
 * does no arithmetic on the values.
 *
 *	jsontool check FILE        valid JSON?  On error: FILE:LINE:COLUMN: TEXT
 *	jsontool get FILE PATH     the value at PATH
 *	jsontool type FILE PATH    object, array, string, integer, real, true,
 *	                           false or null
 *	jsontool len FILE PATH     the number of members of an array or object
 *	jsontool keys FILE         every distinct key path, array indices as []
 *
 * PATH is "." for the whole document, or steps of ".key" and "[N]", as in
 * ".runs[0].devices[1].energy_j".  get prints a string raw, an integer in
 * decimal, a real in the C locale with the fewest digits (up to 17) that
 * read back as the same double, true, false or null, and an array or
 * object as compact JSON; each followed by a newline.  FILE "-" is stdin.
 * Exit status: 0 success; 1 invalid JSON (check), or no such path, or not
 * an array or object (len); 2 usage, I/O or parse error.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define EXIT_MISMATCH	1
#define EXIT_TROUBLE	2

/* Key paths seen by keys, in the order first seen. */
struct paths {
	char	**v;
	size_t	  n;
};

struct cmd {
	const char	*name;
	bool		 has_path;
	int		(*fn)(json_t *, const char *);
};

static int
usage(void)
{
	fprintf(stderr, "usage: jsontool check FILE\n"
	    "       jsontool get FILE PATH\n"
	    "       jsontool type FILE PATH\n"
	    "       jsontool len FILE PATH\n"
	    "       jsontool keys FILE\n");
	return EXIT_TROUBLE;
}

/*
 * Parse path strictly: duplicate keys are an error, and so is anything
 * after the value.  Returns the document, or NULL with *rc set: 1 for
 * JSON that does not parse, 2 when the file cannot be read.
 */
static json_t *
load(const char *path, int *rc)
{
	const size_t	 flags = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY;
	json_error_t	 e;
	json_t		*root;
	const char	*name = strcmp(path, "-") == 0 ? "<stdin>" : path;

	if (strcmp(path, "-") == 0)
		root = json_loadf(stdin, flags, &e);
	else
		root = json_load_file(path, flags, &e);
	if (root != NULL)
		return root;
	if (json_error_code(&e) == json_error_cannot_open_file) {
		fprintf(stderr, "jsontool: %s: %s\n", name, e.text);
		*rc = EXIT_TROUBLE;
	} else {
		fprintf(stderr, "jsontool: %s:%d:%d: %s\n", name, e.line, e.column, e.text);
		*rc = EXIT_MISMATCH;
	}
	return NULL;
}

/* One step of a path at *p: ".key" or "[N]".  -1 when the path is malformed. */
static int
step(json_t **v, const char **p)
{
	char		 key[256];
	char		*end;
	size_t		 n;
	unsigned long	 i;

	if (**p == '.') {
		n = strcspn(*p + 1, ".[");
		if (n == 0 || n >= sizeof key)
			return -1;
		memcpy(key, *p + 1, n);
		key[n] = '\0';
		*v = json_object_get(*v, key);
		*p += 1 + n;
		return 0;
	}
	if (**p != '[' || !isdigit((unsigned char)(*p)[1]))
		return -1;
	errno = 0;
	i = strtoul(*p + 1, &end, 10);
	if (errno != 0 || *end != ']')
		return -1;
	*v = json_array_get(*v, i);
	*p = end + 1;
	return 0;
}

/* Find the value at path in *v: 0, EXIT_MISMATCH (none) or EXIT_TROUBLE (bad path). */
static int
lookup(json_t *root, const char *path, json_t **v)
{
	const char	*p = path;

	*v = root;
	if (strcmp(path, ".") == 0)
		return 0;
	if (*p == '\0') {
		fprintf(stderr, "jsontool: malformed path ''\n");
		return EXIT_TROUBLE;
	}
	while (*p != '\0' && *v != NULL) {
		if (step(v, &p) != 0) {
			fprintf(stderr, "jsontool: malformed path '%s'\n", path);
			return EXIT_TROUBLE;
		}
	}
	if (*v == NULL) {
		fprintf(stderr, "jsontool: no value at '%s'\n", path);
		return EXIT_MISMATCH;
	}
	return 0;
}

/*
 * The shortest %g form of 15 to 17 digits that reads back as d: 15 digits
 * (DBL_DIG) keep plain values plain (0.1, 300) without an exponent.
 */
static void
print_real(double d)
{
	char	buf[64];
	int	prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	printf("%s\n", buf);
}

static void
print_value(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		fwrite(json_string_value(v), 1, json_string_length(v), stdout);
		putchar('\n');
		break;
	case JSON_INTEGER:
		printf("%" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
		break;
	case JSON_REAL:
		print_real(json_real_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
	case JSON_NULL:
	case JSON_OBJECT:
	case JSON_ARRAY:
		json_dumpf(v, stdout, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
		putchar('\n');
		break;
	}
}

static int
cmd_check(json_t *root, const char *path)
{
	(void)root;
	(void)path;
	return 0;
}

static int
cmd_get(json_t *root, const char *path)
{
	json_t	*v;
	int	 rc;

	if ((rc = lookup(root, path, &v)) != 0)
		return rc;
	print_value(v);
	return 0;
}

static int
cmd_type(json_t *root, const char *path)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "object", [JSON_ARRAY] = "array", [JSON_STRING] = "string",
		[JSON_INTEGER] = "integer", [JSON_REAL] = "real", [JSON_TRUE] = "true",
		[JSON_FALSE] = "false", [JSON_NULL] = "null",
	};
	json_t	*v;
	int	 rc;

	if ((rc = lookup(root, path, &v)) != 0)
		return rc;
	printf("%s\n", names[json_typeof(v)]);
	return 0;
}

static int
cmd_len(json_t *root, const char *path)
{
	json_t	*v;
	int	 rc;

	if ((rc = lookup(root, path, &v)) != 0)
		return rc;
	if (json_is_array(v))
		printf("%zu\n", json_array_size(v));
	else if (json_is_object(v))
		printf("%zu\n", json_object_size(v));
	else {
		fprintf(stderr, "jsontool: '%s' is neither an array nor an object\n", path);
		return EXIT_MISMATCH;
	}
	return 0;
}

/* Add path to ps unless it is there already.  -1 when out of memory. */
static int
paths_add(struct paths *ps, const char *path)
{
	char	**v;
	size_t	  i;

	for (i = 0; i < ps->n; i++) {
		if (strcmp(ps->v[i], path) == 0)
			return 0;
	}
	if ((v = realloc(ps->v, (ps->n + 1) * sizeof *v)) == NULL)
		return -1;
	ps->v = v;
	if ((ps->v[ps->n] = strdup(path)) == NULL)
		return -1;
	ps->n++;
	return 0;
}

/* Collect the key paths under v, whose own path is prefix. */
static int
paths_walk(struct paths *ps, json_t *v, const char *prefix)
{
	const char	*key;
	json_t		*m;
	size_t		 i;
	char		*sub;
	int		 rc = 0;

	json_object_foreach(v, key, m) {
		if (asprintf(&sub, "%s.%s", prefix, key) < 0)
			return -1;
		rc |= paths_add(ps, sub);
		rc |= paths_walk(ps, m, sub);
		free(sub);
	}
	json_array_foreach(v, i, m) {
		if (asprintf(&sub, "%s[]", prefix) < 0)
			return -1;
		rc |= paths_walk(ps, m, sub);
		free(sub);
	}
	return rc;
}

static int
cmd_keys(json_t *root, const char *path)
{
	struct paths	ps = { NULL, 0 };
	size_t		i;
	int		rc;

	(void)path;
	rc = paths_walk(&ps, root, "");
	for (i = 0; i < ps.n; i++) {
		printf("%s\n", ps.v[i]);
		free(ps.v[i]);
	}
	free(ps.v);
	if (rc != 0) {
		fprintf(stderr, "jsontool: out of memory\n");
		return EXIT_TROUBLE;
	}
	return 0;
}

static const struct cmd cmds[] = {
	{ "check", false, cmd_check },
	{ "get", true, cmd_get },
	{ "keys", false, cmd_keys },
	{ "len", true, cmd_len },
	{ "type", true, cmd_type },
};

static const struct cmd *
cmd_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	}
	return NULL;
}

int
main(int argc, char *argv[])
{
	const struct cmd	*cmd;
	json_t			*root;
	int			 rc = 0;

	if (argc < 3 || (cmd = cmd_find(argv[1])) == NULL || argc != (cmd->has_path ? 4 : 3))
		return usage();
	if ((root = load(argv[2], &rc)) == NULL)
		return cmd->fn == cmd_check ? rc : EXIT_TROUBLE;
	rc = cmd->fn(root, cmd->has_path ? argv[3] : NULL);
	json_decref(root);
	if (fflush(stdout) != 0)
		return EXIT_TROUBLE;
	return rc;
}
