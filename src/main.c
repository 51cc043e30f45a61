/*
 * joulestat: the command table.  "joulestat merge ..." and "joulestat
 * mark ..." name their command; everything else is options, and what they
 * ask for (measure a command, list the devices, print help) picks the
 * command.  Each command returns
 * the exit status (HACKING.md, "Exit status").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/commands.h"
#include "joulestat/config.h"
#include "joulestat/exitcode.h"
#include "joulestat/help.h"
#include "joulestat/util.h"

/* Commands named by a word: joulestat WORD [ARG...]. */
static const struct word_command {
	const char	*word;
	int		(*main)(int argc, char **argv);
} word_commands[] = {
	{ "merge",	merge_main },
	{ "mark",	mark_main },
	{ "report",	report_main },
};

static int
cmd_help(const struct config *cfg)
{
	fputs(cfg->text, stdout);
	return 0;
}

/* What the options asked for: joulestat [options] [--] COMMAND [ARG...]. */
static int (*const option_commands[])(const struct config *) = {
	[ACTION_RUN] = cmd_run,
	[ACTION_HELP] = cmd_help,
	[ACTION_LIST_DEVICES] = cmd_list_devices,
};


/*
 * Started with stdin, stdout or stderr closed, the files joulestat opens
 * would take those numbers and the workload would write into them: hold
 * them with /dev/null first.
 */
static unsigned
hold_std_fds(void)
{
	unsigned	closed = 0;
	int		fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
			closed |= 1u << fd;
			if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) == -1)
				break;
		}
	}
	return closed;
}

int
main(int argc, char **argv)
{
	struct config	cfg;
	struct errbuf	err = { "" };
	size_t		i;
	unsigned	closed;
	int		status;

	closed = hold_std_fds();
	/* A workload called merge, mark or report runs as "joulestat -- merge". */
	for (i = 0; argc > 1 && i < ARRAY_SIZE(word_commands); i++) {
		if (strcmp(argv[1], word_commands[i].word) == 0)
			return word_commands[i].main(argc - 1, argv + 1);
	}
	if (config_parse(&cfg, argc, (const char **)argv, &err) != 0) {
		config_free(&cfg);
		return help_usage_error(NULL, config_usage(), err.msg);
	}
	/* An explicit - on a closed stdout is an error, not a silent loss. */
	cfg.out.is_stdout_closed = (closed & (1u << STDOUT_FILENO)) != 0;
	cfg.closed_std = closed;
	status = option_commands[cfg.action](&cfg);
	config_free(&cfg);
	return status;
}
