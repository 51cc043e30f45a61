/*
 * The run command's options as popt sees them, in the groups -h and --help
 * show (help.c prints them), and the rest of its help text.  The help
 * strings use the man page's wording; tests/cli/options.sh checks that the
 * two list the same options.
 */
#include "options.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "joulestat/config.h"
#include "joulestat/help.h"
#include "joulestat/util.h"

#ifndef JOULESTAT_VERSION
#define JOULESTAT_VERSION "unknown"
#endif

static const char USAGE[] =
    "usage: joulestat [options] [--] COMMAND [ARG...]\n"
    "       joulestat [options] -p PID[,PID...]\n"
    "       joulestat [options] --list-devices\n"
    "       joulestat merge [options] FILE...\n"
    "       joulestat mark [--begin | --end] [NAME]\n"
    "       joulestat report [options] FILE.json";

/* Heads a group of options in the help; popt sees an empty table. */
static struct poptOption no_options[] = { POPT_TABLEEND };
#define GROUP(title) { NULL, '\0', POPT_ARG_INCLUDE_TABLE, no_options, 0, title, NULL }

/*
 * The options in the groups --help shows, sorted by long name within a
 * group.  A description is a summary line (all that -h shows), then the
 * details.
 */
void
options_table(struct poptOption *t, struct raw_opts *r)
{
	const struct poptOption table[] = {
	    GROUP("Measuring"),
	    { "attrib-weights", '\0', POPT_ARG_STRING, &r->weights, OPT_STRING,
		"weights of SM and memory utilization in the attribution estimate;\n"
		"default 0.7,0.3", "SM,MEM" },
	    { "descendants", '\0', POPT_ARG_STRING, &r->descendants, OPT_STRING,
		"what to do with descendants still running when the command ends:\n"
		"leave them running (default), wait for them, or kill them", "leave|wait|kill" },
	    { "idle-baseline", '\0', POPT_ARG_STRING, &r->idle_baseline, OPT_STRING,
		"measure idle power for SECONDS before starting the command", "SECONDS" },
	    { "idle-power", '\0', POPT_ARG_STRING, &r->idle_power, OPT_STRING,
		"idle power in watts, for every device or per device (0:55,1:60)", "W|DEV:W,..." },
	    { "interval", 'i', POPT_ARG_STRING, &r->interval, OPT_STRING,
		"sample every MS milliseconds,\n1 to 60000 (default 100)", "MS" },
	    { "pid", 'p', POPT_ARG_STRING, &r->pids, OPT_STRING,
		"attach to running processes until they all exit or SIGINT", "PID[,PID...]" },
	    { "tracker", '\0', POPT_ARG_STRING, &r->tracker, OPT_STRING,
		"follow the process tree through a cgroup of its own (cgroup),\n"
		"by walking /proc (proc), or the first that works here (auto, default)",
		"auto|cgroup|proc" },
	    GROUP("Devices"),
	    { "devices", 'd', POPT_ARG_STRING, &r->devices, OPT_STRING,
		"measure only these devices;\n"
		"numbers from --list-devices, nvml:N, drm:cardN, rapl:ZONE, UUIDs or PCI bus "
		"ids; \"all\" for every device (default: the GPUs CUDA_VISIBLE_DEVICES and the "
		"like leave the command)", "all|LIST" },
	    { "list-devices", '\0', POPT_ARG_NONE, &r->is_list_devices, 0,
		"list what can be measured on this machine, and how, then exit", NULL },
	    { "nvml-lib", '\0', POPT_ARG_STRING, &r->nvml_lib, OPT_STRING,
		"load NVML from PATH instead of libnvidia-ml.so.1", "PATH" },
	    { "require", '\0', POPT_ARG_STRING, &r->require, OPT_STRING,
		"with --list-devices: exit 2 unless the machine offers this",
		"gpu|nvidia|amd|intel|rapl|N" },
	    GROUP("Outputs"),
	    { "csv", '\0', POPT_ARG_STRING, &r->csv, OPT_STRING,
		"write the summary as CSV to FILE (- for stdout)", "FILE" },
	    { "csv-format", '\0', POPT_ARG_STRING, &r->csv_format, OPT_STRING,
		"--csv and -x: a row per run, device, P-state... (wide, default)\n"
		"or a row per figure (long)", "wide|long" },
	    { "field-separator", 'x', POPT_ARG_STRING, &r->field_sep, OPT_STRING,
		"write the report as CSV with separator SEP", "SEP" },
	    { "interval-print", 'I', POPT_ARG_STRING, &r->interval_print, OPT_STRING,
		"print a line per device to stderr every MS milliseconds;\n"
		"time, power, energy so far, P-state and the workload's load, like perf stat -I",
		"MS" },
	    { "json", '\0', POPT_ARG_STRING, &r->json, OPT_STRING,
		"write the report as JSON to FILE (- for stdout)", "FILE" },
	    { "junit", '\0', POPT_ARG_STRING, &r->junit, OPT_STRING,
		"write JUnit XML to FILE: a test case per gate", "FILE" },
	    { "markdown", '\0', POPT_ARG_STRING, &r->markdown, OPT_STRING,
		"write a Markdown summary to FILE;\n"
		"github appends it to $GITHUB_STEP_SUMMARY", "FILE|github" },
	    { "openmetrics", '\0', POPT_ARG_STRING, &r->metrics, OPT_STRING,
		"write the figures as Prometheus/OpenMetrics text to FILE", "FILE" },
	    { "output", 'o', POPT_ARG_STRING, &r->output, OPT_STRING,
		"write the report to FILE\n(- for stdout; default stderr)", "FILE" },
	    { "plot", '\0', POPT_ARG_STRING, &r->plot, OPT_STRING,
		"draw power, clocks and P-states over time to FILE;\n"
		"PNG or SVG by the name's ending; needs gnuplot", "FILE" },
	    { "quiet", 'q', POPT_ARG_NONE, &r->is_quiet, 0,
		"print no report;\nfailed gates and errors are still said on stderr", NULL },
	    { "timeline", '\0', POPT_ARG_STRING, &r->timeline, OPT_STRING,
		"write one CSV row per device per reading to FILE as the run goes", "FILE" },
	    GROUP("Repeats"),
	    { "cooldown", '\0', POPT_ARG_STRING, &r->cooldown, OPT_STRING,
		"pause SECONDS between runs,\nso the devices idle again", "SECONDS" },
	    { "repeat", 'r', POPT_ARG_STRING, &r->repeat, OPT_STRING,
		"run the command N times and report mean and standard deviation", "N" },
	    { "warmup", '\0', POPT_ARG_STRING, &r->warmup, OPT_STRING,
		"first run the command N times without reporting", "N" },
	    GROUP("Gates (a failed gate sets the exit status)"),
	    { "baseline", '\0', POPT_ARG_STRING, &r->baseline, OPT_STRING,
		"the earlier --csv summary --max-regression compares with", "FILE" },
	    { "gate-exit-code", '\0', POPT_ARG_STRING, &r->gate_exit, OPT_STRING,
		"exit with N when a gate fails;\n1 to 124, default 3", "N" },
	    { "gate-partial", '\0', POPT_ARG_STRING, &r->gate_partial, OPT_STRING,
		"what a gate does with a figure that covers less than the run\n"
		"(a device stopped answering): fail (default) or judge what was measured",
		"fail|measured" },
	    { "gate-sigma", '\0', POPT_ARG_STRING, &r->gate_sigma, OPT_STRING,
		"with --repeat, judge mean + K standard deviations, not the mean", "K" },
	    { "max-avg-power", '\0', POPT_ARG_STRING, &r->gate[GATE_AVG_POWER],
		OPT_GATE + GATE_AVG_POWER,
		"average power at most W,\nin total or per device (0:300,1:300)", "W|DEV:W,..." },
	    { "max-energy", '\0', POPT_ARG_STRING, &r->gate[GATE_ENERGY], OPT_GATE + GATE_ENERGY,
		"energy at most J,\nin total or per device (0:500,1:500)", "J|DEV:J,..." },
	    { "max-energy-above-idle", '\0', POPT_ARG_STRING, &r->gate[GATE_ABOVE_IDLE],
		OPT_GATE + GATE_ABOVE_IDLE,
		"energy above idle at most J,\nin total or per device", "J|DEV:J,..." },
	    { "max-regression", '\0', POPT_ARG_STRING, &r->gate[GATE_REGRESSION],
		OPT_GATE + GATE_REGRESSION,
		"at most PCT percent more than --baseline, beyond the noise", "PCT" },
	    { "max-time", '\0', POPT_ARG_STRING, &r->gate[GATE_TIME], OPT_GATE + GATE_TIME,
		"wall time at most SECONDS", "SECONDS" },
	    { "min-pstate-share", '\0', POPT_ARG_STRING, &r->gate[GATE_STATE_SHARE],
		OPT_GATE + GATE_STATE_SHARE,
		"at least PCT percent of the time in STATE,\nin total or per device "
		"(P0:80, 0:P0:80)", "[DEV:]STATE:PCT,..." },
	    { "regression-metric", '\0', POPT_ARG_STRING, &r->regress, OPT_STRING,
		"what --max-regression compares:\nenergy (default), time or energy-above-idle",
		"METRIC" },
	    GROUP("Clocks and locks"),
	    { "exclusive", '\0', POPT_ARG_NONE, &r->is_exclusive, 0,
		"measure alone: wait for other joulestat --exclusive runs on the same devices",
		NULL },
	    { "exclusive-timeout", '\0', POPT_ARG_STRING, &r->exclusive_wait, OPT_STRING,
		"give up after waiting SECONDS for the devices;\ndefault: wait", "SECONDS" },
	    { "lock-clocks", '\0', POPT_ARG_STRING, &r->lock, OPT_STRING,
		"lock GPU clocks for the run;\n"
		"needs root, implies --exclusive; reset at the end", "base|max|MHZ[,MEMMHZ]" },
	    { "lock-clocks-required", '\0', POPT_ARG_NONE, &r->is_lock_required, 0,
		"fail (125) rather than run with clocks that could not be locked", NULL },
	    GROUP("Help"),
	    { NULL, 'h', POPT_ARG_NONE, NULL, OPT_HELP_SHORT, "show a short help and exit", NULL },
	    { "help", '\0', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
	    { "usage", '\0', POPT_ARG_NONE, NULL, OPT_USAGE, "show the usage line and exit", NULL },
	    { "version", 'V', POPT_ARG_NONE, NULL, OPT_VERSION, "show the version and exit", NULL },
	    POPT_TABLEEND
	};

	_Static_assert(sizeof table == OPTIONS_N * sizeof table[0], "NOPTIONS is the table size");
	memcpy(t, table, sizeof table);
}

const char *
config_usage(void)
{
	return USAGE;
}

static const char HELP_ABOUT[] =
    "Measure the time and energy of a command and of its processes: every GPU "
    "(NVML, amdgpu, i915/xe) and CPU package (RAPL) the command may use, the time "
    "and energy in each P-state, and the share its own processes caused.\n";

static const char HELP_TAIL[] =
    "\nClusters:\n"
    "Output file names may hold %h host, %r rank (Open MPI, MPICH or Slurm), %j job id "
    "(Slurm, PBS or LSF), %p pid and %% a percent sign; "
    "\"joulestat merge\" adds up the ranks' summaries, counting a device once.\n"
    "\nPhases:\n"
    "The command may mark its phases by writing lines \"phase NAME\", \"begin NAME\", "
    "\"end NAME\" or \"end\" to the file named by $JOULESTAT_MARK, or with "
    "\"joulestat mark NAME\"; the report then gives every figure per phase.\n"
    "\nExamples:\n"
    "  joulestat -- python train.py\n"
    "  joulestat -i 10 --csv=run.csv -r 5 -- ./bench\n"
    "  joulestat --max-energy=500 --min-pstate-share=P0:80 -- ./bench\n"
    "  mpirun -np 8 joulestat -q --csv='run-%j-%h-%r.csv' -- ./solver\n"
    "\nExit status: the command's own; 128+N if it died of signal N; 126 if it "
    "could not be run; 127 if not found; 125 if joulestat failed; 3 "
    "(--gate-exit-code) if a gate failed while the command succeeded.  "
    "See joulestat(1).\n";

char *
options_help(const struct poptOption *table, int which)
{
	char	*text = NULL;
	size_t	 len = 0;
	FILE	*f;

	if ((f = open_memstream(&text, &len)) == NULL)
		return xstrdup(USAGE);
	if (which == OPT_VERSION) {
		fprintf(f, "joulestat %s\n", JOULESTAT_VERSION);
	} else if (which == OPT_USAGE) {
		fprintf(f, "%s\n", USAGE);
	} else {
		fprintf(f, "%s\n\n", USAGE);
		help_print_text(f, HELP_ABOUT);
		help_print_options(f, table, which == OPT_HELP);
		if (which == OPT_HELP)
			help_print_text(f, HELP_TAIL);
		else
			fprintf(f, "\n--help shows the details, examples and exit statuses.\n");
	}
	fclose(f);
	return text;
}

