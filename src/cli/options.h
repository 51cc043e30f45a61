#ifndef JOULESTAT_CLI_OPTIONS_H
#define JOULESTAT_CLI_OPTIONS_H
/*
 * The run command's option table, in its help groups, and its help text;
 * config.c checks the values.
 */
#include <popt.h>

#include "joulestat/gate.h"

enum opt_val {
	OPT_HELP = 1,
	OPT_HELP_SHORT,
	OPT_USAGE,
	OPT_VERSION,
	OPT_STRING,	/* a string option was stored: take ownership of it */
	OPT_GATE,	/* a threshold: OPT_GATE + enum gate_metric; they add up */
};

/* Where popt leaves option arguments before they are checked. */
struct raw_opts {
	char	*weights;
	char	*idle_power;
	char	*idle_baseline;
	char	*interval;
	char	*interval_print;
	char	*json;
	char	*timeline;
	char	*repeat;
	char	*warmup;
	char	*cooldown;
	char	*output;
	char	*field_sep;
	char	*csv;
	char	*pids;
	char	*descendants;
	char	*nvml_lib;
	char	*tracker;
	char	*devices;
	char	*gate[GATE_REGRESSION + 1];	/* by enum gate_metric */
	char	*gate_sigma;
	char	*gate_exit;
	char	*baseline;
	char	*regress;
	char	*gate_partial;
	char	*lock;
	char	*exclusive_wait;
	char	*plot;
	char	*markdown;
	char	*junit;
	char	*metrics;
	char	*csv_format;
	char	*require;
	int	 is_quiet;
	int	 is_list_devices;
	int	 is_lock_required;
	int	 is_exclusive;
};

/* Entries of the option table, with its group headings and its end. */
#define OPTIONS_N 53


/* Fill T (OPTIONS_N entries) with the options, their values stored in R. */
void	 options_table(struct poptOption *t, struct raw_opts *r);

/* The text for -h, --help, --usage or --version (WHICH): free() it. */
char	*options_help(const struct poptOption *table, int which);

#endif
