/*
 * Unit tests of the command-line parser in src/cli/config.c (HACKING.md, "Tests"):
 * defaults, the interval's range and strictness, parsing that stops at
 * the first non-option or after "--" so the workload's own options reach
 * it untouched, the separator, -p lists, the conflicts between a command
 * and -p, --descendants, the help and version texts, and the NVML library
 * override from the environment.  Every rejection must come with a
 * one-line cause that names the offending value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/config.h"
#include "joulestat/util.h"

#define MAX_ARGS	32

static const char ENV_NVML[] = "JOULESTAT_NVML_LIB";

/* Every long option the parser knows, as --help must show it. */
static const char *const LONG_OPTIONS[] = {
	"--csv", "--descendants", "--devices", "--field-separator", "--help", "--interval",
	"--list-devices", "--nvml-lib", "--output", "--pid", "--quiet", "--usage",
	"--version",
};

struct fixture {
	struct config	cfg;
	struct errbuf	err;
	int		rc;
};

static int
group_setup(void **state)
{
	(void)state;
	/* The developer's own override must not leak into the defaults. */
	return unsetenv(ENV_NVML);
}

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

	config_free(&fx->cfg);
	free(fx);
	unsetenv(ENV_NVML);
	return 0;
}

/* Parse "joulestat" followed by the NULL-terminated arguments. */
static int
parse(struct fixture *fx, ...)
{
	const char	*argv[MAX_ARGS + 2];
	const char	*a;
	va_list		 ap;
	int		 argc = 0;

	argv[argc++] = "joulestat";
	va_start(ap, fx);
	while ((a = va_arg(ap, const char *)) != NULL && argc <= MAX_ARGS)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	config_free(&fx->cfg);
	memset(&fx->err, 0, sizeof fx->err);
	fx->rc = config_parse(&fx->cfg, argc, argv, &fx->err);
	return fx->rc;
}

/* The parse failed with a cause that contains want. */
static void
assert_rejected(const struct fixture *fx, const char *want)
{
	if (fx->rc != -1 || strstr(fx->err.msg, want) == NULL)
		print_error("rc %d, cause \"%s\", want it to contain \"%s\"\n", fx->rc,
		    fx->err.msg, want);
	assert_int_equal(fx->rc, -1);
	assert_non_null(strstr(fx->err.msg, want));
}

static void
assert_workload(const struct config *cfg, int argc, const char *const *want)
{
	int	i;

	assert_int_equal(cfg->argc, argc);
	assert_non_null(cfg->argv);
	for (i = 0; i < argc; i++)
		assert_string_equal(cfg->argv[i], want[i]);
	assert_null(cfg->argv[argc]);
}

static void
test_defaults(void **state)
{
	static const char *const want[] = { "ls" };
	struct fixture	*fx = *state;

	assert_int_equal(parse(fx, "ls", NULL), 0);
	assert_int_equal(fx->cfg.action, ACTION_RUN);
	assert_int_equal(fx->cfg.interval_ms, CONFIG_INTERVAL_DEFAULT_MS);
	assert_int_equal(fx->cfg.interval_ms, 100);
	assert_null(fx->cfg.out.output);
	assert_null(fx->cfg.out.field_sep);
	assert_null(fx->cfg.out.csv_path);
	assert_false(fx->cfg.out.is_quiet);
	assert_int_equal(fx->cfg.descendants, DESCENDANTS_LEAVE);
	assert_int_equal(fx->cfg.npids, 0);
	assert_null(fx->cfg.sources.nvml_lib);
	assert_int_equal(fx->cfg.devsel.n, 0);
	assert_ptr_equal(fx->cfg.sources.sel, &fx->cfg.devsel);
	assert_string_equal(fx->cfg.sources.sysfs_root, "/sys");
	assert_string_equal(fx->cfg.sources.proc_root, "/proc");
	assert_null(fx->cfg.text);
	assert_workload(&fx->cfg, 1, want);
}

static void
test_interval_ok(void **state)
{
	struct fixture	*fx = *state;

	assert_int_equal(parse(fx, "-i", "1", "ls", NULL), 0);
	assert_int_equal(fx->cfg.interval_ms, 1);
	assert_int_equal(parse(fx, "-i", "60000", "ls", NULL), 0);
	assert_int_equal(fx->cfg.interval_ms, 60000);
	assert_int_equal(parse(fx, "--interval=250", "ls", NULL), 0);
	assert_int_equal(fx->cfg.interval_ms, 250);
	assert_int_equal(parse(fx, "--interval", "7", "ls", NULL), 0);
	assert_int_equal(fx->cfg.interval_ms, 7);
}

static void
test_interval_rejected(void **state)
{
	static const char *const bad[] = {
		"0", "60001", "abc", "", "-5", "10x", " 10", "10 ", "+10", "1e3s", "0x10",
		"1.5", "0.5ms", "10 ms", "10mS", "2kJ",
		"18446744073709551617",
	};
	struct fixture	*fx = *state;
	char		 quoted[64];
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		parse(fx, "-i", bad[i], "ls", NULL);
		snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
		assert_rejected(fx, quoted);
		parse(fx, "--interval", bad[i], "ls", NULL);
		assert_rejected(fx, quoted);
	}
	/* A missing value is a usage error too. */
	parse(fx, "-i", NULL);
	assert_int_equal(fx->rc, -1);
	assert_true(fx->err.msg[0] != '\0');
}

static void
test_stops_at_first_non_option(void **state)
{
	static const char *const ls_l[] = { "ls", "-l" };
	static const char *const tricky[] = { "ls", "-i", "5", "--", "-q", "--help", "x" };
	struct fixture	*fx = *state;

	assert_int_equal(parse(fx, "ls", "-l", NULL), 0);
	assert_workload(&fx->cfg, 2, ls_l);
	/* Our own options after the command belong to the command. */
	assert_int_equal(parse(fx, "-q", "ls", "-i", "5", "--", "-q", "--help", "x", NULL), 0);
	assert_int_equal(fx->cfg.action, ACTION_RUN);
	assert_true(fx->cfg.out.is_quiet);
	assert_int_equal(fx->cfg.interval_ms, 100);
	assert_workload(&fx->cfg, 7, tricky);
}

static void
test_double_dash(void **state)
{
	static const char *const dash_x[] = { "-x", "y" };
	static const char *const ls[] = { "ls", "--", "-l" };
	static const char *const dd[] = { "--" };
	struct fixture	*fx = *state;

	assert_int_equal(parse(fx, "-i", "5", "--", "-x", "y", NULL), 0);
	assert_int_equal(fx->cfg.interval_ms, 5);
	assert_null(fx->cfg.out.field_sep);
	assert_workload(&fx->cfg, 2, dash_x);
	assert_int_equal(parse(fx, "--", "ls", "--", "-l", NULL), 0);
	assert_workload(&fx->cfg, 3, ls);
	/* A command named "--", after the "--" that ends our options. */
	assert_int_equal(parse(fx, "--", "--", NULL), 0);
	assert_workload(&fx->cfg, 1, dd);
	/* "--" and nothing after it: no command. */
	parse(fx, "--", NULL);
	assert_rejected(fx, "no command");
}

static void
test_separator(void **state)
{
	struct fixture	*fx = *state;

	assert_int_equal(parse(fx, "-x", ";", "ls", NULL), 0);
	assert_string_equal(fx->cfg.out.field_sep, ";");
	assert_int_equal(parse(fx, "--field-separator=,", "ls", NULL), 0);
	assert_string_equal(fx->cfg.out.field_sep, ",");
	parse(fx, "-x", "", "ls", NULL);
	assert_rejected(fx, "separator");
	parse(fx, "-x", "\"", "ls", NULL);
	assert_rejected(fx, "separator");
	parse(fx, "-x", "\n", "ls", NULL);
	assert_int_equal(fx->rc, -1);
	parse(fx, "-x", "\r", "ls", NULL);
	assert_int_equal(fx->rc, -1);
}

/*
 * Causes are one line, for err(3)-form messages.  A rejected
 * value that holds a newline must not break the message into two lines.
 */
static void
test_cause_is_one_line(void **state)
{
	static const char *const args[][2] = {
		{ "-i", "1\n2" }, { "-x", "\n" }, { "-p", "1\n2" }, { "--descendants", "w\nx" },
	};
	struct fixture	*fx = *state;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(args); i++) {
		parse(fx, args[i][0], args[i][1], "ls", NULL);
		assert_int_equal(fx->rc, -1);
		if (strpbrk(fx->err.msg, "\r\n") != NULL)
			print_error("%s: cause spans lines: \"%s\"\n", args[i][0], fx->err.msg);
		assert_null(strpbrk(fx->err.msg, "\r\n"));
	}
}

static void
test_pids(void **state)
{
	static const char *const bad[][2] = {
		{ "0", "'0'" }, { "abc", "'abc'" }, { "", "''" }, { "1,x", "'x'" },
		{ "2147483648", "'2147483648'" }, { "1,0", "'0'" }, { "+3", "'+3'" },
	};
	struct fixture	*fx = *state;
	size_t		 i;

	assert_int_equal(parse(fx, "-p", "1,2,3", NULL), 0);
	assert_int_equal(fx->cfg.action, ACTION_RUN);
	assert_int_equal(fx->cfg.npids, 3);
	assert_int_equal(fx->cfg.pids[0], 1);
	assert_int_equal(fx->cfg.pids[1], 2);
	assert_int_equal(fx->cfg.pids[2], 3);
	assert_int_equal(fx->cfg.argc, 0);
	assert_int_equal(parse(fx, "--pid=2147483647", NULL), 0);
	assert_int_equal(fx->cfg.npids, 1);
	assert_int_equal(fx->cfg.pids[0], 2147483647);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		parse(fx, "-p", bad[i][0], NULL);
		assert_rejected(fx, bad[i][1]);
	}
}

static void
test_command_and_pid_conflict(void **state)
{
	struct fixture	*fx = *state;

	parse(fx, "-p", "1", "ls", NULL);
	assert_rejected(fx, "not both");
	parse(fx, NULL);
	assert_rejected(fx, "no command");
	parse(fx, "-q", "-i", "50", NULL);
	assert_rejected(fx, "no command");
	/* --list-devices needs no command. */
	assert_int_equal(parse(fx, "--list-devices", NULL), 0);
	assert_int_equal(fx->cfg.action, ACTION_LIST_DEVICES);
}

static void
test_descendants(void **state)
{
	struct fixture	*fx = *state;

	assert_int_equal(parse(fx, "--descendants=wait", "ls", NULL), 0);
	assert_int_equal(fx->cfg.descendants, DESCENDANTS_WAIT);
	assert_int_equal(parse(fx, "--descendants", "kill", "ls", NULL), 0);
	assert_int_equal(fx->cfg.descendants, DESCENDANTS_KILL);
	assert_int_equal(parse(fx, "--descendants=leave", "ls", NULL), 0);
	assert_int_equal(fx->cfg.descendants, DESCENDANTS_LEAVE);
	parse(fx, "--descendants=bogus", "ls", NULL);
	assert_rejected(fx, "'bogus'");
	parse(fx, "--descendants=Wait", "ls", NULL);
	assert_rejected(fx, "'Wait'");
	parse(fx, "--descendants=", "ls", NULL);
	assert_rejected(fx, "''");
}

static void
test_unknown_option(void **state)
{
	struct fixture	*fx = *state;

	parse(fx, "--bogus", "ls", NULL);
	assert_rejected(fx, "--bogus");
	parse(fx, "-Z", "ls", NULL);
	assert_rejected(fx, "-Z");
}

static void
test_empty_paths(void **state)
{
	struct fixture	*fx = *state;

	parse(fx, "-o", "", "ls", NULL);
	assert_rejected(fx, "--output");
	parse(fx, "--csv=", "ls", NULL);
	assert_rejected(fx, "--csv needs a file name (- for stdout)");
	/* The library is read, never written: stdout is no choice for it. */
	parse(fx, "--nvml-lib=", "ls", NULL);
	assert_rejected(fx, "--nvml-lib needs a file name");
	assert_null(strstr(fx->err.msg, "stdout"));
	parse(fx, "-d", "", "ls", NULL);
	assert_rejected(fx, "--devices");
	assert_int_equal(parse(fx, "-o", "-", "--csv", "out.csv", "-d", "0,GPU-1", "ls", NULL), 0);
	assert_string_equal(fx->cfg.out.output, "-");
	assert_string_equal(fx->cfg.out.csv_path, "out.csv");
	assert_int_equal(fx->cfg.devsel.n, 2);
	assert_string_equal(fx->cfg.devsel.v[0].text, "0");
	assert_string_equal(fx->cfg.devsel.v[1].text, "GPU-1");
}

/* One idle power per device: a second one is a usage error, not the last one winning. */
static void
test_idle_power_duplicates(void **state)
{
	struct fixture	*fx = *state;

	parse(fx, "--idle-power=0:50,0:60", "ls", NULL);
	assert_rejected(fx, "invalid --idle-power '0:50,0:60': a second power for device 0");
	parse(fx, "--idle-power=50,1:20,60", "ls", NULL);
	assert_rejected(fx, "a second power for all devices");
	assert_int_equal(parse(fx, "--idle-power=50,0:20,1:30", "ls", NULL), 0);
	assert_int_equal(fx->cfg.nidle, 3);
}

static void
test_help_mentions_every_option(void **state)
{
	struct fixture	*fx = *state;
	size_t		 i;

	assert_int_equal(parse(fx, "--help", NULL), 0);
	assert_int_equal(fx->cfg.action, ACTION_HELP);
	assert_non_null(fx->cfg.text);
	assert_non_null(strstr(fx->cfg.text, config_usage()));
	for (i = 0; i < ARRAY_SIZE(LONG_OPTIONS); i++) {
		if (strstr(fx->cfg.text, LONG_OPTIONS[i]) == NULL)
			print_error("--help does not mention %s\n", LONG_OPTIONS[i]);
		assert_non_null(strstr(fx->cfg.text, LONG_OPTIONS[i]));
	}
	/* -h is the same, and wins over a missing command. */
	assert_int_equal(parse(fx, "-h", NULL), 0);
	assert_int_equal(fx->cfg.action, ACTION_HELP);
	assert_non_null(strstr(fx->cfg.text, "--nvml-lib"));
}

static void
test_version_and_usage(void **state)
{
	struct fixture	*fx = *state;

	assert_int_equal(parse(fx, "--version", NULL), 0);
	assert_int_equal(fx->cfg.action, ACTION_HELP);
	assert_non_null(fx->cfg.text);
	assert_true(strncmp(fx->cfg.text, "joulestat ", 10) == 0);
	assert_int_equal(parse(fx, "-V", "ls", NULL), 0);
	assert_int_equal(fx->cfg.action, ACTION_HELP);
	assert_int_equal(parse(fx, "--usage", NULL), 0);
	assert_int_equal(fx->cfg.action, ACTION_HELP);
	assert_non_null(strstr(fx->cfg.text, config_usage()));
}

static void
test_nvml_lib_env(void **state)
{
	struct fixture	*fx = *state;

	assert_int_equal(setenv(ENV_NVML, "/tmp/sim/libnvidia-ml.so.1", 1), 0);
	assert_int_equal(parse(fx, "ls", NULL), 0);
	assert_non_null(fx->cfg.sources.nvml_lib);
	assert_string_equal(fx->cfg.sources.nvml_lib, "/tmp/sim/libnvidia-ml.so.1");
	/* The option wins over the environment. */
	assert_int_equal(parse(fx, "--nvml-lib", "/opt/nv/libnvidia-ml.so.1", "ls", NULL), 0);
	assert_string_equal(fx->cfg.sources.nvml_lib, "/opt/nv/libnvidia-ml.so.1");
	/* An empty variable is no override. */
	assert_int_equal(setenv(ENV_NVML, "", 1), 0);
	assert_int_equal(parse(fx, "ls", NULL), 0);
	assert_null(fx->cfg.sources.nvml_lib);
	assert_int_equal(unsetenv(ENV_NVML), 0);
	assert_int_equal(parse(fx, "ls", NULL), 0);
	assert_null(fx->cfg.sources.nvml_lib);
}

/* The fixture roots come from the environment, read once by the parser. */
static void
test_roots_env(void **state)
{
	struct fixture	*fx = *state;

	assert_int_equal(setenv("JOULESTAT_SYSFS_ROOT", "/tmp/fx/sys", 1), 0);
	assert_int_equal(setenv("JOULESTAT_PROC_ROOT", "", 1), 0);
	assert_int_equal(parse(fx, "ls", NULL), 0);
	assert_string_equal(fx->cfg.sources.sysfs_root, "/tmp/fx/sys");
	assert_string_equal(fx->cfg.sources.proc_root, "/proc");
	assert_int_equal(unsetenv("JOULESTAT_SYSFS_ROOT"), 0);
	assert_int_equal(unsetenv("JOULESTAT_PROC_ROOT"), 0);
	assert_int_equal(parse(fx, "ls", NULL), 0);
	assert_string_equal(fx->cfg.sources.sysfs_root, "/sys");
}

static void
test_free_zeroed(void **state)
{
	struct config	cfg;

	(void)state;
	memset(&cfg, 0, sizeof cfg);
	config_free(&cfg);
	config_free(&cfg);
	assert_null(cfg.priv);
}

#define T(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_defaults),
		T(test_interval_ok),
		T(test_interval_rejected),
		T(test_stops_at_first_non_option),
		T(test_double_dash),
		T(test_separator),
		T(test_cause_is_one_line),
		T(test_pids),
		T(test_command_and_pid_conflict),
		T(test_descendants),
		T(test_unknown_option),
		T(test_empty_paths),
		T(test_idle_power_duplicates),
		T(test_help_mentions_every_option),
		T(test_version_and_usage),
		T(test_nvml_lib_env),
		T(test_roots_env),
		cmocka_unit_test(test_free_zeroed),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
