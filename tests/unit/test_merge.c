/*
 * Unit tests of joulestat merge (src/merge/, README "Clusters") on summary texts
 * written by hand: ranks on one host that measured one GPU over
 * overlapping windows count it once (the longest window's figures, and
 * the others' pro-rated where they reach beyond it: the union), over
 * windows apart they add up, other hosts with the same device id add
 * up, workload energies always add up, a file of -r runs gives its mean
 * (not its "mean" rows), and every kind of malformed input gives its
 * one-line cause.  The merged CSV and JSON are read back with csvin and
 * jansson.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "joulestat/csvin.h"
#include "joulestat/merge.h"
#include "joulestat/util.h"

#define EPS	1e-9

/* The columns merge reads, in csvout.c's order, with others between them. */
static const char HEADER[] =
    "schema_version,scope,run,host,rank,job,start_unix_s,command,wall_s,device,device_id,"
    "device_name,backend,pstate,time_s,energy_j,energy_above_idle_j,workload_energy_j\n";

static const char GPU_A[] = "GPU-0b7e3c2a-6d41-4f8e-9a55-1e2d3c4b5a60";
static const char GPU_B[] = "GPU-d3f1a9b8-2c7e-4a16-8f03-7b6e5d4c3b21";

/* A summary being written: the header, then rows appended. */
struct text {
	char	buf[8192];
	size_t	len;
};

static void
add(struct text *t, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof t->buf - t->len);
	t->len += (size_t)n;
}

static void
begin(struct text *t)
{
	t->len = 0;
	add(t, "%s", HEADER);
}

/* A run row and one device row of it, with a pstate row that must be ignored. */
static void
add_run(struct text *t, const char *host, const char *rank, const char *job, int run,
    double start, double wall)
{
	add(t, "2,\"run\",%d,\"%s\",\"%s\",\"%s\",%.6f,\"x, y\",%.6f,,,,,,,,,\n", run, host, rank,
	    job, start, wall);
}

static void
add_dev(struct text *t, const char *host, const char *rank, const char *job, int run,
    int index, const char *id, double time, double energy, double workload)
{
	add(t, "2,\"device\",%d,\"%s\",\"%s\",\"%s\",,\"x, y\",,%d,\"%s\",\"GPU %d\",\"nvml\",,"
	    "%.6f,%.6f,%.6f,%.6f\n", run, host, rank, job, index, id, index, time, energy,
	    energy / 2, workload);
	add(t, "2,\"pstate\",%d,\"%s\",\"%s\",\"%s\",,\"x, y\",,%d,\"%s\",\"GPU %d\",\"nvml\","
	    "\"P0\",%.6f,%.6f,,\n", run, host, rank, job, index, id, index, time, 99999.0);
}

/* One rank with one run that measured device id from start for time s. */
static void
one_rank(struct text *t, const char *host, const char *rank, double start, double time,
    const char *id, double energy, double workload)
{
	begin(t);
	add_run(t, host, rank, "42", 1, start, time);
	add_dev(t, host, rank, "42", 1, 0, id, time, energy, workload);
}

/* Parse t as file and add it to job; the test fails on any error. */
static void
add_rank(struct merge_job *job, const struct text *t, const char *file)
{
	struct merge_rank	r;
	struct errbuf		err = { "" };

	if (merge_parse_text(&r, file, t->buf, t->len, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(merge_job_add(job, &r, &err), 0);
	merge_rank_free(&r);
}

static void
total(struct merge_job *job)
{
	struct errbuf	err = { "" };

	if (merge_job_total(job, &err) != 0)
		fail_msg("%s", err.msg);
}

static const struct merge_dev *
kept(const struct merge_job *job, size_t g)
{
	return &job->ranks[job->groups[g].kept_rank].devs[job->groups[g].kept_dev];
}

/* Two ranks on one host, one GPU, windows that overlap: one measurement. */
static void
test_overlap_counted_once(void **state)
{
	struct merge_job	job = { 0 };
	struct text		t;

	(void)state;
	one_rank(&t, "node1", "0", 1000.0, 10.0, GPU_A, 2000.0, 700.0);
	add_rank(&job, &t, "r0.csv");
	/* Starts later, ends later and is the longer: its figures are kept. */
	one_rank(&t, "node1", "1", 1002.0, 12.0, GPU_A, 2300.0, 800.0);
	add_rank(&job, &t, "r1.csv");
	total(&job);

	assert_int_equal(job.nranks, 2);
	assert_int_equal(job.nhosts, 1);
	assert_int_equal(job.ngroups, 1);
	assert_int_equal(job.groups[0].nmembers, 2);
	assert_string_equal(job.ranks[job.groups[0].kept_rank].rank, "1");
	/* The union, 1000 to 1014 s: rank 0 alone measured 1000 to 1002, 2/10 of its 2000 J. */
	assert_float_equal(job.energy_j, 2300.0 + 400.0, EPS);
	assert_float_equal(job.above_idle_j, 1150.0 + 200.0, EPS);
	assert_float_equal(job.groups[0].energy_j, 2700.0, EPS);
	assert_true(job.groups[0].is_extended);
	/* Each rank's own processes: these add up. */
	assert_float_equal(job.workload_j, 1500.0, EPS);
	assert_float_equal(job.groups[0].workload_j, 1500.0, EPS);
	assert_float_equal(job.groups[0].start_s, 1000.0, EPS);
	assert_float_equal(job.groups[0].end_s, 1014.0, EPS);
	assert_true(job.has_time);
	assert_float_equal(job.end_s - job.start_s, 14.0, EPS);
	merge_job_free(&job);
}

/* The same GPU measured one window after the other: two measurements. */
static void
test_apart_summed(void **state)
{
	struct merge_job	job = { 0 };
	struct text		t;

	(void)state;
	one_rank(&t, "node1", "0", 1000.0, 10.0, GPU_A, 2000.0, 700.0);
	add_rank(&job, &t, "r0.csv");
	/* Touching is not overlapping. */
	one_rank(&t, "node1", "1", 1010.0, 10.0, GPU_A, 2500.0, 900.0);
	add_rank(&job, &t, "r1.csv");
	one_rank(&t, "node1", "2", 1030.0, 5.0, GPU_A, 100.0, 50.0);
	add_rank(&job, &t, "r2.csv");
	total(&job);

	assert_int_equal(job.ngroups, 3);
	assert_float_equal(job.energy_j, 4600.0, EPS);
	assert_float_equal(job.workload_j, 1650.0, EPS);
	assert_int_equal(job.n_energy, 3);
	assert_float_equal(job.end_s - job.start_s, 35.0, EPS);
	merge_job_free(&job);
}

/* Windows that chain (a with b, b with c, not a with c) are one measurement. */
static void
test_overlap_chain(void **state)
{
	struct merge_job	job = { 0 };
	struct text		t;

	(void)state;
	one_rank(&t, "node1", "0", 1000.0, 10.0, GPU_A, 10.0, 1.0);
	add_rank(&job, &t, "r0.csv");
	one_rank(&t, "node1", "1", 1005.0, 10.0, GPU_A, 20.0, 2.0);
	add_rank(&job, &t, "r1.csv");
	one_rank(&t, "node1", "2", 1012.0, 11.0, GPU_A, 30.0, 4.0);
	add_rank(&job, &t, "r2.csv");
	total(&job);

	assert_int_equal(job.ngroups, 1);
	assert_int_equal(job.groups[0].nmembers, 3);
	/* Rank 2's 30 J (1012 to 1023), rank 0's 10 J (1000 to 1010), 2/10 of rank 1's 20 J. */
	assert_float_equal(job.energy_j, 30.0 + 10.0 + 4.0, EPS);
	assert_float_equal(job.workload_j, 7.0, EPS);
	merge_job_free(&job);
}

/* Other hosts are other GPUs, whatever their ids. */
static void
test_other_hosts_counted(void **state)
{
	struct merge_job	job = { 0 };
	struct text		t;

	(void)state;
	one_rank(&t, "node1", "0", 1000.0, 10.0, GPU_A, 2000.0, 700.0);
	add_rank(&job, &t, "r0.csv");
	one_rank(&t, "node2", "1", 1000.0, 10.0, GPU_A, 2100.0, 750.0);
	add_rank(&job, &t, "r1.csv");
	/* A second GPU on node1, at the same time as rank 0's. */
	one_rank(&t, "node1", "2", 1001.0, 10.0, GPU_B, 500.0, 100.0);
	add_rank(&job, &t, "r2.csv");
	total(&job);

	assert_int_equal(job.nhosts, 2);
	assert_int_equal(job.ngroups, 3);
	assert_float_equal(job.energy_j, 4600.0, EPS);
	assert_float_equal(job.workload_j, 1550.0, EPS);
	/* By host, then device index, then id: node1's two first. */
	assert_string_equal(job.ranks[job.groups[0].kept_rank].host, "node1");
	assert_string_equal(kept(&job, 0)->id, GPU_A);
	assert_string_equal(kept(&job, 1)->id, GPU_B);
	assert_string_equal(job.ranks[job.groups[2].kept_rank].host, "node2");
	merge_job_free(&job);
}

/* Without start times nothing tells the windows apart: one host, one measurement. */
static void
test_unknown_windows(void **state)
{
	struct merge_job	job = { 0 };
	struct text		t;
	int			r;

	(void)state;
	for (r = 0; r < 2; r++) {
		begin(&t);
		add(&t, "2,\"run\",1,\"node1\",\"%d\",\"\",,,1.5,,,,,,,,,\n", r);
		add(&t, "2,\"device\",1,\"node1\",\"%d\",\"\",,,,0,\"%s\",,,,%d,%d,,\n", r, GPU_A,
		    r + 1, 100 * (r + 1));
		add_rank(&job, &t, r == 0 ? "a.csv" : "b.csv");
	}
	total(&job);
	assert_int_equal(job.ngroups, 1);
	/* The longer window's figures: rank 1's 2 s. */
	assert_float_equal(job.energy_j, 200.0, EPS);
	assert_false(job.has_time);
	assert_int_equal(job.n_workload, 0);
	merge_job_free(&job);
}

/* -r: the mean over the numbered runs; the "mean" and "stddev" rows are not read. */
static void
test_repeat_mean(void **state)
{
	struct merge_job	 job = { 0 };
	struct text		 t;
	const struct merge_dev	*d;
	const double		 e[3] = { 10.0, 20.0, 60.0 };
	int			 run;

	(void)state;
	begin(&t);
	for (run = 1; run <= 3; run++) {
		add_run(&t, "node1", "3", "42", run, 1000.0 + 10 * run, 2.0);
		add_dev(&t, "node1", "3", "42", run, 0, GPU_A, 2.0, e[run - 1], e[run - 1] / 4);
	}
	add(&t, "2,\"run\",\"mean\",\"node1\",\"3\",\"42\",,\"x, y\",777,,,,,,,,,\n");
	add(&t, "2,\"device\",\"mean\",\"node1\",\"3\",\"42\",,\"x, y\",,0,\"%s\",,,,,9999,,\n",
	    GPU_A);
	add(&t, "2,\"device\",\"stddev\",\"node1\",\"3\",\"42\",,\"x, y\",,0,\"%s\",,,,,8888,,\n",
	    GPU_A);
	add_rank(&job, &t, "r3.csv");
	total(&job);

	assert_int_equal(job.ranks[0].nruns, 3);
	assert_float_equal(job.ranks[0].wall_s, 2.0, EPS);
	d = &job.ranks[0].devs[0];
	assert_int_equal(d->n_energy, 3);
	assert_float_equal(d->energy_j, 30.0, EPS);
	assert_float_equal(d->workload_j, 7.5, EPS);
	assert_float_equal(d->start_s, 1010.0, EPS);
	assert_float_equal(d->end_s, 1032.0, EPS);
	assert_float_equal(job.energy_j, 30.0, EPS);
	assert_float_equal(job.workload_j, 7.5, EPS);
	assert_float_equal(job.end_s - job.start_s, 22.0, EPS);
	merge_job_free(&job);
}

/*
 * Bounds: a rank's device bound is the mean of its runs' (as -r's), a
 * total adds them, a phase's too; a file without energy_err_j (written
 * before bounds) makes every sum it is in unknown, never 0.
 */
static const char HEADER_ERR[] =
    "schema_version,scope,run,host,rank,job,start_unix_s,wall_s,device,device_id,phase,"
    "time_s,energy_j,energy_err_j\n";

static void
add_bounded(struct text *t, const char *rank, int run, double start, const char *id,
    double energy, double err)
{
	add(t, "2,\"run\",%d,\"n1\",\"%s\",\"7\",%.6f,1.0,,,,,,\n", run, rank, start);
	add(t, "2,\"device\",%d,\"n1\",\"%s\",\"7\",,,0,\"%s\",,1.0,%.6f,%.6f\n", run, rank, id,
	    energy, err);
	add(t, "2,\"phase\",%d,\"n1\",\"%s\",\"7\",,0.5,0,\"%s\",\"solve\",,%.6f,%.6f\n", run,
	    rank, id, energy / 2, err / 2);
}

static void
test_bounds(void **state)
{
	struct merge_job	 job = { 0 };
	struct text		 t;
	const struct merge_dev	*d;

	(void)state;
	t.len = 0;
	add(&t, "%s", HEADER_ERR);
	add_bounded(&t, "0", 1, 1000.0, GPU_A, 100.0, 0.2);
	add_bounded(&t, "0", 2, 1010.0, GPU_A, 110.0, 0.4);
	add_rank(&job, &t, "r0.csv");
	t.len = 0;
	add(&t, "%s", HEADER_ERR);
	add_bounded(&t, "1", 1, 1000.0, GPU_B, 50.0, 0.5);
	add_rank(&job, &t, "r1.csv");
	total(&job);
	d = &job.ranks[0].devs[0];
	assert_int_equal(d->n_energy_err, 2);
	assert_float_equal(d->energy_err_j, 0.3, EPS);
	assert_true(merge_has_bound(job.n_energy, job.n_energy_err));
	assert_float_equal(job.energy_j, 155.0, EPS);
	assert_float_equal(job.energy_err_j, 0.8, EPS);
	assert_int_equal(job.nphases, 1);
	assert_true(merge_has_bound(job.phases[0].n_energy, job.phases[0].n_energy_err));
	assert_float_equal(job.phases[0].energy_err_j, 0.4, EPS);
	merge_job_free(&job);

	/* The same ranks and one from before bounds: the total's bound is unknown. */
	memset(&job, 0, sizeof job);
	t.len = 0;
	add(&t, "%s", HEADER_ERR);
	add_bounded(&t, "0", 1, 1000.0, GPU_A, 100.0, 0.2);
	add_rank(&job, &t, "r0.csv");
	begin(&t);
	add_run(&t, "n1", "1", "7", 1, 1000.0, 1.0);
	add_dev(&t, "n1", "1", "7", 1, 0, GPU_B, 1.0, 50.0, 1.0);
	add_rank(&job, &t, "r1.csv");
	total(&job);
	assert_float_equal(job.energy_j, 150.0, EPS);
	assert_int_equal(job.n_energy_err, 1);
	assert_false(merge_has_bound(job.n_energy, job.n_energy_err));
	merge_job_free(&job);
}

/* A runs that lacks a figure leaves it out of the mean, as csvout's series do. */
static void
test_repeat_mean_known_only(void **state)
{
	struct merge_rank	r;
	struct errbuf		err = { "" };
	struct text		t;

	(void)state;
	begin(&t);
	add_run(&t, "n", "0", "", 1, 100.0, 1.0);
	add(&t, "2,\"device\",1,\"n\",\"0\",\"\",,,,0,\"%s\",,,,1.0,50,,\n", GPU_A);
	add_run(&t, "n", "0", "", 2, 102.0, 1.0);
	add(&t, "2,\"device\",2,\"n\",\"0\",\"\",,,,0,\"%s\",,,,1.0,70,,12\n", GPU_A);
	assert_int_equal(merge_parse_text(&r, "f.csv", t.buf, t.len, &err), 0);
	assert_float_equal(r.devs[0].energy_j, 60.0, EPS);
	assert_int_equal(r.devs[0].n_workload, 1);
	assert_float_equal(r.devs[0].workload_j, 12.0, EPS);
	merge_rank_free(&r);
}

/* Bad texts and the cause each must give. */
static const struct {
	const char	*text;
	const char	*cause;
} bad_texts[] = {
	{ "", "f.csv: empty file" },
	{ "scope,run,device_id\n\"run\",1,\n", "f.csv: not a joulestat summary (no energy_j column)" },
	{ "a,b\n1,2\n", "f.csv: not a joulestat summary (no scope column)" },
	{ "scope,run,device_id,energy_j\n\"device\",1,\"g\",1\n",
	    "f.csv: no numbered run rows (not a joulestat summary)" },
	{ "scope,run,device_id,energy_j\n\"run\",1,,\n\"device\",1,\"g\",abc\n",
	    "f.csv: line 3: energy_j 'abc' is not a number" },
	{ "scope,run,device_id,energy_j\n\"run\",1,,\n\"device\",1,\"g\",nan\n",
	    "f.csv: line 3: energy_j 'nan' is not a number" },
	{ "scope,run,device_id,energy_j\n\"run\",1,,\n\"device\",1,\"g\",1e300\n",
	    "f.csv: line 3: energy_j '1e300' is out of range" },
	{ "scope,run,device_id,energy_j,time_s\n\"run\",1,,,\n\"device\",1,\"g\",1,-2\n",
	    "f.csv: line 3: time_s '-2' is out of range" },
	{ "scope,run,device_id,energy_j,start_unix_s\n\"run\",1,,,12:00\n",
	    "f.csv: line 2: start_unix_s '12:00' is not a number" },
	{ "scope,run,device_id,energy_j\n\"run\",x,,\n", "f.csv: line 2: run 'x' is not a run number" },
	{ "scope,run,device_id,energy_j\n\"run\",1,,\n\"run\",1,,\n",
	    "f.csv: line 3: run 1 appears twice (also line 2)" },
	{ "scope,run,device_id,energy_j\n\"run\",1,,\n\"device\",2,\"g\",1\n",
	    "f.csv: line 3: device row of run 2, which has no run row" },
	{ "scope,run,device_id,energy_j\n\"run\",1,,\n\"device\",1,,1\n",
	    "f.csv: line 3: device row without a device_id" },
	{ "scope,run,device_id,energy_j\n\"run\",1,,\n\"device\",1,\"g\",1\n\"device\",1,\"g\",2\n",
	    "f.csv: line 4: device_id 'g' appears twice in run 1 (also line 3)" },
	{ "scope,run,device_id,energy_j,device\n\"run\",1,,,\n\"device\",1,\"g\",1,-1\n",
	    "f.csv: line 3: device '-1' is not a device index" },
	{ "scope,run,host,rank,device_id,energy_j\n\"run\",1,\"a\",\"0\",,\n"
	    "\"device\",1,\"b\",\"0\",\"g\",1\n",
	    "f.csv: line 3: host 'b' differs from 'a' on line 2 (one file is one rank's summary)" },
	{ "scope,run,rank,device_id,energy_j\n\"run\",1,\"one\",,\n",
	    "f.csv: line 2: rank 'one' is not a rank number" },
	{ "scope,run,device_id,energy_j\n\"run\",1,,\n\"device\",1,\"g\",\"1\n",
	    "f.csv: line 3: " },
	{ "scope,run,device_id,energy_j\n\"run\",1,,\n\"device\",1,\"\x1b[31m\",\"\x01\"\n",
	    "f.csv: line 3: energy_j '\\x01' is not a number" },
};

static void
test_malformed(void **state)
{
	struct merge_rank	r;
	struct errbuf		err;
	size_t			i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad_texts); i++) {
		err.msg[0] = '\0';
		assert_int_equal(merge_parse_text(&r, "f.csv", bad_texts[i].text,
		    strlen(bad_texts[i].text), &err), -1);
		if (strncmp(err.msg, bad_texts[i].cause, strlen(bad_texts[i].cause)) != 0)
			fail_msg("text %zu: cause '%s', expected '%s'", i, err.msg,
			    bad_texts[i].cause);
		assert_null(strchr(err.msg, '\n'));
		merge_rank_free(&r);
	}
}

/* Files of two jobs, and one (host, rank) twice, are refused. */
static void
test_job_mixing_and_twice(void **state)
{
	struct merge_job	job = { 0 };
	struct merge_rank	r;
	struct errbuf		err = { "" };
	struct text		t;

	(void)state;
	one_rank(&t, "node1", "0", 1000.0, 10.0, GPU_A, 1.0, 1.0);
	add_rank(&job, &t, "r0.csv");
	begin(&t);
	add_run(&t, "node1", "1", "43", 1, 1000.0, 1.0);
	assert_int_equal(merge_parse_text(&r, "j43.csv", t.buf, t.len, &err), 0);
	assert_int_equal(merge_job_add(&job, &r, &err), -1);
	assert_string_equal(err.msg, "j43.csv: job 43, but r0.csv has job 42: merge one job at a time");
	merge_rank_free(&r);
	/* A file outside a job does not mix with one inside. */
	begin(&t);
	add_run(&t, "node1", "1", "", 1, 1000.0, 1.0);
	assert_int_equal(merge_parse_text(&r, "nojob.csv", t.buf, t.len, &err), 0);
	assert_int_equal(merge_job_add(&job, &r, &err), -1);
	assert_string_equal(err.msg,
	    "nojob.csv: no job id, but r0.csv has job 42: merge one job at a time");
	merge_rank_free(&r);

	one_rank(&t, "node1", "0", 2000.0, 10.0, GPU_A, 1.0, 1.0);
	add_rank(&job, &t, "again.csv");
	assert_int_equal(merge_job_total(&job, &err), -1);
	assert_string_equal(err.msg, "r0.csv: host node1 rank 0 is also in again.csv");
	merge_job_free(&job);

	one_rank(&t, "node1", "0", 1000.0, 10.0, GPU_A, 1.0, 1.0);
	add_rank(&job, &t, "r0.csv");
	add_rank(&job, &t, "r0.csv");
	assert_int_equal(merge_job_total(&job, &err), -1);
	assert_string_equal(err.msg, "r0.csv: given twice");
	merge_job_free(&job);
}

/* All job fields empty is one job (runs outside a batch system). */
static void
test_no_job_ids(void **state)
{
	struct merge_job	job = { 0 };
	struct text		t;
	int			r;

	(void)state;
	for (r = 0; r < 2; r++) {
		begin(&t);
		add_run(&t, "node1", r == 0 ? "0" : "1", "", 1, 1000.0, 1.0);
		add_dev(&t, "node1", r == 0 ? "0" : "1", "", 1, 0, GPU_A, 1.0, 10.0, 1.0);
		add_rank(&job, &t, r == 0 ? "a.csv" : "b.csv");
	}
	total(&job);
	assert_int_equal(job.ngroups, 1);
	assert_float_equal(job.energy_j, 10.0, EPS);
	merge_job_free(&job);
}

/*
 * Two ranks sharing GPU_A, rank 1 with GPU_B too.  GPU_A over the union,
 * 1000 to 1011 s: rank 0's 2000 J, and 1/10 of rank 1's 1990 J.
 */
static void
shared_job(struct merge_job *job)
{
	struct text	t;

	one_rank(&t, "node1", "0", 1000.0, 10.0, GPU_A, 2000.0, 700.0);
	add_rank(job, &t, "r0.csv");
	begin(&t);
	add_run(&t, "node1", "1", "42", 1, 1001.0, 10.0);
	add_dev(&t, "node1", "1", "42", 1, 0, GPU_A, 10.0, 1990.0, 650.0);
	add_dev(&t, "node1", "1", "42", 1, 1, GPU_B, 10.0, 400.0, 0.0);
	add_rank(job, &t, "dir, with \"quotes\"/r1.csv");
	total(job);
}

/* Field i of the row whose scope is scope (the first one), or NULL. */
static const char *
csv_field(const struct csvin *t, const char *scope, const char *col)
{
	size_t	row;

	for (row = 1; row < t->nrows; row++) {
		if (strcmp(csvin_get(t, row, csvin_col(t, "scope")), scope) == 0)
			return csvin_get(t, row, csvin_col(t, col));
	}
	return NULL;
}

static void
test_csv_output(void **state)
{
	struct merge_job	 job = { 0 };
	struct csvin		 t;
	struct errbuf		 err = { "" };
	char			*buf = NULL;
	size_t			 len = 0, row;
	FILE			*f;

	(void)state;
	shared_job(&job);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(merge_write_csv(f, &job), 0);
	fclose(f);
	assert_int_equal(csvin_parse(&t, buf, len, &err), 0);
	/* Header, job, two ranks, two devices; every row as wide as the header. */
	assert_int_equal(t.nrows, 6);
	for (row = 1; row < t.nrows; row++)
		assert_int_equal(t.rows[row].n, t.rows[0].n);
	assert_string_equal(t.rows[0].f[0], "schema_version");
	assert_string_equal(csv_field(&t, "job", "energy_j"), "2599.000000");
	assert_string_equal(csv_field(&t, "job", "workload_energy_j"), "1350.000000");
	assert_string_equal(csv_field(&t, "job", "ranks"), "2");
	assert_string_equal(csv_field(&t, "job", "devices"), "2");
	assert_string_equal(csv_field(&t, "job", "wall_s"), "11.000000");
	assert_string_equal(csv_field(&t, "device", "measured_by"), "0 1");
	assert_string_equal(csv_field(&t, "device", "workload_energy_j"), "1350.000000");
	assert_string_equal(csvin_get(&t, 3, csvin_col(&t, "file")), "dir, with \"quotes\"/r1.csv");
	assert_string_equal(csvin_get(&t, 2, csvin_col(&t, "device_id")), "");
	csvin_free(&t);
	free(buf);
	merge_job_free(&job);
}

static void
test_json_output(void **state)
{
	struct merge_job	 job = { 0 };
	json_error_t		 jerr;
	json_t			*root, *dev;
	char			*buf = NULL;
	size_t			 len = 0;
	FILE			*f;

	(void)state;
	shared_job(&job);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(merge_write_json(f, &job), 0);
	fclose(f);
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL)
		fail_msg("%s", jerr.text);
	assert_int_equal(json_integer_value(json_object_get(root, "schema_version")), 1);
	assert_string_equal(json_string_value(json_object_get(root, "job")), "42");
	assert_int_equal(json_array_size(json_object_get(root, "ranks")), 2);
	assert_int_equal(json_array_size(json_object_get(root, "devices")), 2);
	dev = json_array_get(json_object_get(root, "devices"), 0);
	assert_int_equal(json_array_size(json_object_get(dev, "measured_by")), 2);
	assert_float_equal(json_real_value(json_object_get(dev, "energy_j")), 2199.0, EPS);
	assert_float_equal(json_real_value(json_object_get(json_object_get(root, "totals"),
	    "energy_j")), 2599.0, EPS);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(root, "totals"),
	    "hosts")), 1);
	json_decref(root);
	free(buf);
	merge_job_free(&job);
}

/* Bytes that are not UTF-8 in a host name still make valid JSON. */
static void
test_json_not_utf8(void **state)
{
	struct merge_job	 job = { 0 };
	struct text		 t;
	json_error_t		 jerr;
	json_t			*root;
	char			*buf = NULL;
	size_t			 len = 0;
	FILE			*f;

	(void)state;
	one_rank(&t, "n\xff\xfe", "0", 1000.0, 10.0, GPU_A, 1.0, 1.0);
	add_rank(&job, &t, "r0.csv");
	total(&job);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(merge_write_json(f, &job), 0);
	fclose(f);
	root = json_loadb(buf, len, 0, &jerr);
	if (root == NULL)
		fail_msg("%s", jerr.text);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(root, "ranks"), 0), "host")), "n\xef\xbf\xbd\xef\xbf\xbd");
	json_decref(root);
	free(buf);
	merge_job_free(&job);
}

static void
test_report(void **state)
{
	struct merge_job	 job = { 0 };
	char			*buf = NULL;
	size_t			 len = 0;
	FILE			*f;

	(void)state;
	shared_job(&job);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(merge_write_report(f, &job), 0);
	fclose(f);
	assert_non_null(strstr(buf, " joulestat merge: job 42, 2 ranks on 1 host\n"));
	assert_non_null(strstr(buf, "job wall time      11.000 s"));
	assert_non_null(strstr(buf, "0, 1 (shared, counted once: figures of rank 0, and of the "
	    "others where their windows reach beyond it, pro-rated)"));
	/* Summaries written before bounds: the total is known, its bound is not. */
	assert_non_null(strstr(buf, "   energy             2599.000 J = 0.7219 Wh (bound unknown: "));
	assert_non_null(strstr(buf, "   workload           1350.000 J"));
	free(buf);
	merge_job_free(&job);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlap_counted_once),
		cmocka_unit_test(test_apart_summed),
		cmocka_unit_test(test_overlap_chain),
		cmocka_unit_test(test_other_hosts_counted),
		cmocka_unit_test(test_unknown_windows),
		cmocka_unit_test(test_repeat_mean),
		cmocka_unit_test(test_repeat_mean_known_only),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_job_mixing_and_twice),
		cmocka_unit_test(test_no_job_ids),
		cmocka_unit_test(test_csv_output),
		cmocka_unit_test(test_json_output),
		cmocka_unit_test(test_json_not_utf8),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
