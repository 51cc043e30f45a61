/*
 * The options of config_ci.h.  The environment of a CI runner is read by
 * the caller and passed in, so these checks stay pure.
 */
#include "joulestat/config_ci.h"

#include <stdint.h>
#include <string.h>

#include "joulestat/annotate.h"

int
config_check_path(const char *opt, const char *s, bool may_be_stdout, struct errbuf *err)
{
	if (s != NULL && s[0] == '\0') {
		errbuf_set(err, "%s needs a file name%s", opt, may_be_stdout ? " (- for stdout)" : "");
		return -1;
	}
	return 0;
}

int
config_check_separator(const char *s, struct errbuf *err)
{
	if (s == NULL)
		return 0;
	/* Numbers are written unquoted: a separator must not occur in one. */
	if (s[0] == '\0' || strpbrk(s, "\"\r\n0123456789.-+") != NULL) {
		errbuf_set(err, "invalid field separator '%s': must be non-empty, without quotes, "
		    "newlines, digits, '.', '-' or '+'", VIS(s));
		return -1;
	}
	return 0;
}

int
config_ci_outputs(struct output_paths *out, const char *markdown, const char *junit,
    const char *metrics, const char *csv_format, const char *summary_env,
    const char *github_actions, struct errbuf *err)
{
	if (config_check_path("--markdown", markdown, true, err) != 0 ||
	    config_check_path("--junit", junit, true, err) != 0 ||
	    config_check_path("--openmetrics", metrics, true, err) != 0)
		return -1;
	if (csv_format != NULL && strcmp(csv_format, "wide") != 0 &&
	    strcmp(csv_format, "long") != 0) {
		errbuf_set(err, "invalid --csv-format '%s': expected wide or long", VIS(csv_format));
		return -1;
	}
	out->is_csv_long = csv_format != NULL && strcmp(csv_format, "long") == 0;
	out->is_github = annotate_is_github(github_actions);
	out->markdown_path = markdown;
	if (markdown != NULL && strcmp(markdown, "github") == 0) {
		out->markdown_path = summary_env != NULL && summary_env[0] != '\0' ?
		    summary_env : NULL;
		out->is_markdown_append = out->markdown_path != NULL;
	}
	out->junit_path = junit;
	out->metrics_path = metrics;
	return 0;
}

int
config_parse_require(struct device_need *need, const char *s, struct errbuf *err)
{
	static const struct {
		const char	*word;
		enum need_kind	 kind;
	} words[] = {
		{ "gpu", NEED_GPU }, { "nvidia", NEED_NVIDIA }, { "amd", NEED_AMD },
		{ "intel", NEED_INTEL }, { "rapl", NEED_RAPL },
	};
	uint64_t	v;
	size_t		i;

	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (strcmp(s, words[i].word) == 0) {
			*need = (struct device_need){ words[i].kind, 1 };
			return 0;
		}
	}
	if (parse_u64_range(s, 1, 4096, &v) == 0) {
		*need = (struct device_need){ NEED_COUNT, (unsigned)v };
		return 0;
	}
	errbuf_set(err, "invalid --require '%s': expected gpu, nvidia, amd, intel, rapl or a "
	    "number of devices from 1", VIS(s));
	return -1;
}
