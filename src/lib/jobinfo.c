/*
 * Rank, job and host of a run, and the %-templates of output paths.  Kept
 * pure (the environment comes in through a function) so that the tests and
 * the fuzz target can feed it anything.
 */
#include "joulestat/jobinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"

/*
 * Where launchers put the rank, innermost first: mpirun inside a Slurm
 * batch script gives each rank OMPI_COMM_WORLD_RANK (or PMI_RANK) while
 * every one of them inherits the script's SLURM_PROCID of 0.
 */
static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };

/* The batch systems' job ids: Slurm, PBS (Pro and Torque), LSF. */
static const char *const job_vars[] = { "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID" };

static int
take_var(char *dst, size_t size, const char *name, const char *val, const char *allowed,
    const char *what, struct errbuf *err)
{
	char	shown[64];

	if (val[strspn(val, allowed)] != '\0' || strlen(val) >= size) {
		errbuf_set(err, "%s '%s' is not a %s", name, visible(val, shown, sizeof shown), what);
		return -1;
	}
	memcpy(dst, val, strlen(val) + 1);
	return 0;
}

int
jobinfo_get(struct jobinfo *ji, const char *(*get)(const char *), const char *host, pid_t pid,
    struct errbuf *err)
{
	static const char	digits[] = "0123456789";
	/* PBS's array jobs are "1234[5].server". */
	static const char	idchars[] =
	    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz._-[]";
	const char		*v;
	size_t			 i;

	memset(ji, 0, sizeof *ji);
	ji->pid = pid;
	/* A host name never holds '/', but a path must not get one from it. */
	for (i = 0; host[i] != '\0' && i + 1 < sizeof ji->host; i++)
		ji->host[i] = host[i] == '/' ? '_' : host[i];
	for (i = 0; i < ARRAY_SIZE(rank_vars); i++) {
		if ((v = get(rank_vars[i])) != NULL && v[0] != '\0') {
			if (take_var(ji->rank, sizeof ji->rank, rank_vars[i], v, digits, "rank number",
			    err) != 0)
				return -1;
			break;
		}
	}
	for (i = 0; i < ARRAY_SIZE(job_vars); i++) {
		if ((v = get(job_vars[i])) != NULL && v[0] != '\0')
			return take_var(ji->job, sizeof ji->job, job_vars[i], v, idchars, "job id",
			    err);
	}
	return 0;
}

/* Append n bytes of s to the growing string *out of length *len. */
static void
append(char **out, size_t *len, const char *s, size_t n)
{
	*out = xreallocarray(*out, *len + n + 1, 1);
	memcpy(*out + *len, s, n);
	*len += n;
	(*out)[*len] = '\0';
}

char *
jobinfo_expand(const char *tmpl, const struct jobinfo *ji, struct errbuf *err)
{
	char		*out = xstrdup(""), pid[24], shown[64];
	const char	*p, *v;
	size_t		 len = 0;

	snprintf(pid, sizeof pid, "%ld", (long)ji->pid);
	for (p = tmpl; *p != '\0'; p++) {
		if (*p != '%') {
			append(&out, &len, p, 1);
			continue;
		}
		switch (*++p) {
		case 'h': v = ji->host; break;
		case 'r': v = ji->rank[0] != '\0' ? ji->rank : "0"; break;
		case 'j': v = ji->job[0] != '\0' ? ji->job : "nojob"; break;
		case 'p': v = pid; break;
		case '%': v = "%"; break;
		default:
			free(out);
			errbuf_set(err, "'%s': %s; use %%h, %%r, %%j, %%p or %%%%",
			    visible(tmpl, shown, sizeof shown), *p == '\0' ? "a lone % at the end" :
			    "an unknown % sequence");
			return NULL;
		}
		append(&out, &len, v, strlen(v));
	}
	return out;
}
