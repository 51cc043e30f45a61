/*
 * Where a run happens on a cluster (README "Clusters"): the host, the rank the
 * launcher gave this process (OMPI_COMM_WORLD_RANK, PMI_RANK or
 * SLURM_PROCID, in that order) and the job id (SLURM_JOB_ID).  Output paths take them as
 * %h, %r, %j and %p, and the summary CSV carries them on every row so
 * that `joulestat merge` can put the ranks of a job back together.
 */
#ifndef JOULESTAT_JOBINFO_H
#define JOULESTAT_JOBINFO_H

#include <sys/types.h>

#include "joulestat/util.h"

#define JOBINFO_HOST_MAX	256
#define JOBINFO_RANK_MAX	16
#define JOBINFO_JOB_MAX		64

struct jobinfo {
	char	host[JOBINFO_HOST_MAX];
	char	rank[JOBINFO_RANK_MAX];	/* decimal; "" when no launcher set one */
	char	job[JOBINFO_JOB_MAX];	/* "" outside a batch job */
	pid_t	pid;
};

/*
 * Fill ji from the environment (through get, normally getenv), the host
 * name and the pid.  Returns 0, or -1 with a one-line cause when a rank
 * or job variable holds something that is not one ("SLURM_PROCID 'x'").
 */
int	jobinfo_get(struct jobinfo *ji, const char *(*get)(const char *), const char *host,
	    pid_t pid, struct errbuf *err);

/*
 * Expand a path template: %h host, %r rank (0 without a launcher), %j job
 * id ("nojob" outside a job), %p pid, %% a percent sign.  Returns a new
 * string, or NULL with a one-line cause for any other % sequence.
 */
char	*jobinfo_expand(const char *tmpl, const struct jobinfo *ji, struct errbuf *err);

#endif
