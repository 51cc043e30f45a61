/*
 * libFuzzer target: jobinfo_get on an environment, then jobinfo_expand of
 * an output path template.  The input is lines: OMPI_COMM_WORLD_RANK,
 * PMI_RANK, SLURM_PROCID (the order jobinfo believes them in),
 * SLURM_JOB_ID, PBS_JOBID, LSB_JOBID (likewise; an empty line leaves the
 * variable unset), the host name, and then the template, which is the
 * rest of the input, newlines and all.  The rank must be the first
 * launcher's variable that is set, all digits; the job id the first batch
 * system's, made of the allowed characters; the host free of '/'.  The expansion is compared
 * with one done here, by a second, simpler reading of the same rules.
 */
#include "joulestat/jobinfo.h"
#include "joulestat/util.h"

#include "fuzz.h"

#define FUZZ_PID	31337
#define FUZZ_NVARS	6

static const char *const fuzz_names[FUZZ_NVARS] = {
	"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "SLURM_JOB_ID", "PBS_JOBID",
	"LSB_JOBID",
};

/* The variables of the current input; the get function has no context. */
static const char *fuzz_vals[FUZZ_NVARS];

static const char *
fuzz_getenv(const char *name)
{
	size_t	i;

	for (i = 0; i < FUZZ_NVARS; i++) {
		if (strcmp(fuzz_names[i], name) == 0)
			return fuzz_vals[i];
	}
	fprintf(stderr, "jobinfo_get asked for %s, which it does not document\n", name);
	abort();
}

static void
fuzz_check_jobinfo(const struct jobinfo *ji, const char *host)
{
	const char	*rank = "", *job = "";
	size_t		 i;

	for (i = 0; i < 3 && rank[0] == '\0'; i++)
		rank = fuzz_vals[i] != NULL ? fuzz_vals[i] : "";
	for (i = 3; i < 6 && job[0] == '\0'; i++)
		job = fuzz_vals[i] != NULL ? fuzz_vals[i] : "";
	FUZZ_CHECK(strcmp(ji->rank, rank) == 0);
	FUZZ_CHECK(strspn(ji->rank, "0123456789") == strlen(ji->rank));
	FUZZ_CHECK(strcmp(ji->job, job) == 0);
	FUZZ_CHECK(strspn(ji->job, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz._-[]") == strlen(ji->job));
	FUZZ_CHECK(strchr(ji->host, '/') == NULL);
	FUZZ_CHECK(strlen(ji->host) == (strlen(host) < JOBINFO_HOST_MAX ? strlen(host) :
	    JOBINFO_HOST_MAX - 1));
	for (i = 0; ji->host[i] != '\0'; i++)
		FUZZ_CHECK(ji->host[i] == (host[i] == '/' ? '_' : host[i]));
	FUZZ_CHECK(ji->pid == FUZZ_PID);
}

/* The expansion of tmpl by the documented rules, or NULL where it must fail. */
static char *
fuzz_expect(const char *tmpl, const struct jobinfo *ji)
{
	char		 pid[24], *out = NULL;
	const char	*p;
	size_t		 len = 0;
	FILE		*f;

	snprintf(pid, sizeof pid, "%d", (int)ji->pid);
	if ((f = open_memstream(&out, &len)) == NULL)
		abort();
	for (p = tmpl; *p != '\0'; p++) {
		if (*p != '%') {
			fputc(*p, f);
			continue;
		}
		p++;
		if (*p == 'h')
			fputs(ji->host, f);
		else if (*p == 'r')
			fputs(ji->rank[0] != '\0' ? ji->rank : "0", f);
		else if (*p == 'j')
			fputs(ji->job[0] != '\0' ? ji->job : "nojob", f);
		else if (*p == 'p')
			fputs(pid, f);
		else if (*p == '%')
			fputc('%', f);
		else {
			fclose(f);
			free(out);
			return NULL;
		}
	}
	fclose(f);
	return out;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jobinfo	 ji;
	struct errbuf	 err = { { 0 } };
	char		*text = fuzz_text(data, size), *rest = text, *line, *out, *want;
	const char	*host = "", *tmpl = "";
	size_t		 i;

	for (i = 0; i < FUZZ_NVARS; i++) {
		line = rest != NULL ? strsep(&rest, "\n") : NULL;
		fuzz_vals[i] = line != NULL && line[0] != '\0' ? line : NULL;
	}
	if (rest != NULL && (line = strsep(&rest, "\n")) != NULL)
		host = line;
	if (rest != NULL)
		tmpl = rest;

	if (jobinfo_get(&ji, fuzz_getenv, host, FUZZ_PID, &err) == 0)
		fuzz_check_jobinfo(&ji, host);
	else
		FUZZ_CHECK(err.msg[0] != '\0');

	err.msg[0] = '\0';
	out = jobinfo_expand(tmpl, &ji, &err);
	want = fuzz_expect(tmpl, &ji);
	if (want == NULL)
		FUZZ_CHECK(out == NULL && err.msg[0] != '\0');
	else
		FUZZ_CHECK(out != NULL && strcmp(out, want) == 0);
	free(out);
	free(want);
	free(text);
	return 0;
}
