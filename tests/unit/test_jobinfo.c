/*
 * Unit tests of src/lib/jobinfo.c (README "Clusters"): which launcher variable gives
 * the rank (OMPI_COMM_WORLD_RANK, then PMI_RANK, then SLURM_PROCID: the
 * innermost launcher first; an empty one does not count), SLURM_JOB_ID, the checks that keep them
 * fit for a path, the host name made safe, and the expansion of %h, %r,
 * %j, %p and %% in output path templates, with an error for any other %
 * sequence and for a lone % at the end.  The environment is a table in
 * the test, handed over through the get function as getenv would be.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/jobinfo.h"
#include "joulestat/util.h"

#define MAX_VARS	8

struct var {
	const char	*name;
	const char	*value;
};

/*
 * The environment fake_getenv reads.  The get function takes no context,
 * so the table is the one piece of file-scope state; setup clears it.
 */
static struct var	env[MAX_VARS];

static const char *
fake_getenv(const char *name)
{
	size_t	i;

	for (i = 0; i < MAX_VARS && env[i].name != NULL; i++) {
		if (strcmp(env[i].name, name) == 0)
			return env[i].value;
	}
	return NULL;
}

static void
env_set(const char *name, const char *value)
{
	size_t	i;

	for (i = 0; i < MAX_VARS - 1 && env[i].name != NULL; i++) {
		if (strcmp(env[i].name, name) == 0)
			break;
	}
	env[i].name = name;
	env[i].value = value;
}

struct fixture {
	struct jobinfo	ji;
	struct errbuf	err;
	char		*out;
};

static int
setup(void **state)
{
	struct fixture	*fx;

	memset(env, 0, sizeof env);
	if ((fx = calloc(1, sizeof *fx)) == NULL)
		return -1;
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*fx = *state;

	free(fx->out);
	free(fx);
	return 0;
}

/* jobinfo_get on the table, host "node1" and pid 4242; expects rc. */
static void
get(struct fixture *fx, int rc)
{
	fx->err.msg[0] = '\0';
	if (jobinfo_get(&fx->ji, fake_getenv, "node1", 4242, &fx->err) != rc) {
		print_error("jobinfo_get rc != %d (%s)\n", rc, fx->err.msg);
		fail();
	}
}

/* Expand tmpl, which must succeed and give want. */
static void
expand(struct fixture *fx, const char *tmpl, const char *want)
{
	free(fx->out);
	fx->out = jobinfo_expand(tmpl, &fx->ji, &fx->err);
	if (fx->out == NULL) {
		print_error("'%s': %s\n", tmpl, fx->err.msg);
		fail();
	}
	assert_string_equal(fx->out, want);
}

static void
test_no_launcher(void **state)
{
	struct fixture	*fx = *state;

	get(fx, 0);
	assert_string_equal(fx->ji.host, "node1");
	assert_string_equal(fx->ji.rank, "");
	assert_string_equal(fx->ji.job, "");
	assert_int_equal(fx->ji.pid, 4242);
	/* Empty values are no values. */
	env_set("SLURM_PROCID", "");
	env_set("SLURM_JOB_ID", "");
	get(fx, 0);
	assert_string_equal(fx->ji.rank, "");
	assert_string_equal(fx->ji.job, "");
}

static void
test_rank_order(void **state)
{
	struct fixture	*fx = *state;

	env_set("SLURM_PROCID", "3");
	get(fx, 0);
	assert_string_equal(fx->ji.rank, "3");
	/* mpirun inside a batch script: every rank inherits SLURM_PROCID 0. */
	env_set("SLURM_PROCID", "0");
	env_set("PMI_RANK", "5");
	get(fx, 0);
	assert_string_equal(fx->ji.rank, "5");
	env_set("OMPI_COMM_WORLD_RANK", "12");
	get(fx, 0);
	assert_string_equal(fx->ji.rank, "12");
	/* An empty OMPI_COMM_WORLD_RANK passes the word to the next launcher. */
	env_set("OMPI_COMM_WORLD_RANK", "");
	get(fx, 0);
	assert_string_equal(fx->ji.rank, "5");
	/* Only the variable believed is checked. */
	env_set("OMPI_COMM_WORLD_RANK", "7");
	env_set("SLURM_PROCID", "garbage");
	get(fx, 0);
	assert_string_equal(fx->ji.rank, "7");
}

static void
test_rank_invalid(void **state)
{
	static const char *const bad[] = { "x", "1a", "-1", "+2", " 3", "3 ", "1.0", "0x10",
	    "1234567890123456" };
	struct fixture	*fx = *state;
	size_t		 i;
	char		 want[128];

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		env_set("SLURM_PROCID", bad[i]);
		get(fx, -1);
		snprintf(want, sizeof want, "SLURM_PROCID '%s' is not a rank number", bad[i]);
		assert_string_equal(fx->err.msg, want);
	}
	/* The first launcher's variable is believed, even with a valid one after it. */
	env_set("SLURM_PROCID", "");
	env_set("OMPI_COMM_WORLD_RANK", "two");
	env_set("PMI_RANK", "2");
	get(fx, -1);
	assert_string_equal(fx->err.msg, "OMPI_COMM_WORLD_RANK 'two' is not a rank number");
	/* Control characters are shown, not printed. */
	env_set("OMPI_COMM_WORLD_RANK", "1\n2");
	get(fx, -1);
	assert_string_equal(fx->err.msg, "OMPI_COMM_WORLD_RANK '1\\n2' is not a rank number");
	/* 15 digits is the longest rank. */
	env_set("OMPI_COMM_WORLD_RANK", "123456789012345");
	get(fx, 0);
	assert_string_equal(fx->ji.rank, "123456789012345");
}

static void
test_job_id(void **state)
{
	struct fixture	*fx = *state;
	char		 id[JOBINFO_JOB_MAX + 1];

	env_set("SLURM_JOB_ID", "123456");
	get(fx, 0);
	assert_string_equal(fx->ji.job, "123456");
	env_set("SLURM_JOB_ID", "job_7.array-3");
	get(fx, 0);
	assert_string_equal(fx->ji.job, "job_7.array-3");
	/* 63 characters fit, 64 do not. */
	memset(id, 'j', JOBINFO_JOB_MAX - 1);
	id[JOBINFO_JOB_MAX - 1] = '\0';
	env_set("SLURM_JOB_ID", id);
	get(fx, 0);
	assert_string_equal(fx->ji.job, id);
	id[JOBINFO_JOB_MAX - 1] = 'j';
	id[JOBINFO_JOB_MAX] = '\0';
	get(fx, -1);
	/* PBS (an array job's id too) and LSF, when Slurm gives none. */
	env_set("SLURM_JOB_ID", "");
	env_set("PBS_JOBID", "4242[7].pbs01");
	env_set("LSB_JOBID", "4343");
	get(fx, 0);
	assert_string_equal(fx->ji.job, "4242[7].pbs01");
	env_set("PBS_JOBID", "");
	get(fx, 0);
	assert_string_equal(fx->ji.job, "4343");
	env_set("SLURM_JOB_ID", "99");
	get(fx, 0);
	assert_string_equal(fx->ji.job, "99");
}

static void
test_job_id_invalid(void **state)
{
	static const char *const bad[] = { "12 34", "a/b", "../x", "1%h", "a:b", "\t1" };
	struct fixture	*fx = *state;
	size_t		 i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		env_set("SLURM_JOB_ID", bad[i]);
		get(fx, -1);
	}
	env_set("SLURM_JOB_ID", "a/b");
	get(fx, -1);
	assert_string_equal(fx->err.msg, "SLURM_JOB_ID 'a/b' is not a job id");
}

static void
test_host(void **state)
{
	struct fixture	*fx = *state;
	char		 host[400];

	assert_int_equal(jobinfo_get(&fx->ji, fake_getenv, "a/b/../c", 1, &fx->err), 0);
	assert_string_equal(fx->ji.host, "a_b_.._c");
	assert_int_equal(jobinfo_get(&fx->ji, fake_getenv, "", 1, &fx->err), 0);
	assert_string_equal(fx->ji.host, "");
	/* Cut to what fits, still terminated. */
	memset(host, 'h', sizeof host - 1);
	host[sizeof host - 1] = '\0';
	assert_int_equal(jobinfo_get(&fx->ji, fake_getenv, host, 1, &fx->err), 0);
	assert_int_equal(strlen(fx->ji.host), JOBINFO_HOST_MAX - 1);
}

static void
test_expand(void **state)
{
	struct fixture	*fx = *state;

	env_set("SLURM_PROCID", "3");
	env_set("SLURM_JOB_ID", "987");
	get(fx, 0);
	expand(fx, "out-%h-%r-%j-%p.csv", "out-node1-3-987-4242.csv");
	expand(fx, "%r%r/%h", "33/node1");
	expand(fx, "plain.csv", "plain.csv");
	expand(fx, "", "");
	expand(fx, "100%%", "100%");
	expand(fx, "%%h is %h", "%h is node1");
	expand(fx, "%%%%%r", "%%3");
}

static void
test_expand_defaults(void **state)
{
	struct fixture	*fx = *state;

	/* Outside a job and a launcher: rank 0 and "nojob". */
	get(fx, 0);
	expand(fx, "%h.%r.%j.%p", "node1.0.nojob.4242");
	fx->ji.pid = 0;
	expand(fx, "%p", "0");
}

static void
test_expand_errors(void **state)
{
	static const char *const unknown[] = { "%x", "a%Hb", "%R", "%d.csv", "% ", "%\n" };
	struct fixture	*fx = *state;
	size_t		 i;

	get(fx, 0);
	for (i = 0; i < ARRAY_SIZE(unknown); i++) {
		fx->err.msg[0] = '\0';
		assert_null(jobinfo_expand(unknown[i], &fx->ji, &fx->err));
		if (strstr(fx->err.msg, "an unknown % sequence") == NULL) {
			print_error("'%s': %s\n", unknown[i], fx->err.msg);
			fail();
		}
	}
	assert_null(jobinfo_expand("out-%x", &fx->ji, &fx->err));
	assert_string_equal(fx->err.msg, "'out-%x': an unknown % sequence; use %h, %r, %j, %p or "
	    "%%");
	assert_null(jobinfo_expand("out%", &fx->ji, &fx->err));
	assert_string_equal(fx->err.msg, "'out%': a lone % at the end; use %h, %r, %j, %p or %%");
	assert_null(jobinfo_expand("%", &fx->ji, &fx->err));
	assert_null(jobinfo_expand("%%%", &fx->ji, &fx->err));
	assert_non_null(strstr(fx->err.msg, "a lone % at the end"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_launcher, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rank_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rank_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_id_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expand_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expand_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
