/*
 * struct config: everything a command-line option can set, and the parser
 * that fills it from argv with libpopt.  The parser validates values and
 * reports the first problem as a one-line cause; it never prints or exits:
 * the command decides the exit status (HACKING.md, "Exit status").
 */
#ifndef JOULESTAT_CONFIG_H
#define JOULESTAT_CONFIG_H

#include <sys/types.h>

#include <stdbool.h>

#include "joulestat/config_ci.h"
#include "joulestat/devsel.h"
#include "joulestat/gate.h"
#include "joulestat/jobinfo.h"
#include "joulestat/outputs.h"
#include "joulestat/run.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

#define CONFIG_INTERVAL_DEFAULT_MS	100
#define CONFIG_INTERVAL_MIN_MS		1
#define CONFIG_INTERVAL_MAX_MS		60000
#define CONFIG_PRINT_MIN_MS		10
#define CONFIG_PRINT_MAX_MS		3600000
#define CONFIG_MAX_PIDS			4096
#define CONFIG_MAX_IDLE			64
#define CONFIG_MAX_REPEAT		10000
#define CONFIG_MAX_COOLDOWN_S		3600
#define CONFIG_BASELINE_MAX_S		3600
#define CONFIG_MAX_CLOCK_MHZ		100000
#define CONFIG_MAX_WAIT_S		86400
#define CONFIG_WAIT_FOREVER		(-1.0)

enum config_action {
	ACTION_RUN,		/* launch argv, or attach to pids */
	ACTION_HELP,		/* --help, --usage or --version: text in cfg->text */
	ACTION_LIST_DEVICES,
};

struct config {
	enum config_action	 action;
	unsigned		 interval_ms;
	unsigned		 print_ms;	/* -I: a line per device this often; 0 = none */
	struct output_paths	 out;		/* -o, -x, --csv, --json, --timeline, --plot, -q, */
						/* --markdown, --junit, --openmetrics, --csv-format */
	enum descendants	 descendants;
	enum tracker		 tracker;	/* --tracker, JOULESTAT_TRACKER */
	const char		*cgroup_root;	/* JOULESTAT_CGROUP_ROOT, or NULL */
	pid_t			*pids;		/* -p: attach to these (npids > 0) */
	size_t			 npids;
	char			**argv;		/* workload, NULL-terminated (argc > 0) */
	int			 argc;
	unsigned		 closed_std;	/* bit per fd 0-2 joulestat started without */
	struct devsel		 devsel;	/* -d, parsed: empty = every device */
	struct source_config	 sources;	/* what the backends need; sel = &devsel */
	double			 w_sm;		/* --attrib-weights */
	double			 w_mem;
	struct idle_power	 idle[CONFIG_MAX_IDLE];	/* --idle-power */
	size_t			 nidle;
	double			 idle_baseline_s; /* --idle-baseline; 0 = none */
	unsigned		 repeat;	/* -r: measured runs, at least 1 */
	unsigned		 warmup;	/* --warmup: runs before them, not reported */
	double			 cooldown_s;	/* --cooldown: idle pause between runs */
	struct gate_config	 gate;		/* --max-*, --min-pstate-share, --baseline */
	struct clock_lock	 lock;		/* --lock-clocks */
	bool			 is_lock_required; /* --lock-clocks-required */
	bool			 is_exclusive;	/* --exclusive */
	double			 exclusive_wait_s; /* --exclusive-timeout, or CONFIG_WAIT_FOREVER */
	struct jobinfo		 job;		/* host, rank, job id for %-paths and CSV */
	struct device_need	 need;		/* --list-devices --require */
	char			*text;		/* ACTION_HELP: what to print on stdout */
	void			*priv;		/* parser state that owns the strings */
};

/*
 * Parse argv into cfg.  Option parsing stops at the first non-option (or
 * after "--"); everything from there on is the workload, untouched.
 * Returns 0, or -1 with a one-line cause in err (a usage error).  On
 * success and on failure the caller must call config_free().
 */
int	config_parse(struct config *cfg, int argc, const char **argv,
	    struct errbuf *err);

/* The one-line usage text, without a trailing newline. */
const char *config_usage(void);

/* Release everything config_parse allocated.  Safe on a zeroed cfg. */
void	config_free(struct config *cfg);

#endif
