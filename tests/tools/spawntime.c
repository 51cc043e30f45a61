/*
 * spawntime N CMD [ARG...]: run CMD N times, one after the other, with
 * stdout and stderr to /dev/null and no other descriptor (as from a
 * terminal), after 5 unmeasured runs, and print
 *
 *	median_ms p25_ms p75_ms cpu_ms
 *
 * the wall time of one run (CLOCK_MONOTONIC from before posix_spawn to
 * after wait4) and the mean CPU time (user + system, from wait4) of one
 * run.  For make bench, where hyperfine may be missing.
 */
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char	**environ;

static double
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One run: its wall time, and its CPU time added to *cpu. */
static double
run_once(char **argv, const posix_spawn_file_actions_t *fa, double *cpu)
{
	struct rusage	ru;
	double		t0, t1;
	pid_t		pid;
	int		st;

	t0 = now_ms();
	if ((errno = posix_spawnp(&pid, argv[0], fa, NULL, argv, environ)) != 0) {
		fprintf(stderr, "spawntime: %s: %s\n", argv[0], strerror(errno));
		exit(2);
	}
	while (wait4(pid, &st, 0, &ru) == -1) {
		if (errno != EINTR) {
			perror("spawntime: wait4");
			exit(2);
		}
	}
	t1 = now_ms();
	*cpu += (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	return t1 - t0;
}

int
main(int argc, char **argv)
{
	posix_spawn_file_actions_t	 fa;
	double				*t, cpu = 0, warm = 0;
	long				 n, i;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: spawntime N CMD [ARG...]\n");
		return 2;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* Stdio alone, as from a terminal: not the descriptors make's caller left open. */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	for (i = 0; i < 5; i++)
		(void)run_once(argv + 2, &fa, &warm);
	if ((t = calloc((size_t)n, sizeof *t)) == NULL)
		return 2;
	for (i = 0; i < n; i++)
		t[i] = run_once(argv + 2, &fa, &cpu);
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	printf("%.3f %.3f %.3f %.3f\n", t[n / 2], t[n / 4], t[(3 * n) / 4], cpu / (double)n);
	free(t);
	posix_spawn_file_actions_destroy(&fa);
	return 0;
}
