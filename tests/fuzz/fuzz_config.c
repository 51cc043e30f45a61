/*
 * libFuzzer target: config_parse, and through it every option value it
 * checks (interval, --pid lists, --devices lists, --idle-power lists,
 * --attrib-weights, --repeat, --warmup, --cooldown, --idle-baseline,
 * --descendants, paths and the field separator).  Each line of the input
 * is one argument after "joulestat", so a corpus file reads like a
 * command line; at most FUZZ_ARGS of them are taken, and the file's final
 * newline adds no empty argument.  config_parse must
 * neither print nor exit: it returns 0 or -1 with a cause, and on success
 * its values are within their documented ranges.
 */
#include "joulestat/config.h"
#include "joulestat/util.h"

#include "fuzz.h"

#define FUZZ_ARGS	64

static void
fuzz_check_config(const struct config *cfg)
{
	size_t	i;

	if (cfg->action == ACTION_HELP) {
		FUZZ_CHECK(cfg->text != NULL);
		return;
	}
	FUZZ_CHECK(cfg->interval_ms >= CONFIG_INTERVAL_MIN_MS &&
	    cfg->interval_ms <= CONFIG_INTERVAL_MAX_MS);
	FUZZ_CHECK(cfg->repeat >= 1 && cfg->repeat <= CONFIG_MAX_REPEAT);
	FUZZ_CHECK(cfg->warmup <= CONFIG_MAX_REPEAT);
	FUZZ_CHECK(cfg->nidle <= CONFIG_MAX_IDLE);
	for (i = 0; i < cfg->nidle; i++) {
		FUZZ_CHECK(cfg->idle[i].watts >= 0);
		FUZZ_CHECK(cfg->idle[i].device == IDLE_ALL_DEVICES ||
		    (cfg->idle[i].device >= 0 && cfg->idle[i].device < CONFIG_MAX_IDLE));
	}
	for (i = 0; i < cfg->npids; i++)
		FUZZ_CHECK(cfg->pids[i] > 0);
	FUZZ_CHECK(cfg->w_sm >= 0 && cfg->w_mem >= 0);
	if (cfg->action == ACTION_RUN)
		FUZZ_CHECK(cfg->argc > 0 || cfg->npids > 0);
	for (i = 0; i < (size_t)cfg->argc; i++)
		FUZZ_CHECK(cfg->argv[i] != NULL);
	FUZZ_CHECK(cfg->argv != NULL && cfg->argv[cfg->argc] == NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config	 cfg;
	struct errbuf	 err = { { 0 } };
	const char	*argv[FUZZ_ARGS + 2];
	char		*text = fuzz_text(data, size), *line, *rest = text;
	int		 argc = 0;

	/* A file's final newline ends its last line; it adds no empty argument. */
	if (size > 0 && text[size - 1] == '\n')
		text[size - 1] = '\0';
	argv[argc++] = PROGNAME;
	while (argc <= FUZZ_ARGS && (line = strsep(&rest, "\n")) != NULL)
		argv[argc++] = line;
	argv[argc] = NULL;
	if (config_parse(&cfg, argc, argv, &err) == 0)
		fuzz_check_config(&cfg);
	else
		FUZZ_CHECK(err.msg[0] != '\0');
	config_free(&cfg);
	free(text);
	return 0;
}
