/*
 * The options a CI job leans on, checked for config.c: output paths,
 * --markdown (github: the job summary), --csv-format and --list-devices
 * --require.  Nothing is printed; the first problem is a one-line cause.
 */
#ifndef JOULESTAT_CONFIG_CI_H
#define JOULESTAT_CONFIG_CI_H

#include <stdbool.h>

#include "joulestat/outputs.h"
#include "joulestat/util.h"

/* What --list-devices --require asks the machine to offer. */
enum need_kind {
	NEED_NONE,
	NEED_GPU,		/* any GPU */
	NEED_NVIDIA,		/* an NVIDIA GPU (NVML) */
	NEED_AMD,		/* an AMD GPU (amdgpu) */
	NEED_INTEL,		/* an Intel GPU (i915, xe) */
	NEED_RAPL,		/* a CPU package's RAPL counter */
	NEED_COUNT,		/* at least n devices of any kind */
};

struct device_need {
	enum need_kind	kind;
	unsigned	n;
};

/* An output path may be "-" for stdout; an input (--nvml-lib) or --plot may not. */
int	config_check_path(const char *opt, const char *s, bool may_be_stdout,
	    struct errbuf *err);

/* A -x separator that no number can hold. */
int	config_check_separator(const char *s, struct errbuf *err);

/*
 * --markdown, --junit, --openmetrics and --csv-format into out.  markdown
 * "github" is $GITHUB_STEP_SUMMARY (summary_env), appended to, or no
 * summary at all when that is unset or empty; github_actions is
 * $GITHUB_ACTIONS.  0, or -1 with a cause.
 */
int	config_ci_outputs(struct output_paths *out, const char *markdown, const char *junit,
	    const char *metrics, const char *csv_format, const char *summary_env,
	    const char *github_actions, struct errbuf *err);

/* --require: gpu, nvidia, amd, intel, rapl or a number of devices.  0, or -1 with a cause. */
int	config_parse_require(struct device_need *need, const char *s, struct errbuf *err);

#endif
